// Cookie store "0" survives restarts: its persistent cookies live in `<state-dir>/cookies.json`
// (lowdb over AtomicJsonFile). As in a browser, session cookies are not saved and the incognito
// store "1" never touches the disk.
//
// Writes are coalesced: a change arms a short debounce (default 50 ms), further changes push it
// back, but never past a maximum delay (default 1 s) after the first unsaved change, so a burst of
// Set-Cookie headers costs one write and a steady trickle still reaches the disk. flush() writes
// now; close() flushes and stops. Reading cookies (which updates their last-access time) does not
// trigger a write; the new access times ride along with the next one.
//
// Loading restores cookies silently (no onChanged events: from an extension's point of view
// nothing changed) and drops the ones that expired while wrtui was not running. A file that cannot
// be parsed is never overwritten: it is renamed to `<file>.corrupt-<time>`, the stores start
// empty, and the problem is reported (onProblem and `problems`) with both paths.
import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Low } from 'lowdb';
import { Cookie as ToughCookie, type SerializedCookie } from 'tough-cookie';
import { AtomicJsonFile, CorruptJsonFileError, isLeftoverTemporaryOf, setAside } from './atomic-json-file.js';
import { systemClock, type Clock } from './clock.js';

export const COOKIE_FILE_NAME = 'cookies.json';
const FORMAT = 'wrtui-cookies';
const VERSION = 1;

export interface PersistedCookies {
  format: typeof FORMAT;
  version: typeof VERSION;
  /** Persistent cookies of store "0", oldest first, as tough-cookie's Cookie#toJSON writes them. */
  cookies: SerializedCookie[];
}

export interface CookiePersistenceOptions {
  /** Directory for wrtui's state (`--state-dir`, default `.wrtui`); created 0700 on first write. */
  stateDir: string;
  fileName?: string;
  /** Quiet time after a change before writing. */
  debounceMs?: number;
  /** Longest a change may wait for its write while changes keep coming. */
  maxDelayMs?: number;
  clock?: Clock;
  /** Something the user should know: a corrupt file set aside, a write that failed. */
  onProblem?: (message: string) => void;
}

class UnreadableCookieFileError extends Error {}

export class CookiePersistence {
  readonly file: string;
  /** Problems met while opening (each also sent to onProblem). */
  readonly problems: readonly string[];
  readonly #db: Low<PersistedCookies>;
  readonly #adapter: AtomicJsonFile<PersistedCookies>;
  readonly #clock: Clock;
  readonly #debounceMs: number;
  readonly #maxDelayMs: number;
  readonly #onProblem: (message: string) => void;
  #loaded: ToughCookie[];
  #snapshot: (() => readonly ToughCookie[]) | undefined;
  #dirty = false;
  #firstDirtyAt: number | undefined;
  #deadline = 0;
  #cancelTimer: (() => void) | undefined;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(
    db: Low<PersistedCookies>,
    adapter: AtomicJsonFile<PersistedCookies>,
    loaded: ToughCookie[],
    problems: string[],
    options: CookiePersistenceOptions,
  ) {
    this.#db = db;
    this.#adapter = adapter;
    this.file = adapter.file;
    this.#loaded = loaded;
    this.problems = problems;
    this.#clock = options.clock ?? systemClock;
    this.#debounceMs = options.debounceMs ?? 50;
    this.#maxDelayMs = options.maxDelayMs ?? 1000;
    this.#onProblem = options.onProblem ?? ((message) => process.emitWarning(message));
  }

  /** Reads the cookie file (if any). Throws, naming the file, only when it cannot be read at all. */
  static async open(options: CookiePersistenceOptions): Promise<CookiePersistence> {
    const file = join(options.stateDir, options.fileName ?? COOKIE_FILE_NAME);
    const adapter = new AtomicJsonFile<PersistedCookies>(file);
    const db = new Low<PersistedCookies>(adapter, emptyFile());
    const problems: string[] = [];
    await removeLeftoverTemporaries(file);
    try {
      await db.read();
      checkShape(db.data);
    } catch (error) {
      if (!(error instanceof CorruptJsonFileError || error instanceof UnreadableCookieFileError)) {
        throw new Error(`Cannot read the cookie file ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      const aside = await setAside(file, options.clock?.now());
      problems.push(
        `The cookie file ${file} is unreadable (${error.message}). It was moved to ${aside} and wrtui started with no saved cookies.`,
      );
      db.data = emptyFile();
    }
    const loaded: ToughCookie[] = [];
    let skipped = 0;
    for (const serialized of db.data.cookies) {
      const cookie = ToughCookie.fromJSON(serialized);
      if (cookie && cookie.domain && cookie.path) loaded.push(cookie);
      else skipped++;
    }
    if (skipped > 0) problems.push(`${skipped} unreadable cookie(s) in ${file} were ignored.`);
    const persistence = new CookiePersistence(db, adapter, loaded, problems, options);
    for (const problem of problems) persistence.#onProblem(problem);
    return persistence;
  }

  /** Completed writes to the file since it was opened. */
  get writeCount(): number {
    return this.#adapter.writes;
  }

  /** The cookies read from the file, once (CookieJars restores them into store "0"). */
  takeLoadedCookies(): ToughCookie[] {
    const loaded = this.#loaded;
    this.#loaded = [];
    return loaded;
  }

  /** Tells persistence how to read the cookies to save (the jar's current persistent cookies). */
  attach(snapshot: () => readonly ToughCookie[]): void {
    this.#snapshot = snapshot;
  }

  /** A persistent cookie changed: save soon. */
  markDirty(): void {
    if (this.#closed) return;
    this.#dirty = true;
    const now = this.#clock.now();
    this.#firstDirtyAt ??= now;
    this.#deadline = Math.min(now + this.#debounceMs, this.#firstDirtyAt + this.#maxDelayMs);
    if (!this.#cancelTimer) this.#armTimer(this.#deadline - now);
  }

  /** Writes pending changes now; resolves when they are on disk, rejects (naming the file) if the write failed. */
  flush(): Promise<void> {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    // Changes from now on open a new max-delay window, even while this write waits its turn.
    this.#firstDirtyAt = undefined;
    const write = this.#queue.then(() => this.#writeIfDirty());
    this.#queue = write.catch(() => {});
    return write;
  }

  /** Flushes, then ignores further changes. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #armTimer(delayMs: number): void {
    this.#cancelTimer = this.#clock.schedule(() => {
      this.#cancelTimer = undefined;
      // Changes since arming pushed the deadline back: wait for the rest of the quiet time.
      const remaining = this.#deadline - this.#clock.now();
      if (remaining > 0 && this.#dirty) {
        this.#armTimer(remaining);
        return;
      }
      this.flush().catch((error: unknown) => this.#onProblem(error instanceof Error ? error.message : String(error)));
    }, Math.max(0, delayMs));
  }

  async #writeIfDirty(): Promise<void> {
    if (!this.#dirty || !this.#snapshot) return;
    this.#dirty = false;
    // Oldest first, so that reloading gives cookies the same relative creation order.
    const cookies = [...this.#snapshot()].sort(
      (a, b) => timeOf(a.creation) - timeOf(b.creation) || a.creationIndex - b.creationIndex,
    );
    this.#db.data = { format: FORMAT, version: VERSION, cookies: cookies.map((cookie) => cookie.toJSON()) };
    try {
      await this.#db.write();
    } catch (error) {
      this.#dirty = true;
      throw new Error(`Cannot write the cookie file ${this.file}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }
}

function emptyFile(): PersistedCookies {
  return { format: FORMAT, version: VERSION, cookies: [] };
}

function timeOf(date: Date | 'Infinity' | null): number {
  return date instanceof Date ? date.getTime() : 0;
}

function checkShape(data: unknown): asserts data is PersistedCookies {
  const record = data as Partial<PersistedCookies> | null;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new UnreadableCookieFileError('it does not hold a JSON object');
  }
  if (record.format !== FORMAT || record.version !== VERSION) {
    throw new UnreadableCookieFileError(`it is not a version ${VERSION} "${FORMAT}" file`);
  }
  if (!Array.isArray(record.cookies) || !record.cookies.every((cookie) => typeof cookie === 'object' && cookie !== null)) {
    throw new UnreadableCookieFileError('its "cookies" is not a list of cookies');
  }
}

async function removeLeftoverTemporaries(file: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return;
  }
  await Promise.all(names.filter((name) => isLeftoverTemporaryOf(file, name)).map((name) => rm(join(dirname(file), name), { force: true })));
}
