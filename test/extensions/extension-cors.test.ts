// An extension's fetch to an origin it has no host permission for, against Chromium 156: the same
// probe (fixtures/extensions/cors-probe) fetches in Chromium (the oracle) and in wrtui with its
// proxy running, from an origin it may reach (127.0.0.1, host permission) and one it may not
// (127.0.0.2). The outcomes (response type, status, readable headers and body, or the error) and
// what each origin received (methods, paths, headers in order, preflights) must agree.
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corsRefusal, grantRefusal, needsPreflight, PreflightCache, PREFLIGHT_CACHE_ENTRIES, readableHeaders, readPreflight, unsafeHeaderNames } from '../../src/engine/extensions/extension-cors.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { CHROMIUM, NO_CHROMIUM, reportInChromium, reportInWrtui, type Report } from '../helpers/chromium-probe.js';
import { startCorsOrigins, type CorsOrigins } from '../helpers/cors-origins.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/cors-probe', import.meta.url));

let origins: CorsOrigins;
let work: string;
let probe: string;

beforeAll(async () => {
  origins = await startCorsOrigins();
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-extension-cors-'));
  probe = path.join(work, 'probe');
  await mkdir(probe);
  const manifest = JSON.parse(await readFile(path.join(PROBE, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  await writeFile(path.join(probe, 'manifest.json'), JSON.stringify({ ...manifest, homepage_url: `${origins.foreign.url}/?permitted=${origins.permitted.url}` }));
  await writeFile(path.join(probe, 'background.js'), await readFile(path.join(PROBE, 'background.js')));
}, 30_000);

afterAll(async () => {
  await origins?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const named = (report: Report) => JSON.parse(JSON.stringify(report).replaceAll(String(origins.permitted.port), 'PERMITTED_PORT').replaceAll(String(origins.foreign.port), 'FOREIGN_PORT')) as Report;

describe.skipIf(NO_CHROMIUM)("an extension's fetch across origins: Chromium 156 and wrtui's chrome persona", () => {
  it('answer alike: CORS applies where it has no host permission (simple and preflighted requests, credentials, no-cors and same-origin modes), not where it has', { timeout: 90_000 }, async () => {
    const before = origins.marks();
    const oracle = await reportInChromium(probe);
    const oracleWire = origins.receivedSince(before);
    const middle = origins.marks();
    const ours = await reportInWrtui(probe);
    const ourWire = origins.receivedSince(middle);

    expect(ours.failures).toEqual([]);
    expectAgreement(browserVersion(CHROMIUM), "the probe's report", named(ours.report), named(oracle));
    expectAgreement(browserVersion(CHROMIUM), 'what the origins received', ourWire, oracleWire);

    // Spelled out, so that a Chromium that changed is seen as such.
    const refused = ['TypeError', 'Failed to fetch'];
    expect(oracle).toMatchObject({
      // Its own request (host permission): "basic", every header but Set-Cookie readable, whatever the mode.
      permitted: { type: 'basic', status: 200, body: 'secret' },
      permittedNoCors: { type: 'basic', body: 'secret' },
      permittedSameOrigin: { type: 'basic', body: 'secret' },
      // Another origin's: readable only as the server allows, only the safelisted and exposed headers.
      none: refused,
      star: { type: 'cors', headers: ['cache-control', 'content-type'], body: 'star' },
      exposed: { type: 'cors', headers: ['content-type', 'x-custom'] },
      exposedStar: { type: 'cors', headers: ['access-control-allow-origin', 'access-control-expose-headers', 'connection', 'content-type', 'date', 'keep-alive', 'transfer-encoding', 'x-custom'] },
      starWithCredentials: refused,
      echoWithCredentials: { type: 'cors', body: 'echo no cookie' },
      // Its Set-Cookie (SameSite unset: Lax) was not stored from a cross-site response.
      echoAgain: { body: 'echo no cookie' },
      preflighted: { type: 'cors', body: 'done' },
      preflightRefused: refused,
      put: { type: 'cors', body: 'done' },
      noCors: { type: 'opaque', status: 0, headers: [], body: '' },
      noCorsPut: ['TypeError', "Failed to execute 'fetch' on 'WorkerGlobalScope': 'PUT' is unsupported in no-cors mode."],
      sameOrigin: refused,
      redirected: refused,
      // Redirected across origins, a request that needs a preflight is preflighted there, from "null".
      redirectedPreflighted: { type: 'cors', body: 'done' },
      redirectedRefused: refused,
    });
    expect(oracleWire.find((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok-redirected ('))).toContain('origin: null');
    expect(oracleWire.find((request) => request.startsWith('foreign POST /cors/preflight-ok-redirected ('))).toContain('origin: null');
    const sent = (line: string) => oracleWire.some((request) => request.startsWith(line));
    // A preflight asks first, and its answer is reused for the same request.
    expect(oracleWire.filter((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok ('))).toHaveLength(1);
    expect(oracleWire.filter((request) => request.startsWith('foreign POST /cors/preflight-ok ('))).toHaveLength(2);
    expect(oracleWire.filter((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok-aged ('))).toHaveLength(1);
    expect(oracleWire.find((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok ('))).toContain('access-control-request-method: POST | access-control-request-headers: content-type,x-probe | origin: chrome-extension://');
    // A refused preflight, and mode "same-origin" across origins, send nothing more.
    expect(sent('foreign POST /cors/preflight-refused')).toBe(false);
    expect(sent('foreign GET /cors/none-same-origin')).toBe(false);
    // Across origins the request says where it comes from; after a redirect across origins, "null".
    expect(oracleWire.find((request) => request.startsWith('foreign GET /cors/none ('))).toContain('origin: chrome-extension://');
    expect(oracleWire.find((request) => request.startsWith('foreign GET /cors/none-redirected ('))).toContain('origin: null | sec-fetch-site: cross-site');
  });
});

describe("an extension's fetch across origins in wrtui", () => {
  it('a response CORS refuses is journaled with the reason, and the preflight as the extension\'s own OPTIONS request', { timeout: 30_000 }, async () => {
    const harness = await startProxyHarness();
    const host = await ExtensionHost.start(harness.engine, { extensions: [probe], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
    try {
      const told = (fragment: string) => harness.waitFor((entry) => entry.kind === 'log' && entry.source === 'CORS probe' && entry.message.includes(fragment), 10_000);
      const noHeader = await told('/cors/none) refused by CORS: the response has no Access-Control-Allow-Origin header');
      // On the request's own record too: the TUI shows it in the request's detail.
      const noneId = harness.webRequestEntries((entry) => entry.details.url === `${origins.foreign.url}/cors/none`)[0]!.details.requestId;
      expect(noHeader).toMatchObject({ level: 'info', requestId: noneId });
      await told('/cors/star-credentials) refused by CORS: its Access-Control-Allow-Origin is "*", which a request with credentials ("include") may not use');
      await told('/cors/preflight-refused) refused by CORS: its preflight (OPTIONS) was refused: the response has no Access-Control-Allow-Origin header; the request was not sent');
      await told('/cors/none-same-origin) refused: its mode is "same-origin"');
      // The last of its requests: redirected to the other origin, whose preflight refuses it.
      await told('/cors/to-foreign-refused) refused by CORS: it redirects to http://127.0.0.2:');
      // The refused response ends the request as Chromium's CORS check does: net::ERR_FAILED.
      const none = harness.webRequestEntries((entry) => entry.details.url === `${origins.foreign.url}/cors/none`);
      expect(none.map((entry) => entry.event)).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onErrorOccurred']);
      expect(none.at(-1)!.details).toMatchObject({ error: 'net::ERR_FAILED' });
      const preflights = harness.webRequestEntries((entry) => entry.event === 'onBeforeRequest' && entry.details.method === 'OPTIONS');
      expect(preflights.map((entry) => [entry.details.url.replace(origins.foreign.url, ''), entry.details.type, entry.madeBy?.extension])).toEqual([
        ['/cors/preflight-ok', 'other', 'CORS probe'],
        ['/cors/preflight-ok-aged', 'other', 'CORS probe'],
        ['/cors/preflight-refused', 'other', 'CORS probe'],
        ['/cors/preflight-ok-put', 'other', 'CORS probe'],
        ['/cors/preflight-ok-redirected', 'other', 'CORS probe'],
        ['/cors/preflight-refused-redirected', 'other', 'CORS probe'],
      ]);
    } finally {
      await host.close();
      await harness.close();
    }
  });
});

describe('the CORS rules an extension\'s fetch follows (extension-cors.ts, after the Fetch standard)', () => {
  const ORIGIN = 'chrome-extension://npngpgadjklogcjnddakfnmbbkeidjap';
  const h = (pairs: Record<string, string>) => Object.entries(pairs).map(([name, value]) => ({ name, value }));

  it('"a CORS-safelisted request-header" needs no preflight: Accept, Accept-Language, Content-Language, a simple Content-Type, Range; any other header or method does', () => {
    expect(needsPreflight('GET', [['Accept', 'text/html'], ['Accept-Language', 'de-DE,de;q=0.9'], ['Content-Type', 'text/plain;charset=UTF-8'], ['Range', 'bytes=0-99']])).toBe(false);
    expect(needsPreflight('POST', [['Content-Type', 'application/x-www-form-urlencoded']])).toBe(false);
    expect(needsPreflight('POST', [['Content-Type', 'application/json']])).toBe(true);
    expect(needsPreflight('PUT', [])).toBe(true);
    expect(needsPreflight('GET', [['Accept', 'a"b']])).toBe(true);
    expect(unsafeHeaderNames([['X-Probe', 'yes'], ['Content-Type', 'application/json'], ['x-probe', 'again'], ['Accept', '*/*']])).toEqual(['content-type', 'x-probe']);
    // Safelisted values above 1 KiB together are not safelisted.
    expect(unsafeHeaderNames([['Accept', 'a'.repeat(100)], ['Accept-Language', 'b'.repeat(100)], ...Array.from({ length: 9 }, (): [string, string] => ['Content-Language', 'c'.repeat(120)])])).toEqual(['accept', 'accept-language', 'content-language']);
  });

  it('"CORS check": one Access-Control-Allow-Origin, "*" or the origin itself; with credentials the origin and Access-Control-Allow-Credentials: true', () => {
    expect(corsRefusal(h({ 'Access-Control-Allow-Origin': '*' }), ORIGIN, false)).toBeUndefined();
    expect(corsRefusal(h({ 'Access-Control-Allow-Origin': ORIGIN }), ORIGIN, false)).toBeUndefined();
    expect(corsRefusal([], ORIGIN, false)).toBe('the response has no Access-Control-Allow-Origin header');
    expect(corsRefusal([{ name: 'Access-Control-Allow-Origin', value: '*' }, { name: 'Access-Control-Allow-Origin', value: ORIGIN }], ORIGIN, false)).toMatch(/2 Access-Control-Allow-Origin headers/);
    expect(corsRefusal(h({ 'Access-Control-Allow-Origin': 'https://example.com' }), ORIGIN, false)).toMatch(/not chrome-extension:/);
    expect(corsRefusal(h({ 'Access-Control-Allow-Origin': '*' }), ORIGIN, true)).toMatch(/"\*"/);
    expect(corsRefusal(h({ 'Access-Control-Allow-Origin': ORIGIN }), ORIGIN, true)).toMatch(/Access-Control-Allow-Credentials: true/);
    expect(corsRefusal(h({ 'Access-Control-Allow-Origin': ORIGIN, 'Access-Control-Allow-Credentials': 'true' }), ORIGIN, true)).toBeUndefined();
  });

  it('a preflight allows the methods and headers it lists ("*" only without credentials, never for Authorization), for Access-Control-Max-Age seconds (5 without, 2 h at most)', () => {
    const grant = readPreflight(204, h({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'PUT, DELETE', 'Access-Control-Allow-Headers': 'X-Probe, content-type' }), ORIGIN, false, 1_000);
    expect('refused' in grant).toBe(false);
    if ('refused' in grant) return;
    expect(grant.expires).toBe(6_000);
    expect(grantRefusal(grant, 'PUT', ['content-type', 'x-probe'])).toBeUndefined();
    expect(grantRefusal(grant, 'PATCH', [])).toMatch(/does not allow the method PATCH/);
    expect(grantRefusal(grant, 'POST', ['x-other'])).toMatch(/does not allow the header x-other/);
    const star = readPreflight(200, h({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': '*', 'Access-Control-Allow-Headers': '*', 'Access-Control-Max-Age': '86400' }), ORIGIN, false, 0);
    if ('refused' in star) throw new Error(star.refused);
    expect(star.expires).toBe(7_200_000);
    expect(grantRefusal(star, 'PATCH', ['x-anything'])).toBeUndefined();
    expect(grantRefusal(star, 'GET', ['authorization'])).toMatch(/authorization/);
    expect(readPreflight(500, h({ 'Access-Control-Allow-Origin': '*' }), ORIGIN, false, 0)).toEqual({ refused: 'its preflight (OPTIONS) answered 500, not 2xx' });
  });

  it('a cached preflight answer is reused until it expires, per origin, URL and credentials mode', () => {
    const cache = new PreflightCache();
    const grant = { methods: new Set(['PUT']), headers: new Set<string>(), anyMethod: false, anyHeader: false, expires: 5_000 };
    cache.put(ORIGIN, 'http://a.test/x', false, grant, 0);
    expect(cache.get(ORIGIN, 'http://a.test/x', false, 4_999)).toBe(grant);
    expect(cache.get(ORIGIN, 'http://a.test/x', true, 4_999)).toBeUndefined();
    expect(cache.get(ORIGIN, 'http://a.test/y', false, 4_999)).toBeUndefined();
    expect(cache.get(ORIGIN, 'http://a.test/x', false, 5_000)).toBeUndefined();
  });

  it("the preflight cache holds at most Chromium's 1,024 answers (expired ones go first, then the oldest) and no key over 1,024 characters", () => {
    const cache = new PreflightCache();
    const grant = (expires: number) => ({ methods: new Set(['PUT']), headers: new Set<string>(), anyMethod: false, anyHeader: false, expires });
    cache.put(ORIGIN, 'http://a.test/expired', false, grant(10), 0);
    for (let i = 0; i < 5_000; i++) cache.put(ORIGIN, `http://a.test/${i}`, false, grant(60_000), 100);
    expect(cache.size).toBeLessThanOrEqual(PREFLIGHT_CACHE_ENTRIES);
    expect(cache.get(ORIGIN, 'http://a.test/4999', false, 200)).toBeDefined();
    expect(cache.get(ORIGIN, 'http://a.test/0', false, 200)).toBeUndefined();
    cache.put(ORIGIN, `http://a.test/${'x'.repeat(1_100)}`, false, grant(60_000), 100);
    expect(cache.get(ORIGIN, `http://a.test/${'x'.repeat(1_100)}`, false, 200)).toBeUndefined();
  });

  it('what a script may read: its own response all but Set-Cookie, a "cors" one the safelisted and exposed headers, an opaque one nothing', () => {
    const pairs: [string, string][] = [['Content-Type', 'text/plain'], ['Set-Cookie', 'a=1'], ['X-Custom', '1'], ['Date', 'now']];
    expect(readableHeaders(pairs, 'basic', [], false).map(([name]) => name)).toEqual(['Content-Type', 'X-Custom', 'Date']);
    expect(readableHeaders(pairs, 'cors', [], false).map(([name]) => name)).toEqual(['Content-Type']);
    expect(readableHeaders(pairs, 'cors', h({ 'Access-Control-Expose-Headers': 'x-custom' }), false).map(([name]) => name)).toEqual(['Content-Type', 'X-Custom']);
    expect(readableHeaders(pairs, 'cors', h({ 'Access-Control-Expose-Headers': '*' }), false).map(([name]) => name)).toEqual(['Content-Type', 'X-Custom', 'Date']);
    expect(readableHeaders(pairs, 'cors', h({ 'Access-Control-Expose-Headers': '*' }), true).map(([name]) => name)).toEqual(['Content-Type']);
    expect(readableHeaders(pairs, 'opaque', [], false)).toEqual([]);
  });
});
