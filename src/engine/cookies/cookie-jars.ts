// wrtui's cookie stores (spec §2.2): "0" the default store and "1" the incognito one, each a
// tough-cookie CookieJar over an ObservableCookieStore. The request lifecycle calls cookieHeader
// and setFromResponse on every request, so both are synchronous and touch only the cookies of the
// request's host. The cookies namespace builds on the lower-level methods below.
//
// wrtui knows no tabs, so every store reports `tabIds: []`; Chrome lists only stores with an open
// tab, wrtui always lists both (a proxy can route traffic into either at any time).
import { Cookie as ToughCookie, CookieJar, canonicalDomain, type CreateCookieJarOptions } from 'tough-cookie';
import { DEFAULT_STORE_ID, INCOGNITO_STORE_ID, type CookieChangeInfo, type CookieStore } from '../types.js';
import { chromeRefusalReason, domainAttributeMeansHostOnly } from './chrome-cookie-rules.js';
import { clockWithNow, systemClock, type Clock } from './clock.js';
import { cookieAppliesTo, domainCandidates, goesCrossSite, requestTargetOf, sortForCookieHeader, type CrossSite, type RequestTarget } from './cookie-match.js';
import type { CookieLimits } from './eviction.js';
import { isSessionCookie } from './expiry.js';
import { ObservableCookieStore, type StoreChange } from './observable-store.js';
import type { CookiePersistence } from './persistence.js';
import { toSpecCookie } from './spec-cookie.js';

export interface CookieJarsOptions {
  /** Epoch ms; defaults to Date.now. Timers stay real unless `clock` is given. */
  now?: () => number;
  /** Time and timers together (tests); takes precedence over `now`. */
  clock?: Clock;
  limits?: Partial<CookieLimits>;
  /** Loads store "0" from disk now and saves it after changes. Store "1" is never persisted. */
  persistence?: CookiePersistence;
  /** An onChanged listener threw; the store and the other listeners carry on. */
  onListenerError?: (error: unknown) => void;
}

export interface RejectedSetCookie {
  header: string;
  reason: string;
}

export interface SetFromResponseResult {
  /** Headers accepted (a header with a past expiry is accepted: it deletes its cookie). */
  stored: number;
  /** Headers ignored, as a browser ignores them, with why (for the journal). */
  rejected: RejectedSetCookie[];
}

/** `attributes` says what the spec's Cookie leaves out (SameSite), for personas that show it. */
export type CookieChangeListener = (info: CookieChangeInfo, attributes: { sameSite: string | undefined }) => void;

interface StoreEntry {
  readonly jar: CookieJar;
  readonly store: ObservableCookieStore;
}

const JAR_OPTIONS: CreateCookieJarOptions = {
  rejectPublicSuffixes: true,
  // RFC 6265 parsing: a Set-Cookie without "=" is ignored. Chrome (RFC 6265bis) would store it as
  // a nameless cookie; the http-state suite expects RFC 6265, and nameless cookies are rare.
  looseMode: false,
  // Report prefix violations as rejections (with a reason) instead of dropping them silently.
  prefixSecurity: 'strict',
  // Lets http://localhost and made-up test hosts (*.test, *.localhost) keep cookies.
  allowSpecialUseDomain: true,
  allowSecureOnLocal: true,
  enforceSecureOriginOnStorage: true,
};

export class CookieJars {
  readonly storeIds: readonly string[] = [DEFAULT_STORE_ID, INCOGNITO_STORE_ID];
  readonly #clock: Clock;
  readonly #stores = new Map<string, StoreEntry>();
  readonly #listeners = new Set<CookieChangeListener>();
  readonly #onListenerError: (error: unknown) => void;
  readonly #persistence: CookiePersistence | undefined;
  #closed = false;

  constructor(options: CookieJarsOptions = {}) {
    this.#clock = options.clock ?? (options.now ? clockWithNow(options.now) : systemClock);
    this.#onListenerError =
      options.onListenerError ?? ((error) => process.emitWarning(`cookies.onChanged listener failed: ${String(error)}`));
    for (const storeId of this.storeIds) {
      const store = new ObservableCookieStore({
        clock: this.#clock,
        ...(options.limits ? { limits: options.limits } : {}),
        onChange: (change) => this.#changed(storeId, change),
      });
      this.#stores.set(storeId, { jar: new CookieJar(store, JAR_OPTIONS), store });
    }
    this.#persistence = options.persistence;
    if (this.#persistence) {
      this.#entry(DEFAULT_STORE_ID).store.restore(this.#persistence.takeLoadedCookies());
      this.#persistence.attach(() => this.persistentCookies(DEFAULT_STORE_ID));
    }
  }

  /** The stores' clock (epoch ms). */
  now(): number {
    return this.#clock.now();
  }

  /** The tough-cookie jar of a store; throws for an unknown store id. */
  jar(storeId: string): CookieJar {
    return this.#entry(storeId).jar;
  }

  /** The store behind a jar (limits, size, sweeper state); throws for an unknown store id. */
  store(storeId: string): ObservableCookieStore {
    return this.#entry(storeId).store;
  }

  hasStore(storeId: string): boolean {
    return this.#stores.has(storeId);
  }

  getAllCookieStores(): CookieStore[] {
    return this.storeIds.map((id) => ({ id, tabIds: [] }));
  }

  /**
   * The Cookie header for a request: RFC 6265 §5.4 order (longer paths first, then earlier
   * creation). Counts as an access (eviction is least-recently-accessed first). Empty for URLs
   * that carry no cookies (unparseable, or not http/https/ws/wss).
   */
  cookieHeader(url: string | URL, storeId: string = DEFAULT_STORE_ID, crossSite?: CrossSite): string {
    const store = this.#entry(storeId).store;
    const target = requestTargetOf(url);
    if (!target) return '';
    const cookies = this.#matching(store, target, true);
    let header = '';
    for (const cookie of cookies) {
      // A cross-site request carries only SameSite=None cookies (and, where the browser says so, those without the attribute).
      if (crossSite && !goesCrossSite(cookie, crossSite)) continue;
      header += (header ? '; ' : '') + cookie.cookieString();
    }
    return header;
  }

  /**
   * Stores the Set-Cookie headers of a response to `url`. Headers a browser would ignore are
   * ignored, never thrown; `rejected` says which and why.
   */
  setFromResponse(url: string | URL, setCookieHeaders: readonly string[], storeId: string = DEFAULT_STORE_ID, crossSite?: CrossSite): SetFromResponseResult {
    const entry = this.#entry(storeId);
    const result: SetFromResponseResult = { stored: 0, rejected: [] };
    const parsed = parseUrl(url);
    const target = parsed && requestTargetOf(parsed);
    for (const header of setCookieHeaders) {
      const reason = !target ? `Cookies cannot be set for ${String(url)}` : this.#storeHeader(entry, header, parsed, target, crossSite);
      if (reason === undefined) result.stored++;
      else result.rejected.push({ header, reason });
    }
    return result;
  }

  /**
   * Stores a cookie built by the cookies API as if `url` had set it: path decided, and either a
   * domain (a domain cookie) or none (host-only, for the url's host). Returns why it was refused,
   * or undefined when stored.
   */
  setCookie(cookie: ToughCookie, url: string | URL, storeId: string = DEFAULT_STORE_ID): string | undefined {
    const parsed = parseUrl(url);
    const target = parsed && requestTargetOf(parsed);
    if (!target) return `Cookies cannot be set for ${String(url)}`;
    return this.#store(this.#entry(storeId), { cookie, hasDomain: cookie.domain != null && cookie.hostOnly !== true }, parsed, target);
  }

  /**
   * The cookies a request to `url` would carry, in Cookie-header order. `touch` counts it as an
   * access, as Chrome's cookies.get/getAll({url}) do.
   */
  cookiesFor(url: string | URL, storeId: string = DEFAULT_STORE_ID, options: { touch?: boolean } = {}): ToughCookie[] {
    const target = requestTargetOf(url);
    return target ? this.#matching(this.#entry(storeId).store, target, options.touch ?? false) : [];
  }

  /** Every unexpired cookie of a store, longest path first, then earliest created. */
  allCookies(storeId: string = DEFAULT_STORE_ID): ToughCookie[] {
    return sortForCookieHeader(this.#entry(storeId).store.allCookies());
  }

  /** Removes these cookies (onChanged `explicit` for each that was still stored). */
  removeCookies(cookies: readonly ToughCookie[], storeId: string = DEFAULT_STORE_ID): number {
    const store = this.#entry(storeId).store;
    let removed = 0;
    for (const cookie of cookies) if (store.removeExplicitly(cookie)) removed++;
    return removed;
  }

  /** The persistent (non-session) cookies of a store, as persistence saves them. */
  persistentCookies(storeId: string = DEFAULT_STORE_ID): ToughCookie[] {
    return this.allCookies(storeId).filter((cookie) => !isSessionCookie(cookie));
  }

  /** Listens to changes in every store; returns the unsubscribe function. */
  onChanged(listener: CookieChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the expiry sweepers and writes pending changes to disk. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const { store } of this.#stores.values()) store.close();
    await this.#persistence?.close();
  }

  #entry(storeId: string): StoreEntry {
    const entry = this.#stores.get(storeId);
    if (!entry) throw new RangeError(`Unknown cookie store id ${JSON.stringify(storeId)} (known: ${this.storeIds.join(', ')})`);
    return entry;
  }

  #matching(store: ObservableCookieStore, target: RequestTarget, touch: boolean): ToughCookie[] {
    const candidates = store.cookiesUnder(domainCandidates(target), target.path);
    const cookies: ToughCookie[] = [];
    for (const cookie of candidates) if (cookieAppliesTo(cookie, target)) cookies.push(cookie);
    sortForCookieHeader(cookies);
    if (touch && cookies.length > 0) {
      const now = new Date(this.#clock.now());
      for (const cookie of cookies) cookie.lastAccessed = now;
    }
    return cookies;
  }

  #storeHeader(entry: StoreEntry, header: string, url: URL, target: RequestTarget, crossSite: CrossSite | undefined): string | undefined {
    const cookie = ToughCookie.parse(header, { loose: false });
    if (!cookie) return 'Cookie failed to parse';
    if (crossSite && !goesCrossSite(cookie, crossSite)) {
      return `it came from a cross-site response and is SameSite=${cookie.sameSite === undefined ? 'Lax (by default, without the attribute)' : cookie.sameSite === 'strict' ? 'Strict' : 'Lax'}, which only SameSite=None allows`;
    }
    if (cookie.domain != null && domainAttributeMeansHostOnly(canonicalDomain(cookie.domain) ?? '', target)) cookie.domain = null;
    return this.#store(entry, { cookie, hasDomain: cookie.domain != null }, url, target);
  }

  #store(entry: StoreEntry, being: { cookie: ToughCookie; hasDomain: boolean }, url: URL, target: RequestTarget): string | undefined {
    const refusal = chromeRefusalReason(being, target);
    if (refusal) return refusal;
    try {
      // A URL object spares tough-cookie parsing the url again (twice) for every header.
      entry.store.withSourceSecurity(target.secure, () =>
        entry.jar.setCookieSync(being.cookie, url, { now: new Date(this.#clock.now()), http: true }),
      );
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  /**
   * Tells the listeners of a change that happened elsewhere (replay's fast path: a recorded change,
   * in its recorded place), the stores left as they are.
   */
  announce(info: CookieChangeInfo, attributes: Parameters<CookieChangeListener>[1]): void {
    this.#tell(Object.freeze({ ...info, cookie: Object.freeze({ ...info.cookie }) }), attributes);
  }

  #changed(storeId: string, change: StoreChange): void {
    if (storeId === DEFAULT_STORE_ID && !isSessionCookie(change.cookie)) this.#persistence?.markDirty();
    if (this.#listeners.size === 0) return;
    // One object for all listeners, frozen so that no listener can change what the next one sees.
    const info: CookieChangeInfo = Object.freeze({
      removed: change.removed,
      cookie: Object.freeze(toSpecCookie(change.cookie, storeId)),
      cause: change.cause,
    });
    this.#tell(info, { sameSite: change.cookie.sameSite });
  }

  #tell(info: CookieChangeInfo, attributes: Parameters<CookieChangeListener>[1]): void {
    for (const listener of this.#listeners) {
      try {
        listener(info, attributes);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }
}

function parseUrl(url: string | URL): URL | undefined {
  if (typeof url !== 'string') return url;
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}
