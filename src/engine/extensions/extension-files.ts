// An extension's own files as its URLs name them (chrome-extension://<id>/<path>): for a redirect to
// a web accessible resource (served on the proxy thread) and for the extension's own fetch of its
// files (in its worker). Read asynchronously, regular files only, never outside the folder.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.htm': 'text/html', '.json': 'application/json',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.webp': 'image/webp', '.ico': 'image/x-icon',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.otf': 'font/otf', '.wasm': 'application/wasm', '.txt': 'text/plain', '.xml': 'text/xml',
  '.mp3': 'audio/mpeg', '.mp4': 'video/mp4', '.webm': 'video/webm',
};

export interface ExtensionFile {
  bytes: Uint8Array;
  type: string;
}

/** The path `url` names inside an extension's folder, decoded then normalised; undefined when it climbs out. */
export function extensionRelativePath(url: URL): string | undefined {
  let relative: string;
  try {
    // Decoded, then normalised: images/..%2fsecret.png is secret.png, which a pattern must list itself.
    relative = path.posix.normalize(decodeURIComponent(url.pathname)).replace(/^\/+/, '');
  } catch {
    return undefined;
  }
  return relative.startsWith('..') ? undefined : relative;
}

/** The regular file at `relative` in `folder`, with its type; undefined when there is none (or it is outside). */
export async function readExtensionFile(folder: string, relative: string): Promise<ExtensionFile | undefined> {
  try {
    const root = await realpath(folder);
    const file = await realpath(path.join(root, relative));
    // Never a file outside the extension's folder (../, a symbolic link out of it), nor anything but a file.
    if (file !== root && !file.startsWith(root + path.sep)) return undefined;
    if (!(await stat(file)).isFile()) return undefined;
    return { bytes: await readFile(file), type: TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream' };
  } catch {
    return undefined;
  }
}
