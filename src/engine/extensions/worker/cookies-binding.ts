// chrome.cookies / browser.cookies inside an extension's worker. The arguments are checked here,
// by the same code the in-process namespace uses (Chrome's TypeErrors, thrown at the call); the
// work is the engine's, on the proxy thread; the result is delivered here exactly as the
// in-process namespace delivers it: to the callback with chrome.runtime.lastError set for its
// duration (undefined or null on failure, as spec §7 says), or through a Promise of this realm.
import { checkCallbackInvocation, checkDetailsInvocation, checkListener, type CookiesFunctionWithDetails } from '../../cookies/cookies-arguments.js';
import { listenerCountChanged } from './simple-event.js';
import type { RuntimeState } from '../../runtime.js';
import type { CookieChangeInfo } from '../../types.js';
import type { Bridge } from './bridge.js';
import { deliverReply, type HostCalls, type HostReply } from './host-calls.js';

type Style = 'callback' | 'promise';

/** What a callback receives when the call failed. */
const FAILURE_ARGUMENT: Record<CookiesFunctionWithDetails | 'getAllCookieStores', null | undefined> = {
  get: undefined,
  getAll: undefined,
  getAllCookieStores: undefined,
  set: null,
  remove: null,
};

export class CookiesBinding {
  readonly #bridge: Bridge;
  readonly #calls: HostCalls;
  readonly #runtime: RuntimeState;
  readonly #onError: (error: unknown, where: string) => void;
  /** cookies.onChanged listeners of both styles, in the order added. */
  readonly #listeners: ((...args: never[]) => unknown)[] = [];

  constructor(bridge: Bridge, calls: HostCalls, runtime: RuntimeState, onError: (error: unknown, where: string) => void) {
    this.#bridge = bridge;
    this.#calls = calls;
    this.#runtime = runtime;
    this.#onError = onError;
  }

  namespace(style: Style): Record<string, unknown> {
    const withDetails = (fn: CookiesFunctionWithDetails) => (...args: unknown[]) => {
      const { details, callback } = checkDetailsInvocation<Record<string, unknown>>(fn, args, style === 'callback');
      return this.#deliver(fn, this.#calls.call(`cookies.${fn}`, [details]), callback);
    };
    return {
      get: withDetails('get'),
      getAll: withDetails('getAll'),
      set: withDetails('set'),
      remove: withDetails('remove'),
      getAllCookieStores: (...args: unknown[]) => {
        const callback = checkCallbackInvocation('getAllCookieStores', args, style === 'callback');
        return this.#deliver('getAllCookieStores', this.#calls.call('cookies.getAllCookieStores', []), callback);
      },
      onChanged: {
        addListener: (listener: unknown) => {
          checkListener('addListener', listener);
          if (this.#listeners.includes(listener)) return;
          this.#listeners.push(listener);
          if (this.#listeners.length === 1) this.#bridge.post(['cookieListeners', 1]);
          listenerCountChanged('cookies.onChanged', this.#listeners.length);
        },
        removeListener: (listener: unknown) => {
          checkListener('removeListener', listener);
          const index = this.#listeners.indexOf(listener);
          if (index === -1) return;
          this.#listeners.splice(index, 1);
          if (this.#listeners.length === 0) this.#bridge.post(['cookieListeners', 0]);
          listenerCountChanged('cookies.onChanged', this.#listeners.length);
        },
        hasListener: (listener: unknown) => {
          checkListener('hasListener', listener);
          return this.#listeners.includes(listener);
        },
        hasListeners: () => this.#listeners.length > 0,
      },
    };
  }

  /** A change the host says this extension may see: each listener gets its own copy. */
  changed(json: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        (listener as (info: CookieChangeInfo) => void)(JSON.parse(json) as CookieChangeInfo);
      } catch (error) {
        this.#onError(error, 'cookies.onChanged listener');
      }
    }
  }

  #deliver(fn: CookiesFunctionWithDetails | 'getAllCookieStores', reply: Promise<HostReply>, callback: ((...args: never[]) => void) | undefined): Promise<unknown> | undefined {
    return deliverReply(this.#runtime, reply, callback, { failureArgument: FAILURE_ARGUMENT[fn], onError: this.#onError, where: `cookies.${fn}` });
  }
}
