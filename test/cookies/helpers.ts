// Shared test helpers for the cookies tests: a hand-driven clock, jars with recorded changes,
// owners, namespaces.
import { createOwner, createTrustedOwner, type Owner } from '../../src/engine/owner.js';
import { RuntimeState } from '../../src/engine/runtime.js';
import type { CookieChangeInfo } from '../../src/engine/types.js';
import type { Clock } from '../../src/engine/cookies/clock.js';
import { CookieJars, type CookieJarsOptions } from '../../src/engine/cookies/cookie-jars.js';
import {
  createCookiesNamespace,
  type BrowserCookiesNamespace,
  type ChromeCookiesNamespace,
  type CookiesNamespaceOptions,
} from '../../src/engine/cookies/cookies-namespace.js';

/**
 * 2030-01-01T00:00:00Z: a fixed "now" so expiry dates in tests read plainly. In the future on
 * purpose: tough-cookie's own CookieJar reads use the real Date.now(), and must not find cookies
 * expired that the store's clock considers alive.
 */
export const T0 = Date.UTC(2030, 0, 1);

/** A clock that moves only when told, firing due timers in time order. */
export class ManualClock implements Clock {
  #now: number;
  #timers: { at: number; callback: () => void; cancelled: boolean }[] = [];
  /** Every delay passed to schedule(), to check how the sweeper arms itself. */
  readonly scheduledDelays: number[] = [];

  constructor(start = T0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  schedule(callback: () => void, delayMs: number): () => void {
    const timer = { at: this.#now + delayMs, callback, cancelled: false };
    this.scheduledDelays.push(delayMs);
    this.#timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }

  /** Live (not cancelled, not fired) timers. */
  get pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = this.#timers
        .filter((timer) => !timer.cancelled && timer.at <= end)
        .sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.cancelled = true;
      this.#now = Math.max(this.#now, due.at);
      due.callback();
    }
    this.#now = end;
    this.#timers = this.#timers.filter((timer) => !timer.cancelled);
  }
}

/** Jars on a manual clock, with every onChanged recorded. */
export function recordingJars(options: CookieJarsOptions = {}) {
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock();
  const jars = new CookieJars({ clock, ...options });
  const changes: CookieChangeInfo[] = [];
  jars.onChanged((info) => changes.push(info));
  /** The recorded changes as "removed? cause name" lines, then forgets them. */
  const take = () => changes.splice(0).map((info) => `${info.removed ? 'removed' : 'added'} ${info.cause} ${info.cookie.name}=${info.cookie.value}`);
  return { jars, clock, changes, take };
}

export function ownerWithHosts(hostPermissions: string[], permissions: string[] = ['cookies']): Owner {
  return createOwner({ name: `rule-${hostPermissions.join('+')}`, permissions, host_permissions: hostPermissions });
}

export function chromeCookies(jars: CookieJars, owner: Owner = createTrustedOwner('test-rule'), options: CookiesNamespaceOptions = {}) {
  const unchecked: string[] = [];
  const runtime = new RuntimeState((message) => unchecked.push(message));
  const cookies: ChromeCookiesNamespace = createCookiesNamespace(jars, owner, runtime, 'callback', options);
  return { cookies, runtime, unchecked };
}

export function browserCookies(jars: CookieJars, owner: Owner = createTrustedOwner('test-rule'), options: CookiesNamespaceOptions = {}) {
  const runtime = new RuntimeState();
  const cookies: BrowserCookiesNamespace = createCookiesNamespace(jars, owner, runtime, 'promise', options);
  return { cookies, runtime };
}

/** Calls a callback-style function and resolves with the callback's argument and lastError during it. */
export function call<T>(invoke: (callback: (result: T) => void) => void, runtime: RuntimeState): Promise<{ result: T; lastError: string | undefined }> {
  return new Promise((resolve) => {
    invoke((result) => resolve({ result, lastError: runtime.lastError?.message }));
  });
}

/** Lets queued microtasks (callbacks, onChanged deliveries) run. */
export async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}
