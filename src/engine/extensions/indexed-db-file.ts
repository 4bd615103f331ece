// Where an extension's IndexedDB databases are kept between runs, on the proxy thread's side: the
// latest snapshot its worker sent (v8-serialised there, so here it is only bytes), in
// `<state-dir>/extensions/<id>/indexeddb.v8`, 0600, written whole to a temporary file beside it,
// fsynced and renamed over it (a crash leaves the old snapshot or the new one). Writes, reads and
// setting a file aside run one after another, so a worker that starts reads what the last one
// sent. Without a state dir the snapshot lives in memory, so a restarted worker still finds it.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { STATE_DIR_MODE, setAside } from '../cookies/atomic-json-file.js';
import { writePrivateFile } from '../private-file.js';
import { storageFileOf } from './storage-areas.js';

export const INDEXED_DB_FILE = 'indexeddb.v8';

export class IndexedDbFile {
  /** The file (undefined without a state dir). */
  readonly file: string | undefined;
  #memory: Uint8Array | undefined;
  readonly #savedWaiters: (() => void)[] = [];
  /** A snapshot sent, not written yet. */
  #waiting: Uint8Array | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #onProblem: (message: string) => void;
  /** Snapshots written, for tests and the cost measurement. */
  writes = 0;

  constructor(stateDir: string | undefined, extensionId: string, onProblem: (message: string) => void) {
    this.file = stateDir === undefined ? undefined : path.join(path.dirname(storageFileOf(stateDir, extensionId)), INDEXED_DB_FILE);
    this.#onProblem = onProblem;
  }

  /** The latest snapshot (after every write asked for before), or undefined if there is none. */
  read(): Promise<Uint8Array | undefined> {
    return this.#then(async () => {
      if (!this.file) return this.#memory;
      try {
        return new Uint8Array(await readFile(this.file));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        this.#onProblem(`${this.file} could not be read (${(error as Error).message}); IndexedDB starts empty`);
        return undefined;
      }
    });
  }

  /** Keeps `bytes` as the latest snapshot (a snapshot still waiting to be written is replaced by it). */
  write(bytes: Uint8Array): Promise<void> {
    const waiting = this.#waiting !== undefined;
    this.#waiting = bytes;
    if (waiting) return this.#queue.then(() => {});
    return this.#then(async () => {
      const latest = this.#waiting!;
      this.#waiting = undefined;
      if (!this.file) {
        this.#memory = latest;
      } else {
        await writeAtomically(this.file, latest);
      }
      this.writes++;
    }).catch((error: unknown) => this.#onProblem(`writing IndexedDB's databases to ${this.file} failed: ${String(error)}`));
  }

  /** The worker could not read the snapshot (`reason`): the file is kept aside, never overwritten. */
  unreadable(reason: string): Promise<void> {
    return this.#then(async () => {
      if (!this.file) {
        this.#memory = undefined;
        return this.#onProblem(`IndexedDB's databases could not be read (${reason}); IndexedDB starts empty`);
      }
      try {
        const aside = await setAside(this.file);
        this.#onProblem(`${this.file} could not be read (${reason}); it was kept as ${aside} and IndexedDB starts empty`);
      } catch (error) {
        this.#onProblem(`${this.file} could not be read (${reason}) nor set aside (${String(error)}); IndexedDB starts empty`);
      }
    });
  }

  /**
   * Resolves once the worker says it saved (`savedByWorker`, after asking it to: wrtui is closing),
   * or after `timeoutMs` (a worker that is stuck, or gone).
   */
  workerSaved(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#savedWaiters.push(done);
    });
  }

  /** The worker sent every change it had (its write, if any, came before this). */
  savedByWorker(): void {
    for (const done of this.#savedWaiters.splice(0)) done();
  }

  /** Resolves once everything asked for so far is done. */
  async flush(): Promise<void> {
    await this.#then(async () => {});
  }

  #then<T>(step: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(step);
    this.#queue = next.catch(() => {});
    return next;
  }
}

/** Writes `bytes` to `file` as every state file is written (private-file.ts: 0600, fsynced, renamed over it). */
async function writeAtomically(file: string, bytes: Uint8Array): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: STATE_DIR_MODE });
  await writePrivateFile(file, bytes, { replace: true });
}
