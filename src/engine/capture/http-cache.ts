// The proxy's optional in-memory HTTP cache (`--cache`). It exists so that webRequest's `fromCache`
// and handlerBehaviorChanged's "flush the in-memory cache" act on something real. It is a private
// cache, like a browser's. Freshness, storability, Vary and validators follow RFC 9111 as
// http-cache-semantics implements it. This file adds storage (variants per URL, LRU caps),
// invalidation, and the request/response shapes the proxy uses. Where 4.3 departs from the RFC, the
// fix is inline and commented.
//
// How the proxy drives it:
//   lookup(request)  'fresh' → serve response itself (fromCache: true);
//                    'stale' → send the request upstream with revalidationHeaders, then call
//                              revalidated(stale, request, upstreamResponse);
//                    'miss'  → forward as usual.
//   store(request, response) after EVERY completed response, with body undefined when it was not
//                    buffered whole: that is also how unsafe methods invalidate (RFC 9111 §4.4).
//   clear()          on an accepted handlerBehaviorChanged.
import CachePolicy from 'http-cache-semantics';

export type HeaderValue = string | string[] | undefined;
export type HeaderMap = Record<string, HeaderValue>;
export type RawHeaders = [string, string][];

export interface CacheRequest {
  /** Absolute URL. A #fragment is ignored: it never reaches the server. */
  url: string;
  method: string;
  /** Lower-case names, as Node gives them. */
  headers: HeaderMap;
}

export interface CacheResponse {
  statusCode: number;
  statusMessage: string;
  headers: HeaderMap;
  rawHeaders: RawHeaders;
  /** The body as sent on the wire, still content-coded (it matches Content-Encoding). Shared between hits; do not mutate it. */
  body: Uint8Array;
}

/** A response from upstream, given to store() or revalidated(). body is undefined when it was not buffered whole. */
export interface UpstreamResponse extends Omit<CacheResponse, 'body'> {
  body?: Uint8Array | undefined;
}

/** A stored entry, opaque to callers; a 'stale' lookup carries it to revalidated(). */
export interface CacheEntryRef {
  /** `METHOD url`, for logs and the UI. */
  readonly key: string;
}

export type MissReason =
  | 'method' // not GET/HEAD
  | 'bypass' // request Cache-Control: no-cache, or Pragma: no-cache (a browser's hard reload)
  | 'conditional' // the client's own If-* request: its validators, not ours
  | 'range' // partial content is not cached
  | 'absent' // nothing stored for this URL and these Vary'd headers
  | 'unvalidatable'; // stored but stale, and it has no ETag or Last-Modified to validate with

export interface StaleLookup {
  kind: 'stale';
  /** The client's end-to-end request headers plus If-None-Match / If-Modified-Since. */
  revalidationHeaders: Record<string, string | string[]>;
  entryKey: string;
  /** Handed back to revalidated(). It outlives eviction and clear() while the revalidation is in flight. */
  entry: CacheEntryRef;
}

export type CacheLookup =
  | { kind: 'miss'; reason: MissReason }
  | { kind: 'fresh'; response: CacheResponse }
  | StaleLookup;

export type RevalidationOutcome =
  /** 304: serve this response (stored body, headers updated from the 304). */
  | { kind: 'not-modified'; response: CacheResponse }
  /** Anything else: forward the upstream response as it is. It replaced the entry if storable. */
  | { kind: 'modified'; stored: boolean };

export interface HttpCacheOptions {
  /** Stored responses (variants count one each). Default 2000. */
  maxEntries?: number;
  /** Sum of stored body bytes. Default 64 MiB. */
  maxBytes?: number;
  /** Largest body stored. Default 8 MiB. */
  maxBodyBytes?: number;
  /** Vary variants kept per method+URL; the oldest goes first. Default 4. */
  maxVariants?: number;
  /** Epoch ms. Default Date.now. */
  now?: () => number;
  /** false (default): a browser's private cache. true: RFC 9111's shared-cache rules (private, Authorization, s-maxage). */
  shared?: boolean;
}

export interface HttpCacheStats {
  entries: number;
  bytes: number;
  /** Lookups answered 'fresh'. */
  hits: number;
  /** GET/HEAD lookups answered 'miss'. */
  misses: number;
  /** Lookups answered 'stale' (a conditional request follows). */
  stale: number;
  /** Entries dropped for the size caps. */
  evictions: number;
}

type PolicyClass = new (
  request: CachePolicy.Request,
  response: CachePolicy.Response,
  options?: CachePolicy.Options,
) => CachePolicy;

interface Entry extends CacheEntryRef {
  policy: CachePolicy;
  /** Normalized headers of the request this response answered; Vary selects on them. */
  requestHeaders: Record<string, string>;
  /** Lower-cased Vary field names. */
  vary: string[];
  statusCode: number;
  statusMessage: string;
  /** Normalized, without Set-Cookie. */
  headers: Record<string, string>;
  rawHeaders: RawHeaders;
  body: Uint8Array;
}

const CACHEABLE_METHODS = new Set(['GET', 'HEAD']);
// RFC 9110 §9.2.1. Anything else, including unknown methods, is unsafe for RFC 9111 §4.4.
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const CONDITIONAL_HEADERS = ['if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since', 'if-range'];
// Fields a 304 must not overwrite: they describe the stored body (RFC 9111 §3.2: Content-Length; the
// library adds the coding fields), or they are hop-by-hop and never stored.
const NOT_UPDATED_BY_304 = new Set([
  'content-length', 'content-encoding', 'transfer-encoding', 'content-range',
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'upgrade',
]);

export class HttpCache {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #maxBodyBytes: number;
  readonly #maxVariants: number;
  readonly #shared: boolean;
  readonly #Policy: PolicyClass;
  /** `METHOD url` → its variants, oldest first. */
  readonly #byKey = new Map<string, Entry[]>();
  /** Every entry, least recently used first (a Set keeps insertion order; touching re-inserts). */
  readonly #lru = new Set<Entry>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  #stale = 0;
  #evictions = 0;

  constructor(options: HttpCacheOptions = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 2000);
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.#maxBodyBytes = Math.min(options.maxBodyBytes ?? 8 * 1024 * 1024, this.#maxBytes);
    this.#maxVariants = Math.max(1, options.maxVariants ?? 4);
    this.#shared = options.shared ?? false;
    this.#Policy = policyWithClock(options.now ?? Date.now);
  }

  get stats(): HttpCacheStats {
    return {
      entries: this.#lru.size,
      bytes: this.#bytes,
      hits: this.#hits,
      misses: this.#misses,
      stale: this.#stale,
      evictions: this.#evictions,
    };
  }

  lookup(request: CacheRequest): CacheLookup {
    const method = request.method.toUpperCase();
    if (!CACHEABLE_METHODS.has(method)) return { kind: 'miss', reason: 'method' };
    const req = policyRequest(request, method);
    const miss = (reason: MissReason): CacheLookup => {
      this.#misses++;
      return { kind: 'miss', reason };
    };
    // Fetch's "reload" and "no-store" modes send Cache-Control: no-cache (and Pragma); its
    // "no-cache" mode sends max-age=0, which validates instead (handled by the library below).
    if (bypassesCache(req.headers)) return miss('bypass');
    if (CONDITIONAL_HEADERS.some((name) => name in req.headers)) return miss('conditional');
    if ('range' in req.headers) return miss('range');

    const entry = this.#select(cacheKey(method, req.url), req.headers);
    if (!entry) return miss('absent');
    this.#touch(entry);
    if (this.#servableWithoutRevalidation(entry, req)) {
      this.#hits++;
      return { kind: 'fresh', response: served(entry, entry.policy.responseHeaders()) };
    }
    if (!hasValidators(entry.headers)) {
      // Nothing to send a conditional request with: the full response that follows replaces it.
      this.#remove(entry);
      return miss('unvalidatable');
    }
    this.#stale++;
    const revalidationHeaders = definedOnly(entry.policy.revalidationHeaders(req));
    // policyRequest() set Host from the URL for matching; give back the client's own (or none: HTTP/2).
    const clientHost = headerString(request.headers, 'host');
    if (clientHost === undefined) delete revalidationHeaders.host;
    else revalidationHeaders.host = clientHost;
    return { kind: 'stale', revalidationHeaders, entryKey: entry.key, entry };
  }

  /**
   * Call with every completed response. Returns whether it was stored. A response to a GET/HEAD
   * supersedes the variant its request selected, stored or not (as Chrome dooms the old entry).
   */
  store(request: CacheRequest, response: UpstreamResponse): boolean {
    const method = request.method.toUpperCase();
    if (!SAFE_METHODS.has(method)) {
      this.#invalidateAfterUnsafe(request.url, response);
      return false;
    }
    if (!CACHEABLE_METHODS.has(method)) return false;
    // Answers to the client's own conditional or range request say nothing about the stored entry.
    if (response.statusCode === 304 || response.statusCode === 206) return false;

    const req = policyRequest(request, method);
    const key = cacheKey(method, req.url);
    for (const old of this.#variants(key)) {
      if (varySelects(old, req.headers)) this.#remove(old);
    }

    const headers = responseHeadersForStorage(response.headers);
    const policy = new this.#Policy(req, { status: response.statusCode, headers }, { shared: this.#shared });
    const vary = varyFields(headers.vary);
    const body = response.body;
    if (
      !policy.storable() ||
      // RFC 9111 §4.1: a Vary of "*" always fails to match, so storing it would be dead weight.
      vary.includes('*') ||
      body === undefined ||
      body.byteLength > this.#maxBodyBytes ||
      // Never servable (already stale) and never revalidatable (no validator): dead weight too.
      (policy.stale() && !hasValidators(headers))
    ) {
      return false;
    }

    const entry: Entry = {
      key,
      policy,
      requestHeaders: req.headers,
      vary,
      statusCode: response.statusCode,
      statusMessage: response.statusMessage,
      headers,
      rawHeaders: response.rawHeaders.filter(([name]) => name.toLowerCase() !== 'set-cookie'),
      // A copy: the caller's buffer may be a slice of a larger pooled one.
      body: body.slice(),
    };
    this.#insert(entry);
    return true;
  }

  /**
   * The upstream answer to a 'stale' lookup's conditional request. `request` is the client's request
   * (the one given to lookup), not the conditional one.
   */
  revalidated(stale: StaleLookup, request: CacheRequest, response: UpstreamResponse): RevalidationOutcome {
    const entry = stale.entry as Entry;
    if (response.statusCode !== 304) {
      // Including 5xx: browsers do not implement stale-if-error, so neither does wrtui.
      return { kind: 'modified', stored: this.store(request, response) };
    }
    const req = policyRequest(request, request.method.toUpperCase());
    const fromUpstream = responseHeadersForStorage(response.headers);
    const { matches } = entry.policy.revalidatedPolicy(req, { status: 304, headers: fromUpstream });
    const setCookie = response.headers['set-cookie'];
    if (!matches) {
      // RFC 9111 §4.3.4: "If none of the stored responses contain the same strong validator, then
      // the cache MUST NOT use the new response to update any stored responses." The client still
      // needs a full response, and the origin did not object to ours. So serve it unchanged and drop it,
      // so that the next request fetches the whole response again.
      this.#remove(entry);
      return { kind: 'not-modified', response: served(entry, entry.policy.responseHeaders(), setCookie) };
    }
    // RFC 9111 §3.2: "the cache MUST add each header field in the provided response to the stored
    // response, replacing field values that are already present". The library only replaces.
    const headers = { ...entry.headers };
    for (const [name, value] of Object.entries(fromUpstream)) {
      if (!NOT_UPDATED_BY_304.has(name)) headers[name] = value;
    }
    const rawHeaders = rawHeadersFor(headers, entry.rawHeaders, response.rawHeaders);
    const policy = new this.#Policy(req, { status: entry.statusCode, headers }, { shared: this.#shared });
    const updated: Entry = { ...entry, policy, requestHeaders: req.headers, headers, rawHeaders };
    // Only an entry still in the cache is updated: one cleared (handlerBehaviorChanged) or
    // invalidated (an unsafe request) meanwhile stays gone.
    if (this.#lru.has(entry)) {
      this.#remove(entry);
      this.#insert(updated);
    }
    return { kind: 'not-modified', response: served(updated, policy.responseHeaders(), setCookie) };
  }

  /** Drops every stored response (GET and HEAD, all variants) for `url`. Returns how many. */
  invalidate(url: string): number {
    let removed = 0;
    for (const method of CACHEABLE_METHODS) {
      for (const entry of this.#variants(cacheKey(method, url))) {
        this.#remove(entry);
        removed++;
      }
    }
    return removed;
  }

  /** handlerBehaviorChanged: forget every stored response. The counters keep counting. */
  clear(): void {
    this.#byKey.clear();
    this.#lru.clear();
    this.#bytes = 0;
  }

  // RFC 9111 §4.4: "A cache MUST invalidate the target URI when it receives a non-error status code
  // in response to an unsafe request method (including methods whose safety is unknown)." It MAY also
  // invalidate Location and Content-Location, but "MUST NOT ... if the origin ... differs".
  #invalidateAfterUnsafe(url: string, response: UpstreamResponse): void {
    if (response.statusCode < 200 || response.statusCode >= 400) return;
    this.invalidate(url);
    const target = parseUrl(url);
    if (!target) return;
    for (const name of ['location', 'content-location']) {
      const value = headerString(response.headers, name);
      const other = value === undefined ? undefined : parseUrl(value, target);
      if (other && other.origin === target.origin) this.invalidate(other.href);
    }
  }

  #servableWithoutRevalidation(entry: Entry, req: NormalizedRequest): boolean {
    const { policy } = entry;
    const verdict = policy.evaluateRequest(req);
    if (!verdict.revalidation) return true;
    // A stale-while-revalidate hit (response plus background revalidation) is revalidated
    // synchronously: the proxy has no background fetch.
    if (verdict.response) return false;
    // http-cache-semantics 4.2+ revalidates every must-revalidate response. RFC 9111 §5.2.2.2 only
    // forbids reuse "once the response has become stale". So for a fresh must-revalidate response,
    // redo the request-side checks that evaluateRequest() skipped.
    if (!directives(entry.headers['cache-control']).has('must-revalidate') || policy.stale()) return false;
    const requested = directives(req.headers['cache-control']);
    if (requested.has('no-cache') || /no-cache/i.test(req.headers.pragma ?? '')) return false;
    const maxAge = requested.get('max-age');
    if (maxAge !== undefined && policy.age() > Number(maxAge)) return false;
    const minFresh = requested.get('min-fresh');
    if (minFresh !== undefined && policy.maxAge() - policy.age() < Number(minFresh)) return false;
    return true;
  }

  #variants(key: string): Entry[] {
    return [...(this.#byKey.get(key) ?? [])];
  }

  /** The newest variant whose Vary'd request headers match. At most maxVariants compared: O(1). */
  #select(key: string, headers: Record<string, string>): Entry | undefined {
    const variants = this.#byKey.get(key);
    if (!variants) return undefined;
    for (let i = variants.length - 1; i >= 0; i--) {
      const entry = variants[i]!;
      if (varySelects(entry, headers)) return entry;
    }
    return undefined;
  }

  #insert(entry: Entry): void {
    let variants = this.#byKey.get(entry.key);
    if (!variants) this.#byKey.set(entry.key, (variants = []));
    variants.push(entry);
    this.#lru.add(entry);
    this.#bytes += entry.body.byteLength;
    if (variants.length > this.#maxVariants) this.#remove(variants[0]!);
    // The new entry fits alone (body ≤ maxBodyBytes ≤ maxBytes), so this never evicts it.
    for (const oldest of this.#lru) {
      if (this.#lru.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#remove(oldest);
      this.#evictions++;
    }
  }

  #touch(entry: Entry): void {
    this.#lru.delete(entry);
    this.#lru.add(entry);
  }

  #remove(entry: Entry): void {
    if (!this.#lru.delete(entry)) return;
    this.#bytes -= entry.body.byteLength;
    const variants = this.#byKey.get(entry.key);
    if (!variants) return;
    const at = variants.indexOf(entry);
    if (at >= 0) variants.splice(at, 1);
    if (variants.length === 0) this.#byKey.delete(entry.key);
  }
}

/**
 * CachePolicy reads the time only through its `now()` method, and it documents that method as
 * patchable. So each cache gets a subclass that uses its own clock. revalidatedPolicy() builds
 * `new this.constructor`, so the new policy keeps that clock.
 */
function policyWithClock(now: () => number): PolicyClass {
  return class ClockedCachePolicy extends CachePolicy {
    now(): number {
      return now();
    }
  };
}

interface NormalizedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/**
 * The library compares header values with `===`, so every value becomes one string here. Arrays
 * would never match, and a key holding `undefined` is not the same as an absent one. Host is taken
 * from the URL: the URL is the cache key, and HTTP/2 requests carry :authority instead.
 */
function policyRequest(request: CacheRequest, method: string): NormalizedRequest {
  const headers: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(request.headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || name.startsWith(':')) continue;
    // RFC 9113 §8.2.3: split Cookie fields rejoin with "; ".
    headers[name] = Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
  }
  const url = withoutFragment(request.url);
  const parsed = parseUrl(url);
  if (parsed) headers.host = parsed.host;
  return { url, method, headers };
}

/** One string per field, Set-Cookie removed: a hit must not replay cookies, as Chrome stores entries without them. */
function responseHeadersForStorage(input: HeaderMap): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(input)) {
    const name = rawName.toLowerCase();
    if (value === undefined || name === 'set-cookie' || name.startsWith(':')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function served(entry: Entry, policyHeaders: CachePolicy.Headers, setCookie?: HeaderValue): CacheResponse {
  const headers: HeaderMap = { ...policyHeaders };
  if (setCookie !== undefined) headers['set-cookie'] = setCookie;
  return {
    statusCode: entry.statusCode,
    statusMessage: entry.statusMessage,
    headers,
    rawHeaders: rawHeadersFor(headers, entry.rawHeaders),
    body: entry.body,
  };
}

/**
 * Raw headers that say what `headers` says. Fields kept unchanged keep their place, case and
 * repetitions. Changed ones take the place of their first occurrence. Dropped ones (hop-by-hop)
 * go. Fields no source has are appended, cased like the first source.
 */
function rawHeadersFor(headers: HeaderMap, ...sources: RawHeaders[]): RawHeaders {
  const out: RawHeaders = [];
  const done = new Set<string>();
  for (const raw of sources) {
    const values = new Map<string, string[]>();
    for (const [name, value] of raw) {
      const lower = name.toLowerCase();
      const list = values.get(lower);
      if (list) list.push(value);
      else values.set(lower, [value]);
    }
    const verdict = new Map<string, 'keep' | 'skip'>();
    for (const [name, value] of raw) {
      const lower = name.toLowerCase();
      if (done.has(lower)) continue;
      const seen = verdict.get(lower);
      if (seen === 'keep') out.push([name, value]);
      if (seen) continue;
      const wanted = headers[lower];
      if (wanted === undefined) {
        verdict.set(lower, 'skip');
      } else if (sameValues(wanted, values.get(lower)!)) {
        verdict.set(lower, 'keep');
        out.push([name, value]);
      } else {
        verdict.set(lower, 'skip');
        for (const v of asList(wanted)) out.push([name, v]);
      }
    }
    for (const lower of verdict.keys()) done.add(lower);
  }
  const titleCase = (sources[0] ?? []).some(([name]) => name !== name.toLowerCase());
  for (const [lower, value] of Object.entries(headers)) {
    if (value === undefined || done.has(lower)) continue;
    const name = titleCase ? lower.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase()) : lower;
    for (const v of asList(value)) out.push([name, v]);
  }
  return out;
}

function sameValues(wanted: string | string[], raw: string[]): boolean {
  if (Array.isArray(wanted)) return wanted.length === raw.length && wanted.every((v, i) => v === raw[i]);
  return wanted === raw.join(', ');
}

function asList(value: string | string[]): string[] {
  return Array.isArray(value) ? value : [value];
}

function varyFields(vary: string | undefined): string[] {
  if (!vary) return [];
  return vary.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
}

/** RFC 9111 §4.1: the stored request and this one agree on every field the response's Vary names. */
function varySelects(entry: Entry, headers: Record<string, string>): boolean {
  return entry.vary.every((name) => name !== '*' && headers[name] === entry.requestHeaders[name]);
}

function hasValidators(headers: Record<string, string>): boolean {
  return headers.etag !== undefined || headers['last-modified'] !== undefined;
}

function bypassesCache(headers: Record<string, string>): boolean {
  const cacheControl = headers['cache-control'];
  if (cacheControl !== undefined) return directives(cacheControl).has('no-cache');
  // Pragma counts only without Cache-Control (RFC 7234 §5.4; RFC 9111 deprecates it, clients still send it).
  return /(^|,)\s*no-cache\s*(,|$)/i.test(headers.pragma ?? '');
}

/** Cache-Control directives, names lower-cased, values unquoted; a bare directive maps to ''. */
function directives(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (value ?? '').split(',')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name) out.set(name, eq < 0 ? '' : part.slice(eq + 1).trim().replace(/^"|"$/g, ''));
  }
  return out;
}

function definedOnly(headers: CachePolicy.Headers): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}

function headerString(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function cacheKey(method: string, url: string): string {
  return `${method} ${withoutFragment(url)}`;
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

function parseUrl(url: string, base?: URL): URL | undefined {
  try {
    return new URL(url, base);
  } catch {
    return undefined;
  }
}
