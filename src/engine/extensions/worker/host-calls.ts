// Calls from the extension to the engine (cookies.get, storage.local.set, …): a message each,
// answered by the host with ok and a value (or an error message). Values come back as objects of
// the worker's Node realm; `toRealm` copies them into the extension's realm (they are JSON data:
// cookies, storage items, alarms).
import type { RuntimeState } from '../../runtime.js';
import type { Bridge } from './bridge.js';

import type { HostReply } from '../protocol.js';

export type { HostReply };

export class HostCalls {
  #next = 1;
  readonly #pending = new Map<number, (reply: HostReply) => void>();
  readonly #bridge: Bridge;

  constructor(bridge: Bridge) {
    this.#bridge = bridge;
  }

  /** Sends `method(args)`; resolves with the host's reply, never rejects. */
  call(method: string, args: unknown[]): Promise<HostReply> {
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.#bridge.post(['call', id, method, args]);
    });
  }

  reply(id: number, ok: boolean, value: unknown): void {
    const resolve = this.#pending.get(id);
    if (!resolve) return;
    this.#pending.delete(id);
    resolve(ok ? { ok: true, value: toRealm(value) } : { ok: false, error: String(value) });
  }
}

/** A copy of JSON data made in this realm (the bindings' realm is the extension's). */
export function toRealm<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/**
 * Hands a host reply to the extension as a browser does: to `callback` (with
 * chrome.runtime.lastError set while it runs, and `failureArgument` on failure), or, without a
 * callback, as a Promise of this realm that rejects with an Error carrying the message.
 */
export function deliverReply(
  runtime: RuntimeState,
  reply: Promise<HostReply>,
  callback: ((...args: never[]) => void) | undefined,
  options: { failureArgument?: null | undefined; onError: (error: unknown, where: string) => void; where: string; map?: (value: unknown) => unknown },
): Promise<unknown> | undefined {
  const map = options.map ?? ((value: unknown) => value);
  if (callback) {
    void reply.then((outcome) => {
      try {
        if (outcome.ok) runtime.deliver(undefined, callback as (value: unknown) => void, map(outcome.value));
        else runtime.deliver(outcome.error, callback as (value: unknown) => void, options.failureArgument);
      } catch (error) {
        options.onError(error, `${options.where} callback`);
      }
    });
    return undefined;
  }
  const promise = reply.then((outcome) => {
    if (outcome.ok) return map(outcome.value);
    throw new Error(outcome.error);
  });
  // An extension that ignores a failed call gets no unhandled rejection; whoever awaits still sees it.
  promise.catch(() => {});
  return promise;
}
