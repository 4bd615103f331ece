// The proxy's in-memory HTTP cache: RFC 9111 through http-cache-semantics, one test per rule.
// Time is the cache's injected clock, so nothing here depends on the wall clock.
import { describe, expect, it } from 'vitest';
import {
  HttpCache,
  type CacheLookup,
  type CacheRequest,
  type CacheResponse,
  type HttpCacheOptions,
  type StaleLookup,
  type UpstreamResponse,
} from '../../src/engine/capture/http-cache.js';

const T0 = Date.UTC(2024, 0, 1, 12, 0, 0);
const URL_A = 'http://a.test/app.js';

function setup(options: HttpCacheOptions = {}) {
  let now = T0;
  const cache = new HttpCache({ now: () => now, ...options });
  return {
    cache,
    advance(seconds: number) {
      now += seconds * 1000;
    },
    now: () => now,
  };
}

function request(url = URL_A, headers: Record<string, string> = {}, method = 'GET'): CacheRequest {
  return { url, method, headers: { host: new URL(url).host, ...headers } };
}

/** A response shaped like Node's: joined duplicate fields, Set-Cookie as an array, raw fields as received. */
function response(fields: [string, string][], body: string | undefined = 'hello', statusCode = 200, statusMessage = 'OK'): UpstreamResponse {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of fields) {
    const key = name.toLowerCase();
    const prev = headers[key];
    if (prev === undefined) headers[key] = key === 'set-cookie' ? [value] : value;
    else headers[key] = Array.isArray(prev) ? [...prev, value] : `${prev}, ${value}`;
  }
  return { statusCode, statusMessage, headers, rawHeaders: fields, body: body === undefined ? undefined : new TextEncoder().encode(body) };
}

const httpDate = (ms: number) => new Date(ms).toUTCString();
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function fresh(lookup: CacheLookup): CacheResponse {
  if (lookup.kind !== 'fresh') throw new Error(`expected a fresh hit, got ${JSON.stringify(lookup)}`);
  return lookup.response;
}

function stale(lookup: CacheLookup): StaleLookup {
  if (lookup.kind !== 'stale') throw new Error(`expected a stale hit, got ${JSON.stringify(lookup)}`);
  return lookup;
}

describe('HttpCache', () => {
  it('only GET and HEAD are cached (RFC 9111 §3: "the request method is understood by the cache")', () => {
    const { cache } = setup();
    // http-cache-semantics would store a POST with explicit freshness; a browser cache does not.
    expect(cache.store(request(URL_A, {}, 'POST'), response([['Cache-Control', 'max-age=60']]))).toBe(false);
    expect(cache.store(request(URL_A, {}, 'OPTIONS'), response([['Cache-Control', 'max-age=60']]))).toBe(false);
    expect(cache.lookup(request(URL_A, {}, 'POST'))).toEqual({ kind: 'miss', reason: 'method' });
    expect(cache.stats.misses).toBe(0);

    expect(cache.store(request(), response([['Cache-Control', 'max-age=60']], 'get body'))).toBe(true);
    // GET and HEAD are separate keys: a stored GET does not answer a HEAD.
    expect(cache.lookup(request(URL_A, {}, 'HEAD'))).toEqual({ kind: 'miss', reason: 'absent' });
    expect(cache.store(request(URL_A, {}, 'head'), response([['Cache-Control', 'max-age=60']], ''))).toBe(true);
    expect(text(fresh(cache.lookup(request(URL_A, {}, 'HEAD'))).body)).toBe('');
    expect(text(fresh(cache.lookup(request())).body)).toBe('get body');
    expect(cache.stats.entries).toBe(2);
  });

  it('Vary: one URL holds a variant per value of the Vary\'d request headers (RFC 9111 §4.1)', () => {
    const { cache } = setup();
    const varied = (body: string) => response([['Cache-Control', 'max-age=60'], ['Vary', 'Accept-Encoding']], body);
    expect(cache.store(request(URL_A, { 'accept-encoding': 'gzip' }), varied('gzip v1'))).toBe(true);
    expect(cache.store(request(URL_A, { 'accept-encoding': 'br' }), varied('br'))).toBe(true);
    expect(cache.stats.entries).toBe(2);

    expect(text(fresh(cache.lookup(request(URL_A, { 'accept-encoding': 'gzip' }))).body)).toBe('gzip v1');
    expect(text(fresh(cache.lookup(request(URL_A, { 'accept-encoding': 'br' }))).body)).toBe('br');
    expect(cache.lookup(request(URL_A, { 'accept-encoding': 'identity' }))).toEqual({ kind: 'miss', reason: 'absent' });
    // "If ... a header field is absent from a request, it can only match another request if it is also absent there."
    expect(cache.lookup(request(URL_A))).toEqual({ kind: 'miss', reason: 'absent' });
    // Other headers do not matter.
    expect(fresh(cache.lookup(request(URL_A, { 'accept-encoding': 'br', 'user-agent': 'x' }))).statusCode).toBe(200);

    // A newer response replaces only the variant its request selects.
    expect(cache.store(request(URL_A, { 'accept-encoding': 'gzip' }), varied('gzip v2'))).toBe(true);
    expect(cache.stats.entries).toBe(2);
    expect(text(fresh(cache.lookup(request(URL_A, { 'accept-encoding': 'gzip' }))).body)).toBe('gzip v2');
  });

  it('Vary: multi-valued request headers compare as one joined value', () => {
    const { cache } = setup();
    const multi: CacheRequest = { url: URL_A, method: 'GET', headers: { host: 'a.test', accept: ['text/html', 'text/plain'] } };
    cache.store(multi, response([['Cache-Control', 'max-age=60'], ['Vary', 'accept']]));
    expect(cache.lookup(request(URL_A, { accept: 'text/html, text/plain' })).kind).toBe('fresh');
    expect(cache.lookup(multi).kind).toBe('fresh');
  });

  it('Vary: "*" is never stored, as it "always fails to match" (RFC 9111 §4.1)', () => {
    const { cache } = setup();
    expect(cache.store(request(), response([['Cache-Control', 'max-age=60'], ['Vary', '*']]))).toBe(false);
    expect(cache.stats.entries).toBe(0);
  });

  it('Vary: at most maxVariants per URL, the oldest goes first', () => {
    const { cache } = setup({ maxVariants: 2 });
    for (const lang of ['en', 'fr', 'de']) {
      cache.store(request(URL_A, { 'accept-language': lang }), response([['Cache-Control', 'max-age=60'], ['Vary', 'Accept-Language']], lang));
    }
    expect(cache.stats.entries).toBe(2);
    expect(cache.lookup(request(URL_A, { 'accept-language': 'en' })).kind).toBe('miss');
    expect(cache.lookup(request(URL_A, { 'accept-language': 'fr' })).kind).toBe('fresh');
    expect(cache.lookup(request(URL_A, { 'accept-language': 'de' })).kind).toBe('fresh');
  });

  it('Cache-Control: no-store is never stored, in the response or the request (RFC 9111 §5.2.2.5, §5.2.1.5)', () => {
    const { cache } = setup();
    expect(cache.store(request(), response([['Cache-Control', 'no-store, max-age=60']]))).toBe(false);
    expect(cache.store(request(URL_A, { 'cache-control': 'no-store' }), response([['Cache-Control', 'max-age=60']]))).toBe(false);
    expect(cache.stats.entries).toBe(0);

    // A newer response that may not be stored also retires the stored one it would replace.
    expect(cache.store(request(), response([['Cache-Control', 'max-age=60']]))).toBe(true);
    expect(cache.store(request(), response([['Cache-Control', 'no-store']]))).toBe(false);
    expect(cache.lookup(request())).toEqual({ kind: 'miss', reason: 'absent' });
  });

  it('Cache-Control: no-cache is stored but "MUST NOT be used ... without ... validation" (RFC 9111 §5.2.2.4)', () => {
    const { cache } = setup();
    expect(cache.store(request(), response([['Cache-Control', 'no-cache'], ['ETag', '"v1"']]))).toBe(true);
    const hit = stale(cache.lookup(request()));
    expect(hit.revalidationHeaders['if-none-match']).toBe('"v1"');
    expect(hit.entryKey).toBe(`GET ${URL_A}`);
  });

  it('Cache-Control: max-age=0 is stale at once, and revalidates with If-Modified-Since', () => {
    const { cache } = setup();
    const lastModified = httpDate(T0 - 86_400_000);
    cache.store(request(), response([['Cache-Control', 'max-age=0'], ['Last-Modified', lastModified]]));
    const hit = stale(cache.lookup(request(URL_A, { accept: '*/*' })));
    expect(hit.revalidationHeaders).toEqual({ host: 'a.test', accept: '*/*', 'if-modified-since': lastModified });
    // An HTTP/2 request carries :authority, not Host: none is added, and pseudo-headers are dropped.
    const h2 = stale(cache.lookup({ url: URL_A, method: 'GET', headers: { ':authority': 'a.test', accept: '*/*' } }));
    expect(h2.revalidationHeaders).toEqual({ accept: '*/*', 'if-modified-since': lastModified });
  });

  it('max-age: fresh while its age is below max-age, stale after (RFC 9111 §4.2.1)', () => {
    const { cache, advance } = setup();
    cache.store(request(), response([['Date', httpDate(T0)], ['Cache-Control', 'max-age=60'], ['ETag', '"v1"']]));
    advance(59);
    expect(fresh(cache.lookup(request())).headers.age).toBe('59');
    advance(2);
    expect(stale(cache.lookup(request())).revalidationHeaders['if-none-match']).toBe('"v1"');
  });

  it('Expires: the freshness lifetime is Expires minus Date (RFC 9111 §4.2.1)', () => {
    const { cache, advance } = setup();
    cache.store(request(), response([['Date', httpDate(T0)], ['Expires', httpDate(T0 + 120_000)], ['ETag', '"v1"']]));
    advance(119);
    expect(cache.lookup(request()).kind).toBe('fresh');
    advance(2);
    expect(cache.lookup(request()).kind).toBe('stale');
  });

  it('Expires: max-age wins over it, and an invalid date means "already expired" (RFC 9111 §5.3)', () => {
    const { cache } = setup();
    cache.store(request(), response([['Date', httpDate(T0)], ['Expires', httpDate(T0 - 1000)], ['Cache-Control', 'max-age=60']]));
    expect(cache.lookup(request()).kind).toBe('fresh');

    const other = 'http://a.test/other';
    cache.store(request(other), response([['Date', httpDate(T0)], ['Expires', '0'], ['ETag', '"v1"']]));
    expect(cache.lookup(request(other)).kind).toBe('stale');
  });

  it('heuristic freshness: 10% of the time since Last-Modified (RFC 9111 §4.2.2)', () => {
    const { cache, advance } = setup();
    const lastModified = httpDate(T0 - 10 * 86_400_000);
    cache.store(request(), response([['Date', httpDate(T0)], ['Last-Modified', lastModified]]));
    advance(86_400 - 1);
    expect(cache.lookup(request()).kind).toBe('fresh');
    advance(2);
    expect(stale(cache.lookup(request())).revalidationHeaders['if-modified-since']).toBe(lastModified);
  });

  it('request Cache-Control: no-cache or Pragma: no-cache bypasses (a hard reload); max-age=0 revalidates (a reload)', () => {
    const { cache, advance } = setup();
    cache.store(request(), response([['Cache-Control', 'max-age=600'], ['ETag', '"v1"']], 'old'));
    expect(cache.lookup(request(URL_A, { 'cache-control': 'no-cache' }))).toEqual({ kind: 'miss', reason: 'bypass' });
    expect(cache.lookup(request(URL_A, { pragma: 'no-cache' }))).toEqual({ kind: 'miss', reason: 'bypass' });
    advance(1);
    expect(stale(cache.lookup(request(URL_A, { 'cache-control': 'max-age=0' }))).revalidationHeaders['if-none-match']).toBe('"v1"');
    expect(cache.lookup(request()).kind).toBe('fresh');

    // The response the bypassing request brings back replaces the stored one.
    cache.store(request(URL_A, { 'cache-control': 'no-cache', pragma: 'no-cache' }), response([['Cache-Control', 'max-age=600']], 'new'));
    expect(text(fresh(cache.lookup(request())).body)).toBe('new');
  });

  it("the client's own conditional and range requests go upstream, and their 304 / 206 leave the entry alone", () => {
    const { cache } = setup();
    cache.store(request(), response([['Cache-Control', 'max-age=600'], ['ETag', '"v1"']]));
    expect(cache.lookup(request(URL_A, { 'if-none-match': '"v1"' }))).toEqual({ kind: 'miss', reason: 'conditional' });
    expect(cache.lookup(request(URL_A, { range: 'bytes=0-1' }))).toEqual({ kind: 'miss', reason: 'range' });
    expect(cache.store(request(URL_A, { 'if-none-match': '"v1"' }), response([['ETag', '"v1"']], '', 304, 'Not Modified'))).toBe(false);
    expect(cache.store(request(URL_A, { range: 'bytes=0-1' }), response([['Content-Range', 'bytes 0-1/5']], 'he', 206))).toBe(false);
    expect(text(fresh(cache.lookup(request())).body)).toBe('hello');
  });

  it('Authorization: a private cache stores the response; a shared one needs public, must-revalidate or s-maxage (RFC 9111 §3.5)', () => {
    const authorized = request(URL_A, { authorization: 'Bearer t' });
    const browser = setup().cache;
    expect(browser.store(authorized, response([['Cache-Control', 'max-age=60']]))).toBe(true);
    expect(browser.lookup(authorized).kind).toBe('fresh');

    const shared = setup({ shared: true }).cache;
    expect(shared.store(authorized, response([['Cache-Control', 'max-age=60']]))).toBe(false);
    expect(shared.store(authorized, response([['Cache-Control', 'public, max-age=60']]))).toBe(true);
  });

  it('Cache-Control: private is stored by a private cache only (RFC 9111 §5.2.2.7)', () => {
    expect(setup().cache.store(request(), response([['Cache-Control', 'private, max-age=60']]))).toBe(true);
    expect(setup({ shared: true }).cache.store(request(), response([['Cache-Control', 'private, max-age=60']]))).toBe(false);
  });

  it('Set-Cookie: the response is stored without it, so a hit does not replay cookies', () => {
    const { cache } = setup();
    const withCookies = response([['Cache-Control', 'max-age=60'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2'], ['X-Kept', 'yes']]);
    expect(cache.store(request(), withCookies)).toBe(true);
    const hit = fresh(cache.lookup(request()));
    expect(hit.headers['set-cookie']).toBeUndefined();
    expect(hit.headers['x-kept']).toBe('yes');
    expect(hit.rawHeaders.some(([name]) => name.toLowerCase() === 'set-cookie')).toBe(false);
  });

  it('must-revalidate: served while fresh, revalidated "once the response has become stale" (RFC 9111 §5.2.2.2)', () => {
    // http-cache-semantics 4.3 alone revalidates it even while fresh.
    const { cache, advance } = setup();
    cache.store(request(), response([['Cache-Control', 'max-age=60, must-revalidate'], ['ETag', '"v1"']]));
    advance(30);
    expect(cache.lookup(request()).kind).toBe('fresh');
    // The request's own limits still apply.
    expect(cache.lookup(request(URL_A, { 'cache-control': 'max-age=10' })).kind).toBe('stale');
    expect(cache.lookup(request(URL_A, { 'cache-control': 'min-fresh=40' })).kind).toBe('stale');
    advance(31);
    // max-stale cannot override must-revalidate.
    expect(cache.lookup(request(URL_A, { 'cache-control': 'max-stale=3600' })).kind).toBe('stale');
    expect(cache.lookup(request()).kind).toBe('stale');
  });

  it('stale without validators: a miss, and the entry goes; one stale on arrival is not stored', () => {
    const { cache, advance } = setup();
    expect(cache.store(request(), response([['Cache-Control', 'max-age=60']]))).toBe(true);
    advance(61);
    expect(cache.lookup(request())).toEqual({ kind: 'miss', reason: 'unvalidatable' });
    expect(cache.stats.entries).toBe(0);
    expect(cache.store(request(), response([['Cache-Control', 'no-cache']]))).toBe(false);
  });

  it('status codes: cacheable ones by default, others only with explicit freshness, not-understood ones never (RFC 9111 §3)', () => {
    const { cache } = setup();
    expect(cache.store(request('http://a.test/404'), response([['Cache-Control', 'max-age=60']], 'nope', 404, 'Not Found'))).toBe(true);
    expect(cache.store(request('http://a.test/302'), response([['Location', '/x']], '', 302, 'Found'))).toBe(false);
    expect(cache.store(request('http://a.test/302'), response([['Location', '/x'], ['Cache-Control', 'max-age=60']], '', 302, 'Found'))).toBe(true);
    expect(cache.store(request('http://a.test/500'), response([['Cache-Control', 'max-age=60']], 'oops', 500, 'Server Error'))).toBe(false);
    expect(fresh(cache.lookup(request('http://a.test/404'))).statusCode).toBe(404);
  });

  it('size caps: bodies over maxBodyBytes, or not buffered whole, are not stored and retire the old entry', () => {
    const { cache } = setup({ maxBodyBytes: 4 });
    expect(cache.store(request(), response([['Cache-Control', 'max-age=60']], '1234'))).toBe(true);
    expect(cache.store(request(), response([['Cache-Control', 'max-age=60']], '12345'))).toBe(false);
    expect(cache.stats).toMatchObject({ entries: 0, bytes: 0 });

    expect(cache.store(request(), response([['Cache-Control', 'max-age=60']], '1234'))).toBe(true);
    expect(cache.store(request(), response([['Cache-Control', 'max-age=60']], undefined))).toBe(false);
    expect(cache.lookup(request())).toEqual({ kind: 'miss', reason: 'absent' });
  });

  it('size caps: LRU eviction by entry count; a hit makes an entry recent', () => {
    const { cache } = setup({ maxEntries: 2 });
    const store = (path: string) => cache.store(request(`http://a.test/${path}`), response([['Cache-Control', 'max-age=60']], path));
    store('a');
    store('b');
    expect(cache.lookup(request('http://a.test/a')).kind).toBe('fresh');
    store('c');
    expect(cache.stats).toMatchObject({ entries: 2, evictions: 1 });
    expect(cache.lookup(request('http://a.test/b'))).toEqual({ kind: 'miss', reason: 'absent' });
    expect(cache.lookup(request('http://a.test/a')).kind).toBe('fresh');
    expect(cache.lookup(request('http://a.test/c')).kind).toBe('fresh');
  });

  it('size caps: LRU eviction by body bytes', () => {
    const { cache } = setup({ maxBytes: 10 });
    const store = (path: string) => cache.store(request(`http://a.test/${path}`), response([['Cache-Control', 'max-age=60']], path.repeat(4)));
    store('a');
    store('b');
    cache.lookup(request('http://a.test/a'));
    store('c');
    expect(cache.stats).toMatchObject({ entries: 2, bytes: 8, evictions: 1 });
    expect(cache.lookup(request('http://a.test/b')).kind).toBe('miss');
    // Nothing larger than the whole cache is stored.
    expect(cache.store(request('http://a.test/big'), response([['Cache-Control', 'max-age=60']], 'x'.repeat(11)))).toBe(false);
  });

  it('a fresh hit carries an updated Age and Date, drops hop-by-hop fields, and keeps the stored order and case', () => {
    const { cache, advance, now } = setup();
    cache.store(request(), response([
      ['Date', httpDate(T0)],
      ['Content-Type', 'text/plain'],
      ['Connection', 'keep-alive'],
      ['Keep-Alive', 'timeout=5'],
      ['Cache-Control', 'max-age=600'],
      ['X-Multi', 'a'],
      ['X-Multi', 'b'],
    ]));
    advance(42);
    const hit = fresh(cache.lookup(request()));
    expect(hit.headers).toMatchObject({ age: '42', date: httpDate(now()), 'x-multi': 'a, b' });
    expect(hit.headers.connection).toBeUndefined();
    expect(hit.rawHeaders).toEqual([
      ['Date', httpDate(now())],
      ['Content-Type', 'text/plain'],
      ['Cache-Control', 'max-age=600'],
      ['X-Multi', 'a'],
      ['X-Multi', 'b'],
      ['Age', '42'],
    ]);
    expect({ statusCode: hit.statusCode, statusMessage: hit.statusMessage, body: text(hit.body) }).toEqual({ statusCode: 200, statusMessage: 'OK', body: 'hello' });
  });

  it('304 revalidation merges headers: "add each header field ... replacing field values that are already present" (RFC 9111 §3.2)', () => {
    const { cache, advance } = setup();
    cache.store(request(), response([
      ['Content-Type', 'text/plain'],
      ['Content-Length', '5'],
      ['ETag', '"v1"'],
      ['Cache-Control', 'max-age=10'],
      ['X-Version', '1'],
    ]));
    advance(11);
    const lookup = stale(cache.lookup(request()));
    const outcome = cache.revalidated(lookup, request(), response([
      ['ETag', '"v1"'],
      ['Cache-Control', 'max-age=100'],
      ['X-Version', '2'],
      ['X-New', 'yes'],
      ['Content-Length', '0'],
      ['Connection', 'close'],
      ['Set-Cookie', 's=1'],
    ], '', 304, 'Not Modified'));
    if (outcome.kind !== 'not-modified') throw new Error('expected not-modified');
    const merged = outcome.response;
    expect({ statusCode: merged.statusCode, statusMessage: merged.statusMessage, body: text(merged.body) }).toEqual({ statusCode: 200, statusMessage: 'OK', body: 'hello' });
    expect(merged.headers).toMatchObject({
      'cache-control': 'max-age=100',
      'x-version': '2',
      'x-new': 'yes',
      'content-length': '5',
      'content-type': 'text/plain',
      'set-cookie': ['s=1'],
    });
    expect(merged.headers.connection).toBeUndefined();
    expect(merged.rawHeaders.slice(0, 6)).toEqual([
      ['Content-Type', 'text/plain'],
      ['Content-Length', '5'],
      ['ETag', '"v1"'],
      ['Cache-Control', 'max-age=100'],
      ['X-Version', '2'],
      ['X-New', 'yes'],
    ]);

    // The stored entry is updated, and fresh again under its new max-age, without the 304's cookie.
    advance(50);
    const hit = fresh(cache.lookup(request()));
    expect(hit.headers).toMatchObject({ 'x-version': '2', 'x-new': 'yes', age: '50' });
    expect(hit.headers['set-cookie']).toBeUndefined();
    expect(cache.stats.entries).toBe(1);
  });

  it('304 whose validator matches nothing stored: not used to update (RFC 9111 §4.3.4); served once, entry dropped', () => {
    const { cache, advance } = setup();
    cache.store(request(), response([['ETag', '"v1"'], ['Cache-Control', 'max-age=10'], ['X-Version', '1']]));
    advance(11);
    const outcome = cache.revalidated(stale(cache.lookup(request())), request(), response([['ETag', '"v2"'], ['X-Version', '2']], '', 304));
    if (outcome.kind !== 'not-modified') throw new Error('expected not-modified');
    expect(outcome.response.headers['x-version']).toBe('1');
    expect(text(outcome.response.body)).toBe('hello');
    expect(cache.stats.entries).toBe(0);
  });

  it('revalidation answered with 200 replaces the stored response', () => {
    const { cache, advance } = setup();
    cache.store(request(), response([['ETag', '"v1"'], ['Cache-Control', 'max-age=10']], 'old'));
    advance(11);
    const outcome = cache.revalidated(stale(cache.lookup(request())), request(), response([['ETag', '"v2"'], ['Cache-Control', 'max-age=10']], 'new'));
    expect(outcome).toEqual({ kind: 'modified', stored: true });
    expect(text(fresh(cache.lookup(request())).body)).toBe('new');
    expect(cache.stats.entries).toBe(1);
  });

  it('a revalidation in flight across clear(): the 304 is still served, the entry stays gone', () => {
    const { cache, advance } = setup();
    cache.store(request(), response([['ETag', '"v1"'], ['Cache-Control', 'max-age=10']]));
    advance(11);
    const lookup = stale(cache.lookup(request()));
    cache.clear();
    const outcome = cache.revalidated(lookup, request(), response([['ETag', '"v1"']], '', 304));
    expect(outcome.kind === 'not-modified' && text(outcome.response.body)).toBe('hello');
    expect(cache.stats.entries).toBe(0);
  });

  it('unsafe methods: "MUST invalidate the target URI when it receives a non-error status code" (RFC 9111 §4.4)', () => {
    const { cache } = setup();
    const cacheable = (body: string) => response([['Cache-Control', 'max-age=600']], body);
    cache.store(request(), cacheable('get'));
    cache.store(request(URL_A, {}, 'HEAD'), cacheable(''));
    cache.store(request('http://a.test/other'), cacheable('other'));

    expect(cache.store(request(URL_A, {}, 'POST'), response([], 'denied', 403, 'Forbidden'))).toBe(false);
    expect(cache.stats.entries).toBe(3);
    expect(cache.store(request(URL_A, {}, 'PUT'), response([], undefined, 204, 'No Content'))).toBe(false);
    expect(cache.lookup(request()).kind).toBe('miss');
    expect(cache.lookup(request(URL_A, {}, 'HEAD')).kind).toBe('miss');
    expect(cache.lookup(request('http://a.test/other')).kind).toBe('fresh');
    // "including methods whose safety is unknown"
    expect(cache.store(request('http://a.test/other', {}, 'PURGE'), response([], '', 200))).toBe(false);
    expect(cache.stats.entries).toBe(0);
  });

  it('unsafe methods: Location and Content-Location are invalidated too, never on another origin (RFC 9111 §4.4)', () => {
    const { cache } = setup();
    const urls = ['http://a.test/form', 'http://a.test/list', 'http://a.test/item/1', 'http://b.test/mirror'];
    for (const url of urls) cache.store(request(url), response([['Cache-Control', 'max-age=600']]));
    cache.store(request('http://a.test/form', {}, 'POST'), response([
      ['Location', '/list'],
      ['Content-Location', 'http://b.test/mirror'],
    ], '', 303, 'See Other'));
    expect(urls.map((url) => cache.lookup(request(url)).kind)).toEqual(['miss', 'miss', 'fresh', 'fresh']);
  });

  it('invalidate(url) drops GET and HEAD in every variant; a #fragment is not part of the key', () => {
    const { cache } = setup();
    const varied = response([['Cache-Control', 'max-age=600'], ['Vary', 'Accept']]);
    cache.store(request(URL_A, { accept: 'a' }), varied);
    cache.store(request(URL_A, { accept: 'b' }), varied);
    cache.store(request(URL_A, {}, 'HEAD'), response([['Cache-Control', 'max-age=600']], ''));
    expect(cache.lookup(request(`${URL_A}#top`, { accept: 'a' })).kind).toBe('fresh');
    expect(cache.invalidate(`${URL_A}#section`)).toBe(3);
    expect(cache.stats).toMatchObject({ entries: 0, bytes: 0 });
  });

  it('stats count fresh hits, misses and stale lookups; a stored body is copied', () => {
    const { cache, advance } = setup();
    const body = new TextEncoder().encode('hello');
    cache.store(request(), { ...response([['Cache-Control', 'max-age=10'], ['ETag', '"v1"']]), body });
    body.fill(0);
    expect(text(fresh(cache.lookup(request())).body)).toBe('hello');
    cache.lookup(request('http://a.test/none'));
    advance(11);
    cache.lookup(request());
    expect(cache.stats).toEqual({ entries: 1, bytes: 5, hits: 1, misses: 1, stale: 1, evictions: 0 });
  });

  it('a realistic sequence: store → fresh hit → stale → 304 → fresh again', () => {
    const { cache, advance, now } = setup();
    const page = request('https://shop.test/app.js', { 'accept-encoding': 'gzip', 'user-agent': 'Mozilla/5.0' });
    const first = response([
      ['Date', httpDate(now())],
      ['Content-Type', 'text/javascript'],
      ['Content-Encoding', 'gzip'],
      ['Cache-Control', 'public, max-age=60'],
      ['ETag', 'W/"abc"'],
      ['Vary', 'Accept-Encoding'],
    ], 'console.log(1)');
    expect(cache.store(page, first)).toBe(true);

    advance(30);
    const hit = fresh(cache.lookup(page));
    expect(hit.headers.age).toBe('30');
    expect(text(hit.body)).toBe('console.log(1)');

    advance(31);
    const due = stale(cache.lookup(page));
    expect(due.revalidationHeaders).toMatchObject({ 'if-none-match': 'W/"abc"', 'accept-encoding': 'gzip', host: 'shop.test' });

    const outcome = cache.revalidated(due, page, response([
      ['Date', httpDate(now())],
      ['Cache-Control', 'public, max-age=60'],
      ['ETag', 'W/"abc"'],
    ], '', 304, 'Not Modified'));
    expect(outcome.kind).toBe('not-modified');

    advance(59);
    const again = fresh(cache.lookup(page));
    expect(again.headers).toMatchObject({ age: '59', 'content-encoding': 'gzip', 'content-type': 'text/javascript' });
    expect(text(again.body)).toBe('console.log(1)');
    expect(cache.stats).toMatchObject({ entries: 1, hits: 2, stale: 1, misses: 0 });
  });

  it('clear() empties the cache (handlerBehaviorChanged flushes it)', () => {
    const { cache } = setup();
    cache.store(request(), response([['Cache-Control', 'max-age=600']]));
    cache.store(request('http://a.test/b'), response([['Cache-Control', 'max-age=600']]));
    expect(cache.lookup(request()).kind).toBe('fresh');
    cache.clear();
    expect(cache.stats).toMatchObject({ entries: 0, bytes: 0, hits: 1 });
    expect(cache.lookup(request())).toEqual({ kind: 'miss', reason: 'absent' });
    // It keeps working afterwards.
    expect(cache.store(request(), response([['Cache-Control', 'max-age=600']]))).toBe(true);
    expect(cache.lookup(request()).kind).toBe('fresh');
  });
});
