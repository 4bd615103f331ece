// chrome.runtime.lastError: set only while a callback runs, as in a browser. A failure whose
// callback never reads it is "unchecked" and reported, as Chrome logs it to the console.

export type { LastError, Runtime } from './extension-api-types.js';
import type { LastError, Runtime } from './extension-api-types.js';

export class RuntimeState implements Runtime {
  #lastError: LastError | undefined;
  #checked = false;
  readonly #onUnchecked: (message: string) => void;

  constructor(onUnchecked: (message: string) => void = () => {}) {
    this.#onUnchecked = onUnchecked;
  }

  get lastError(): LastError | undefined {
    this.#checked = true;
    return this.#lastError;
  }

  /**
   * Calls `callback(...args)` with lastError set to `error` for the duration of the call.
   * Without a callback, or when the callback never reads lastError, the error is reported as unchecked.
   */
  deliver<A extends unknown[]>(error: string | undefined, callback: ((...args: A) => void) | undefined, ...args: A): void {
    if (error === undefined) {
      callback?.(...args);
      return;
    }
    if (!callback) {
      this.#onUnchecked(error);
      return;
    }
    const previous = { lastError: this.#lastError, checked: this.#checked };
    this.#lastError = { message: error };
    this.#checked = false;
    try {
      callback(...args);
    } finally {
      const checked = this.#checked;
      this.#lastError = previous.lastError;
      this.#checked = previous.checked;
      if (!checked) this.#onUnchecked(error);
    }
  }
}
