// The content wrtui answers a redirect to data: or about:blank with, decoded by wrtui itself:
// the same bytes and Content-Type as the Fetch standard's data: URL processor gives (Node's own
// fetch, which implements it, is the reference here), and nothing at all for any other URL.
import { afterEach, describe, expect, it } from 'vitest';
import { decodeDataUrl, localContent } from '../../src/engine/capture/data-url.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const DATA_URLS = [
  'data:,Hello%2C%20World%21',
  'data:text/plain;base64,SGVsbG8sIFdvcmxkIQ==',
  'data:text/html,%3Ch1%3EHello%3C%2Fh1%3E',
  'data:text/html;charset=UTF-8,caf%C3%A9',
  'data:;base64,SGk=',
  'data:;charset=utf-8,hi',
  'data:image/png;base64,iVBORw0KGgo=',
  'data:TEXT/Plain;Charset="utf-8";foo=bar;base64,aGk',
  'data:text/plain;a=1;a=2,x',
  'data:text/plain ; base64 , aGk=',
  'data:application/json,{"a":1}',
  'data:text/plain,100%',
  'data:text/plain,%zz%4',
  'data:text/plain,with#fragment',
  'data:nonsense,x',
  'data:text/plain;name="a\\"b",x',
  'data:text/plain;base64,aGV sbG8=',
  'data:text/plain;base64,aGVsbG8',
  'data:text/plain;x=,y',
  'data:,é',
];

describe('data: URLs are decoded as fetch decodes them (RFC 2397: base64 and percent-encoded, their media type)', () => {
  for (const url of DATA_URLS) {
    it(url, async () => {
      const reference = await fetch(url);
      const decoded = decodeDataUrl(url);
      expect(decoded).toBeDefined();
      expect(decoded!.mediaType).toBe(reference.headers.get('content-type'));
      expect(Buffer.from(decoded!.body).toString('hex')).toBe(Buffer.from(await reference.arrayBuffer()).toString('hex'));
    });
  }

  it('a data: URL that does not decode (no comma, bad base64) has no content, as fetch fails it', async () => {
    for (const url of ['data:text/plain', 'data:;base64,a', 'data:;base64,a!b=']) {
      await expect(fetch(url)).rejects.toThrow();
      expect(decodeDataUrl(url)).toBeUndefined();
    }
  });
});

describe('only data: and about:blank have content: any other URL is never fetched', () => {
  it('about:blank is an empty HTML document', () => {
    expect(localContent('about:blank')).toEqual({ mediaType: 'text/html;charset=utf-8', body: new Uint8Array() });
  });

  it('http:, https:, file: and other about: URLs have none', () => {
    for (const url of ['http://127.0.0.1:1/x', 'https://example.com/', 'file:///etc/passwd', 'about:srcdoc', 'ftp://example.com/', 'not a url']) expect(localContent(url)).toBeUndefined();
  });
});

describe('through the proxy: a redirect to data: is answered by wrtui itself, any other URL webRequest never sees is refused', () => {
  let harness: ProxyHarness | undefined;
  let origin: Origin | undefined;
  afterEach(async () => {
    await harness?.close();
    await origin?.close();
    harness = origin = undefined;
  });

  it("a listener's redirect to a base64 data: URL: the client gets its bytes and media type; the origin is never asked", async () => {
    origin = await startOrigin();
    harness = await startProxyHarness();
    harness.api().chrome.webRequest!.onBeforeRequest.addListener(() => ({ redirectUrl: 'data:text/html;charset=utf-8;base64,PGI+aGk8L2I+' }), { urls: ['<all_urls>'] }, ['blocking']);
    const { stdout } = await harness.curl(['-s', '-L', '-D', '-', `${origin.url}/page`]);
    expect(stdout).toMatch(/content-type: text\/html;charset=utf-8/i);
    expect(stdout.endsWith('<b>hi</b>')).toBe(true);
    expect(origin.received).toEqual([]);
  });

  it("a rule's redirect to a file: URL: the client's request fails and the journal says why (not a fault of wrtui's)", async () => {
    origin = await startOrigin();
    harness = await startProxyHarness();
    const { warnings } = await harness.engine.dnr.addExtension({ extensionId: 'abcdefghijklmnopabcdefghijklmnop', name: 'mover', baseUrl: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/', rulesets: [{ id: 'main', path: 'rules.json', enabled: true, rules: [{ id: 1, action: { type: 'redirect', redirect: { url: 'file:///etc/hostname' } }, condition: { urlFilter: '/page' } }] }] });
    expect(warnings).toEqual([]);
    const { code } = await harness.curl(['-s', '-L', `${origin.url}/page`]);
    expect(code).not.toBe(0);
    const logs = harness.entries.filter((entry) => entry.kind === 'log' && entry.source === 'capture');
    expect(logs).toMatchObject([{ level: 'warn', message: expect.stringContaining('redirected to file:///etc/hostname, which wrtui does not serve') }]);
    expect(origin.received).toEqual([]);
  });
});
