// Every file wrtui writes that may hold credentials (state files, recordings, HAR, journal and curl
// exports, quick rules) is made here, one way: created 0600 under a temporary name beside the
// target (O_EXCL: never through a symbolic link, never over another file), written, fsynced, then
// published in one step. Publishing never replaces what is there unless asked (link(), which fails
// on any existing name, a dangling link included); asked, rename() replaces the name itself, so a
// symbolic link there is replaced, never written through, and the result is 0600 whatever the old
// file's mode was. A crash leaves the old file or the new one, and at worst a `.<name>.*.tmp`.
import { randomBytes } from 'node:crypto';
import { chmod, link, lstat, mkdir, open, rename, rm, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** The target exists and the caller did not ask to replace it. */
export class FileExistsError extends Error {
  readonly code = 'EEXIST';
  readonly path: string;

  constructor(path: string) {
    super(`${path} exists: not overwritten`);
    this.name = 'FileExistsError';
    this.path = path;
  }
}

export interface PrivateFileWriter {
  /** Appends text or bytes; resolves once the file has them (writes are batched up to 1 MiB). */
  write(data: string | Uint8Array): Promise<void>;
}

export interface WritePrivateFileOptions {
  /** Replace an existing file (--force, or a state file rewritten); otherwise an existing name is refused with FileExistsError. */
  replace?: boolean;
}

const BATCH_BYTES = 1 << 20;

/** The temporary name a write uses beside `file` (isLeftoverTemporaryOf recognises it). */
function temporaryBeside(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Temporary files a crash may have left beside `file` (they never replaced it, so they are junk). */
export function isLeftoverTemporaryOf(file: string, candidate: string): boolean {
  return candidate.startsWith(`.${basename(file)}.`) && candidate.endsWith('.tmp');
}

/**
 * Writes `file` whole: `content`, or what `produce` writes (streamed: a HAR can be longer than any
 * string). Resolves once it is durable under its name; throws FileExistsError for an existing
 * name unless `replace`. The folder must exist.
 */
export async function writePrivateFile(file: string, content: string | Uint8Array | ((out: PrivateFileWriter) => Promise<void>), options: WritePrivateFileOptions = {}): Promise<void> {
  // Refused before any work; publishing checks again, atomically.
  if (!options.replace) await refuseExisting(file);
  const temporary = temporaryBeside(file);
  const handle = await open(temporary, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.chmod(PRIVATE_FILE_MODE); // open()'s mode passes through the umask; make it exact
    if (typeof content === 'function') await produce(handle, content);
    else await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await publish(temporary, file, options.replace ?? false);
  } finally {
    await rm(temporary, { force: true });
  }
  await syncDirectory(dirname(file));
}

/** Throws FileExistsError when anything has that name: a refusal before work whose result would be refused. */
export async function refuseExisting(file: string): Promise<void> {
  if (await exists(file)) throw new FileExistsError(file);
}

/**
 * Writes `<dir>/<name><ext>` or, when that exists, `<name>-2<ext>`, `<name>-3<ext>`, … (never
 * over a file); resolves with the path written. For files whose name wrtui picks (TUI exports,
 * quick rules).
 */
export async function writePrivateFileUnderFreeName(dir: string, fileName: string, content: string): Promise<string> {
  const ext = extname(fileName);
  const stem = fileName.slice(0, fileName.length - ext.length);
  for (let attempt = 1; ; attempt++) {
    const path = join(dir, `${stem}${attempt === 1 ? '' : `-${attempt}`}${ext}`);
    try {
      await writePrivateFile(path, content);
      return path;
    } catch (error) {
      if (!(error instanceof FileExistsError) || attempt >= 100) throw error;
    }
  }
}

/**
 * Creates `file` for appending (a recording, which grows for hours and must be on disk under its
 * name as it goes, so it cannot be renamed into place at the end): O_EXCL refuses any existing
 * name, a symbolic link included, and the mode is 0600 from the first byte.
 */
export async function createPrivateFile(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'ax', PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new FileExistsError(file);
    throw error;
  }
  await handle.chmod(PRIVATE_FILE_MODE);
  return handle;
}

/**
 * Makes `dir` (0700) if it is missing. An existing one others can read or enter is tightened to
 * 0700 when it is this user's and not a shared sticky folder (/tmp); otherwise it is left alone.
 * Returns a warning for the journal in either case (undefined when all was well).
 */
export async function ensurePrivateDir(dir: string): Promise<string | undefined> {
  await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const info = await stat(dir);
  const mode = info.mode & 0o7777;
  if ((mode & 0o077) === 0) return undefined;
  const mine = typeof process.getuid !== 'function' || info.uid === process.getuid();
  if (mine && (mode & 0o1000) === 0) {
    try {
      await chmod(dir, PRIVATE_DIR_MODE);
      return `${dir} was open to other users (mode ${octal(mode)}); changed it to ${octal(PRIVATE_DIR_MODE)}: it holds cookies and the CA key`;
    } catch (error) {
      return `${dir} is open to other users (mode ${octal(mode)}) and could not be changed (${(error as Error).message}): it holds cookies and the CA key; use a private --state-dir`;
    }
  }
  return `${dir} is open to other users (mode ${octal(mode)}${mine ? ', a shared folder' : ', owned by another user'}): it holds cookies and the CA key; use a private --state-dir`;
}

async function produce(handle: FileHandle, content: (out: PrivateFileWriter) => Promise<void>): Promise<void> {
  let pending: (string | Uint8Array)[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const chunk = Buffer.concat(pending.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part)));
    pending = [];
    pendingBytes = 0;
    await handle.write(chunk);
  };
  await content({
    async write(data) {
      pending.push(data);
      pendingBytes += data.length;
      if (pendingBytes >= BATCH_BYTES) await flush();
    },
  });
  await flush();
}

async function publish(temporary: string, file: string, replace: boolean): Promise<void> {
  if (replace) return rename(temporary, file);
  try {
    await link(temporary, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new FileExistsError(file);
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
    // A file system without hard links: check, then rename (a race with another writer is possible there).
    if (await exists(file)) throw new FileExistsError(file);
    await rename(temporary, file);
    return;
  }
  await unlink(temporary);
}

/** Whether anything has that name: a file, a folder, a symbolic link (dangling or not). */
async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** Makes a rename durable. Some file systems refuse to fsync a directory; that is fine. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort.
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8)}`;
}
