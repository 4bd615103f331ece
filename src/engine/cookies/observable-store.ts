// A tough-cookie Store that reports every change with its spec §3 cause, expires cookies on
// time, and keeps the store within Chrome's cookie limits.
//
// Index: domain → path → name, like tough-cookie's MemoryCookieStore, so finding the cookies of a
// request costs in proportion to that host's cookies, not the jar. Beside it: a set of all
// cookies (for the total limit), one set per registrable domain (for the per-domain limit and the
// Secure-cookie shadowing check) and a min-heap of expiry times (for the sweeper).
//
// Causes (spec §3):
//   putCookie / updateCookie of a new cookie           → added, `explicit`
//   … replacing an equivalent cookie (name+domain+path) → old removed `overwrite`, then new `explicit`
//   … whose expiry has already passed                  → old (if any) removed `expired_overwrite`,
//                                                         nothing stored, no event if nothing existed
//   removeCookie from tough-cookie (it expires cookies while reading), reads and the sweeper
//                                                      → `expired`
//   removeExplicitly / removeCookies / removeAllCookies → `explicit`
//   over the per-domain or total limit                 → `evicted` (see eviction.ts)
//
// Events are queued while an operation runs and delivered after it, in order, so a listener that
// calls back into the store never sees (or interrupts) a half-done overwrite.
import {
  Store,
  pathMatch,
  type Callback,
  type Cookie as ToughCookie,
  type ErrorCallback,
  type Nullable,
} from 'tough-cookie';
import type { OnChangedCause } from '../types.js';
import { systemClock, type Clock } from './clock.js';
import { DEFAULT_COOKIE_LIMITS, pickEvictionVictims, registrableDomainOf, type CookieLimits } from './eviction.js';
import { expiryTimeOf, fixExpiry, isExpiredAt } from './expiry.js';
import { ExpiryQueue, type ExpiryEntry } from './expiry-queue.js';
import { ExpirySweeper } from './expiry-sweeper.js';

export interface StoreChange {
  readonly removed: boolean;
  readonly cookie: ToughCookie;
  readonly cause: OnChangedCause;
}

export interface ObservableCookieStoreOptions {
  clock?: Clock;
  limits?: Partial<CookieLimits>;
  /**
   * Called after each operation, once per change, in order. It should not throw; if it does, the
   * remaining changes are still delivered and the first exception is rethrown to the caller.
   */
  onChange?: (change: StoreChange) => void;
}

const REGISTRABLE_DOMAIN_CACHE_SIZE = 10_000;

type KeyIndex = Map<string, ToughCookie>;
type PathIndex = Map<string, KeyIndex>;

export class ObservableCookieStore extends Store {
  override synchronous = true;
  readonly limits: Readonly<CookieLimits>;
  readonly #clock: Clock;
  readonly #onChange: (change: StoreChange) => void;
  readonly #index = new Map<string, PathIndex>();
  readonly #all = new Set<ToughCookie>();
  readonly #byRegistrableDomain = new Map<string, Set<ToughCookie>>();
  readonly #registrableDomainCache = new Map<string, string>();
  readonly #expiries = new ExpiryQueue<ToughCookie>();
  readonly #sweeper: ExpirySweeper;
  #pending: StoreChange[] = [];
  #delivering = false;
  /** Set while a cookie from a non-secure origin is being stored (see withSourceSecurity). */
  #insecureSource = false;

  constructor(options: ObservableCookieStoreOptions = {}) {
    super();
    this.#clock = options.clock ?? systemClock;
    this.#onChange = options.onChange ?? (() => {});
    this.limits = { ...DEFAULT_COOKIE_LIMITS, ...options.limits };
    this.#sweeper = new ExpirySweeper(this.#clock, (now) => this.#sweep(now));
  }

  get size(): number {
    return this.#all.size;
  }

  /** When the expiry sweeper wakes up next (Infinity when no cookie expires). */
  get nextSweepAt(): number {
    return this.#sweeper.armedAt;
  }

  // ── tough-cookie Store interface ─────────────────────────────────────────────

  override findCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>): Promise<ToughCookie | undefined>;
  override findCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>, callback: Callback<ToughCookie | undefined>): void;
  override findCookie(
    domain: Nullable<string>,
    path: Nullable<string>,
    key: Nullable<string>,
    callback?: Callback<ToughCookie | undefined>,
  ): unknown {
    return settle(callback, () => this.#lookup(domain, path, key));
  }

  override findCookies(domain: Nullable<string>, path: Nullable<string>, allowSpecialUseDomain?: boolean): Promise<ToughCookie[]>;
  override findCookies(
    domain: Nullable<string>,
    path: Nullable<string>,
    allowSpecialUseDomain?: boolean,
    callback?: Callback<ToughCookie[]>,
  ): void;
  override findCookies(
    domain: Nullable<string>,
    path: Nullable<string>,
    allowSpecialUseDomain?: boolean | Callback<ToughCookie[]>,
    callback?: Callback<ToughCookie[]>,
  ): unknown {
    // Old callers pass the callback third (tough-cookie's MemoryCookieStore accepts that too).
    const done = typeof allowSpecialUseDomain === 'function' ? allowSpecialUseDomain : callback;
    return settle(done, () => (domain ? this.#findForDomain(domain, path ?? null) : []));
  }

  override putCookie(cookie: ToughCookie): Promise<void>;
  override putCookie(cookie: ToughCookie, callback: ErrorCallback): void;
  override putCookie(cookie: ToughCookie, callback?: ErrorCallback): unknown {
    return settleVoid(callback, () => this.#operate(() => this.#put(cookie)));
  }

  override updateCookie(oldCookie: ToughCookie, newCookie: ToughCookie): Promise<void>;
  override updateCookie(oldCookie: ToughCookie, newCookie: ToughCookie, callback: ErrorCallback): void;
  override updateCookie(_oldCookie: ToughCookie, newCookie: ToughCookie, callback?: ErrorCallback): unknown {
    // The cookie in the store is the authority on what is replaced, not the caller's copy.
    return settleVoid(callback, () => this.#operate(() => this.#put(newCookie)));
  }

  override removeCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>): Promise<void>;
  override removeCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>, callback: ErrorCallback): void;
  override removeCookie(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>, callback?: ErrorCallback): unknown {
    return settleVoid(callback, () =>
      this.#operate(() => {
        const cookie = this.#lookup(domain, path, key);
        if (!cookie) return;
        // CookieJar calls this only to drop cookies it found expired while reading (with its own
        // Date.now(), hence both clocks); anyone else removing a live cookie removes it explicitly.
        const expired = isExpiredAt(cookie, this.#clock.now()) || isExpiredAt(cookie, Date.now());
        this.#removeAndReport(cookie, expired ? 'expired' : 'explicit');
      }),
    );
  }

  override removeCookies(domain: string, path: Nullable<string>): Promise<void>;
  override removeCookies(domain: string, path: Nullable<string>, callback: ErrorCallback): void;
  override removeCookies(domain: string, path: Nullable<string>, callback?: ErrorCallback): unknown {
    return settleVoid(callback, () =>
      this.#operate(() => {
        const paths = this.#index.get(domain);
        if (!paths) return;
        const doomed = path ? [...(paths.get(path)?.values() ?? [])] : [...paths.values()].flatMap((keys) => [...keys.values()]);
        for (const cookie of doomed) this.#removeAndReport(cookie, 'explicit');
      }),
    );
  }

  override removeAllCookies(): Promise<void>;
  override removeAllCookies(callback: ErrorCallback): void;
  override removeAllCookies(callback?: ErrorCallback): unknown {
    return settleVoid(callback, () =>
      this.#operate(() => {
        for (const cookie of [...this.#all]) this.#removeAndReport(cookie, 'explicit');
      }),
    );
  }

  override getAllCookies(): Promise<ToughCookie[]>;
  override getAllCookies(callback: Callback<ToughCookie[]>): void;
  override getAllCookies(callback?: Callback<ToughCookie[]>): unknown {
    // In creation order, as the Store contract asks (CookieJar.serialize relies on it).
    return settle(callback, () => [...this.#all].sort((a, b) => a.creationIndex - b.creationIndex));
  }

  // ── wrtui's own operations ───────────────────────────────────────────────────

  /**
   * Cookies stored under any of `domains` whose path `requestPath` path-matches (all paths when
   * null). Expired ones are removed on the way (`expired`) and not returned. Unsorted.
   */
  cookiesUnder(domains: readonly string[], requestPath: string | null): ToughCookie[] {
    const found: ToughCookie[] = [];
    let expired: ToughCookie[] | undefined;
    const now = this.#clock.now();
    for (const domain of domains) {
      const paths = this.#index.get(domain);
      if (!paths) continue;
      for (const [cookiePath, keys] of paths) {
        if (requestPath !== null && !pathMatch(requestPath, cookiePath)) continue;
        for (const cookie of keys.values()) {
          if (isExpiredAt(cookie, now)) (expired ??= []).push(cookie);
          else found.push(cookie);
        }
      }
    }
    if (expired) this.#operate(() => expired.forEach((cookie) => this.#removeAndReport(cookie, 'expired')));
    return found;
  }

  /** Every unexpired cookie, unsorted (expired ones are removed on the way). */
  allCookies(): ToughCookie[] {
    this.#sweep(this.#clock.now());
    return [...this.#all];
  }

  /** Removes this very cookie object if it is still stored; onChanged says `explicit`. */
  removeExplicitly(cookie: ToughCookie): boolean {
    let removed = false;
    this.#operate(() => {
      removed = this.#removeAndReport(cookie, 'explicit');
    });
    return removed;
  }

  /**
   * Runs `store` (a CookieJar.setCookieSync call) knowing whether the cookie comes from a secure
   * origin. Chrome refuses to let a non-secure origin set a non-Secure cookie that would overwrite
   * or shadow a Secure one (RFC 6265bis §5.7 step 16, "leave secure cookies alone").
   */
  withSourceSecurity<T>(secure: boolean, store: () => T): T {
    const previous = this.#insecureSource;
    this.#insecureSource = !secure;
    try {
      return store();
    } finally {
      this.#insecureSource = previous;
    }
  }

  /**
   * Puts back cookies loaded from disk, silently: no onChanged events (nothing changed from the
   * user's point of view; a browser does not report its cookie database loading either). Cookies
   * that expired meanwhile are dropped. Limits are enforced from the next change on.
   */
  restore(cookies: Iterable<ToughCookie>): number {
    const now = this.#clock.now();
    let restored = 0;
    for (const cookie of cookies) {
      const { domain, path, key } = cookie;
      if (domain == null || path == null || key == null) continue;
      fixExpiry(cookie, now);
      if (isExpiredAt(cookie, now)) continue;
      const existing = this.#lookup(domain, path, key);
      if (existing) this.#delete(existing);
      this.#insert(cookie);
      restored++;
    }
    return restored;
  }

  /** Stops the expiry timer; the store keeps working (reads still drop expired cookies). */
  close(): void {
    this.#sweeper.stop();
  }

  // ── internals ────────────────────────────────────────────────────────────────

  #lookup(domain: Nullable<string>, path: Nullable<string>, key: Nullable<string>): ToughCookie | undefined {
    if (domain == null || path == null || key == null) return undefined;
    return this.#index.get(domain)?.get(path)?.get(key);
  }

  #findForDomain(domain: string, path: string | null): ToughCookie[] {
    // The domain and its parents (tough-cookie asks with the request host).
    const domains = [domain];
    for (let dot = domain.indexOf('.'); dot !== -1 && dot < domain.length - 1; dot = domain.indexOf('.', dot + 1)) {
      domains.push(domain.slice(dot + 1));
    }
    return this.cookiesUnder(domains, path);
  }

  #put(cookie: ToughCookie): void {
    const { domain, path, key } = cookie;
    if (domain == null || path == null || key == null) return;
    const now = this.#clock.now();
    fixExpiry(cookie, now);
    if (this.#insecureSource && !cookie.secure) this.#refuseShadowingSecureCookie(cookie, domain, path, key);
    const existing = this.#lookup(domain, path, key);
    if (existing === cookie) return;
    if (isExpiredAt(cookie, now)) {
      if (existing) this.#removeAndReport(existing, 'expired_overwrite');
      return;
    }
    if (existing) this.#removeAndReport(existing, 'overwrite');
    this.#insert(cookie);
    this.#report(false, cookie, 'explicit');
    this.#enforceLimits(domain);
  }

  #refuseShadowingSecureCookie(cookie: ToughCookie, domain: string, path: string, key: string): void {
    const sameSite = this.#byRegistrableDomain.get(this.#registrableDomain(domain));
    if (!sameSite) return;
    for (const other of sameSite) {
      const otherDomain = other.domain ?? '';
      if (
        other.secure &&
        other.key === key &&
        (otherDomain === domain || otherDomain.endsWith(`.${domain}`) || domain.endsWith(`.${otherDomain}`)) &&
        pathMatch(path, other.path ?? '/')
      ) {
        throw new Error(
          `Cookie "${cookie.key}" from a non-secure origin would overwrite or shadow a Secure cookie (${otherDomain}${other.path ?? ''})`,
        );
      }
    }
  }

  #insert(cookie: ToughCookie): void {
    const domain = cookie.domain!;
    const path = cookie.path!;
    let paths = this.#index.get(domain);
    if (!paths) this.#index.set(domain, (paths = new Map()));
    let keys = paths.get(path);
    if (!keys) paths.set(path, (keys = new Map()));
    keys.set(cookie.key, cookie);
    this.#all.add(cookie);
    const registrable = this.#registrableDomain(domain);
    let group = this.#byRegistrableDomain.get(registrable);
    if (!group) this.#byRegistrableDomain.set(registrable, (group = new Set()));
    group.add(cookie);
    const expiresAt = expiryTimeOf(cookie);
    if (Number.isFinite(expiresAt)) {
      this.#expiries.push(expiresAt, cookie);
      this.#sweeper.scheduleAt(expiresAt);
      if (this.#expiries.size > 2 * this.#all.size + 1024) this.#compactExpiries();
    }
  }

  /** Unindexes the cookie; false when this object is not (or no longer) stored. */
  #delete(cookie: ToughCookie): boolean {
    if (!this.#all.delete(cookie)) return false;
    const domain = cookie.domain!;
    const paths = this.#index.get(domain);
    const keys = paths?.get(cookie.path!);
    if (keys?.get(cookie.key) === cookie) {
      keys.delete(cookie.key);
      if (keys.size === 0) paths!.delete(cookie.path!);
      if (paths!.size === 0) this.#index.delete(domain);
    }
    const registrable = this.#registrableDomain(domain);
    const group = this.#byRegistrableDomain.get(registrable);
    group?.delete(cookie);
    if (group?.size === 0) this.#byRegistrableDomain.delete(registrable);
    return true;
  }

  #removeAndReport(cookie: ToughCookie, cause: OnChangedCause): boolean {
    if (!this.#delete(cookie)) return false;
    this.#report(true, cookie, cause);
    return true;
  }

  /** A public-suffix lookup costs microseconds; remember answers, within a bounded cache. */
  #registrableDomain(domain: string): string {
    let registrable = this.#registrableDomainCache.get(domain);
    if (registrable === undefined) {
      registrable = registrableDomainOf(domain);
      if (this.#registrableDomainCache.size >= REGISTRABLE_DOMAIN_CACHE_SIZE) this.#registrableDomainCache.clear();
      this.#registrableDomainCache.set(domain, registrable);
    }
    return registrable;
  }

  #enforceLimits(domain: string): void {
    const group = this.#byRegistrableDomain.get(this.#registrableDomain(domain));
    if (group && group.size > this.limits.perDomain) {
      for (const victim of pickEvictionVictims(group, group.size - this.limits.perDomain, true)) {
        this.#removeAndReport(victim, 'evicted');
      }
    }
    if (this.#all.size > this.limits.total) {
      for (const victim of pickEvictionVictims(this.#all, this.#all.size - this.limits.total, false)) {
        this.#removeAndReport(victim, 'evicted');
      }
    }
  }

  #isCurrent(entry: ExpiryEntry<ToughCookie>): boolean {
    return this.#all.has(entry.item) && expiryTimeOf(entry.item) === entry.at;
  }

  #sweep(now: number): void {
    this.#operate(() => {
      for (let top = this.#expiries.peek(); top !== undefined && top.at <= now; top = this.#expiries.peek()) {
        this.#expiries.pop();
        if (this.#isCurrent(top)) this.#removeAndReport(top.item, 'expired');
      }
    });
    // Arm for the next expiry that still stands (entries of replaced cookies are skipped).
    let next = this.#expiries.peek();
    while (next !== undefined && !this.#isCurrent(next)) {
      this.#expiries.pop();
      next = this.#expiries.peek();
    }
    if (next !== undefined) this.#sweeper.scheduleAt(next.at);
  }

  #compactExpiries(): void {
    const live: ExpiryEntry<ToughCookie>[] = [];
    for (const cookie of this.#all) {
      const at = expiryTimeOf(cookie);
      if (Number.isFinite(at)) live.push({ at, item: cookie });
    }
    this.#expiries.rebuild(live);
  }

  #report(removed: boolean, cookie: ToughCookie, cause: OnChangedCause): void {
    this.#pending.push({ removed, cookie, cause });
  }

  /** Runs a mutation, then delivers the changes it queued (unless an outer delivery is running). */
  #operate(mutation: () => void): void {
    try {
      mutation();
    } finally {
      this.#deliver();
    }
  }

  #deliver(): void {
    if (this.#delivering) return;
    this.#delivering = true;
    let failure: { error: unknown } | undefined;
    // A listener may cause more changes; they join the queue and are delivered in order.
    for (let index = 0; index < this.#pending.length; index++) {
      try {
        this.#onChange(this.#pending[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
    this.#pending = [];
    this.#delivering = false;
    if (failure) throw failure.error;
  }
}

function settle<T>(callback: Callback<T> | undefined, compute: () => T): Promise<T> | undefined {
  let result: T;
  try {
    result = compute();
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (!callback) return Promise.reject(failure);
    callback(failure);
    return undefined;
  }
  if (!callback) return Promise.resolve(result);
  callback(null, result);
  return undefined;
}

function settleVoid(callback: ErrorCallback | undefined, run: () => void): Promise<void> | undefined {
  try {
    run();
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (!callback) return Promise.reject(failure);
    callback(failure);
    return undefined;
  }
  if (!callback) return Promise.resolve();
  callback(null);
  return undefined;
}
