// An extension event with no filter (runtime.onInstalled, alarms.onAlarm, storage.onChanged, …):
// addListener / removeListener / hasListener / hasListeners, each listener called in order, a
// throw reported (as a browser logs it) without stopping the others.

export type Listener = (...args: never[]) => unknown;

/**
 * Where listener counts go (the host shows them per rule). One worker runs one extension, so
 * one reporter per module graph is exactly one per extension; bindings.ts sets it.
 */
let reportCount: (event: string, count: number) => void = () => {};

export function reportListenerCounts(reporter: (event: string, count: number) => void): void {
  reportCount = reporter;
}

/** Tells the host `event` has `count` listeners now. */
export function listenerCountChanged(event: string, count: number): void {
  reportCount(event, count);
}

export class SimpleEvent {
  readonly #name: string;
  readonly #listeners: Listener[] = [];
  readonly #onError: (error: unknown, where: string) => void;
  readonly #counted: boolean;

  /** `counted: false`: an event wrtui never fires (browser-surfaces.ts); the rules view does not list it. */
  constructor(name: string, onError: (error: unknown, where: string) => void, options: { counted?: boolean } = {}) {
    this.#name = name;
    this.#onError = onError;
    this.#counted = options.counted ?? true;
  }

  addListener = (listener: unknown): void => {
    this.#check('addListener', listener);
    if (this.#listeners.includes(listener)) return;
    this.#listeners.push(listener);
    if (this.#counted) reportCount(this.#name, this.#listeners.length);
  };

  removeListener = (listener: unknown): void => {
    this.#check('removeListener', listener);
    const index = this.#listeners.indexOf(listener);
    if (index === -1) return;
    this.#listeners.splice(index, 1);
    if (this.#counted) reportCount(this.#name, this.#listeners.length);
  };

  hasListener = (listener: unknown): boolean => {
    this.#check('hasListener', listener);
    return this.#listeners.includes(listener);
  };

  hasListeners = (): boolean => this.#listeners.length > 0;

  /** Calls every listener with `args` (each may throw; the rest still run). Returns what they returned. */
  dispatch(...args: unknown[]): unknown[] {
    const results: unknown[] = [];
    for (const listener of [...this.#listeners]) {
      try {
        results.push((listener as (...a: unknown[]) => unknown)(...args));
      } catch (error) {
        this.#onError(error, `${this.#name} listener`);
      }
    }
    return results;
  }

  #check(method: string, listener: unknown): asserts listener is Listener {
    if (typeof listener !== 'function') throw new TypeError(`Error in invocation of ${this.#name}.${method}(function callback): No matching signature.`);
  }
}
