// Issue 3, deliverable 5: cookies on the wire. A real origin on 127.0.0.1, the real CaptureProxy in
// front of it, undici and curl as clients. Each test is named after the rule it checks: responses'
// Set-Cookie go into the request's cookie store, requests carry that store's cookies (merged with
// the client's own Cookie header), the cookies API changes what the next request carries, Secure
// cookies stay on https, the incognito store "1" is separate, rejected cookies are journaled by
// name only, and store "0" persists through an Engine restart.
import dns from 'node:dns';
import http from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCACertificate } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';
import { ProxyAgent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { CaptureProxy } from '../../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import { Engine } from '../../src/engine/engine.js';
import type { JournalEntry, LogEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import type { Cookie, CookieChangeInfo, HttpHeaders } from '../../src/engine/types.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type FetchOptions, type ProxyHarness } from '../helpers/proxy-harness.js';

// ── Fixtures ───────────────────────────────────────────────────────────────────────────────────

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  // Last opened, first closed: clients and proxies before the engines and origins behind them.
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function harness(options: Parameters<typeof startProxyHarness>[0] = {}): Promise<ProxyHarness> {
  const h = await startProxyHarness(options);
  cleanups.push(() => h.close());
  return h;
}

type Received = Origin['received'][number];

/**
 * The origin: answers 200 "ok" to everything, with one Set-Cookie header per `c` query parameter
 * (so a test's URL says what the response sets).
 */
function cookieSetter(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://origin.invalid');
  const setCookies = url.searchParams.getAll('c');
  if (setCookies.length > 0) res.setHeader('Set-Cookie', setCookies);
  res.setHeader('Content-Type', 'text/plain');
  res.end('ok');
}

async function origin(): Promise<Origin> {
  const o = await startOrigin(cookieSetter);
  cleanups.push(() => o.close());
  return o;
}

/** An https origin on 127.0.0.1 with a certificate from its own CA (the proxy is told not to verify it). */
async function httpsOrigin(): Promise<Origin> {
  const root = await generateCACertificate({ subject: { commonName: 'cookies-on-the-wire origin root' } });
  const leaf = await (await getCA({ cert: root.cert, key: root.key })).generateCertificate('localhost');
  const o = await startOrigin(cookieSetter, { tls: { cert: leaf.cert, key: leaf.key, hostname: 'localhost' } });
  cleanups.push(() => o.close());
  return o;
}

let counter = 0;

/** A unique URL under `base` + `path` whose response sets `setCookies`. */
function urlFor(base: string, path: string, setCookies: string[] = []): string {
  const url = new URL(path, base);
  url.searchParams.append('n', String(++counter));
  for (const header of setCookies) url.searchParams.append('c', header);
  return url.href;
}

/** The values of every Cookie header a request reached the origin with (rawHeaders, as sent). */
function cookieHeadersOf(received: Received): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < received.rawHeaders.length; i += 2) {
    if (received.rawHeaders[i]!.toLowerCase() === 'cookie') values.push(received.rawHeaders[i + 1]!);
  }
  return values;
}

function headerValues(headers: HttpHeaders | undefined, name: string): string[] {
  return (headers ?? []).filter((header) => header.name.toLowerCase() === name).map((header) => header.value ?? '');
}

interface Sent {
  requestId: string;
  /** What the origin got. */
  received: Received;
  /** The Cookie headers the origin got (none: []). */
  cookies: string[];
  /** The requestHeaders onBeforeSendHeaders and onSendHeaders reported. */
  journaled: { onBeforeSendHeaders: HttpHeaders; onSendHeaders: HttpHeaders };
}

type Client = 'undici' | 'curl';

/**
 * Sends one request through the proxy and waits until the request is over for the engine too
 * (onCompleted: its Set-Cookie headers are stored by then, whatever order the client saw things in).
 */
async function send(
  h: ProxyHarness,
  o: Origin,
  url: string,
  options: { client?: Client; headers?: Record<string, string | string[]> } = {},
): Promise<Sent> {
  const client = options.client ?? 'undici';
  const done = h.waitFor((e) => e.kind === 'webRequest' && e.details.url === url && (e.event === 'onCompleted' || e.event === 'onErrorOccurred'), 8_000);
  if (client === 'undici') {
    const response = await h.fetch(url, { headers: options.headers ?? {}, headersTimeout: 8_000, bodyTimeout: 8_000 } as FetchOptions);
    expect({ status: response.statusCode, body: await response.body.text() }).toEqual({ status: 200, body: 'ok' });
  } else {
    const args: string[] = [];
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      for (const one of [value].flat()) args.push('-H', `${name}: ${one}`);
    }
    const result = await h.curl([...args, url]);
    expect(result).toMatchObject({ code: 0, stdout: 'ok' });
  }
  const end = (await done) as WebRequestEntry & JournalEntry;
  expect(end.event).toBe('onCompleted');
  const requestId = end.details.requestId;
  const target = new URL(url);
  const received = o.received.filter((r) => r.url === target.pathname + target.search);
  expect(received).toHaveLength(1);
  const journaledHeaders = (event: 'onBeforeSendHeaders' | 'onSendHeaders'): HttpHeaders => {
    const entry = h.webRequestEntries((e) => e.event === event && e.details.requestId === requestId)[0];
    expect(entry, `${event} of request ${requestId}`).toBeDefined();
    return (entry!.details as { requestHeaders: HttpHeaders }).requestHeaders;
  };
  return {
    requestId,
    received: received[0]!,
    cookies: cookieHeadersOf(received[0]!),
    journaled: { onBeforeSendHeaders: journaledHeaders('onBeforeSendHeaders'), onSendHeaders: journaledHeaders('onSendHeaders') },
  };
}

function cookieChanges(entries: readonly JournalEntry[]): CookieChangeInfo[] {
  return entries.flatMap((e) => (e.kind === 'cookieChanged' ? [e.changeInfo] : []));
}

/** "added explicit a=1 @0" / "removed overwrite a=1 @0": one line per cookieChanged entry. */
function changeLines(entries: readonly JournalEntry[]): string[] {
  return cookieChanges(entries).map(
    ({ removed, cause, cookie }) => `${removed ? 'removed' : 'added'} ${cause} ${cookie.name}=${cookie.value} @${cookie.storeId}`,
  );
}

function logs(entries: readonly JournalEntry[]): (LogEntry & JournalEntry)[] {
  return entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log');
}

function byName(cookies: readonly Cookie[], name: string): Cookie {
  const found = cookies.filter((cookie) => cookie.name === name);
  expect(found, `cookie ${name}`).toHaveLength(1);
  return found[0]!;
}

function api(h: { engine: Engine }) {
  return h.engine.extensionApi(createTrustedOwner('cookies-on-the-wire'));
}

/** chrome.cookies.<method>(details, callback) as a Promise of [result, lastError]. */
function chromeCall<T>(run: (callback: (result: T) => void) => void, runtime: { lastError: { message: string } | undefined }): Promise<[T, string | undefined]> {
  return new Promise((resolve) => run((result) => resolve([result, runtime.lastError?.message])));
}

// ── 1. Set-Cookie responses go into the store ─────────────────────────────────────────────────

describe('Set-Cookie of a response goes into the request’s store', () => {
  it('each accepted Set-Cookie is journaled as cookieChanged {removed: false, cause: "explicit"} in store "0", in header order', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/dir/page', ['sid=abc; HttpOnly', 'pref=dark; Path=/; Max-Age=3600', 'plain=1; Path=/']));
    expect(changeLines(h.entries)).toEqual(['added explicit sid=abc @0', 'added explicit pref=dark @0', 'added explicit plain=1 @0']);
    // Journaled after the response head arrived and before the request was over.
    const seqOf = (test: (e: JournalEntry) => boolean) => h.entries.find(test)!.seq;
    const firstChange = seqOf((e) => e.kind === 'cookieChanged');
    expect(seqOf((e) => e.kind === 'webRequest' && e.event === 'onHeadersReceived')).toBeLessThan(firstChange);
    expect(seqOf((e) => e.kind === 'webRequest' && e.event === 'onCompleted')).toBeGreaterThan(firstChange);
  });

  it('cookies.getAll({}) reports them as Chrome would: host-only domain without Domain attribute, default path, secure false over http, httpOnly, session vs expirationDate', async () => {
    const h = await harness();
    const o = await origin();
    const before = Date.now() / 1000;
    await send(h, o, urlFor(o.url, '/dir/page', ['sid=abc; HttpOnly', 'pref=dark; Path=/; Max-Age=3600', 'ses=1; Path=/x/y']), { client: 'curl' });
    const after = Date.now() / 1000;
    const all = await api(h).browser.cookies!.getAll({});
    expect(all).toHaveLength(3);
    expect(byName(all, 'sid')).toEqual({
      domain: '127.0.0.1',
      hostOnly: true,
      httpOnly: true,
      name: 'sid',
      path: '/dir', // the default path of /dir/page (RFC 6265 §5.1.4)
      secure: false,
      session: true,
      storeId: '0',
      value: 'abc',
    });
    const pref = byName(all, 'pref');
    expect(pref).toMatchObject({ domain: '127.0.0.1', hostOnly: true, httpOnly: false, path: '/', secure: false, session: false, storeId: '0', value: 'dark' });
    expect(pref.expirationDate).toBeGreaterThanOrEqual(before + 3600 - 1);
    expect(pref.expirationDate).toBeLessThanOrEqual(after + 3600 + 1);
    const ses = byName(all, 'ses');
    expect(ses).toMatchObject({ path: '/x/y', session: true, httpOnly: false });
    expect(ses).not.toHaveProperty('expirationDate');
    // The journaled cookie is the one getAll reports.
    expect(cookieChanges(h.entries).find((c) => c.cookie.name === 'sid')!.cookie).toEqual(byName(all, 'sid'));
  });

  it('an origin updating a cookie is journaled as the old one removed with cause "overwrite", then the new one added with cause "explicit"', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['sid=old; Path=/']));
    await send(h, o, urlFor(o.url, '/', ['sid=new; Path=/; HttpOnly']));
    expect(changeLines(h.entries)).toEqual(['added explicit sid=old @0', 'removed overwrite sid=old @0', 'added explicit sid=new @0']);
    const all = await api(h).browser.cookies!.getAll({ name: 'sid' });
    expect(all).toEqual([expect.objectContaining({ value: 'new', httpOnly: true })]);
    expect((await send(h, o, urlFor(o.url, '/next'))).cookies).toEqual(['sid=new']);
  });

  it('an origin sending an already-expired cookie deletes it: cause "expired_overwrite", and the next request carries nothing', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['sid=abc; Path=/', 'keep=1; Path=/']));
    await send(h, o, urlFor(o.url, '/logout', ['sid=deleted; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT']), { client: 'curl' });
    expect(changeLines(h.entries)).toEqual(['added explicit sid=abc @0', 'added explicit keep=1 @0', 'removed expired_overwrite sid=abc @0']);
    // Max-Age=0 the same way.
    await send(h, o, urlFor(o.url, '/logout', ['keep=; Path=/; Max-Age=0']));
    expect(changeLines(h.entries).slice(3)).toEqual(['removed expired_overwrite keep=1 @0']);
    expect(await api(h).browser.cookies!.getAll({})).toEqual([]);
    const next = await send(h, o, urlFor(o.url, '/next'));
    expect(next.cookies).toEqual([]);
  });
});

// ── 2. Outgoing requests carry the store's cookies ────────────────────────────────────────────

describe('a request carries the store’s cookies for its URL', () => {
  for (const client of ['undici', 'curl'] as const) {
    it(`without a Cookie header from the client (${client}), the origin gets "Cookie: name=value" and onBeforeSendHeaders/onSendHeaders show it`, async () => {
      const h = await harness();
      const o = await origin();
      const first = await send(h, o, urlFor(o.url, '/', ['sid=abc; Path=/']), { client });
      expect(first.cookies).toEqual([]); // the store had nothing yet
      expect(headerValues(first.journaled.onBeforeSendHeaders, 'cookie')).toEqual([]);

      const second = await send(h, o, urlFor(o.url, '/page'), { client });
      expect(second.cookies).toEqual(['sid=abc']);
      expect(headerValues(second.journaled.onBeforeSendHeaders, 'cookie')).toEqual(['sid=abc']);
      expect(headerValues(second.journaled.onSendHeaders, 'cookie')).toEqual(['sid=abc']);
    });
  }

  it('onSendHeaders reports exactly the header fields the origin got when the store’s Cookie is added (framing included)', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['sid=abc; Path=/']));
    const sent = await send(h, o, urlFor(o.url, '/page'));
    expect(sent.cookies).toEqual(['sid=abc']);
    const names = (raw: readonly string[]) => raw.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase()).sort();
    expect(names(sent.received.rawHeaders)).toEqual(names(sent.journaled.onSendHeaders.flatMap((header) => [header.name, ''])));
  });

  it('only the cookies whose path matches, longest path first (RFC 6265 §5.4)', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['root=1; Path=/', 'deep=3; Path=/a/b', 'mid=2; Path=/a']));
    expect((await send(h, o, urlFor(o.url, '/a/b/c'))).cookies).toEqual(['deep=3; mid=2; root=1']);
    expect((await send(h, o, urlFor(o.url, '/a/x'))).cookies).toEqual(['mid=2; root=1']);
    expect((await send(h, o, urlFor(o.url, '/ab'))).cookies).toEqual(['root=1']); // "/a" does not path-match "/ab"
    expect((await send(h, o, urlFor(o.url, '/'))).cookies).toEqual(['root=1']);
  });

  it('a cookie of 127.0.0.1 is sent to another port of 127.0.0.1 (cookies ignore ports) but not to localhost (another host)', async () => {
    const h = await harness();
    const o = await origin();
    const other = await origin();
    await send(h, o, urlFor(o.url, '/', ['sid=abc; Path=/']));
    expect((await send(h, other, urlFor(other.url, '/'))).cookies).toEqual(['sid=abc']);
    expect((await send(h, o, urlFor(`http://localhost:${o.port}`, '/'))).cookies).toEqual([]);
  });
});

// ── 3. The merge with the client's own Cookie header ──────────────────────────────────────────

describe('merge with the client’s Cookie header: the store’s cookie wins on a shared name, the client’s others follow in order', () => {
  for (const client of ['undici', 'curl'] as const) {
    it(`the origin gets exactly "<store cookies>; <client-only cookies>" (${client})`, async () => {
      const h = await harness();
      const o = await origin();
      await send(h, o, urlFor(o.url, '/', ['a=store; Path=/', 'b=2; Path=/']));
      const sent = await send(h, o, urlFor(o.url, '/page'), { client, headers: { Cookie: 'c=3; a=client; d=4' } });
      expect(sent.cookies).toEqual(['a=store; b=2; c=3; d=4']);
      expect(headerValues(sent.journaled.onBeforeSendHeaders, 'cookie')).toEqual(['a=store; b=2; c=3; d=4']);
      expect(headerValues(sent.journaled.onSendHeaders, 'cookie')).toEqual(['a=store; b=2; c=3; d=4']);
      // The client's cookies never go into the store.
      expect((await api(h).browser.cookies!.getAll({})).map((c) => `${c.name}=${c.value}`)).toEqual(['a=store', 'b=2']);
    });
  }

  it('with no store cookie for the URL, the client’s Cookie header reaches the origin exactly as sent', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['scoped=1; Path=/only-here']));
    const sent = await send(h, o, urlFor(o.url, '/elsewhere'), { headers: { Cookie: 'x=1;y=2' } });
    expect(sent.cookies).toEqual(['x=1;y=2']);
  });

  it('with every client cookie shadowed, only the store’s remain', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['a=store; Path=/']));
    const sent = await send(h, o, urlFor(o.url, '/'), { client: 'curl', headers: { Cookie: 'a=client' } });
    expect(sent.cookies).toEqual(['a=store']);
  });

  it('a client that sends its cookies in two Cookie header lines keeps all of them after the merge', async () => {
    // HTTP/1.1 clients may send several Cookie lines (curl -H twice does), and HTTP/2 clients split
    // the header into crumbs (RFC 9113 §8.2.3). Every crumb is the client's: none may be lost.
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['a=store; Path=/']));
    const sent = await send(h, o, urlFor(o.url, '/'), { client: 'curl', headers: { Cookie: ['c=3; a=client', 'd=4'] } });
    expect(sent.cookies).toEqual(['a=store; c=3; d=4']);
  });
});

// ── 4. The cookies API changes what the next request carries ──────────────────────────────────

describe('cookies set or removed through the API change what the next request carries', () => {
  it('chrome.cookies.set({url, name, value}) → the next request carries it; chrome.cookies.remove → the next one does not', async () => {
    const h = await harness();
    const o = await origin();
    const { chrome } = api(h);
    const [set, setError] = await chromeCall<Cookie | null>((done) => chrome.cookies!.set({ url: `${o.url}/`, name: 'api', value: 'v1' }, done), chrome.runtime);
    expect(setError).toBeUndefined();
    expect(set).toMatchObject({ name: 'api', value: 'v1', domain: '127.0.0.1', hostOnly: true, path: '/', session: true });
    expect((await send(h, o, urlFor(o.url, '/page'))).cookies).toEqual(['api=v1']);

    await chromeCall((done) => chrome.cookies!.set({ url: `${o.url}/`, name: 'api', value: 'v2' }, done), chrome.runtime);
    expect((await send(h, o, urlFor(o.url, '/page'), { client: 'curl' })).cookies).toEqual(['api=v2']);

    const [removed, removeError] = await chromeCall((done) => chrome.cookies!.remove({ url: `${o.url}/`, name: 'api' }, done), chrome.runtime);
    expect(removeError).toBeUndefined();
    expect(removed).toMatchObject({ name: 'api', storeId: '0' });
    expect((await send(h, o, urlFor(o.url, '/page'))).cookies).toEqual([]);
    expect(changeLines(h.entries)).toEqual(['added explicit api=v1 @0', 'removed overwrite api=v1 @0', 'added explicit api=v2 @0', 'removed explicit api=v2 @0']);
  });

  it('a cookie set with path "/a" is sent to /a and /a/x, not to /b nor /ab', async () => {
    const h = await harness();
    const o = await origin();
    const { browser } = api(h);
    await browser.cookies!.set({ url: `${o.url}/a/page`, name: 'scoped', value: '1', path: '/a' });
    expect((await send(h, o, urlFor(o.url, '/a'))).cookies).toEqual(['scoped=1']);
    expect((await send(h, o, urlFor(o.url, '/a/x'))).cookies).toEqual(['scoped=1']);
    expect((await send(h, o, urlFor(o.url, '/b'))).cookies).toEqual([]);
    expect((await send(h, o, urlFor(o.url, '/ab'))).cookies).toEqual([]);
  });

  it('a cookie set for the URL of one host is not sent to another host on the same server (localhost vs 127.0.0.1)', async () => {
    const h = await harness();
    const o = await origin();
    const { browser } = api(h);
    const onLocalhost = `http://localhost:${o.port}`;
    await browser.cookies!.set({ url: `${onLocalhost}/`, name: 'host', value: 'localhost' });
    expect(await browser.cookies!.getAll({ name: 'host' })).toEqual([expect.objectContaining({ domain: 'localhost', hostOnly: true })]);
    expect((await send(h, o, urlFor(onLocalhost, '/'))).cookies).toEqual(['host=localhost']);
    expect((await send(h, o, urlFor(o.url, '/'))).cookies).toEqual([]);
  });

  it('a cookie removed through the API after a response set it is not sent again', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', ['sid=abc; Path=/', 'other=1; Path=/']));
    await api(h).browser.cookies!.remove({ url: `${o.url}/`, name: 'sid' });
    expect((await send(h, o, urlFor(o.url, '/'), { client: 'curl' })).cookies).toEqual(['other=1']);
  });
});

// ── 5. HTTPS: Secure cookies ──────────────────────────────────────────────────────────────────

// Loopback hosts (localhost, 127.*) count as secure origins for cookies, as in Chrome, so the rule
// "never over http" needs a host that is not loopback: names under .wire.test, which the proxy's
// upstream connections resolve to 127.0.0.1 (mockttp looks names up through node:dns; the clients
// never resolve them, they hand them to the proxy).
const WIRE_HOST = 'shop.wire.test';

function resolveWireTestHosts(): void {
  const original = dns.lookup;
  const patched = (hostname: string, ...rest: unknown[]) =>
    (original as (...args: unknown[]) => void).call(dns, hostname.endsWith('.wire.test') ? '127.0.0.1' : hostname, ...rest);
  (dns as { lookup: unknown }).lookup = patched;
  cleanups.push(async () => {
    if (dns.lookup === (patched as unknown)) (dns as { lookup: unknown }).lookup = original;
  });
}

async function secureSetup() {
  resolveWireTestHosts();
  const h = await harness({ proxy: { insecureUpstreamHosts: [WIRE_HOST] } });
  const secure = await httpsOrigin();
  const plain = await origin();
  return { h, secure, secureUrl: `https://${WIRE_HOST}:${secure.port}`, plain, plainUrl: `http://${WIRE_HOST}:${plain.port}` };
}

describe('a Secure cookie is sent over https and never over http to the same host', () => {
  it('set by an https response, it reaches the https origin and not the http one on the same host (undici and curl)', async () => {
    const { h, secure, secureUrl, plain, plainUrl } = await secureSetup();
    await send(h, secure, urlFor(secureUrl, '/login', ['tok=s3cr3t; Secure; Path=/; HttpOnly', 'open=1; Path=/']));
    const all = await api(h).browser.cookies!.getAll({});
    expect(byName(all, 'tok')).toMatchObject({ domain: WIRE_HOST, hostOnly: true, secure: true, httpOnly: true, session: true });
    expect(byName(all, 'open')).toMatchObject({ domain: WIRE_HOST, secure: false });

    for (const client of ['undici', 'curl'] as const) {
      const overHttps = await send(h, secure, urlFor(secureUrl, '/account'), { client });
      expect(overHttps.cookies).toEqual(['tok=s3cr3t; open=1']);
      expect(headerValues(overHttps.journaled.onSendHeaders, 'cookie')).toEqual(['tok=s3cr3t; open=1']);
      const overHttp = await send(h, plain, urlFor(plainUrl, '/account'), { client });
      expect(overHttp.cookies).toEqual(['open=1']);
      expect(headerValues(overHttp.journaled.onBeforeSendHeaders, 'cookie')).toEqual(['open=1']);
    }
  });

  it('a Secure cookie set through the API for an https URL is sent over https only', async () => {
    const { h, secure, secureUrl, plain, plainUrl } = await secureSetup();
    await api(h).browser.cookies!.set({ url: `${secureUrl}/`, name: 'apiTok', value: 'x', secure: true });
    expect((await send(h, secure, urlFor(secureUrl, '/'), { client: 'curl' })).cookies).toEqual(['apiTok=x']);
    expect((await send(h, plain, urlFor(plainUrl, '/'), { client: 'curl' })).cookies).toEqual([]);
  });

  it('a Secure Set-Cookie over http is ignored and journaled by name; an http response cannot overwrite a Secure cookie', async () => {
    const { h, secure, secureUrl, plain, plainUrl } = await secureSetup();
    await send(h, plain, urlFor(plainUrl, '/', ['insecure=1; Secure; Path=/']));
    expect(await api(h).browser.cookies!.getAll({})).toEqual([]);
    expect(logs(h.entries).filter((e) => e.source === 'cookies').map((e) => e.message)).toEqual([expect.stringMatching(/Set-Cookie "insecure" ignored: /)]);

    await send(h, secure, urlFor(secureUrl, '/', ['tok=good; Secure; Path=/']));
    await send(h, plain, urlFor(plainUrl, '/', ['tok=evil; Path=/']));
    expect(await api(h).browser.cookies!.getAll({ name: 'tok' })).toEqual([expect.objectContaining({ value: 'good', secure: true })]);
    expect((await send(h, secure, urlFor(secureUrl, '/'))).cookies).toEqual(['tok=good']);
    expect((await send(h, plain, urlFor(plainUrl, '/'))).cookies).toEqual([]);
  });

  it('loopback hosts are secure origins for cookies (as in Chrome): a Secure cookie of localhost goes to http://localhost too', async () => {
    const h = await harness({ proxy: { insecureUpstreamHosts: ['localhost'] } });
    const secure = await httpsOrigin();
    const plain = await origin();
    await send(h, secure, urlFor(secure.url, '/', ['tok=1; Secure; Path=/']));
    expect((await send(h, plain, urlFor(`http://localhost:${plain.port}`, '/'))).cookies).toEqual(['tok=1']);
  });
});

// ── 6. The incognito store "1" ────────────────────────────────────────────────────────────────

interface StoreProxy {
  proxy: CaptureProxy;
  agent: ProxyAgent;
  get(url: string, headers?: Record<string, string>): Promise<void>;
}

/** Two CaptureProxy instances on one Engine, as the app runs them: storeId "0" and "1". */
async function twoStores(): Promise<{ engine: Engine; entries: JournalEntry[]; normal: StoreProxy; incognito: StoreProxy }> {
  const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-cookies-wire-'));
  cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
  const engine = await Engine.open();
  cleanups.push(() => engine.close());
  const entries: JournalEntry[] = [];
  engine.journal.subscribe((entry) => entries.push(entry));
  const ca = await loadOrCreateCertificateAuthority(stateDir);
  const start = async (storeId: string): Promise<StoreProxy> => {
    const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0, storeId });
    await proxy.start();
    cleanups.push(() => proxy.stop());
    const agent = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
    cleanups.push(() => agent.close());
    return {
      proxy,
      agent,
      async get(url, headers = {}) {
        const done = waitForEntry(engine, entries, (e) => e.kind === 'webRequest' && e.details.url === url && e.event === 'onCompleted');
        const response = await request(url, { dispatcher: agent, headers, headersTimeout: 8_000, bodyTimeout: 8_000 });
        expect({ status: response.statusCode, body: await response.body.text() }).toEqual({ status: 200, body: 'ok' });
        await done;
      },
    };
  };
  return { engine, entries, normal: await start('0'), incognito: await start('1') };
}

function waitForEntry(engine: Engine, entries: JournalEntry[], test: (e: JournalEntry) => boolean, timeoutMs = 8_000): Promise<JournalEntry> {
  const found = entries.find(test);
  if (found) return Promise.resolve(found);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no matching journal entry within ${timeoutMs} ms`));
    }, timeoutMs);
    const unsubscribe = engine.journal.subscribe((entry) => {
      if (!test(entry)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(entry);
    });
  });
}

describe('the incognito store "1" is separate from store "0"', () => {
  it('a cookie set through the "1" proxy is not sent through the "0" proxy, and vice versa', async () => {
    const { engine, entries, normal, incognito } = await twoStores();
    expect(normal.proxy.storeId).toBe('0');
    expect(incognito.proxy.storeId).toBe('1');
    const o = await origin();

    await incognito.get(urlFor(o.url, '/', ['private=1; Path=/']));
    await normal.get(urlFor(o.url, '/', ['public=0; Path=/']));

    const cookiesAt = (url: string) => cookieHeadersOf(o.received.find((r) => r.url === new URL(url).pathname + new URL(url).search)!);
    const viaIncognito = urlFor(o.url, '/check');
    await incognito.get(viaIncognito);
    expect(cookiesAt(viaIncognito)).toEqual(['private=1']);
    const viaNormal = urlFor(o.url, '/check');
    await normal.get(viaNormal);
    expect(cookiesAt(viaNormal)).toEqual(['public=0']);

    // The journal says which store each change was in.
    expect(changeLines(entries)).toEqual(['added explicit private=1 @1', 'added explicit public=0 @0']);
    // And the stores hold what the lifecycle used.
    expect(engine.cookies.cookieHeader(`${o.url}/`, '1')).toBe('private=1');
    expect(engine.cookies.cookieHeader(`${o.url}/`, '0')).toBe('public=0');
  });

  it('cookies.getAll({storeId: "1"}) sees only the incognito cookies, getAll({}) only store "0"', async () => {
    const { engine, normal, incognito } = await twoStores();
    const o = await origin();
    await incognito.get(urlFor(o.url, '/', ['private=1; Path=/; Max-Age=600']));
    await normal.get(urlFor(o.url, '/', ['public=0; Path=/']));
    const { browser } = api({ engine });
    expect(await browser.cookies!.getAll({ storeId: '1' })).toEqual([expect.objectContaining({ name: 'private', value: '1', storeId: '1', session: false })]);
    expect(await browser.cookies!.getAll({})).toEqual([expect.objectContaining({ name: 'public', value: '0', storeId: '0' })]);
    expect(await browser.cookies!.getAll({ storeId: '0' })).toEqual([expect.objectContaining({ name: 'public', storeId: '0' })]);
  });

  it('its cookieChanged entries carry cookie.storeId "1", for responses and for the API', async () => {
    const { engine, entries, normal, incognito } = await twoStores();
    const o = await origin();
    await incognito.get(urlFor(o.url, '/', ['private=1; Path=/']));
    await incognito.get(urlFor(o.url, '/', ['private=2; Path=/']));
    const { browser } = api({ engine });
    await browser.cookies!.set({ url: `${o.url}/`, name: 'fromApi', value: 'x', storeId: '1' });
    expect(changeLines(entries)).toEqual([
      'added explicit private=1 @1',
      'removed overwrite private=1 @1',
      'added explicit private=2 @1',
      'added explicit fromApi=x @1',
    ]);
    for (const info of cookieChanges(entries)) expect(info.cookie.storeId).toBe('1');

    // A cookie set in store "1" through the API goes out through the "1" proxy only.
    const viaIncognito = urlFor(o.url, '/check');
    await incognito.get(viaIncognito);
    const viaNormal = urlFor(o.url, '/check');
    await normal.get(viaNormal);
    const at = (url: string) => cookieHeadersOf(o.received.find((r) => r.url === new URL(url).pathname + new URL(url).search)!);
    expect(at(viaIncognito)).toEqual(['private=2; fromApi=x']);
    expect(at(viaNormal)).toEqual([]);
  });
});

// ── 7. Rejected Set-Cookie: journaled by name, never by value ─────────────────────────────────

describe('a rejected Set-Cookie is journaled as a log entry naming the cookie, never its value', () => {
  const SECRET = 'hunter2-SECRET-value';

  it('a Domain attribute for another site: not stored, a log entry with the name and the reason, the value nowhere in the log', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', [`session_token=${SECRET}; Domain=example.com; Path=/`, 'fine=1; Path=/']));
    expect(changeLines(h.entries)).toEqual(['added explicit fine=1 @0']);
    expect(await api(h).browser.cookies!.getAll({ name: 'session_token' })).toEqual([]);
    const rejected = logs(h.entries).filter((e) => e.source === 'cookies');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ kind: 'log', level: 'info', source: 'cookies' });
    expect(rejected[0]!.message).toMatch(/^request \d+: Set-Cookie "session_token" ignored: .+/);
    expect(rejected[0]!.message).toContain('example.com'); // the reason says why
    for (const entry of logs(h.entries)) expect(JSON.stringify(entry)).not.toContain(SECRET);
    expect((await send(h, o, urlFor(o.url, '/'))).cookies).toEqual(['fine=1']);
  });

  it('other refusals (__Host- prefix, SameSite=None without Secure, a public suffix Domain) are logged the same way', async () => {
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', [`__Host-id=${SECRET}; Path=/`, `cross=${SECRET}; SameSite=None`, `wide=${SECRET}; Domain=com`]));
    expect(await api(h).browser.cookies!.getAll({})).toEqual([]);
    const messages = logs(h.entries).filter((e) => e.source === 'cookies').map((e) => e.message);
    expect(messages).toEqual([
      expect.stringMatching(/Set-Cookie "__Host-id" ignored: /),
      expect.stringMatching(/Set-Cookie "cross" ignored: /),
      expect.stringMatching(/Set-Cookie "wide" ignored: /),
    ]);
    for (const entry of logs(h.entries)) expect(JSON.stringify(entry)).not.toContain(SECRET);
  });

  it('a Set-Cookie without "=" (a nameless cookie, its whole text a value) is logged without that text', async () => {
    // wrtui ignores it (RFC 6265 parsing); Chrome would store it as a cookie named "" with this
    // value. Whatever the name extraction finds, the value must not reach the log.
    const h = await harness();
    const o = await origin();
    await send(h, o, urlFor(o.url, '/', [`${SECRET}; Path=/`]));
    expect(await api(h).browser.cookies!.getAll({})).toEqual([]);
    const rejected = logs(h.entries).filter((e) => e.source === 'cookies');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.message).toMatch(/Set-Cookie .* ignored: /);
    expect(rejected[0]!.message).not.toContain(SECRET);
  });
});

// ── 8. Persistence through the proxy ──────────────────────────────────────────────────────────

describe('store "0" persists through an Engine restart: persistent cookies survive, session cookies do not', () => {
  it('a persistent cookie set by a response is sent after reopening the Engine on the same state dir; a session cookie, an expired-overwritten one and store "1" cookies are not', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-cookies-state-'));
    cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
    const o = await origin();

    const first = await startProxyHarness({ engine: { stateDir } });
    let firstClosed = false;
    cleanups.push(() => (firstClosed ? Promise.resolve() : first.close()));
    // The app's second port: the incognito store, never written to disk.
    const incognito = new CaptureProxy({ lifecycle: first.engine.lifecycle, ca: first.ca, port: 0, storeId: '1' });
    await incognito.start();
    const incognitoAgent = new ProxyAgent({ uri: incognito.url, proxyTunnel: false });
    let incognitoStopped = false;
    cleanups.push(async () => {
      if (incognitoStopped) return;
      await incognitoAgent.close();
      await incognito.stop();
    });

    await send(first, o, urlFor(o.url, '/', ['keep=1; Path=/; Max-Age=3600', 'gone=1; Path=/', 'dropped=1; Path=/; Max-Age=3600']));
    await send(first, o, urlFor(o.url, '/', ['dropped=; Path=/; Max-Age=0']));
    const incognitoUrl = urlFor(o.url, '/', ['private=1; Path=/; Max-Age=3600']);
    const done = first.waitFor((e) => e.kind === 'webRequest' && e.details.url === incognitoUrl && e.event === 'onCompleted', 8_000);
    await (await request(incognitoUrl, { dispatcher: incognitoAgent, headersTimeout: 8_000, bodyTimeout: 8_000 })).body.text();
    await done;
    expect((await send(first, o, urlFor(o.url, '/'))).cookies).toEqual(['keep=1; gone=1']);

    await incognitoAgent.close();
    await incognito.stop();
    incognitoStopped = true;
    await first.close(); // closes the Engine: pending cookie writes are flushed
    firstClosed = true;

    const saved = JSON.parse(await readFile(join(stateDir, 'cookies.json'), 'utf8')) as { cookies: { key: string }[] };
    expect(saved.cookies.map((cookie) => cookie.key)).toEqual(['keep']);

    const second = await harness({ engine: { stateDir } });
    const all = await api(second).browser.cookies!.getAll({});
    expect(all).toEqual([expect.objectContaining({ name: 'keep', value: '1', session: false, domain: '127.0.0.1', hostOnly: true, path: '/' })]);
    expect(await api(second).browser.cookies!.getAll({ storeId: '1' })).toEqual([]);
    const after = await send(second, o, urlFor(o.url, '/'), { client: 'curl' });
    expect(after.cookies).toEqual(['keep=1']);
    expect(headerValues(after.journaled.onSendHeaders, 'cookie')).toEqual(['keep=1']);
    // Loading is not a change: no cookieChanged entries for the restored cookie.
    expect(cookieChanges(second.entries)).toEqual([]);
  });
});
