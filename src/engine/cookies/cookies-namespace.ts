// The `cookies` namespace a rule (an Owner) sees, in both styles:
//   'callback' — chrome.cookies: f(details, callback?). A failure calls the callback with
//                undefined (get, getAll, getAllCookieStores; as Chrome) or null (set, remove; as
//                spec §7 says) while chrome.runtime.lastError is set, only for the duration of the
//                callback. Without a callback the call returns a Promise, as Chrome does in MV3.
//   'promise'  — browser.cookies: f(details) returns a Promise that rejects with an Error carrying
//                the same message.
// The work happens when the call is made (cookies-api.ts); callbacks, Promise settlement and
// onChanged listeners run afterwards, asynchronously, as in a browser. Exceptions thrown by a
// callback or listener are caught and reported through onListenerError, never into the store or
// the request that caused the change. Wrong arguments throw a TypeError at once (cookies-arguments.ts).
//
// onChanged (spec §6.1): each listener gets its own changeInfo {removed, cookie, cause}, only for
// cookies the owner has host permissions for (Chrome dispatches the event with the cookie's URL
// and drops it for extensions without access), from every store.
//
// Whether an owner gets this namespace at all is the rules layer's decision: Chrome exposes
// chrome.cookies only with the "cookies" permission (hasCookiesPermission).
import type { Owner } from '../owner.js';
import type { RuntimeState } from '../runtime.js';
import type { Cookie, CookieChangeInfo } from '../types.js';
import type { CookieJars } from './cookie-jars.js';
import {
  CookiesApi,
  type CookieGetDetails,
  type CookieRemoveDetails,
  type Outcome,
  type RemovedCookieDetails,
} from './cookies-api.js';
import {
  checkCallbackInvocation,
  checkDetailsInvocation,
  checkListener,
  type Callback,
  type CookiesFunctionWithDetails,
} from './cookies-arguments.js';
import type { CookieGetAllDetails } from './get-all-filter.js';
import type { CookieSetDetails } from './set-details.js';

export type { CookieGetDetails, CookieRemoveDetails, RemovedCookieDetails } from './cookies-api.js';
export type { CookieGetAllDetails } from './get-all-filter.js';
export type { CookieSetDetails, SameSiteStatus } from './set-details.js';

export type { BrowserCookiesNamespace, ChromeCookiesNamespace, CookieChangedListener, CookiesOnChangedEvent } from '../extension-api-types.js';
import type { BrowserCookiesNamespace, ChromeCookiesNamespace, CookieChangedListener, CookiesOnChangedEvent } from '../extension-api-types.js';

export type NamespaceStyle = 'callback' | 'promise';

export interface CookiesNamespaceOptions {
  /** A callback or onChanged listener threw; `source` says which (e.g. "cookies.get callback"). */
  onListenerError?: (error: unknown, source: string) => void;
  /** Unloading the owner: once aborted, no listener or callback of this namespace runs again. */
  signal?: AbortSignal;
  /** The store of "the current execution context" (default "0"). */
  defaultStoreId?: string;
  /** Why a cookies.set failed, in more words than Chrome's message (for the journal). */
  onSetRefused?: (details: CookieSetDetails, reason: string) => void;
}

/** Chrome exposes chrome.cookies only to extensions with the "cookies" permission. */
export function hasCookiesPermission(owner: Owner): boolean {
  return owner.permissions.has('cookies');
}

export function createCookiesNamespace(
  jars: CookieJars,
  owner: Owner,
  runtime: RuntimeState,
  style: 'callback',
  options?: CookiesNamespaceOptions,
): ChromeCookiesNamespace;
export function createCookiesNamespace(
  jars: CookieJars,
  owner: Owner,
  runtime: RuntimeState,
  style: 'promise',
  options?: CookiesNamespaceOptions,
): BrowserCookiesNamespace;
export function createCookiesNamespace(
  jars: CookieJars,
  owner: Owner,
  runtime: RuntimeState,
  style: NamespaceStyle,
  options: CookiesNamespaceOptions = {},
): ChromeCookiesNamespace | BrowserCookiesNamespace {
  const api = new CookiesApi(jars, owner, {
    ...(options.defaultStoreId !== undefined ? { defaultStoreId: options.defaultStoreId } : {}),
    ...(options.onSetRefused ? { onSetRefused: options.onSetRefused } : {}),
  });
  const signal = options.signal;
  const reportError =
    options.onListenerError ?? ((error: unknown, source: string) => process.emitWarning(`${source} threw: ${String(error)}`));

  /** Runs `task` after the current call returns, unless the owner was unloaded meanwhile. */
  const later = (task: () => void) =>
    queueMicrotask(() => {
      if (!signal?.aborted) task();
    });

  /**
   * Delivers an outcome: to the callback (with lastError set on failure), or through a Promise.
   * `failureArgument` is what a callback receives on failure.
   */
  function deliver<T>(
    fn: string,
    outcome: Outcome<T>,
    callback: Callback | undefined,
    failureArgument: null | undefined,
  ): Promise<T> | undefined {
    if (callback) {
      const done = callback as (result: T | null | undefined) => void;
      later(() => {
        try {
          if (outcome.ok) runtime.deliver(undefined, done, outcome.value);
          else runtime.deliver(outcome.error, done, failureArgument);
        } catch (error) {
          reportError(error, `cookies.${fn} callback`);
        }
      });
      return undefined;
    }
    const promise = new Promise<T>((resolve, reject) =>
      later(() => (outcome.ok ? resolve(outcome.value) : reject(new Error(outcome.error)))),
    );
    // A rule that ignores a failed call must not take the proxy down with an unhandled rejection;
    // whoever awaits the Promise still sees the rejection.
    promise.catch(() => {});
    return promise;
  }

  function withDetails<D, T>(fn: CookiesFunctionWithDetails, run: (details: D) => Outcome<T>, failureArgument: null | undefined) {
    return (...args: unknown[]): Promise<T> | undefined => {
      const { details, callback } = checkDetailsInvocation<D>(fn, args, style === 'callback');
      return deliver(fn, run(details), callback, failureArgument);
    };
  }

  const onChanged = createOnChangedEvent(jars, api, owner, signal, later, reportError);
  const namespace = {
    get: withDetails<CookieGetDetails, Cookie | null>('get', (details) => api.get(details), undefined),
    getAll: withDetails<CookieGetAllDetails, Cookie[]>('getAll', (details) => api.getAll(details), undefined),
    set: withDetails<CookieSetDetails, Cookie | null>('set', (details) => api.set(details), null),
    remove: withDetails<CookieRemoveDetails, RemovedCookieDetails>('remove', (details) => api.remove(details), null),
    getAllCookieStores: (...args: unknown[]) => {
      const callback = checkCallbackInvocation('getAllCookieStores', args, style === 'callback');
      return deliver('getAllCookieStores', api.getAllCookieStores(), callback, undefined);
    },
    onChanged,
  };
  return namespace as unknown as ChromeCookiesNamespace | BrowserCookiesNamespace;
}

function createOnChangedEvent(
  jars: CookieJars,
  api: CookiesApi,
  owner: Owner,
  signal: AbortSignal | undefined,
  later: (task: () => void) => void,
  reportError: (error: unknown, source: string) => void,
): CookiesOnChangedEvent {
  const listeners = new Set<CookieChangedListener>();
  let unsubscribe: (() => void) | undefined;

  const dispatch = (info: CookieChangeInfo, attributes: { sameSite: string | undefined }) => {
    if (!api.mayAccess(info.cookie)) return;
    const sameSite = owner.persona.cookieSameSite(attributes.sameSite);
    const recipients = [...listeners];
    later(() => {
      for (const listener of recipients) {
        if (!listeners.has(listener)) continue; // removed before delivery
        try {
          listener({ removed: info.removed, cookie: { ...info.cookie, ...(sameSite !== undefined && { sameSite }) } as CookieChangeInfo['cookie'], cause: info.cause });
        } catch (error) {
          reportError(error, 'cookies.onChanged listener');
        }
      }
    });
  };
  // Subscribe to the stores only while someone listens.
  const sync = () => {
    if (listeners.size > 0 && !unsubscribe) unsubscribe = jars.onChanged(dispatch);
    if (listeners.size === 0 && unsubscribe) {
      unsubscribe();
      unsubscribe = undefined;
    }
  };
  signal?.addEventListener('abort', () => {
    listeners.clear();
    sync();
  });

  return {
    addListener(listener) {
      checkListener('addListener', listener);
      if (signal?.aborted) return;
      listeners.add(listener);
      sync();
    },
    removeListener(listener) {
      checkListener('removeListener', listener);
      listeners.delete(listener);
      sync();
    },
    hasListener(listener) {
      checkListener('hasListener', listener);
      return listeners.has(listener);
    },
    hasListeners() {
      return listeners.size > 0;
    },
  };
}
