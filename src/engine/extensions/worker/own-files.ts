// The extension's own files as its scripts name them, on a worker thread's Node side (the
// extension's, and each dedicated Worker's): the file a URL of its origin names, the URL of a file,
// and a file's text, never one outside its folder: a URL keeps `%2f` as it is, so
// `importScripts('..%2f..%2fsecret')` stays on the extension's origin and decodes to a path that
// climbs out of it, and a symbolic link out of the folder is not followed.
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { extensionRelativePath } from '../extension-files.js';

export class OwnFiles {
  /** The folder as the boot names it (the background's files are named so in stack traces). */
  readonly root: string;
  /** The folder with its symbolic links resolved. */
  readonly folder: string;
  /** chrome-extension://id (or moz-extension://uuid), without a trailing slash. */
  readonly origin: string;

  constructor(root: string, origin: string) {
    this.root = path.resolve(root);
    this.folder = realFolder(root);
    this.origin = origin.replace(/\/+$/, '');
  }

  /** The file a URL on the extension's origin names; undefined for another origin or one climbing out. */
  fileOf(url: string): string | undefined {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined;
    }
    if (`${parsed.protocol}//${parsed.host}` !== this.origin) return undefined;
    const relative = extensionRelativePath(parsed);
    return relative === undefined ? undefined : path.join(this.root, relative);
  }

  /** The URL of one of its files (as it is, when outside the folder). */
  urlOf(file: string): string {
    const root = [this.root, this.folder].find((folder) => file.startsWith(folder + path.sep));
    return root === undefined ? file : `${this.origin}/${path.relative(root, file).split(path.sep).join('/')}`;
  }

  /** A file's text (importScripts, background and worker scripts); throws when it is outside the folder or not there. */
  read(file: string): string {
    // Resolved through symbolic links too, as its fetch is (extension-files.ts).
    const resolved = realpathSync(file);
    if (resolved !== this.folder && !resolved.startsWith(this.folder + path.sep)) throw new Error(`${file} is outside the extension's folder`);
    return readFileSync(resolved, 'utf8');
  }
}

/** `folder` with its symbolic links resolved (as it is, if it cannot be). */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}
