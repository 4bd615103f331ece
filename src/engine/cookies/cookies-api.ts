// What each cookies function does for one owner (an extension: a rule file), as outcomes; the
// namespace (cookies-namespace.ts) turns them into callbacks or Promises. Everything here runs
// synchronously at call time, so calls take effect in the order they were made, and a failure
// changes nothing. Chrome's behaviour (chrome/browser/extensions/api/cookies/cookies_api.cc)
// where the spec is silent:
//
//   • Checks in Chrome's order: the url (`Invalid url: "<url>".`), then host permissions for get,
//     set and remove (`No host permissions for cookies at url: "<url>".`, quoting the url as the
//     browser normalises it, e.g. with the trailing "/"), then the store
//     (`Invalid cookie store id: "<id>".`). set's other failures are all
//     `Failed to parse or set cookie named "<name>".`
//   • get and getAll({url}) see the cookies a request to the url would carry: Secure ones only for
//     https (or localhost), httpOnly ones included. Reading counts as an access (eviction order).
//   • getAll returns only cookies the extension has host permissions for: Chrome checks
//     http(s)://<cookie domain>/ (https for Secure cookies) against them. The url needs none.
//   • set answers with the cookie of that name a request to the url would now carry (Chrome reads
//     it back), so null when the cookie was set already expired (which deletes it).
//   • remove deletes every cookie of that name a request to the url would carry, and answers
//     { url, name, storeId } even when there was nothing to remove (Chrome does the same).
import type { Owner } from '../owner.js';
import { DEFAULT_STORE_ID, type Cookie, type CookieStore } from '../types.js';
import type { CookieJars } from './cookie-jars.js';
import { permissionUrlOf, requestTargetOf } from './cookie-match.js';
import { matchesGetAllFilter, type CookieGetAllDetails } from './get-all-filter.js';
import { cookieFromSetDetails, type CookieSetDetails } from './set-details.js';
import { toSpecCookie } from './spec-cookie.js';

export type { CookieGetDetails, CookieRemoveDetails, RemovedCookieDetails } from '../extension-api-types.js';
import type { CookieGetDetails, CookieRemoveDetails, RemovedCookieDetails } from '../extension-api-types.js';

const ACCESS_CACHE_SIZE = 10_000;

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

export interface CookiesApiOptions {
  /** The store of "the current execution context" when a call names none; "0" for a rule. */
  defaultStoreId?: string;
  /** Why a cookies.set failed, in more words than Chrome's message (for the journal). */
  onSetRefused?: (details: CookieSetDetails, reason: string) => void;
}

export class CookiesApi {
  readonly #jars: CookieJars;
  readonly #owner: Owner;
  readonly #defaultStoreId: string;
  readonly #onSetRefused: (details: CookieSetDetails, reason: string) => void;
  readonly #access = new Map<string, boolean>();

  constructor(jars: CookieJars, owner: Owner, options: CookiesApiOptions = {}) {
    this.#jars = jars;
    this.#owner = owner;
    this.#defaultStoreId = options.defaultStoreId ?? DEFAULT_STORE_ID;
    this.#onSetRefused = options.onSetRefused ?? (() => {});
  }

  /** The cookie as the owner's browser shows it: the spec's fields, and sameSite where the persona has it. */
  #shown(cookie: Parameters<typeof toSpecCookie>[0], storeId: string): Cookie {
    const shown = toSpecCookie(cookie, storeId);
    const sameSite = this.#owner.persona.cookieSameSite(cookie.sameSite);
    return sameSite === undefined ? shown : ({ ...shown, sameSite } as Cookie);
  }

  get(details: CookieGetDetails): Outcome<Cookie | null> {
    const url = this.#parseUrl(details.url, true);
    if (!url.ok) return url;
    const storeId = this.#storeId(details.storeId);
    if (!storeId.ok) return storeId;
    const cookie = this.#jars.cookiesFor(url.value, storeId.value, { touch: true }).find((candidate) => candidate.key === details.name);
    return ok(cookie ? this.#shown(cookie, storeId.value) : null);
  }

  getAll(details: CookieGetAllDetails): Outcome<Cookie[]> {
    let url: URL | undefined;
    if (details.url !== undefined) {
      const parsed = this.#parseUrl(details.url, false);
      if (!parsed.ok) return parsed;
      url = parsed.value;
    }
    const storeId = this.#storeId(details.storeId);
    if (!storeId.ok) return storeId;
    const candidates = url
      ? this.#jars.cookiesFor(url, storeId.value, { touch: true })
      : this.#jars.allCookies(storeId.value);
    const cookies: Cookie[] = [];
    for (const candidate of candidates) {
      if (!this.mayAccess(candidate)) continue;
      const cookie = this.#shown(candidate, storeId.value);
      if (matchesGetAllFilter(cookie, details)) cookies.push(cookie);
    }
    return ok(cookies);
  }

  set(details: CookieSetDetails): Outcome<Cookie | null> {
    const url = this.#parseUrl(details.url, true);
    if (!url.ok) return url;
    const storeId = this.#storeId(details.storeId);
    if (!storeId.ok) return storeId;
    const name = details.name ?? '';
    const failed = (reason: string): Outcome<never> => {
      this.#onSetRefused(details, reason);
      return fail(`Failed to parse or set cookie named "${name}".`);
    };
    const target = requestTargetOf(url.value);
    if (!target) return failed(`cookies cannot be set for ${url.value.protocol} URLs`);
    const built = cookieFromSetDetails(details, target, this.#jars.now());
    if (!built.ok) return failed(built.reason);
    const refusal = this.#jars.setCookie(built.cookie, url.value, storeId.value);
    if (refusal !== undefined) return failed(refusal);
    const stored = this.#jars.cookiesFor(url.value, storeId.value).find((candidate) => candidate.key === name);
    return ok(stored ? this.#shown(stored, storeId.value) : null);
  }

  remove(details: CookieRemoveDetails): Outcome<RemovedCookieDetails> {
    const url = this.#parseUrl(details.url, true);
    if (!url.ok) return url;
    const storeId = this.#storeId(details.storeId);
    if (!storeId.ok) return storeId;
    const doomed = this.#jars.cookiesFor(url.value, storeId.value).filter((cookie) => cookie.key === details.name);
    this.#jars.removeCookies(doomed, storeId.value);
    return ok({ name: details.name, storeId: storeId.value, url: url.value.href });
  }

  getAllCookieStores(): Outcome<CookieStore[]> {
    return ok(this.#jars.getAllCookieStores());
  }

  /**
   * Whether the owner may read this cookie and hear of its changes (spec Cookie or tough-cookie
   * shape). Remembered per cookie URL: host permissions do not change while the owner is loaded,
   * and every onChanged event asks.
   */
  mayAccess(cookie: { domain: string | null; secure: boolean }): boolean {
    const url = permissionUrlOf(cookie);
    let allowed = this.#access.get(url);
    if (allowed === undefined) {
      allowed = this.#owner.hostPermissions.matches(url);
      if (this.#access.size >= ACCESS_CACHE_SIZE) this.#access.clear();
      this.#access.set(url, allowed);
    }
    return allowed;
  }

  #parseUrl(text: string, checkHostPermissions: boolean): Outcome<URL> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return fail(`Invalid url: "${text}".`);
    }
    if (checkHostPermissions && !this.#owner.hostPermissions.matches(url)) {
      return fail(`No host permissions for cookies at url: "${url.href}".`);
    }
    return ok(url);
  }

  #storeId(requested: string | undefined): Outcome<string> {
    const storeId = requested ?? this.#defaultStoreId;
    return this.#jars.hasStore(storeId) ? ok(storeId) : fail(`Invalid cookie store id: "${storeId}".`);
  }
}

function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
