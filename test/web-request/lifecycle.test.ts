import { describe, expect, it } from 'vitest';
import { createOwner, createTrustedOwner } from '../../src/engine/owner.js';
import type { OnBeforeRedirectDetails, OnErrorOccurredDetails, OnHeadersReceivedDetails } from '../../src/engine/types.js';
import { ALL_URLS, createHarness, ok } from '../helpers/web-request-harness.js';

const ONE_HOP = ['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted'];

describe('event order per hop', () => {
  it('fires onBeforeRequest → onBeforeSendHeaders → onSendHeaders → onHeadersReceived → onResponseStarted → onCompleted', async () => {
    const h = createHarness();
    const seen: string[] = [];
    const wr = h.webRequest();
    for (const event of ONE_HOP) (wr as any)[event].addListener(() => void seen.push(event), ALL_URLS);
    const result = await h.run({ url: 'http://example.test/a' });
    expect(result.kind).toBe('response');
    expect(seen).toEqual(ONE_HOP);
    expect(h.eventNames()).toEqual(ONE_HOP);
  });

  it('journals every event with its full details even when no listener asked for the optional fields', async () => {
    const h = createHarness();
    h.origin.route = () => ok('x', [{ name: 'X-Origin', value: '1' }]);
    await h.run({ url: 'http://example.test/a', requestHeaders: [{ name: 'Accept', value: '*/*' }] });
    const [, sendHeaders, , headersReceived] = h.webRequestEntries();
    expect((sendHeaders!.details as any).requestHeaders).toEqual([{ name: 'Accept', value: '*/*' }]);
    expect((headersReceived!.details as any).responseHeaders).toContainEqual({ name: 'X-Origin', value: '1' });
  });

  it('common details carry requestId, url, method, frameId, parentFrameId, tabId, type and timeStamp', async () => {
    const h = createHarness();
    const before = Date.now();
    await h.run({ url: 'http://example.test/a', type: 'image' });
    const details = h.webRequestEntries()[0]!.details;
    expect(details).toMatchObject({ requestId: '1', url: 'http://example.test/a', method: 'GET', tabId: -1, parentFrameId: -1, type: 'image' });
    expect(details.timeStamp).toBeGreaterThanOrEqual(before - 1);
    expect(details.timeStamp).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('onHeadersReceived reports statusLine, statusCode; onCompleted adds ip and fromCache', async () => {
    const h = createHarness();
    await h.run({ url: 'http://example.test/a' });
    const entries = h.webRequestEntries();
    expect(entries[3]!.details).toMatchObject({ statusLine: 'HTTP/1.1 200 OK', statusCode: 200 });
    expect(entries[5]!.details).toMatchObject({ statusCode: 200, ip: '127.0.0.1', fromCache: false, statusLine: 'HTTP/1.1 200 OK' });
  });

  it('"HTTP/0.9 200 OK for HTTP/0.9 responses lacking a status line"', async () => {
    const h = createHarness();
    h.origin.route = () => ({ statusCode: 200, httpVersion: '0.9', statusMessage: 'OK', headers: [], body: Buffer.from('raw') });
    await h.run({ url: 'http://example.test/' });
    expect((h.webRequestEntries()[3]!.details as OnHeadersReceivedDetails).statusLine).toBe('HTTP/0.9 200 OK');
  });

  it('a transport failure ends the request with onErrorOccurred and its net:: error', async () => {
    const { TransportError } = await import('../../src/engine/web-request/transport.js');
    const h = createHarness();
    h.origin.route = () => {
      throw new TransportError('net::ERR_CONNECTION_REFUSED');
    };
    const result = await h.run({ url: 'http://example.test/' });
    expect(result).toMatchObject({ kind: 'error', error: 'net::ERR_CONNECTION_REFUSED' });
    expect(h.eventNames()).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onErrorOccurred']);
    expect((h.webRequestEntries()[3]!.details as OnErrorOccurredDetails).error).toBe('net::ERR_CONNECTION_REFUSED');
  });

  it('requestIds are unique within the session', async () => {
    const h = createHarness();
    const a = await h.run({ url: 'http://example.test/1' });
    const b = await h.run({ url: 'http://example.test/2' });
    expect(a.requestId).not.toBe(b.requestId);
  });
});

describe('redirects keep one requestId', () => {
  it('a server redirect fires onBeforeRedirect and the next hop keeps the requestId', async () => {
    const h = createHarness();
    h.origin.route = (req) =>
      req.url.endsWith('/old')
        ? { statusCode: 301, statusMessage: 'Moved Permanently', headers: [{ name: 'Location', value: '/new' }], ip: '127.0.0.1' }
        : ok();
    const result = await h.run({ url: 'http://example.test/old' });
    expect(result).toMatchObject({ kind: 'response', url: 'http://example.test/new' });
    expect(h.eventNames()).toEqual([
      'onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onBeforeRedirect',
      ...ONE_HOP,
    ]);
    expect(new Set(h.webRequestEntries().map((e) => e.details.requestId))).toEqual(new Set(['1']));
    const redirect = h.webRequestEntries()[4]!.details as OnBeforeRedirectDetails;
    expect(redirect).toMatchObject({ redirectUrl: 'http://example.test/new', statusCode: 301, fromCache: false, ip: '127.0.0.1' });
  });

  it('a redirect to another host sends the next hop to that host: its Host header follows the URL', async () => {
    const h = createHarness();
    h.origin.route = (req) => (req.url.endsWith('/old') ? { statusCode: 302, headers: [{ name: 'Location', value: 'http://other.test:8080/new' }] } : ok());
    await h.run({ url: 'http://example.test/old', requestHeaders: [{ name: 'Host', value: 'example.test' }, { name: 'Accept', value: '*/*' }] });
    expect(h.origin.received.map((request) => request.headers)).toEqual([
      [{ name: 'Host', value: 'example.test' }, { name: 'Accept', value: '*/*' }],
      [{ name: 'Host', value: 'other.test:8080' }, { name: 'Accept', value: '*/*' }],
    ]);
  });

  it('a 303 after a POST is followed with GET and no body; a 307 keeps POST and its body', async () => {
    for (const [status, method, hasBody] of [[303, 'GET', false], [307, 'POST', true]] as const) {
      const h = createHarness();
      h.origin.route = (req) => (req.url.endsWith('/form') ? { statusCode: status, headers: [{ name: 'Location', value: '/done' }] } : ok());
      await h.run({ url: 'http://example.test/form', method: 'POST', body: Buffer.from('a=1'), requestHeaders: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }] });
      const second = h.origin.received[1]!;
      expect(second.method).toBe(method);
      expect(second.body !== undefined).toBe(hasBody);
    }
  });

  it('stops after 20 redirects with net::ERR_TOO_MANY_REDIRECTS', async () => {
    const h = createHarness();
    let n = 0;
    h.origin.route = () => ({ statusCode: 302, headers: [{ name: 'Location', value: `/r${++n}` }] });
    const result = await h.run({ url: 'http://example.test/r0' });
    expect(result).toMatchObject({ kind: 'error', error: 'net::ERR_TOO_MANY_REDIRECTS' });
    expect(h.origin.received).toHaveLength(21);
  });
});

describe('BlockingResponse.cancel', () => {
  it('cancel in onBeforeRequest: "it is never sent"; onErrorOccurred reports net::ERR_BLOCKED_BY_CLIENT', async () => {
    const h = createHarness();
    h.webRequest().onBeforeRequest.addListener(() => ({ cancel: true }), ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/ad.js' });
    expect(result).toMatchObject({ kind: 'error', error: 'net::ERR_BLOCKED_BY_CLIENT' });
    expect(h.origin.received).toHaveLength(0);
    expect(h.eventNames()).toEqual(['onBeforeRequest', 'onErrorOccurred']);
    expect(h.webRequestEntries()[0]!.outcomes).toMatchObject([{ owner: 'rule', status: 'applied', response: { cancel: true } }]);
  });

  it('cancel in onBeforeSendHeaders and in onHeadersReceived ends the request the same way', async () => {
    for (const event of ['onBeforeSendHeaders', 'onHeadersReceived'] as const) {
      const h = createHarness();
      (h.webRequest()[event] as any).addListener(() => ({ cancel: true }), ALL_URLS, ['blocking']);
      const result = await h.run({ url: 'http://example.test/' });
      expect(result).toMatchObject({ kind: 'error', error: 'net::ERR_BLOCKED_BY_CLIENT' });
      expect(h.eventNames().at(-1)).toBe('onErrorOccurred');
      expect(h.eventNames()).not.toContain('onCompleted');
    }
  });

  it('cancel wins over another owner\'s redirect, which is recorded as ignored', async () => {
    const h = createHarness();
    h.webRequest('redirector').onBeforeRequest.addListener(() => ({ redirectUrl: 'http://other.test/' }), ALL_URLS, ['blocking']);
    h.webRequest('blocker').onBeforeRequest.addListener(() => ({ cancel: true }), ALL_URLS, ['blocking']);
    await h.run({ url: 'http://example.test/' });
    const outcomes = h.webRequestEntries()[0]!.outcomes;
    expect(outcomes.find((o) => o.owner === 'blocker')).toMatchObject({ status: 'applied' });
    expect(outcomes.find((o) => o.owner === 'redirector')).toMatchObject({ status: 'ignored', reason: 'request cancelled by blocker' });
  });
});

describe('BlockingResponse.redirectUrl', () => {
  it('at onBeforeRequest: a 307 Internal Redirect hop with the original method, same requestId', async () => {
    const h = createHarness();
    h.webRequest().onBeforeRequest.addListener(
      (d) => (d.url.includes('old.test') ? { redirectUrl: 'http://new.test/x' } : undefined),
      ALL_URLS,
      ['blocking'],
    );
    const result = await h.run({ url: 'http://old.test/x', method: 'PUT', body: Buffer.from('data') });
    expect(result).toMatchObject({ kind: 'response', url: 'http://new.test/x' });
    expect(h.origin.received).toHaveLength(1);
    expect(h.origin.received[0]).toMatchObject({ url: 'http://new.test/x', method: 'PUT' });
    expect(h.eventNames()).toEqual(['onBeforeRequest', 'onBeforeRedirect', ...ONE_HOP]);
    const redirect = h.webRequestEntries()[1]!.details as OnBeforeRedirectDetails;
    expect(redirect).toMatchObject({ statusCode: 307, statusLine: 'HTTP/1.1 307 Internal Redirect', redirectUrl: 'http://new.test/x' });
    expect(redirect.responseHeaders).toContainEqual({ name: 'Non-Authoritative-Reason', value: 'WebRequest API' });
    expect(new Set(h.webRequestEntries().map((e) => e.details.requestId)).size).toBe(1);
  });

  it('at onHeadersReceived: "a redirect issued at the onHeadersReceived stage … uses GET"', async () => {
    const h = createHarness();
    h.webRequest().onHeadersReceived.addListener(
      (d) => (d.url.endsWith('/submit') ? { redirectUrl: 'http://example.test/thanks' } : undefined),
      ALL_URLS,
      ['blocking'],
    );
    await h.run({ url: 'http://example.test/submit', method: 'POST', body: Buffer.from('a=1') });
    expect(h.origin.received.map((r) => `${r.method} ${r.url}`)).toEqual(['POST http://example.test/submit', 'GET http://example.test/thanks']);
    expect(h.origin.received[1]!.body).toBeUndefined();
  });

  it('to a data: URL: onBeforeRedirect fires and webRequest sees nothing more', async () => {
    const h = createHarness();
    h.webRequest().onBeforeRequest.addListener(() => ({ redirectUrl: 'data:text/plain,hi' }), ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/' });
    expect(result).toEqual({ kind: 'non-web-redirect', requestId: '1', url: 'data:text/plain,hi' });
    expect(h.eventNames()).toEqual(['onBeforeRequest', 'onBeforeRedirect']);
  });

  it('conflicting redirects: the higher precedence (later installed) owner wins, the other is ignored', async () => {
    const h = createHarness();
    const example = { urls: ['http://example.test/*'] };
    h.webRequest(createTrustedOwner('first', { precedence: 1 })).onBeforeRequest.addListener(() => ({ redirectUrl: 'http://a.test/' }), example, ['blocking']);
    h.webRequest(createTrustedOwner('second', { precedence: 2 })).onBeforeRequest.addListener(() => ({ redirectUrl: 'http://b.test/' }), example, ['blocking']);
    await h.run({ url: 'http://example.test/' });
    expect(h.origin.received[0]!.url).toBe('http://b.test/');
    const outcomes = h.webRequestEntries()[0]!.outcomes;
    expect(outcomes.find((o) => o.owner === 'first')).toMatchObject({ status: 'ignored', reason: "conflicts with second's redirect to http://b.test/" });
  });

  it('a redirect to data: beats a higher-precedence http redirect, as in Chrome', async () => {
    const h = createHarness();
    h.webRequest(createTrustedOwner('data', { precedence: 1 })).onBeforeRequest.addListener(() => ({ redirectUrl: 'data:,x' }), ALL_URLS, ['blocking']);
    h.webRequest(createTrustedOwner('http', { precedence: 2 })).onBeforeRequest.addListener(() => ({ redirectUrl: 'http://b.test/' }), ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/' });
    expect(result.kind).toBe('non-web-redirect');
  });
});

describe('BlockingResponse.requestHeaders', () => {
  it('"the request is made with these headers instead", and "modifications made by onBeforeSendHeaders listeners are visible by the time onSendHeaders fires"', async () => {
    const h = createHarness();
    const wr = h.webRequest();
    wr.onBeforeSendHeaders.addListener(
      (d) => ({ requestHeaders: [...d.requestHeaders!.filter((x) => x.name !== 'User-Agent'), { name: 'X-Rule', value: 'yes' }] }),
      ALL_URLS,
      ['blocking', 'requestHeaders'],
    );
    let sentSeen: unknown;
    wr.onSendHeaders.addListener((d) => void (sentSeen = d.requestHeaders), ALL_URLS, ['requestHeaders']);
    await h.run({ url: 'http://example.test/', requestHeaders: [{ name: 'User-Agent', value: 'curl' }, { name: 'Accept', value: '*/*' }] });
    const expected = [{ name: 'Accept', value: '*/*' }, { name: 'X-Rule', value: 'yes' }];
    expect(sentSeen).toEqual(expected);
    expect(h.origin.received[0]!.headers).toEqual(expected);
  });

  it('two owners changing different headers are both applied; a clash on one header ignores the lower precedence change whole', async () => {
    const h = createHarness();
    const add = (owner: string, precedence: number, name: string, value: string) =>
      h.webRequest(createTrustedOwner(owner, { precedence })).onBeforeSendHeaders.addListener(
        (d) => ({ requestHeaders: [...d.requestHeaders!, { name, value }] }),
        ALL_URLS,
        ['blocking', 'requestHeaders'],
      );
    add('a', 1, 'X-A', '1');
    add('b', 2, 'X-B', '2');
    add('c', 0, 'X-B', 'other');
    await h.run({ url: 'http://example.test/', requestHeaders: [{ name: 'Accept', value: '*/*' }] });
    expect(h.origin.received[0]!.headers).toEqual([
      { name: 'Accept', value: '*/*' },
      { name: 'X-B', value: '2' },
      { name: 'X-A', value: '1' },
    ]);
    const outcomes = h.webRequestEntries()[1]!.outcomes;
    expect(outcomes.find((o) => o.owner === 'c')).toMatchObject({ status: 'ignored', reason: 'conflicts with b on request header "X-B"' });
  });
});

describe('BlockingResponse.responseHeaders', () => {
  it('"server is taken to have responded with these headers"', async () => {
    const h = createHarness();
    h.webRequest().onHeadersReceived.addListener(
      (d) => ({ responseHeaders: [...d.responseHeaders!, { name: 'Content-Security-Policy', value: "default-src 'self'" }] }),
      ALL_URLS,
      ['blocking', 'responseHeaders'],
    );
    let completedHeaders: unknown;
    h.webRequest('observer').onCompleted.addListener((d) => void (completedHeaders = d.responseHeaders), ALL_URLS, ['responseHeaders']);
    const result = await h.run({ url: 'http://example.test/' });
    expect(result.kind === 'response' && result.headers).toContainEqual({ name: 'Content-Security-Policy', value: "default-src 'self'" });
    expect(completedHeaders).toContainEqual({ name: 'Content-Security-Policy', value: "default-src 'self'" });
  });

  it('"only one extension may modify responseHeaders per request": the other owner\'s change is ignored, across hops too', async () => {
    const h = createHarness();
    h.origin.route = (req) => (req.url.endsWith('/a') ? { statusCode: 302, headers: [{ name: 'Location', value: '/b' }] } : ok());
    const setter = (owner: string, precedence: number) =>
      h.webRequest(createTrustedOwner(owner, { precedence })).onHeadersReceived.addListener(
        (d) => ({ responseHeaders: [...d.responseHeaders!, { name: 'X-By', value: owner }] }),
        ALL_URLS,
        ['blocking', 'responseHeaders'],
      );
    setter('low', 1);
    setter('high', 2);
    const result = await h.run({ url: 'http://example.test/a' });
    expect(result.kind === 'response' && result.headers.filter((x) => x.name === 'X-By')).toEqual([{ name: 'X-By', value: 'high' }]);
    const headerEntries = h.webRequestEntries().filter((e) => e.event === 'onHeadersReceived');
    for (const entry of headerEntries) {
      expect(entry.outcomes.find((o) => o.owner === 'low')).toMatchObject({ status: 'ignored' });
      expect(entry.outcomes.find((o) => o.owner === 'low')!.reason).toContain('only one rule may modify responseHeaders per request');
    }
  });
});

describe('onAuthRequired', () => {
  const challenge = () => ({ statusCode: 401, statusMessage: 'Unauthorized', headers: [{ name: 'WWW-Authenticate', value: 'Basic realm="wrtui"' }] });
  const authorized = (good: string) => (req: { headers: { name: string; value?: string }[] }) =>
    req.headers.some((x) => x.name === 'Authorization' && x.value === `Basic ${Buffer.from(good).toString('base64')}`) ? ok('secret') : challenge();

  it('details carry scheme, realm, challenger {host, port}, isProxy, statusLine, statusCode', async () => {
    const h = createHarness();
    h.origin.route = challenge;
    let seen: any;
    h.webRequest().onAuthRequired.addListener((d) => void (seen = d), ALL_URLS, ['responseHeaders']);
    await h.run({ url: 'http://example.test:8081/private' });
    expect(seen).toMatchObject({ scheme: 'basic', realm: 'wrtui', challenger: { host: 'example.test', port: 8081 }, isProxy: false, statusCode: 401, statusLine: 'HTTP/1.1 401 Unauthorized' });
  });

  it('authCredentials: "request is made with these credentials", same requestId, and as in Chrome\'s test_auth_required.js no event re-fires for the retry', async () => {
    const h = createHarness();
    h.origin.route = authorized('ann:pw');
    h.webRequest().onAuthRequired.addListener(() => ({ authCredentials: { username: 'ann', password: 'pw' } }), ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/private' });
    expect(result).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(h.webRequestEntries().filter((e) => !e.firedFor).map((e) => e.event)).toEqual([
      'onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onAuthRequired', 'onResponseStarted', 'onCompleted',
    ]);
    expect(h.origin.received.at(-1)!.headers).toContainEqual({ name: 'Authorization', value: `Basic ${Buffer.from('ann:pw').toString('base64')}` });
    expect(new Set(h.webRequestEntries().map((e) => e.details.requestId)).size).toBe(1);
  });

  it('the asyncBlocking form answers through its callback', async () => {
    const h = createHarness();
    h.origin.route = authorized('bob:pw');
    h.webRequest().onAuthRequired.addListener(
      (_d, callback) => void setTimeout(() => callback!({ authCredentials: { username: 'bob', password: 'pw' } }), 5),
      ALL_URLS,
      ['asyncBlocking'],
    );
    expect(await h.run({ url: 'http://example.test/' })).toMatchObject({ kind: 'response', statusCode: 200 });
  });

  it('"if bad credentials are given it may fire several times": bounded, then the 401 reaches the client', async () => {
    const h = createHarness();
    h.origin.route = challenge;
    let calls = 0;
    h.webRequest().onAuthRequired.addListener(() => (calls++, { authCredentials: { username: 'x', password: 'wrong' } }), ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/' });
    expect(result).toMatchObject({ kind: 'response', statusCode: 401 });
    expect(calls).toBe(3);
    expect(h.origin.received).toHaveLength(4);
  });

  it('cancel and no action both complete the request with the 401, as Chrome shows the 401 body', async () => {
    for (const answer of [{ cancel: true }, undefined]) {
      const h = createHarness();
      h.origin.route = challenge;
      h.webRequest().onAuthRequired.addListener(() => answer, ALL_URLS, ['blocking']);
      const result = await h.run({ url: 'http://example.test/' });
      expect(result).toMatchObject({ kind: 'response', statusCode: 401 });
      expect(h.eventNames().slice(-2)).toEqual(['onResponseStarted', 'onCompleted']);
    }
  });

  it('answers Digest challenges too', async () => {
    const h = createHarness();
    h.origin.route = (req) =>
      req.headers.some((x) => x.name === 'Authorization' && x.value!.startsWith('Digest username="ann"'))
        ? ok()
        : { statusCode: 401, headers: [{ name: 'WWW-Authenticate', value: 'Digest realm="r", qop="auth", nonce="abc", opaque="o"' }] };
    h.webRequest().onAuthRequired.addListener(() => ({ authCredentials: { username: 'ann', password: 'pw' } }), ALL_URLS, ['blocking']);
    expect(await h.run({ url: 'http://example.test/d?q=1' })).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(h.origin.received[1]!.headers.find((x) => x.name === 'Authorization')!.value).toMatch(/uri="\/d\?q=1".*qop=auth, nc=\d{8}, cnonce=/);
  });
});

describe('listeners that misbehave are reported and ignored; the request goes on', () => {
  it('a listener that throws: failed outcome with the message and where it was thrown', async () => {
    const h = createHarness();
    h.webRequest().onBeforeRequest.addListener(() => {
      throw new Error('boom');
    }, ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/' });
    expect(result.kind).toBe('response');
    const outcome = h.webRequestEntries()[0]!.outcomes[0]!;
    expect(outcome).toMatchObject({ owner: 'rule', status: 'failed', reason: 'listener threw: boom' });
    expect(outcome.location).toMatch(/lifecycle\.test\.ts:\d+:\d+$/);
  });

  it('a blocking listener that never settles times out after the configured time', async () => {
    const h = createHarness({ listenerTimeoutMs: 50 });
    h.webRequest().onBeforeRequest.addListener(() => new Promise(() => {}), ALL_URLS, ['blocking']);
    const started = Date.now();
    const result = await h.run({ url: 'http://example.test/' });
    expect(result.kind).toBe('response');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(h.webRequestEntries()[0]!.outcomes[0]).toMatchObject({ status: 'failed', reason: 'listener did not answer within 50 ms; the request went on without it' });
  });

  it('a rejected Promise is a failure, a resolved one is an answer', async () => {
    const h = createHarness();
    h.webRequest('rejects').onBeforeRequest.addListener(async () => Promise.reject(new Error('nope')), ALL_URLS, ['blocking']);
    h.webRequest('resolves').onBeforeSendHeaders.addListener(async () => ({ requestHeaders: [{ name: 'X', value: '1' }] }), ALL_URLS, ['blocking']);
    await h.run({ url: 'http://example.test/' });
    expect(h.webRequestEntries()[0]!.outcomes[0]).toMatchObject({ owner: 'rejects', status: 'failed', reason: 'listener rejected: nope' });
    expect(h.origin.received[0]!.headers).toEqual([{ name: 'X', value: '1' }]);
  });

  it.each([
    ['cancel together with other keys', { cancel: true, redirectUrl: 'http://x.test/' }, '"cancel: true" cannot be combined with "redirectUrl"'],
    ['an invalid redirectUrl', { redirectUrl: 'not a url' }, '"redirectUrl" is not a valid absolute URL'],
    ['a javascript: redirectUrl', { redirectUrl: 'javascript:alert(1)' }, 'unsupported scheme "javascript:"'],
    ['a non-object', 'cancel', 'a BlockingResponse must be an object'],
    ['an unknown key', { block: true }, 'unexpected property "block"'],
    ['cancel that is not a boolean', { cancel: 'yes' }, '"cancel" must be a boolean'],
  ])('an invalid BlockingResponse (%s) is failed with a clear message', async (_name, answer, message) => {
    const h = createHarness();
    h.webRequest().onBeforeRequest.addListener(() => answer as any, ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/' });
    expect(result.kind).toBe('response');
    const outcome = h.webRequestEntries()[0]!.outcomes[0]!;
    expect(outcome.status).toBe('failed');
    expect(outcome.reason).toContain(message);
  });

  it.each([
    ['a header name with a space', [{ name: 'Bad Name', value: 'x' }], 'invalid name'],
    ['a value with CR LF', [{ name: 'X', value: 'a\r\nInjected: 1' }], 'CR, LF or NUL'],
    ['both value and binaryValue', [{ name: 'X', value: 'a', binaryValue: [97] }], 'exactly one of value or binaryValue'],
    ['a binaryValue byte over 255', [{ name: 'X', binaryValue: [256] }], 'bytes 0..255'],
  ])('a bad header (%s) makes the whole answer invalid: nothing of it is applied', async (_name, requestHeaders, message) => {
    const h = createHarness();
    h.webRequest().onBeforeSendHeaders.addListener(() => ({ requestHeaders }) as any, ALL_URLS, ['blocking']);
    await h.run({ url: 'http://example.test/', requestHeaders: [{ name: 'Accept', value: '*/*' }] });
    expect(h.origin.received[0]!.headers).toEqual([{ name: 'Accept', value: '*/*' }]);
    expect(h.webRequestEntries()[1]!.outcomes[0]!.reason).toContain(message);
  });

  it('a non-blocking listener that throws is recorded on its event; the others still run', async () => {
    const h = createHarness();
    let second = false;
    h.webRequest('a').onCompleted.addListener(() => {
      throw new TypeError('oops');
    }, ALL_URLS);
    h.webRequest('b').onCompleted.addListener(() => void (second = true), ALL_URLS);
    await h.run({ url: 'http://example.test/' });
    expect(second).toBe(true);
    expect(h.webRequestEntries().at(-1)!.outcomes).toMatchObject([{ owner: 'a', status: 'failed', reason: 'listener threw: oops' }]);
  });

  it('keys an event does not use are dropped and named (redirectUrl in onBeforeSendHeaders)', async () => {
    const h = createHarness();
    h.webRequest().onBeforeSendHeaders.addListener(() => ({ redirectUrl: 'http://x.test/' }), ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/' });
    expect(result).toMatchObject({ kind: 'response', url: 'http://example.test/' });
    expect(h.webRequestEntries()[1]!.outcomes[0]).toMatchObject({ status: 'ignored', reason: 'redirectUrl not used in onBeforeSendHeaders' });
  });
});

describe('dry-run', () => {
  it('the engine-wide switch computes and records every verdict without applying it', async () => {
    const h = createHarness({ dryRun: true });
    h.webRequest().onBeforeRequest.addListener(() => ({ cancel: true }), ALL_URLS, ['blocking']);
    h.webRequest().onBeforeSendHeaders.addListener(() => ({ requestHeaders: [] }), ALL_URLS, ['blocking']);
    const result = await h.run({ url: 'http://example.test/', requestHeaders: [{ name: 'A', value: '1' }] });
    expect(result.kind).toBe('response');
    expect(h.origin.received[0]!.headers).toEqual([{ name: 'A', value: '1' }]);
    expect(h.webRequestEntries()[0]!.outcomes[0]).toMatchObject({ status: 'dry-run', reason: 'would cancel', response: { cancel: true } });
    expect(h.webRequestEntries()[1]!.outcomes[0]).toMatchObject({ status: 'dry-run', reason: 'would remove A (request)' });
  });

  it('a dry-run verdict names the headers it would add, change and remove, and never a credential\'s value', async () => {
    const h = createHarness({ dryRun: true });
    h.webRequest().onBeforeSendHeaders.addListener(
      (d) => ({
        requestHeaders: [
          ...d.requestHeaders!.filter((x) => !['referer', 'accept-language', 'authorization'].includes(x.name.toLowerCase())),
          { name: 'Accept-Language', value: 'fr' },
          { name: 'Authorization', value: 'Bearer new-secret' },
          { name: 'X-Served-Via', value: 'wrtui' },
        ],
      }),
      ALL_URLS,
      ['blocking', 'requestHeaders'],
    );
    h.webRequest().onHeadersReceived.addListener((d) => ({ responseHeaders: [...d.responseHeaders!, { name: 'X-Frame-Options', value: 'DENY' }] }), ALL_URLS, ['blocking', 'responseHeaders']);
    await h.run({
      url: 'http://example.test/',
      requestHeaders: [
        { name: 'Accept-Language', value: 'en' },
        { name: 'Referer', value: 'http://example.test/from' },
        { name: 'Authorization', value: 'Bearer old-secret' },
      ],
    });
    const reasons = h.webRequestEntries().flatMap((entry) => entry.outcomes.map((outcome) => outcome.reason));
    expect(reasons).toEqual([
      'would change Accept-Language: en → fr; change Authorization: (value not shown) → (value not shown); add X-Served-Via: wrtui; remove Referer (request)',
      'would add X-Frame-Options: DENY (response)',
    ]);
    expect(JSON.stringify(reasons)).not.toContain('secret');
  });

  it('a dry-run owner is only recorded while another owner\'s verdict applies', async () => {
    const h = createHarness();
    const example = { urls: ['http://example.test/*'] };
    h.webRequest(createTrustedOwner('trial', { dryRun: true })).onBeforeRequest.addListener(() => ({ redirectUrl: 'http://trial.test/' }), example, ['blocking']);
    h.webRequest('live').onBeforeRequest.addListener(() => ({ redirectUrl: 'http://live.test/' }), example, ['blocking']);
    await h.run({ url: 'http://example.test/' });
    expect(h.origin.received[0]!.url).toBe('http://live.test/');
    expect(h.webRequestEntries()[0]!.outcomes.find((o) => o.owner === 'trial')).toMatchObject({ status: 'dry-run', reason: 'would redirect to http://trial.test/' });
  });
});

describe('host permissions scope what listeners see', () => {
  it('a listener sees only requests its owner\'s host_permissions cover', async () => {
    const h = createHarness();
    const owner = createOwner({ name: 'scoped', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['*://*.allowed.test/*'] });
    const seen: string[] = [];
    h.webRequest(owner).onBeforeRequest.addListener((d) => void seen.push(d.url), ALL_URLS);
    await h.run({ url: 'http://www.allowed.test/' });
    await h.run({ url: 'http://other.test/' });
    expect(seen).toEqual(['http://www.allowed.test/']);
  });
});

describe('cookies on the request path', () => {
  it('requests carry the store\'s cookies merged with the client\'s; Set-Cookie of the final response headers is stored', async () => {
    const stored: string[] = [];
    const h = createHarness({
      cookies: {
        cookieHeader: () => 'session=store',
        setFromResponse: (_url, headers) => void stored.push(...headers),
      },
    });
    h.origin.route = () => ok('x', [{ name: 'Set-Cookie', value: 'fresh=1' }]);
    h.webRequest().onHeadersReceived.addListener(
      (d) => ({ responseHeaders: [...d.responseHeaders!, { name: 'Set-Cookie', value: 'added=by-rule' }] }),
      ALL_URLS,
      ['blocking', 'responseHeaders'],
    );
    await h.run({ url: 'http://example.test/', requestHeaders: [{ name: 'Cookie', value: 'session=client; theme=dark' }] });
    expect(h.origin.received[0]!.headers).toEqual([{ name: 'Cookie', value: 'session=store; theme=dark' }]);
    expect(stored).toEqual(['fresh=1', 'added=by-rule']);
    // The journal says what wrtui added, and what the client itself had sent.
    expect(h.webRequestEntries().find((entry) => entry.event === 'onBeforeSendHeaders')).toMatchObject({
      wrtuiAdded: [{ header: 'Cookie', by: 'cookie jar', cookies: ['session'], clientValue: 'session=client; theme=dark' }],
    });
  });

  it('--cookies observe: the jar learns from Set-Cookie but adds nothing to requests', async () => {
    const stored: string[] = [];
    const h = createHarness({ cookies: { cookieHeader: () => 'session=store', setFromResponse: (_url, headers) => void stored.push(...headers) }, cookieMode: 'observe' });
    h.origin.route = () => ok('x', [{ name: 'Set-Cookie', value: 'fresh=1' }]);
    await h.run({ url: 'http://example.test/', requestHeaders: [{ name: 'Accept', value: '*/*' }] });
    expect(h.origin.received[0]!.headers).toEqual([{ name: 'Accept', value: '*/*' }]);
    expect(stored).toEqual(['fresh=1']);
    expect(h.webRequestEntries().find((entry) => entry.event === 'onBeforeSendHeaders')!.wrtuiAdded).toBeUndefined();
  });
});
