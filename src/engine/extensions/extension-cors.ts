// CORS for an extension's own fetch, as Chromium 156 applies it (checked hop by hop and header by
// header in test/extensions/extension-cors.test.ts): a request to a URL the extension has host
// permission for is its own ("basic": nothing checked, every header readable but Set-Cookie). Any
// other is a cross-origin request from its origin: in "cors" mode a request that is not simple is
// preflighted, and the response is handed over only if the server allows the extension's origin
// (then as "cors": only the safelisted and exposed headers readable); in "no-cors" mode the
// response is opaque; in "same-origin" mode it is not sent. Pure functions, and the preflight cache.
import { getHeaderValues } from '../headers.js';
import type { HttpHeaders } from '../types.js';

export type FetchMode = 'cors' | 'no-cors' | 'same-origin' | 'navigate';
export type ResponseTainting = 'basic' | 'cors' | 'opaque';

/** Headers a script may read from a "cors" response without the server exposing them (Fetch, CORS-safelisted response-header names). */
const SAFELISTED_RESPONSE = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);
/** Never readable by a script (Fetch, forbidden response-header names). */
const FORBIDDEN_RESPONSE = new Set(['set-cookie', 'set-cookie2']);
const SIMPLE_METHODS = new Set(['GET', 'HEAD', 'POST']);
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
// Bytes a safelisted request-header value may not hold (Fetch, CORS-unsafe request-header byte).
// eslint-disable-next-line no-control-regex
const UNSAFE_BYTE = /[\x00-\x08\x0a-\x1f"():<>?@[\\\]{}\x7f]/;

/** Whether a request header needs no preflight (Fetch, CORS-safelisted request-header). */
function isSafelistedRequestHeader(name: string, value: string): boolean {
  if (value.length > 128) return false;
  switch (name.toLowerCase()) {
    case 'accept':
      return !UNSAFE_BYTE.test(value);
    case 'accept-language':
    case 'content-language':
      return /^[0-9A-Za-z *,\-.;=]*$/.test(value);
    case 'content-type': {
      if (UNSAFE_BYTE.test(value)) return false;
      const essence = value.split(';', 1)[0]!.trim().toLowerCase();
      return SIMPLE_CONTENT_TYPES.has(essence);
    }
    case 'range':
      return /^bytes=\d+-\d*$/.test(value);
    default:
      return false;
  }
}

/**
 * The names a preflight must ask for (Access-Control-Request-Headers): the script's headers that
 * are not safelisted, lowercased, sorted, once each.
 */
export function unsafeHeaderNames(headers: readonly [string, string][]): string[] {
  const names = new Set<string>();
  let safelistedBytes = 0;
  for (const [name, value] of headers) {
    if (isSafelistedRequestHeader(name, value)) safelistedBytes += value.length;
    else names.add(name.toLowerCase());
  }
  // Safelisted headers above 1 KiB together are unsafe all the same.
  if (safelistedBytes > 1024) for (const [name] of headers) names.add(name.toLowerCase());
  return [...names].sort();
}

/** A request that needs a preflight before it goes: not a simple method, or a header that is not safelisted. */
export function needsPreflight(method: string, headers: readonly [string, string][]): boolean {
  return !SIMPLE_METHODS.has(method) || unsafeHeaderNames(headers).length > 0;
}

const values = (headers: HttpHeaders, name: string) =>
  getHeaderValues(headers, name)
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');

/**
 * Why a response to a cross-origin request from `origin` may not be read by it (Fetch, CORS check),
 * or undefined when it may. `withCredentials`: the request's credentials mode is "include".
 */
export function corsRefusal(headers: HttpHeaders, origin: string, withCredentials: boolean): string | undefined {
  const allowed = getHeaderValues(headers, 'access-control-allow-origin');
  if (allowed.length === 0) return 'the response has no Access-Control-Allow-Origin header';
  if (allowed.length > 1) return `the response has ${allowed.length} Access-Control-Allow-Origin headers, and only one is allowed`;
  const value = allowed[0]!.trim();
  if (value === '*') return withCredentials ? 'its Access-Control-Allow-Origin is "*", which a request with credentials ("include") may not use' : undefined;
  if (value !== origin) return `its Access-Control-Allow-Origin is ${JSON.stringify(value)}, not ${origin}`;
  if (withCredentials && getHeaderValues(headers, 'access-control-allow-credentials')[0]?.trim() !== 'true') {
    return 'a request with credentials ("include") needs Access-Control-Allow-Credentials: true';
  }
  return undefined;
}

/** What a successful preflight allows, for the cache. */
export interface PreflightGrant {
  methods: Set<string>;
  headers: Set<string>;
  /** Every method and header (a "*" that holds: the request has no credentials). */
  anyMethod: boolean;
  anyHeader: boolean;
  /** Until when the browser may reuse it (Access-Control-Max-Age, 5 s without one, at most 2 h in Chromium). */
  expires: number;
}

/** The preflight's answer read (status, CORS check, methods and headers allowed), or why it refuses. */
export function readPreflight(statusCode: number, headers: HttpHeaders, origin: string, withCredentials: boolean, now: number): PreflightGrant | { refused: string } {
  const refusal = corsRefusal(headers, origin, withCredentials);
  if (refusal) return { refused: `its preflight (OPTIONS) was refused: ${refusal}` };
  if (statusCode < 200 || statusCode > 299) return { refused: `its preflight (OPTIONS) answered ${statusCode}, not 2xx` };
  const methods = values(headers, 'access-control-allow-methods');
  const names = values(headers, 'access-control-allow-headers').map((name) => name.toLowerCase());
  const maxAge = Number.parseInt(getHeaderValues(headers, 'access-control-max-age')[0] ?? '', 10);
  const seconds = Number.isFinite(maxAge) && maxAge >= 0 ? Math.min(maxAge, 7200) : 5;
  return {
    methods: new Set(methods),
    headers: new Set(names),
    anyMethod: !withCredentials && methods.includes('*'),
    anyHeader: !withCredentials && names.includes('*'),
    expires: now + seconds * 1000,
  };
}

/** Why `grant` does not cover the request (a method or header the server did not allow), or undefined. */
export function grantRefusal(grant: PreflightGrant, method: string, unsafeNames: readonly string[]): string | undefined {
  if (!SIMPLE_METHODS.has(method) && !grant.anyMethod && !grant.methods.has(method)) {
    return `its preflight (OPTIONS) does not allow the method ${method} (Access-Control-Allow-Methods)`;
  }
  // "*" never stands for Authorization.
  const missing = unsafeNames.filter((name) => !grant.headers.has(name) && !(grant.anyHeader && name !== 'authorization'));
  if (missing.length > 0) return `its preflight (OPTIONS) does not allow the header${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (Access-Control-Allow-Headers)`;
  return undefined;
}

/** Preflight answers an extension may reuse, by its origin, the URL and the credentials mode (as Chromium's cache keys them). */
/** Chromium's bounds (services/network/cors/preflight_cache.cc): entries, and the longest key kept. */
export const PREFLIGHT_CACHE_ENTRIES = 1024;
const PREFLIGHT_KEY_LENGTH = 1024;

export class PreflightCache {
  readonly #grants = new Map<string, PreflightGrant>();

  get size(): number {
    return this.#grants.size;
  }

  get(origin: string, url: string, withCredentials: boolean, now: number): PreflightGrant | undefined {
    const key = `${origin} ${withCredentials} ${url}`;
    const grant = this.#grants.get(key);
    if (grant && grant.expires <= now) this.#grants.delete(key);
    return grant && grant.expires > now ? grant : undefined;
  }

  /** Kept unless its key is too long; a full cache first drops what expired, else its 10 oldest (Chromium drops 10 at random). */
  put(origin: string, url: string, withCredentials: boolean, grant: PreflightGrant, now: number): void {
    const key = `${origin} ${withCredentials} ${url}`;
    if (key.length > PREFLIGHT_KEY_LENGTH) return;
    if (!this.#grants.has(key) && this.#grants.size >= PREFLIGHT_CACHE_ENTRIES) {
      for (const [old, kept] of this.#grants) if (kept.expires <= now) this.#grants.delete(old);
      for (const old of this.#grants.keys()) {
        if (this.#grants.size <= PREFLIGHT_CACHE_ENTRIES - 10) break;
        this.#grants.delete(old);
      }
    }
    this.#grants.set(key, grant);
  }
}

/** The response headers a script may read, as pairs, for the response's tainting. */
export function readableHeaders(headers: [string, string][], tainting: ResponseTainting, exposed: HttpHeaders, withCredentials: boolean): [string, string][] {
  if (tainting === 'opaque') return [];
  const readable = headers.filter(([name]) => !FORBIDDEN_RESPONSE.has(name.toLowerCase()));
  if (tainting === 'basic') return readable;
  const names = values(exposed, 'access-control-expose-headers').map((name) => name.toLowerCase());
  const all = !withCredentials && names.includes('*');
  return readable.filter(([name]) => all || SAFELISTED_RESPONSE.has(name.toLowerCase()) || names.includes(name.toLowerCase()));
}
