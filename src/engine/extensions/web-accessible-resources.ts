// An extension's web accessible resources, as a redirect to its URL is answered: LocalCDN and
// Decentraleyes redirect a CDN's script to their own copy, uBlock Origin Lite's DNR rules to a
// neutered script (`redirect.extensionPath`). The browser serves such a file itself when the
// manifest lists it (MV2: a list of paths; MV3: objects whose `resources` list them), `*` matching
// any run of characters; anything else fails with net::ERR_BLOCKED_BY_CLIENT (Chromium 156).
// wrtui does not check MV3's `matches` (the pages allowed to load it): a proxy knows the page only
// from the request's Referer. The file is read asynchronously, and only a regular file: the lookup
// runs on the proxy thread, where a large file or a FIFO read synchronously would stall every request.
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.htm': 'text/html', '.json': 'application/json',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.webp': 'image/webp', '.ico': 'image/x-icon',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf', '.otf': 'font/otf', '.wasm': 'application/wasm', '.txt': 'text/plain', '.xml': 'text/xml',
  '.mp3': 'audio/mpeg', '.mp4': 'video/mp4', '.webm': 'video/webm',
};

/** The manifest's web_accessible_resources as patterns over paths relative to the extension's folder. */
export function webAccessiblePatterns(manifest: Record<string, unknown>): RegExp[] {
  const entries = Array.isArray(manifest.web_accessible_resources) ? manifest.web_accessible_resources : [];
  const paths = entries.flatMap((entry: unknown) =>
    typeof entry === 'string' ? [entry] : typeof entry === 'object' && entry !== null && Array.isArray((entry as { resources?: unknown }).resources) ? (entry as { resources: unknown[] }).resources.filter((item): item is string => typeof item === 'string') : [],
  );
  return paths.map((glob) => new RegExp(`^${glob.replace(/^\/+/, '').split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`));
}

/** The file `url` names in the extension at `folder`, when it is web accessible there; undefined otherwise. */
export async function webAccessibleResource(folder: string, patterns: readonly RegExp[], url: URL): Promise<{ bytes: Uint8Array; type: string } | undefined> {
  let relative: string;
  try {
    // Decoded, then normalised: images/..%2fsecret.png is secret.png, which a pattern must list itself.
    relative = path.posix.normalize(decodeURIComponent(url.pathname)).replace(/^\/+/, '');
  } catch {
    return undefined;
  }
  if (relative.startsWith('..') || !patterns.some((pattern) => pattern.test(relative))) return undefined;
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
