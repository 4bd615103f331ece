// One of the extension's own responses on its way to its worker (extension-worker.ts): the head,
// then the body in chunks, never more than FETCH_WINDOW_BYTES of it unread in the worker.
import type { ExtensionFetchReceiver, ExtensionFetchResponse } from './extension-network.js';
import { FETCH_WINDOW_BYTES, type HostItem } from './protocol.js';

/**
 * One of the extension's own responses on its way to the worker: the head, then the body in chunks,
 * never more than FETCH_WINDOW_BYTES of it unread in the worker (the rest waits upstream, its
 * socket no longer read until the extension reads).
 */
export class Download implements ExtensionFetchReceiver {
  headed = false;
  readonly #controller = new AbortController();
  readonly signal = this.#controller.signal;
  #unread = 0;
  #wake: (() => void) | undefined;

  constructor(
    private readonly send: (item: HostItem) => void,
    private readonly id: number,
  ) {}

  head(response: ExtensionFetchResponse): void {
    this.headed = true;
    this.send(['fetched', this.id, response]);
  }

  async chunk(bytes: Uint8Array): Promise<void> {
    // A chunk may be a view into a larger buffer (a pool, a socket's read): postMessage would copy
    // all of that buffer, and the extension would find it behind its Uint8Array. Its own bytes go.
    this.send(['fetchBody', this.id, bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes)]);
    this.#unread += bytes.byteLength;
    while (this.#unread > FETCH_WINDOW_BYTES && !this.signal.aborted) await new Promise<void>((resolve) => (this.#wake = resolve));
  }

  read(bytes: number): void {
    this.#unread -= bytes;
    this.#wakeUp();
  }

  cancel(): void {
    this.#controller.abort();
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
