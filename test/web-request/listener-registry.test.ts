import { describe, expect, it } from 'vitest';
import { createOwner } from '../../src/engine/owner.js';
import { EXTRA_INFO_SPEC, RESOURCE_TYPES, WEB_REQUEST_EVENTS } from '../../src/engine/types.js';
import { ALL_URLS, createHarness } from '../helpers/web-request-harness.js';

describe('addListener / removeListener / hasListener on all 9 events', () => {
  it.each(WEB_REQUEST_EVENTS)('%s registers, reports and removes a listener', (event) => {
    const h = createHarness();
    const wr = h.webRequest() as any;
    const listener = () => {};
    expect(wr[event].hasListener(listener)).toBe(false);
    wr[event].addListener(listener, ALL_URLS);
    expect(wr[event].hasListener(listener)).toBe(true);
    expect(wr[event].hasListeners()).toBe(true);
    wr[event].removeListener(listener);
    expect(wr[event].hasListener(listener)).toBe(false);
    expect(h.registry.count()).toBe(0);
  });

  it('adding the same function twice registers it once', () => {
    const h = createHarness();
    const listener = () => {};
    h.webRequest().onCompleted.addListener(listener, ALL_URLS);
    h.webRequest().onCompleted.addListener(listener, ALL_URLS);
    expect(h.registry.count('onCompleted')).toBe(1);
  });

  it('each owner has its own listeners: one owner cannot see or remove another\'s', () => {
    const h = createHarness();
    const listener = () => {};
    h.webRequest('a').onCompleted.addListener(listener, ALL_URLS);
    expect(h.webRequest('b').onCompleted.hasListener(listener)).toBe(false);
    h.webRequest('b').onCompleted.removeListener(listener);
    expect(h.registry.count('onCompleted')).toBe(1);
  });
});

describe('registration validates; invalid input is a TypeError and registers nothing', () => {
  const cases: [string, unknown, unknown, string][] = [
    ['filter missing', undefined, undefined, 'expected an object'],
    ['filter.urls missing ("urls … required: yes")', {}, undefined, '"urls" is required'],
    ['filter.urls empty', { urls: [] }, undefined, 'at least one URL pattern'],
    ['an invalid URL pattern', { urls: ['http://*foo/'] }, undefined, 'Invalid match pattern'],
    ['a type outside ResourceType', { urls: ['<all_urls>'], types: ['document'] }, undefined, '"document" is not a ResourceType'],
    ['tabId not an integer', { urls: ['<all_urls>'], tabId: 1.5 }, undefined, '"tabId" must be an integer'],
    ['an unknown filter property', { urls: ['<all_urls>'], url: 'x' }, undefined, 'unexpected property "url"'],
    ['an extraInfoSpec value from another event', ALL_URLS, ['responseHeaders'], '"responseHeaders" is not a valid extraInfoSpec value for onBeforeRequest'],
    ['extraInfoSpec not an array', ALL_URLS, 'blocking', 'must be an array'],
  ];
  it.each(cases)('%s', (_name, filter, spec, message) => {
    const h = createHarness();
    expect(() => (h.webRequest().onBeforeRequest.addListener as any)(() => {}, filter, spec)).toThrow(TypeError);
    expect(() => (h.webRequest().onBeforeRequest.addListener as any)(() => {}, filter, spec)).toThrow(message);
    expect(h.registry.count()).toBe(0);
  });

  it('onErrorOccurred takes "only filter": any extraInfoSpec is rejected', () => {
    const h = createHarness();
    expect(() => (h.webRequest().onErrorOccurred.addListener as any)(() => {}, ALL_URLS, ['blocking'])).toThrow('onErrorOccurred takes no extraInfoSpec');
  });

  it.each(WEB_REQUEST_EVENTS.filter((e) => e !== 'onErrorOccurred'))('%s accepts exactly its §2.5 enum values', (event) => {
    const h = createHarness();
    const wr = h.webRequest() as any;
    const allowed = EXTRA_INFO_SPEC[event].filter((o) => o !== 'asyncBlocking');
    wr[event].addListener(() => {}, ALL_URLS, allowed);
    const others = ['blocking', 'requestBody', 'requestHeaders', 'responseHeaders', 'asyncBlocking'].filter((o) => !EXTRA_INFO_SPEC[event].includes(o));
    for (const option of others) expect(() => wr[event].addListener(() => {}, ALL_URLS, [option])).toThrow(TypeError);
  });

  it('"blocking" needs the webRequestBlocking permission, with Chrome\'s message', () => {
    const h = createHarness();
    const owner = createOwner({ name: 'observer', permissions: ['webRequest'], host_permissions: ['<all_urls>'] });
    expect(() => h.webRequest(owner).onBeforeRequest.addListener(() => {}, ALL_URLS, ['blocking'])).toThrow(
      'You do not have permission to use blocking webRequest listeners. Be sure to declare the webRequestBlocking permission in your manifest.',
    );
    h.webRequest(owner).onBeforeRequest.addListener(() => {}, ALL_URLS);
    expect(h.registry.count()).toBe(1);
  });

  it('"blocking" and "asyncBlocking" cannot be combined', () => {
    const h = createHarness();
    expect(() => h.webRequest().onAuthRequired.addListener(() => {}, ALL_URLS, ['blocking', 'asyncBlocking'])).toThrow('cannot be used together');
  });
});

describe('a listener gets only the optional fields its extraInfoSpec asks for', () => {
  it('requestHeaders, responseHeaders and requestBody appear only when asked', async () => {
    const h = createHarness();
    const wr = h.webRequest();
    const seen: Record<string, any> = {};
    wr.onBeforeRequest.addListener((d) => void (seen.plainBefore = d), ALL_URLS);
    wr.onBeforeRequest.addListener((d) => void (seen.bodyBefore = d), ALL_URLS, ['requestBody']);
    wr.onBeforeSendHeaders.addListener((d) => void (seen.plainSend = d), ALL_URLS);
    wr.onBeforeSendHeaders.addListener((d) => void (seen.headersSend = d), ALL_URLS, ['requestHeaders']);
    wr.onCompleted.addListener((d) => void (seen.plainDone = d), ALL_URLS);
    wr.onCompleted.addListener((d) => void (seen.headersDone = d), ALL_URLS, ['responseHeaders']);
    await h.run({
      url: 'http://example.test/',
      method: 'POST',
      requestHeaders: [{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }],
      body: Buffer.from('a=1&a=2&b=3'),
      requestBody: { formData: { a: ['1', '2'], b: ['3'] } },
    });
    expect(seen.plainBefore).not.toHaveProperty('requestBody');
    expect(seen.bodyBefore.requestBody).toEqual({ formData: { a: ['1', '2'], b: ['3'] } });
    expect(seen.plainSend).not.toHaveProperty('requestHeaders');
    expect(seen.headersSend.requestHeaders).toEqual([{ name: 'Content-Type', value: 'application/x-www-form-urlencoded' }]);
    expect(seen.plainDone).not.toHaveProperty('responseHeaders');
    expect(seen.headersDone.responseHeaders).toContainEqual({ name: 'Content-Type', value: 'text/plain' });
  });

  it('a listener mutating its details cannot change what another listener or the journal sees', async () => {
    const h = createHarness();
    h.webRequest('a').onBeforeSendHeaders.addListener((d) => {
      d.requestHeaders!.push({ name: 'X-Sneaky', value: '1' });
      d.requestHeaders![0]!.value = 'changed';
      (d as any).url = 'http://evil.test/';
    }, ALL_URLS, ['requestHeaders']);
    let other: any;
    h.webRequest('b').onBeforeSendHeaders.addListener((d) => void (other = d), ALL_URLS, ['requestHeaders']);
    await h.run({ url: 'http://example.test/', requestHeaders: [{ name: 'Accept', value: '*/*' }] });
    expect(other.requestHeaders).toEqual([{ name: 'Accept', value: '*/*' }]);
    expect(other.url).toBe('http://example.test/');
    expect(h.origin.received[0]!.headers).toEqual([{ name: 'Accept', value: '*/*' }]);
  });
});

describe('RequestFilter: "requests matching none are filtered out"', () => {
  it('urls', async () => {
    const h = createHarness();
    const seen: string[] = [];
    h.webRequest().onBeforeRequest.addListener((d) => void seen.push(d.url), { urls: ['*://*.example.test/api/*'] });
    await h.run({ url: 'http://www.example.test/api/v1?x=1' });
    await h.run({ url: 'http://www.example.test/static/a.js' });
    expect(seen).toEqual(['http://www.example.test/api/v1?x=1']);
  });

  it('types', async () => {
    const h = createHarness();
    const seen: string[] = [];
    h.webRequest().onBeforeRequest.addListener((d) => void seen.push(d.type), { urls: ['<all_urls>'], types: ['image', 'script'] });
    for (const type of RESOURCE_TYPES) await h.run({ url: 'http://example.test/', type });
    expect(seen).toEqual(['script', 'image']);
  });

  it('tabId and windowId', async () => {
    const h = createHarness();
    const seen: string[] = [];
    h.webRequest().onBeforeRequest.addListener(() => void seen.push('tab'), { urls: ['<all_urls>'], tabId: 7 });
    h.webRequest().onBeforeRequest.addListener(() => void seen.push('window'), { urls: ['<all_urls>'], windowId: 3 });
    await h.run({ url: 'http://example.test/', tabId: 7, windowId: 1 });
    await h.run({ url: 'http://example.test/', tabId: -1, windowId: 3 });
    await h.run({ url: 'http://example.test/' });
    expect(seen).toEqual(['tab', 'window']);
  });
});
