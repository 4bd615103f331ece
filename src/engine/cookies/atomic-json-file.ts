// A lowdb adapter that never leaves a half-written file: private-file.ts writes a temporary file
// beside the target (mode 0600: cookies are credentials), fsyncs it, renames it over the target
// (atomic on POSIX file systems) and fsyncs the directory. A crash at any point leaves the old file
// or the new one. lowdb's own JSONFile (steno) renames too, but neither fsyncs nor sets the mode.
import { mkdir, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Adapter } from 'lowdb';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, writePrivateFile } from '../private-file.js';

export { isLeftoverTemporaryOf } from '../private-file.js';
export const STATE_FILE_MODE = PRIVATE_FILE_MODE;
export const STATE_DIR_MODE = PRIVATE_DIR_MODE;

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
    await mkdir(dirname(this.file), { recursive: true, mode: STATE_DIR_MODE });
    await writePrivateFile(this.file, `${JSON.stringify(data, null, 2)}\n`, { replace: true });
    this.writes++;
  }
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
