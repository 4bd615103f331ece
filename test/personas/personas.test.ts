// The three personas in the engine: what registration accepts and how it refuses, which headers a
// listener is shown and may change, the details fields, and the sequences where Chrome and Firefox
// differ. Expected values are what Chromium 156 and Firefox ESR 153 showed (test/personas/README.md).
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { createOwner, createTrustedOwner, type IgnoredAction } from '../../src/engine/owner.js';
import { chromePersona, enumObjects, firefoxPersona, specPersona, type Persona } from '../../src/engine/personas/index.js';
import type { HttpHeaders } from '../../src/engine/types.js';
import { ALL_URLS, createHarness, ok } from '../helpers/web-request-harness.js';

const owner = (persona: Persona, id: string = persona.name) => createTrustedOwner(id, { persona });
const names = (headers: HttpHeaders | undefined) => (headers ?? []).map((h) => h.name);

// What Chromium 156 sent for an <img> on a page that had set a cookie (seen on the wire).
const IMAGE_REQUEST: HttpHeaders = [
  { name: 'Host', value: 'app.test' },
  { name: 'Connection', value: 'keep-alive' },
  { name: 'User-Agent', value: 'Chromium' },
  { name: 'Accept', value: 'image/avif,image/webp,*/*' },
  { name: 'Sec-Fetch-Site', value: 'same-origin' },
  { name: 'Sec-Fetch-Mode', value: 'no-cors' },
  { name: 'Sec-Fetch-Dest', value: 'image' },
  { name: 'Referer', value: 'http://app.test/' },
  { name: 'Accept-Encoding', value: 'gzip, deflate' },
  { name: 'Accept-Language', value: 'en-US' },
  { name: 'Cookie', value: 'a=1' },
];
const NAVIGATION: HttpHeaders = [
  { name: 'Host', value: 'app.test' },
  { name: 'Accept', value: 'text/html' },
  { name: 'Sec-Fetch-Site', value: 'none' },
  { name: 'Sec-Fetch-Mode', value: 'navigate' },
  { name: 'Sec-Fetch-Dest', value: 'document' },
];

describe('registration per persona', () => {
  const register = (persona: Persona, filter: unknown, spec?: unknown, event: 'onBeforeRequest' | 'onBeforeSendHeaders' | 'onHeadersReceived' | 'onErrorOccurred' = 'onBeforeRequest') => {
    const h = createHarness();
    return () => (h.webRequest(owner(persona)) as any)[event].addListener(() => {}, filter, spec);
  };

  it('chrome: a filter type Chrome lacks throws with Chrome\'s words ("beacon", "imageset"); "ping" and "webbundle" register', () => {
    const chromeList = 'csp_report, font, image, main_frame, media, object, other, ping, script, stylesheet, sub_frame, webbundle, websocket, xmlhttprequest';
    expect(register(chromePersona, { urls: ['<all_urls>'], types: ['beacon'] })).toThrow(`Error at parameter 'filter': Error at property 'types': Error at index 0: Value must be one of ${chromeList}.`);
    expect(register(chromePersona, { urls: ['<all_urls>'], types: ['image', 'imageset'] })).toThrow('Error at index 1:');
    expect(register(chromePersona, { urls: ['<all_urls>'], types: ['ping', 'webbundle'] })).not.toThrow();
  });

  it('chrome: extraHeaders is an option of every event, securityInfo of onHeadersReceived; onErrorOccurred takes only extraHeaders', () => {
    expect(register(chromePersona, ALL_URLS, ['requestHeaders', 'blocking', 'extraHeaders'], 'onBeforeSendHeaders')).not.toThrow();
    expect(register(chromePersona, ALL_URLS, ['responseHeaders', 'securityInfo', 'securityInfoRawDer'], 'onHeadersReceived')).not.toThrow();
    expect(register(chromePersona, ALL_URLS, ['extraHeaders'], 'onErrorOccurred')).not.toThrow();
    expect(register(chromePersona, ALL_URLS, ['bogus'], 'onErrorOccurred')).toThrow("Error at parameter 'extraInfoSpec': Error at index 0: Value must be one of extraHeaders.");
  });

  it('chrome: an unknown filter key is "Unexpected property"; `urls: []` registers (and matches nothing)', () => {
    expect(register(chromePersona, { urls: ['<all_urls>'], bogus: 1 })).toThrow("Error at parameter 'filter': Unexpected property: 'bogus'.");
    expect(register(chromePersona, { urls: [] })).not.toThrow();
  });

  it('firefox: beacon, imageset, object_subrequest register; extraHeaders throws; the filter takes `incognito`', () => {
    expect(register(firefoxPersona, { urls: ['<all_urls>'], types: ['beacon', 'imageset', 'ping', 'object_subrequest'], incognito: false })).not.toThrow();
    expect(register(firefoxPersona, ALL_URLS, ['requestHeaders', 'extraHeaders'], 'onBeforeSendHeaders')).toThrow('Invalid enumeration value "extraHeaders"');
    expect(register(firefoxPersona, { urls: ['<all_urls>'], types: ['webbundle'] })).toThrow('Invalid enumeration value "webbundle"');
  });

  it('spec: as the seed interface says (extraHeaders and webbundle are not in it, incognito is no filter key)', () => {
    expect(register(specPersona, ALL_URLS, ['requestHeaders', 'extraHeaders'], 'onBeforeSendHeaders')).toThrow('"extraHeaders" is not a valid extraInfoSpec value');
    expect(register(specPersona, { urls: ['<all_urls>'], incognito: true })).toThrow('unexpected property "incognito"');
    expect(register(specPersona, { urls: ['<all_urls>'], types: ['beacon', 'web_manifest'] })).not.toThrow();
  });

  it('enum objects: Chrome\'s key spellings (REQUEST_BODY, EXTRA_HEADERS, SECURITY_INFO_RAW_DER, IgnoredActionType), Firefox\'s (REQUESTBODY)', () => {
    const chrome = enumObjects(chromePersona);
    expect(chrome.OnBeforeSendHeadersOptions).toEqual({ REQUEST_HEADERS: 'requestHeaders', BLOCKING: 'blocking', EXTRA_HEADERS: 'extraHeaders' });
    expect(chrome.OnHeadersReceivedOptions!.SECURITY_INFO_RAW_DER).toBe('securityInfoRawDer');
    expect(chrome.OnErrorOccurredOptions).toEqual({ EXTRA_HEADERS: 'extraHeaders' });
    expect(chrome.ResourceType!.XMLHTTPREQUEST).toBe('xmlhttprequest');
    expect(chrome.IgnoredActionType).toEqual({ REDIRECT: 'redirect', REQUEST_HEADERS: 'request_headers', RESPONSE_HEADERS: 'response_headers', AUTH_CREDENTIALS: 'auth_credentials' });
    const firefox = enumObjects(firefoxPersona);
    expect(firefox.OnBeforeRequestOptions).toEqual({ BLOCKING: 'blocking', REQUESTBODY: 'requestBody' });
    expect(firefox.ResourceType!.OBJECT_SUBREQUEST).toBe('object_subrequest');
    expect(firefox.OnErrorOccurredOptions).toBeUndefined();
  });
});

describe('types per persona, from what the proxy saw', () => {
  it('a beacon is "ping" to the spec and Chrome and "beacon" to Firefox; a manifest is "other" to Chrome; filters match the persona\'s name', async () => {
    const h = createHarness();
    const seen: Record<string, string[]> = { spec: [], chrome: [], firefox: [] };
    for (const persona of [specPersona, chromePersona, firefoxPersona]) {
      h.webRequest(owner(persona)).onBeforeRequest.addListener((d) => void seen[persona.name]!.push(d.type), ALL_URLS);
    }
    const chromePings: string[] = [];
    h.webRequest(owner(chromePersona, 'pings')).onBeforeRequest.addListener((d) => void chromePings.push(d.url), { urls: ['<all_urls>'], types: ['ping'] });
    await h.run({ url: 'http://app.test/beacon', method: 'POST', type: 'beacon' });
    await h.run({ url: 'http://app.test/app.webmanifest', type: 'web_manifest' });
    expect(seen).toEqual({ spec: ['ping', 'web_manifest'], chrome: ['ping', 'other'], firefox: ['beacon', 'web_manifest'] });
    expect(chromePings).toEqual(['http://app.test/beacon']);
    expect(h.webRequestEntries()[0]!.details.type).toBe('ping'); // the journal speaks the spec
  });
});

describe("Firefox's header visibility (Firefox ESR 153.7: every header but the Priority and a bodiless request's Content-Length: 0 its HTTP layer adds)", () => {
  it("a bodiless PUT's Content-Length: 0 is not shown; a body's Content-Length is", async () => {
    const h = createHarness();
    const seen: string[][] = [];
    h.webRequest(owner(firefoxPersona)).onSendHeaders.addListener((d) => void seen.push(names(d.requestHeaders)), ALL_URLS, ['requestHeaders']);
    await h.run({ url: 'http://app.test/empty', method: 'PUT', type: 'xmlhttprequest', requestHeaders: [{ name: 'Host', value: 'app.test' }, { name: 'Content-Length', value: '0' }] });
    await h.run({ url: 'http://app.test/full', method: 'PUT', type: 'xmlhttprequest', requestHeaders: [{ name: 'Host', value: 'app.test' }, { name: 'Content-Length', value: '3' }], body: Buffer.from('abc') });
    expect(seen).toEqual([['Host'], ['Host', 'Content-Length']]);
  });


  it('a Firefox listener is not shown Priority, cannot remove it, and the origin still gets it', async () => {
    const h = createHarness();
    const seen: string[][] = [];
    h.webRequest(owner(firefoxPersona)).onBeforeSendHeaders.addListener(
      (d) => {
        seen.push(names(d.requestHeaders));
        return { requestHeaders: d.requestHeaders!.filter((x) => x.name !== 'Accept') };
      },
      ALL_URLS,
      ['blocking', 'requestHeaders'],
    );
    await h.run({ url: 'http://app.test/img.png', type: 'image', requestHeaders: [...IMAGE_REQUEST, { name: 'Priority', value: 'u=5, i' }] });
    expect(seen).toEqual([names(IMAGE_REQUEST)]);
    const sent = h.origin.received[0]!.headers;
    expect(sent).toContainEqual({ name: 'Priority', value: 'u=5, i' });
    expect(names(sent)).not.toContain('Accept');
  });
});

describe('Chrome\'s header visibility (Chromium 156: without extraHeaders no Accept-Encoding, Accept-Language, Cookie, Referer, Origin; never Host, Connection, Content-Length)', () => {
  it('onBeforeSendHeaders and onSendHeaders show each listener what Chrome would, and the origin still gets every header', async () => {
    const h = createHarness();
    const seen: Record<string, string[]> = {};
    const chrome = h.webRequest(owner(chromePersona));
    chrome.onBeforeSendHeaders.addListener((d) => void (seen.plain = names(d.requestHeaders)), ALL_URLS, ['requestHeaders']);
    chrome.onSendHeaders.addListener((d) => void (seen.extra = names(d.requestHeaders)), ALL_URLS, ['requestHeaders', 'extraHeaders'] as any);
    h.webRequest(owner(firefoxPersona)).onSendHeaders.addListener((d) => void (seen.firefox = names(d.requestHeaders)), ALL_URLS, ['requestHeaders']);
    await h.run({ url: 'http://app.test/img.png', type: 'image', requestHeaders: IMAGE_REQUEST });
    expect(seen.plain).toEqual(['User-Agent', 'Accept', 'Sec-Fetch-Site', 'Sec-Fetch-Mode', 'Sec-Fetch-Dest']);
    expect(seen.extra).toEqual(['User-Agent', 'Accept', 'Sec-Fetch-Site', 'Sec-Fetch-Mode', 'Sec-Fetch-Dest', 'Referer', 'Accept-Encoding', 'Accept-Language', 'Cookie']);
    expect(seen.firefox).toEqual(names(IMAGE_REQUEST)); // FACTS.md: Firefox shows every header
    expect(names(h.origin.received[0]!.headers)).toEqual(names(IMAGE_REQUEST));
  });

  it('a listener without extraHeaders cannot change or remove what it was not shown; what it was shown it can', async () => {
    const h = createHarness();
    h.webRequest(owner(chromePersona)).onBeforeSendHeaders.addListener(
      (d) => ({ requestHeaders: [...d.requestHeaders!.filter((x) => x.name !== 'User-Agent'), { name: 'Cookie', value: 'forged=1' }, { name: 'X-Added', value: '1' }] }),
      ALL_URLS,
      ['blocking', 'requestHeaders'],
    );
    await h.run({ url: 'http://app.test/img.png', type: 'image', requestHeaders: IMAGE_REQUEST });
    const sent = h.origin.received[0]!.headers;
    expect(sent).toContainEqual({ name: 'Cookie', value: 'a=1' });
    expect(sent).not.toContainEqual({ name: 'Cookie', value: 'forged=1' });
    expect(names(sent)).toContain('X-Added');
    expect(names(sent)).not.toContain('User-Agent');
    expect(names(sent)).toEqual(expect.arrayContaining(['Host', 'Referer', 'Accept-Encoding']));
  });

  it('with extraHeaders the listener can change the Cookie header the origin receives', async () => {
    const h = createHarness();
    h.webRequest(owner(chromePersona)).onBeforeSendHeaders.addListener(
      (d) => ({ requestHeaders: d.requestHeaders!.map((x) => (x.name === 'Cookie' ? { name: 'Cookie', value: 'b=2' } : x)) }),
      ALL_URLS,
      ['blocking', 'requestHeaders', 'extraHeaders'] as any,
    );
    await h.run({ url: 'http://app.test/img.png', type: 'image', requestHeaders: IMAGE_REQUEST });
    expect(h.origin.received[0]!.headers).toContainEqual({ name: 'Cookie', value: 'b=2' });
  });

  it('onHeadersReceived shows Set-Cookie only with extraHeaders, and hop-by-hop headers as received', async () => {
    const h = createHarness();
    h.origin.route = () => ok('x', [{ name: 'Set-Cookie', value: 's=1' }, { name: 'Connection', value: 'keep-alive' }, { name: 'Keep-Alive', value: 'timeout=5' }]);
    const seen: Record<string, string[]> = {};
    const chrome = h.webRequest(owner(chromePersona));
    chrome.onHeadersReceived.addListener((d) => void (seen.plain = names(d.responseHeaders)), ALL_URLS, ['responseHeaders']);
    chrome.onCompleted.addListener((d) => void (seen.extra = names(d.responseHeaders)), ALL_URLS, ['responseHeaders', 'extraHeaders'] as any);
    await h.run({ url: 'http://app.test/' });
    expect(seen.plain).toEqual(['Content-Type', 'Connection', 'Keep-Alive']);
    expect(seen.extra).toEqual(['Content-Type', 'Set-Cookie', 'Connection', 'Keep-Alive']);
  });

  it('a CORS preflight is shown to Chrome listeners only while some listener has extraHeaders (checked on Chromium 156)', async () => {
    const preflight: HttpHeaders = [
      { name: 'Origin', value: 'http://app.test' },
      { name: 'Access-Control-Request-Method', value: 'PUT' },
      { name: 'Sec-Fetch-Mode', value: 'cors' },
    ];
    const h = createHarness();
    const seen: string[] = [];
    h.webRequest(owner(chromePersona)).onBeforeRequest.addListener((d) => void seen.push(d.method), ALL_URLS);
    h.webRequest(owner(specPersona)).onBeforeRequest.addListener((d) => void seen.push(`spec ${d.method}`), ALL_URLS);
    await h.run({ url: 'http://api.test/cors', method: 'OPTIONS', type: 'xmlhttprequest', requestHeaders: preflight });
    expect(seen).toEqual(['spec OPTIONS']);
    h.webRequest(owner(chromePersona, 'other')).onSendHeaders.addListener(() => {}, ALL_URLS, ['extraHeaders'] as any);
    await h.run({ url: 'http://api.test/cors', method: 'OPTIONS', type: 'xmlhttprequest', requestHeaders: preflight });
    expect(seen).toEqual(['spec OPTIONS', 'OPTIONS', 'spec OPTIONS']);
  });
});

describe('details fields per persona, from what the request showed', () => {
  it('chrome: a typed navigation has no initiator and frameType outermost_frame; its image carries the document\'s documentId and the page origin as initiator; a sub-frame has parentDocumentId, no documentId, parentFrameId 0', async () => {
    const h = createHarness();
    const seen: any[] = [];
    h.webRequest(owner(chromePersona)).onBeforeRequest.addListener((d) => void seen.push(d), ALL_URLS);
    h.origin.route = () => ok('<html>', [{ name: 'Content-Type', value: 'text/html' }]);
    await h.run({ url: 'http://app.test/', type: 'main_frame', requestHeaders: NAVIGATION });
    await h.run({ url: 'http://app.test/img.png', type: 'image', requestHeaders: IMAGE_REQUEST });
    const frameHeaders = [...IMAGE_REQUEST.filter((x) => !/^sec-fetch-dest$/i.test(x.name)), { name: 'Sec-Fetch-Dest', value: 'iframe' }];
    await h.run({ url: 'http://app.test/frame', type: 'sub_frame', requestHeaders: frameHeaders });
    await h.run({ url: 'http://app.test/inframe.png', type: 'image', requestHeaders: IMAGE_REQUEST.map((x) => (x.name === 'Referer' ? { name: 'Referer', value: 'http://app.test/frame' } : x)) });
    const [page, image, frame, inFrame] = seen;
    expect(page).toMatchObject({ frameId: 0, parentFrameId: -1, frameType: 'outermost_frame', documentLifecycle: 'active' });
    expect(page.initiator).toBeUndefined();
    expect(page.documentId).toBeUndefined();
    expect(image).toMatchObject({ initiator: 'http://app.test', frameId: 0, parentFrameId: -1, frameType: 'outermost_frame', documentLifecycle: 'active' });
    expect(image.documentId).toMatch(/^[0-9A-F]{32}$/);
    expect(frame).toMatchObject({ type: 'sub_frame', frameType: 'sub_frame', parentFrameId: 0, parentDocumentId: image.documentId, initiator: 'http://app.test' });
    expect(frame.frameId).toBeGreaterThan(0);
    expect(frame.documentId).toBeUndefined();
    expect(inFrame).toMatchObject({ frameId: frame.frameId, parentFrameId: 0, frameType: 'sub_frame', parentDocumentId: image.documentId });
    expect(inFrame.documentId).not.toBe(image.documentId);
  });

  it('chrome: a request from no document (curl) has no frame: frameId -1, no frameType, documentId or initiator; the spec persona\'s details are the spec\'s', async () => {
    const h = createHarness();
    const seen: any[] = [];
    h.webRequest(owner(chromePersona)).onBeforeRequest.addListener((d) => void seen.push(d), ALL_URLS);
    h.webRequest(owner(specPersona)).onBeforeRequest.addListener((d) => void seen.push(d), ALL_URLS);
    await h.run({ url: 'http://app.test/api', requestHeaders: [{ name: 'User-Agent', value: 'curl/8' }] });
    expect(seen[0]).toMatchObject({ frameId: -1, parentFrameId: -1 });
    for (const key of ['frameType', 'documentLifecycle', 'documentId', 'initiator']) expect(seen[0]).not.toHaveProperty(key);
    expect(Object.keys(seen[1]).sort()).toEqual(['frameId', 'method', 'parentFrameId', 'requestId', 'tabId', 'timeStamp', 'type', 'url']);
  });

  it('chrome: the initiator is "null" for an opaque origin and stays the same through a redirect', async () => {
    const h = createHarness();
    h.origin.route = (req) => (req.url.endsWith('/old') ? { statusCode: 302, statusMessage: 'Found', headers: [{ name: 'Location', value: 'http://cdn.test/new' }] } : ok());
    const initiators: unknown[] = [];
    h.webRequest(owner(chromePersona)).onBeforeRequest.addListener((d) => void initiators.push((d as { initiator?: string }).initiator), ALL_URLS);
    await h.run({ url: 'http://api.test/old', method: 'POST', type: 'xmlhttprequest', requestHeaders: [{ name: 'Origin', value: 'null' }, { name: 'Sec-Fetch-Site', value: 'cross-site' }] });
    expect(initiators).toEqual(['null', 'null']);
  });

  it('firefox: originUrl, documentUrl, frameAncestors, thirdParty, cookieStoreId, incognito, urlClassification (empty), proxyInfo', async () => {
    const h = createHarness();
    const seen: any[] = [];
    h.webRequest(owner(firefoxPersona)).onBeforeSendHeaders.addListener((d) => void seen.push(d), ALL_URLS);
    h.origin.route = () => ok('<html>', [{ name: 'Content-Type', value: 'text/html' }]);
    await h.run({ url: 'http://app.test/', type: 'main_frame', requestHeaders: NAVIGATION });
    await h.run({ url: 'http://tracker.example/pixel.gif', type: 'image', requestHeaders: [{ name: 'Referer', value: 'http://app.test/' }, { name: 'Sec-Fetch-Site', value: 'cross-site' }, { name: 'Sec-Fetch-Dest', value: 'image' }] });
    await h.run({ url: 'http://app.test/private', storeId: '1', requestHeaders: [{ name: 'Referer', value: 'http://app.test/' }, { name: 'Sec-Fetch-Site', value: 'same-origin' }] });
    expect(seen[0]).toMatchObject({ frameAncestors: [], thirdParty: false, cookieStoreId: 'firefox-default', incognito: false, urlClassification: { firstParty: [], thirdParty: [] }, proxyInfo: null });
    expect(seen[1]).toMatchObject({ originUrl: 'http://app.test/', documentUrl: 'http://app.test/', thirdParty: true, type: 'image' });
    expect(seen[2]).toMatchObject({ cookieStoreId: 'firefox-private', incognito: true, thirdParty: false });
  });
});

describe('sequences where Chrome and Firefox differ', () => {
  const authorized = (userPass: string) => (req: { headers: HttpHeaders }) =>
    req.headers.some((x) => x.name === 'Authorization' && x.value === `Basic ${Buffer.from(userPass).toString('base64')}`)
      ? ok('welcome')
      : { statusCode: 401, statusMessage: 'Unauthorized', headers: [{ name: 'WWW-Authenticate', value: 'Basic realm="r"' }], body: Buffer.from('who?') };

  it('auth retry: Chrome listeners see BR, BSH, SH, HR(401), AR, RS, C; Firefox listeners also BR, BSH, SH, HR again (FACTS.md), journaled as fired for firefox only', async () => {
    const h = createHarness();
    h.origin.route = authorized('ann:pw');
    const seen: Record<string, string[]> = { chrome: [], firefox: [] };
    for (const persona of [chromePersona, firefoxPersona]) {
      const wr = h.webRequest(owner(persona)) as any;
      for (const event of ['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']) {
        wr[event].addListener((d: any) => void seen[persona.name]!.push(d.statusCode ? `${event}(${d.statusCode})` : event), ALL_URLS);
      }
      wr.onAuthRequired.addListener(() => void seen[persona.name]!.push('onAuthRequired'), ALL_URLS);
    }
    h.webRequest('creds').onAuthRequired.addListener(() => ({ authCredentials: { username: 'ann', password: 'pw' } }), ALL_URLS, ['blocking']);
    expect(await h.run({ url: 'http://app.test/private' })).toMatchObject({ statusCode: 200 });
    expect(seen.chrome).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived(401)', 'onAuthRequired', 'onResponseStarted(200)', 'onCompleted(200)']);
    expect(seen.firefox).toEqual([
      'onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived(401)', 'onAuthRequired',
      'onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived(200)', 'onResponseStarted(200)', 'onCompleted(200)',
    ]);
    expect(h.webRequestEntries().filter((e) => e.firedFor?.length).map((e) => [e.event, e.firedFor])).toEqual([
      ['onBeforeRequest', ['firefox']], ['onBeforeSendHeaders', ['firefox']], ['onSendHeaders', ['firefox']], ['onHeadersReceived', ['firefox']],
    ]);
  });

  it('a cancel in onAuthRequired: Chrome shows the 401; Firefox ends the request with onErrorOccurred', async () => {
    for (const [persona, expected] of [[chromePersona, 'response'], [firefoxPersona, 'error']] as const) {
      const h = createHarness();
      h.origin.route = authorized('x:y');
      h.webRequest(owner(persona)).onAuthRequired.addListener(() => ({ cancel: true }), ALL_URLS, ['blocking']);
      const result = await h.run({ url: 'http://app.test/private' });
      expect(result.kind).toBe(expected);
      expect(h.eventNames().at(-1)).toBe(expected === 'error' ? 'onErrorOccurred' : 'onCompleted');
    }
  });

  it('onActionIgnored: a Chrome extension whose redirect lost to a later-installed one\'s is told, with the requestId', async () => {
    const h = createHarness();
    const ignored: { requestId: string; action: IgnoredAction }[] = [];
    const loser = createOwner({ name: 'loser', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], persona: chromePersona }, { precedence: 1 });
    loser.actionIgnored = (requestId, action) => ignored.push({ requestId, action });
    const winner = createOwner({ name: 'winner', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], persona: chromePersona }, { precedence: 2 });
    const onApp = { urls: ['http://app.test/*'] };
    h.webRequest(loser).onBeforeRequest.addListener(() => ({ redirectUrl: 'http://a.test/' }), onApp, ['blocking']);
    h.webRequest(winner).onBeforeRequest.addListener(() => ({ redirectUrl: 'http://b.test/' }), onApp, ['blocking']);
    const result = await h.run({ url: 'http://app.test/x' });
    expect(ignored).toEqual([{ requestId: result.requestId, action: 'redirect' }]);
  });

  it('firefox: upgradeToSecure in onBeforeRequest sends the request to https; the spec and Chrome reject the key', async () => {
    const h = createHarness();
    h.webRequest(owner(firefoxPersona)).onBeforeRequest.addListener((d) => (d.url.startsWith('http:') ? { upgradeToSecure: true } : undefined), ALL_URLS, ['blocking']);
    await h.run({ url: 'http://app.test/login' });
    expect(h.origin.received.map((r) => r.url)).toEqual(['https://app.test/login']);

    const c = createHarness();
    c.webRequest(owner(chromePersona)).onBeforeRequest.addListener(() => ({ upgradeToSecure: true }) as any, ALL_URLS, ['blocking']);
    await c.run({ url: 'http://app.test/login' });
    expect(c.origin.received.map((r) => r.url)).toEqual(['http://app.test/login']);
    expect(c.webRequestEntries()[0]!.outcomes[0]).toMatchObject({ status: 'failed', reason: 'invalid BlockingResponse: unexpected property "upgradeToSecure" in BlockingResponse' });
  });
});

// Chrome's values were checked with a probe extension in Chromium 156; Firefox's follow its
// cookies schema (SameSiteStatus has no "unspecified") and were not checked in a running Firefox.
describe('the cookie type of each persona', () => {
  it('"the cookie type has sameSite" under chrome (unspecified without the attribute) and firefox (no_restriction then); the spec\'s has none; onChanged alike', async () => {
    const engine = await Engine.open({});
    try {
      const api = (persona: Persona) => engine.extensionApi(createTrustedOwner(`cookies-${persona.name}`, { persona })).browser.cookies!;
      const changes: Record<string, unknown[]> = { spec: [], chrome: [], firefox: [] };
      for (const persona of [specPersona, chromePersona, firefoxPersona]) api(persona).onChanged.addListener((info: { cookie: { name: string; sameSite?: string } }) => changes[persona.name]!.push([info.cookie.name, info.cookie.sameSite]));
      engine.cookies.setFromResponse('https://a.test/', ['lax=1; SameSite=Lax', 'plain=2', 'none=3; SameSite=None; Secure']);
      const sameSites = async (persona: Persona) =>
        Object.fromEntries((await api(persona).getAll({ url: 'https://a.test/' })).map((cookie) => [cookie.name, (cookie as { sameSite?: string }).sameSite]));
      expect(await sameSites(chromePersona)).toEqual({ lax: 'lax', plain: 'unspecified', none: 'no_restriction' });
      expect(await sameSites(firefoxPersona)).toEqual({ lax: 'lax', plain: 'no_restriction', none: 'no_restriction' });
      const spec = await api(specPersona).getAll({ url: 'https://a.test/' });
      expect(spec.every((cookie) => !('sameSite' in cookie))).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 10)); // onChanged is delivered asynchronously
      expect(changes.chrome).toEqual([['lax', 'lax'], ['plain', 'unspecified'], ['none', 'no_restriction']]);
      expect(changes.firefox).toEqual([['lax', 'lax'], ['plain', 'no_restriction'], ['none', 'no_restriction']]);
      expect(changes.spec).toEqual([['lax', undefined], ['plain', undefined], ['none', undefined]]);
    } finally {
      await engine.close();
    }
  });
});

describe("how Firefox words a verdict's events (Firefox ESR 153.8, test/personas/firefox-differential.test.ts)", () => {
  /** What a Firefox and a Chrome listener each see of onErrorOccurred and onBeforeRedirect. */
  async function seenAfter(verdict: (url: string) => object | undefined, at: 'onBeforeRequest' | 'onHeadersReceived', route = () => ok()) {
    const h = createHarness();
    h.origin.route = route;
    const seen: Record<string, unknown[]> = { firefox: [], chrome: [] };
    h.webRequest(owner(firefoxPersona, 'decider'))[at].addListener((d) => verdict(d.url) as never, ALL_URLS, ['blocking']);
    for (const persona of [firefoxPersona, chromePersona]) {
      const api = h.webRequest(owner(persona, `watch-${persona.name}`));
      api.onErrorOccurred.addListener((d) => void seen[persona.name]!.push({ error: d.error }), ALL_URLS);
      api.onBeforeRedirect.addListener((d) => void seen[persona.name]!.push({ statusCode: d.statusCode, statusLine: d.statusLine }), ALL_URLS);
    }
    await h.run({ url: 'http://app.test/x', type: 'xmlhttprequest' });
    return { seen, journal: h.webRequestEntries().filter((e) => e.event === 'onErrorOccurred' || e.event === 'onBeforeRedirect').map((e) => e.details) };
  }

  it('a cancelled request fails with NS_ERROR_ABORT for Firefox listeners; the journal and Chrome say net::ERR_BLOCKED_BY_CLIENT', async () => {
    const { seen, journal } = await seenAfter(() => ({ cancel: true }), 'onBeforeRequest');
    expect(seen.firefox).toEqual([{ error: 'NS_ERROR_ABORT' }]);
    expect(seen.chrome).toEqual([{ error: 'net::ERR_BLOCKED_BY_CLIENT' }]);
    expect(journal).toMatchObject([{ error: 'net::ERR_BLOCKED_BY_CLIENT' }]);
  });

  it("a redirect decided in onBeforeRequest: Firefox reports 200 with an empty reason phrase, Chrome its 307 Internal Redirect", async () => {
    const { seen } = await seenAfter((url) => (url.endsWith('/x') ? { redirectUrl: 'http://app.test/y' } : undefined), 'onBeforeRequest');
    expect(seen.firefox).toEqual([{ statusCode: 200, statusLine: 'HTTP/1.1 200 ' }]);
    expect(seen.chrome).toEqual([{ statusCode: 307, statusLine: 'HTTP/1.1 307 Internal Redirect' }]);
  });

  it('a redirect decided in onHeadersReceived: Firefox reports the response it replaced, Chrome its 302 Found', async () => {
    const { seen } = await seenAfter((url) => (url.endsWith('/x') ? { redirectUrl: 'http://app.test/y' } : undefined), 'onHeadersReceived', () => ({ ...ok(), statusCode: 404, statusMessage: 'Not Found' }));
    expect(seen.firefox).toEqual([{ statusCode: 404, statusLine: 'HTTP/1.1 404 Not Found' }]);
    expect(seen.chrome).toEqual([{ statusCode: 302, statusLine: 'HTTP/1.1 302 Found' }]);
  });
});
