// A lowdb adapter that never leaves a half-written file: it writes a temporary file beside the
// target (mode 0600: cookies are credentials), fsyncs it, renames it over the target (atomic on
// POSIX file systems) and fsyncs the directory. A crash at any point leaves the old file or the
// new one. lowdb's own JSONFile (steno) renames too, but neither fsyncs nor sets the mode.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';

export const STATE_FILE_MODE = 0o600;
export const STATE_DIR_MODE = 0o700;

/** The JSON in the file could not be parsed. */
export class CorruptJsonFileError extends Error {
  readonly file: string;

  constructor(file: string, cause: unknown) {
    super(`${file} is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'CorruptJsonFileError';
    this.file = file;
  }
}

export class AtomicJsonFile<T> implements Adapter<T> {
  readonly file: string;
  /** Completed writes, for tests and diagnostics. */
  writes = 0;

  constructor(file: string) {
    this.file = file;
  }

  /** The parsed contents; null when the file does not exist. Throws CorruptJsonFileError for bad JSON. */
  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new CorruptJsonFileError(this.file, error);
    }
  }

  async write(data: T): Promise<void> {
    const directory = dirname(this.file);
    await mkdir(directory, { recursive: true, mode: STATE_DIR_MODE });
    const temporary = join(directory, `.${basename(this.file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const handle = await open(temporary, 'wx', STATE_FILE_MODE);
    try {
      await handle.writeFile(`${JSON.stringify(data, null, 2)}\n`, 'utf8');
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(temporary, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await rename(temporary, this.file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncDirectory(directory);
    this.writes++;
  }
}

/** Makes the rename itself durable. Some file systems refuse to fsync a directory; that is fine. */
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

/** Temporary files a crash may have left beside `file` (they never replaced it, so they are junk). */
export function isLeftoverTemporaryOf(file: string, candidate: string): boolean {
  return candidate.startsWith(`.${basename(file)}.`) && candidate.endsWith('.tmp');
}

/**
 * Moves a state file wrtui cannot use (bad JSON, the wrong shape) to `<file>.corrupt-<time>`, so
 * that it is never overwritten: the user may want it back. Returns where it went.
 */
export async function setAside(file: string, now: number = Date.now()): Promise<string> {
  const aside = `${file}.corrupt-${new Date(now).toISOString().replace(/[:.]/g, '-')}`;
  await rename(file, aside);
  return aside;
}
