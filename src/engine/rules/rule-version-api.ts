// The chrome/browser namespaces of one loaded VERSION of a rule. A reload must keep the last good
// version serving until the new one has loaded, yet the engine keys listeners by owner id, which
// both versions share. So a version goes through three states:
//   staging  — its background is running: addListener validates exactly as the engine does
//              (Chrome's TypeErrors, the webRequestBlocking check) but only records the listener;
//              the old version still answers every request.
//   live     — commit(): the recorded listeners join the engine, in the order they were added
//              (the host first disposed the old version), in one synchronous step, so no request
//              ever sees both versions or neither. Later addListener calls go straight through.
//   disposed — the version is gone (replaced, unloaded, or its load failed); calls that would add
//              behaviour are ignored and reported, as an unloaded extension's code cannot act.
// cookies.onChanged listeners are staged the same way; the other cookies calls work in any state.
import { checkListener } from '../cookies/cookies-arguments.js';
import type { BrowserCookiesNamespace, ChromeCookiesNamespace, CookieChangedListener, CookiesOnChangedEvent } from '../cookies/cookies-namespace.js';
import type { ExtensionApi } from '../engine.js';
import type { Owner } from '../owner.js';
import { WEB_REQUEST_EVENTS, type WebRequestEventName } from '../types.js';
import { ListenerRegistry } from '../web-request/listener-registry.js';
import type { WebRequestNamespace } from '../web-request/web-request-namespace.js';

export type VersionState = 'staging' | 'live' | 'disposed';

interface StagedWebRequestListener {
  event: WebRequestEventName;
  callback: unknown;
  filter: unknown;
  extraInfoSpec: unknown;
}

export class RuleVersionApi {
  readonly chrome: ExtensionApi['chrome'];
  readonly browser: ExtensionApi['browser'];
  readonly #api: ExtensionApi;
  readonly #owner: Owner;
  readonly #onIgnored: (what: string) => void;
  #state: VersionState = 'staging';
  /** Validates staged registrations exactly as the engine's registry would; never dispatches. */
  readonly #scratch = new ListenerRegistry();
  #staged: StagedWebRequestListener[] = [];
  readonly #stagedCookieListeners: { real: CookiesOnChangedEvent; listeners: Set<CookieChangedListener> }[] = [];

  /** `onIgnored` hears about calls made after the version was disposed. */
  constructor(api: ExtensionApi, owner: Owner, onIgnored: (what: string) => void) {
    this.#api = api;
    this.#owner = owner;
    this.#onIgnored = onIgnored;
    const webRequest = api.chrome.webRequest && this.#wrapWebRequest(api.chrome.webRequest);
    const chromeCookies = api.chrome.cookies && this.#wrapCookies(api.chrome.cookies);
    const browserCookies = api.browser.cookies && this.#wrapCookies(api.browser.cookies);
    this.chrome = { ...(webRequest && { webRequest }), ...(chromeCookies && { cookies: chromeCookies }), runtime: api.chrome.runtime };
    this.browser = { ...(webRequest && { webRequest }), ...(browserCookies && { cookies: browserCookies }), runtime: api.browser.runtime };
  }

  get state(): VersionState {
    return this.#state;
  }

  /** Makes the staged listeners live. The previous version of the rule must be disposed first. */
  commit(): void {
    if (this.#state !== 'staging') throw new Error(`cannot commit a ${this.#state} rule version`);
    this.#state = 'live';
    const webRequest = this.#api.chrome.webRequest;
    for (const { event, callback, filter, extraInfoSpec } of this.#staged) {
      // Validated when staged, against the same owner: this cannot throw.
      (webRequest![event].addListener as (...args: unknown[]) => void)(callback, filter, extraInfoSpec);
    }
    for (const { real, listeners } of this.#stagedCookieListeners) for (const listener of listeners) real.addListener(listener);
    this.#clearStaged();
  }

  /**
   * Ends the version. A live one leaves the engine (every webRequest listener of its owner id,
   * its cookies.onChanged listeners); a staging one (a failed load) never reached it.
   */
  dispose(): void {
    const wasLive = this.#state === 'live';
    this.#state = 'disposed';
    this.#clearStaged();
    if (wasLive) this.#api.dispose();
  }

  #clearStaged(): void {
    this.#staged = [];
    this.#scratch.removeOwner(this.#owner);
    for (const staged of this.#stagedCookieListeners) staged.listeners.clear();
  }

  #wrapWebRequest(real: WebRequestNamespace): WebRequestNamespace {
    const events = Object.fromEntries(
      WEB_REQUEST_EVENTS.map((event) => {
        const realEvent = real[event] as unknown as Record<'addListener' | 'removeListener' | 'hasListener' | 'hasListeners', (...args: unknown[]) => unknown>;
        return [
          event,
          {
            addListener: (callback: unknown, filter: unknown, extraInfoSpec?: unknown) => {
              if (this.#state === 'live') return realEvent.addListener(callback, filter, extraInfoSpec);
              if (this.#state === 'disposed') return this.#onIgnored(`webRequest.${event}.addListener after the rule version was unloaded`);
              const before = this.#scratch.count(event);
              this.#scratch.add(this.#owner, event, callback, filter, extraInfoSpec); // throws as the engine would
              if (this.#scratch.count(event) > before) this.#staged.push({ event, callback, filter, extraInfoSpec });
            },
            removeListener: (callback: unknown) => {
              if (this.#state === 'live') return realEvent.removeListener(callback);
              this.#scratch.remove(this.#owner, event, callback);
              this.#staged = this.#staged.filter((staged) => staged.event !== event || staged.callback !== callback);
            },
            hasListener: (callback: unknown) =>
              this.#state === 'live' ? realEvent.hasListener(callback) : this.#scratch.has(this.#owner, event, callback),
            hasListeners: () => (this.#state === 'live' ? realEvent.hasListeners() : this.#scratch.has(this.#owner, event)),
          },
        ];
      }),
    );
    return {
      ...events,
      MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES: real.MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES,
      handlerBehaviorChanged: (callback?: () => void) => {
        if (this.#state !== 'disposed') return real.handlerBehaviorChanged(callback);
        this.#onIgnored('webRequest.handlerBehaviorChanged after the rule version was unloaded');
        return Promise.resolve();
      },
    } as WebRequestNamespace;
  }

  #wrapCookies<N extends ChromeCookiesNamespace | BrowserCookiesNamespace>(real: N): N {
    const staged = { real: real.onChanged, listeners: new Set<CookieChangedListener>() };
    this.#stagedCookieListeners.push(staged);
    const onChanged: CookiesOnChangedEvent = {
      addListener: (listener) => {
        if (this.#state === 'live') return real.onChanged.addListener(listener);
        checkListener('addListener', listener);
        if (this.#state === 'disposed') return this.#onIgnored('cookies.onChanged.addListener after the rule version was unloaded');
        staged.listeners.add(listener);
      },
      removeListener: (listener) => {
        if (this.#state === 'live') return real.onChanged.removeListener(listener);
        checkListener('removeListener', listener);
        staged.listeners.delete(listener);
      },
      hasListener: (listener) => {
        if (this.#state === 'live') return real.onChanged.hasListener(listener);
        checkListener('hasListener', listener);
        return staged.listeners.has(listener);
      },
      hasListeners: () => (this.#state === 'live' ? real.onChanged.hasListeners() : staged.listeners.size > 0),
    };
    return { ...real, onChanged };
  }
}
