// `chrome.webRequest` / `browser.webRequest` as one owner (rule) sees it: the 9 events, whose
// listeners are that owner's alone, handlerBehaviorChanged under that owner's quota, and the constant.
import type { Journal } from '../journal.js';
import type { Owner } from '../owner.js';
import { MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES, WEB_REQUEST_EVENTS } from '../types.js';
import type { HandlerBehaviorChangedQuota } from './handler-behavior-changed.js';
import type { ListenerRegistry } from './listener-registry.js';

export type { WebRequestEvent, WebRequestNamespace } from '../extension-api-types.js';
import type { WebRequestNamespace } from '../extension-api-types.js';

export interface WebRequestHost {
  registry: ListenerRegistry;
  quota: HandlerBehaviorChangedQuota;
  journal: Journal;
  /** Clears every cache the engine keeps (the HTTP cache, when there is one). */
  flushCaches(): void;
}

export function createWebRequestNamespace(host: WebRequestHost, owner: Owner): WebRequestNamespace {
  const events = Object.fromEntries(
    WEB_REQUEST_EVENTS.map((event) => [
      event,
      {
        addListener: (callback: unknown, filter: unknown, extraInfoSpec?: unknown) =>
          host.registry.add(owner, event, callback, filter, extraInfoSpec),
        removeListener: (callback: unknown) => host.registry.remove(owner, event, callback),
        hasListener: (callback: unknown) => host.registry.has(owner, event, callback),
        hasListeners: () => host.registry.has(owner, event),
      },
    ]),
  );
  return {
    ...events,
    MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES,
    handlerBehaviorChanged(callback?: () => void): Promise<void> {
      handlerBehaviorChanged(host, owner);
      // Asynchronous like the browser's, whether or not the call was within quota.
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          callback?.();
          resolve();
        }),
      );
    },
  } as WebRequestNamespace;
}

/** One call of handlerBehaviorChanged by `owner`: flushes when within quota; journaled either way. */
export function handlerBehaviorChanged(host: WebRequestHost, owner: Owner, madeBy?: 'reload'): boolean {
  const { accepted, state } = host.quota.take(owner.id);
  if (accepted) host.flushCaches();
  // One entry says it all (a refusal is not repeated as a log line: screens said it twice).
  host.journal.append({ kind: 'handlerBehaviorChanged', owner: owner.id, accepted, ...(madeBy && { madeBy }), ...state });
  return accepted;
}
