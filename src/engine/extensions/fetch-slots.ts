// How many of an extension's own requests run at once. A browser's network stack queues what is
// over its limits (Chromium: 256 sockets a pool, 6 a host); wrtui's had none, so a runaway
// extension could open a socket per fetch until the process ran out of descriptors. Past
// `concurrent` a fetch waits its turn; past `waiting` it fails at once (said in the journal).
export class FetchSlots {
  readonly #concurrent: number;
  readonly #waiting: number;
  #running = 0;
  readonly #queue: (() => void)[] = [];

  constructor(concurrent: number, waiting: number) {
    this.#concurrent = concurrent;
    this.#waiting = waiting;
  }

  get running(): number {
    return this.#running;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Resolves with a release function once a slot is free; undefined when too many already wait. */
  async acquire(): Promise<(() => void) | undefined> {
    if (this.#running >= this.#concurrent) {
      if (this.#queue.length >= this.#waiting) return undefined;
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else {
      this.#running++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      // The slot passes straight to the next in line (running stays the same).
      if (next) next();
      else this.#running--;
    };
  }
}

/** Chromium's per-pool socket limit; and how many more may wait before fetches fail. */
export const EXTENSION_FETCH_CONCURRENCY = 256;
export const EXTENSION_FETCH_WAITING = 4096;
