import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TAB_ID_HEADER,
  frameInfoFor,
  inferResourceType,
  tabIdFrom,
  type ObservedRequest,
} from '../../src/engine/capture/resource-type.js';
import { RESOURCE_TYPES, type ResourceType } from '../../src/engine/types.js';

type Headers = Record<string, string>;

// What Chromium 156 on Linux sends with every request to a potentially trustworthy origin.
const CHROMIUM: Headers = {
  host: 'app.test',
  connection: 'keep-alive',
  'sec-ch-ua': '"Chromium";v="156", "Not-A.Brand";v="24"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Linux"',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  'accept-encoding': 'gzip, deflate, br, zstd',
  'accept-language': 'en-US,en;q=0.9',
};
const NAVIGATION_ACCEPT =
  'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7';
const IMAGE_ACCEPT = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';
const MEDIA_ENCODING = 'identity;q=1, *;q=0';
const REFERER = 'https://app.test/index.html';

function chromium(extra: Headers): Headers {
  return { ...CHROMIUM, ...extra };
}

interface Case {
  what: string;
  method?: string;
  url: string;
  headers: Headers;
  type: ResourceType;
}

// One realistic header set per fetch destination, as Chromium 156 sends it over HTTPS.
const CHROMIUM_REQUESTS: Case[] = [
  {
    what: 'a top-level navigation',
    url: 'https://app.test/',
    headers: chromium({ 'upgrade-insecure-requests': '1', accept: NAVIGATION_ACCEPT, 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-user': '?1', 'sec-fetch-dest': 'document' }),
    type: 'main_frame',
  },
  {
    what: 'a form POST navigation',
    method: 'POST',
    url: 'https://app.test/login',
    headers: chromium({ 'content-type': 'application/x-www-form-urlencoded', origin: 'https://app.test', accept: NAVIGATION_ACCEPT, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-user': '?1', 'sec-fetch-dest': 'document', referer: REFERER }),
    type: 'main_frame',
  },
  {
    what: 'an <iframe> document',
    url: 'https://widgets.test/embed',
    headers: chromium({ 'upgrade-insecure-requests': '1', accept: NAVIGATION_ACCEPT, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe', referer: REFERER }),
    type: 'sub_frame',
  },
  {
    what: 'a <frame> document',
    url: 'https://app.test/left.html',
    headers: chromium({ accept: NAVIGATION_ACCEPT, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'frame', referer: REFERER }),
    type: 'sub_frame',
  },
  {
    what: 'a fenced frame',
    url: 'https://ads.test/creative',
    headers: chromium({ accept: NAVIGATION_ACCEPT, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'fencedframe' }),
    type: 'sub_frame',
  },
  {
    what: 'a stylesheet',
    url: 'https://app.test/site.css',
    headers: chromium({ accept: 'text/css,*/*;q=0.1', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'style', referer: REFERER }),
    type: 'stylesheet',
  },
  {
    what: 'a classic <script>',
    url: 'https://cdn.test/lib.js',
    headers: chromium({ accept: '*/*', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script', referer: REFERER }),
    type: 'script',
  },
  {
    what: 'a module <script>',
    url: 'https://app.test/main.mjs',
    headers: chromium({ origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'script', referer: REFERER }),
    type: 'script',
  },
  {
    what: 'a dedicated worker script',
    url: 'https://app.test/worker.js',
    headers: chromium({ accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'same-origin', 'sec-fetch-dest': 'worker', referer: REFERER }),
    type: 'script',
  },
  {
    what: 'a shared worker script',
    url: 'https://app.test/shared.js',
    headers: chromium({ accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'same-origin', 'sec-fetch-dest': 'sharedworker', referer: REFERER }),
    type: 'script',
  },
  {
    what: 'a service worker script',
    url: 'https://app.test/sw.js',
    headers: chromium({ 'cache-control': 'max-age=0', 'service-worker': 'script', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'same-origin', 'sec-fetch-dest': 'serviceworker', referer: REFERER }),
    type: 'script',
  },
  {
    what: 'a JSON module',
    url: 'https://app.test/config.json',
    headers: chromium({ origin: 'https://app.test', accept: 'application/json,*/*;q=0.5', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'json', referer: REFERER }),
    type: 'script',
  },
  {
    what: 'an <img>',
    url: 'https://app.test/logo.png',
    headers: chromium({ accept: IMAGE_ACCEPT, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image', referer: REFERER }),
    type: 'image',
  },
  {
    what: 'a favicon',
    url: 'https://app.test/favicon.ico',
    headers: chromium({ accept: IMAGE_ACCEPT, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image', referer: REFERER }),
    type: 'image',
  },
  {
    what: 'a web font',
    url: 'https://fonts.test/inter.woff2',
    headers: chromium({ origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'font', referer: 'https://app.test/site.css' }),
    type: 'font',
  },
  {
    what: 'a <video>',
    url: 'https://media.test/clip.mp4',
    headers: chromium({ 'accept-encoding': MEDIA_ENCODING, accept: '*/*', range: 'bytes=0-', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'video', referer: REFERER }),
    type: 'media',
  },
  {
    what: 'an <audio>',
    url: 'https://media.test/song.ogg',
    headers: chromium({ 'accept-encoding': MEDIA_ENCODING, accept: '*/*', range: 'bytes=0-', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'audio', referer: REFERER }),
    type: 'media',
  },
  {
    what: 'a <track>',
    url: 'https://app.test/captions.vtt',
    headers: chromium({ accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'same-origin', 'sec-fetch-dest': 'track', referer: REFERER }),
    type: 'media',
  },
  {
    what: 'an <object>',
    url: 'https://app.test/doc.pdf',
    headers: chromium({ accept: NAVIGATION_ACCEPT, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'object', referer: REFERER }),
    type: 'object',
  },
  {
    what: 'an <embed>',
    url: 'https://app.test/movie.swf',
    headers: chromium({ accept: NAVIGATION_ACCEPT, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'embed', referer: REFERER }),
    type: 'object',
  },
  {
    what: 'a fetch()',
    url: 'https://api.test/items',
    headers: chromium({ origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', referer: REFERER }),
    type: 'xmlhttprequest',
  },
  {
    what: 'a JSON fetch() POST',
    method: 'POST',
    url: 'https://app.test/api/save',
    headers: chromium({ 'content-type': 'application/json', origin: 'https://app.test', accept: 'application/json', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', referer: REFERER }),
    type: 'xmlhttprequest',
  },
  {
    what: 'an EventSource',
    url: 'https://app.test/events',
    headers: chromium({ accept: 'text/event-stream', 'cache-control': 'no-cache', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', referer: REFERER }),
    type: 'xmlhttprequest',
  },
  {
    what: 'an <a ping>',
    method: 'POST',
    url: 'https://tracker.test/ping',
    headers: chromium({ 'content-type': 'text/ping', origin: 'https://app.test', 'ping-from': REFERER, 'ping-to': 'https://elsewhere.test/', accept: '*/*', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty' }),
    type: 'ping',
  },
  {
    what: 'a same-origin <a ping> (no Ping-To)',
    method: 'POST',
    url: 'https://app.test/ping',
    headers: chromium({ 'content-type': 'text/ping', origin: 'https://app.test', 'ping-from': REFERER, accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty' }),
    type: 'ping',
  },
  {
    what: 'a CSP report-uri report',
    method: 'POST',
    url: 'https://app.test/csp',
    headers: chromium({ 'content-type': 'application/csp-report', origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'report' }),
    type: 'csp_report',
  },
  {
    what: 'a Reporting API upload',
    method: 'POST',
    url: 'https://reports.test/upload',
    headers: chromium({ 'content-type': 'application/reports+json', origin: 'https://app.test' }),
    type: 'csp_report',
  },
  {
    what: 'a web app manifest',
    url: 'https://app.test/manifest.webmanifest',
    headers: chromium({ accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'manifest', referer: REFERER }),
    type: 'web_manifest',
  },
  {
    what: 'an XSLT stylesheet',
    url: 'https://app.test/feed.xsl',
    headers: chromium({ accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'same-origin', 'sec-fetch-dest': 'xslt', referer: REFERER }),
    type: 'xslt',
  },
  {
    what: 'an AudioWorklet module',
    url: 'https://app.test/processor.js',
    headers: chromium({ origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'audioworklet', referer: REFERER }),
    type: 'other',
  },
  {
    what: 'a PaintWorklet module',
    url: 'https://app.test/paint.js',
    headers: chromium({ origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'paintworklet', referer: REFERER }),
    type: 'other',
  },
  {
    what: 'a <link rel=prefetch>',
    url: 'https://app.test/next.html',
    headers: chromium({ 'sec-purpose': 'prefetch', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty', referer: REFERER }),
    type: 'other',
  },
  {
    what: 'a WebSocket handshake',
    url: 'https://app.test/socket',
    headers: chromium({ pragma: 'no-cache', 'cache-control': 'no-cache', connection: 'Upgrade', upgrade: 'websocket', origin: 'https://app.test', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-extensions': 'permessage-deflate; client_max_window_bits' }),
    type: 'websocket',
  },
];

function request(c: { method?: string; url: string; headers: Headers }): ObservedRequest {
  return { method: c.method ?? 'GET', url: c.url, headers: c.headers };
}

describe('inferResourceType: Sec-Fetch-Dest decides, as Chromium 156 sends it', () => {
  it.each(CHROMIUM_REQUESTS)('$what → $type', (c) => {
    expect(inferResourceType(request(c))).toBe(c.type);
  });

  it('infers navigator.sendBeacon() from its wire (POST, Sec-Fetch-Dest empty, Sec-Fetch-Mode no-cors, as Chromium 156 sends it); a fetch() POST says cors', () => {
    const beacon = chromium({ 'content-type': 'text/plain;charset=UTF-8', origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty', referer: REFERER });
    expect(inferResourceType({ method: 'POST', url: 'https://app.test/beacon', headers: beacon })).toBe('beacon');
    const fetchPost = chromium({ 'content-type': 'application/x-www-form-urlencoded', origin: 'https://app.test', accept: '*/*', 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', referer: REFERER });
    expect(inferResourceType({ method: 'POST', url: 'https://app.test/post', headers: fetchPost })).toBe('xmlhttprequest');
  });

  it('files a destination it does not know under other, as Chrome does', () => {
    expect(inferResourceType({ method: 'GET', url: 'https://app.test/x', headers: { 'sec-fetch-dest': 'somethingnew', accept: 'text/css' } })).toBe('other');
    for (const dest of ['constructor', 'toString', '__proto__']) {
      expect(inferResourceType({ method: 'GET', url: 'https://app.test/x', headers: { 'sec-fetch-dest': dest } })).toBe('other');
    }
  });

  it('trusts Sec-Fetch-Dest over Accept, Range and the URL', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(['image', 'image'], ['style', 'stylesheet'], ['script', 'script'], ['font', 'font'], ['document', 'main_frame'], ['empty', 'xmlhttprequest']),
        fc.constantFrom('text/html', 'text/css', 'image/png', '*/*', 'application/javascript', ''),
        fc.constantFrom('/a.js', '/a.css', '/a.png', '/a.mp4', '/a'),
        fc.boolean(),
        ([dest, type], accept, path, range) => {
          const headers: Headers = { 'sec-fetch-dest': dest, accept };
          if (range) headers.range = 'bytes=0-';
          expect(inferResourceType({ method: 'GET', url: `https://app.test${path}`, headers })).toBe(type);
        },
      ),
    );
  });

  it('reads header values case-insensitively and from arrays', () => {
    expect(inferResourceType({ method: 'GET', url: 'https://a.test/', headers: { 'sec-fetch-dest': 'IMAGE' } })).toBe('image');
    expect(inferResourceType({ method: 'GET', url: 'https://a.test/', headers: { upgrade: ['WebSocket'] } })).toBe('websocket');
  });
});

describe('inferResourceType: WebSocket, ping and CSP markers need no Sec-Fetch-Dest', () => {
  it('Upgrade: websocket is a websocket, whatever else is sent', () => {
    expect(inferResourceType({ method: 'GET', url: 'http://app.test/ws', headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13' } })).toBe('websocket');
  });

  it('an HTTP/2 extended CONNECT with :protocol websocket is a websocket', () => {
    expect(inferResourceType({ method: 'CONNECT', url: 'https://app.test/ws', headers: { ':protocol': 'websocket', 'sec-websocket-version': '13' } })).toBe('websocket');
  });

  it('a ws: or wss: URL is a websocket', () => {
    expect(inferResourceType({ method: 'GET', url: 'wss://app.test/ws', headers: {} })).toBe('websocket');
  });

  it('Content-Type text/ping or a Ping-To/Ping-From header is a ping', () => {
    expect(inferResourceType({ method: 'POST', url: 'http://t.test/p', headers: { 'content-type': 'text/ping' } })).toBe('ping');
    expect(inferResourceType({ method: 'POST', url: 'http://t.test/p', headers: { 'ping-to': 'http://x.test/' } })).toBe('ping');
    expect(inferResourceType({ method: 'POST', url: 'http://t.test/p', headers: { 'ping-from': 'http://x.test/' } })).toBe('ping');
  });

  it('application/csp-report and application/reports+json bodies are csp_report', () => {
    expect(inferResourceType({ method: 'POST', url: 'http://a.test/r', headers: { 'content-type': 'application/csp-report' } })).toBe('csp_report');
    expect(inferResourceType({ method: 'POST', url: 'http://a.test/r', headers: { 'content-type': 'application/reports+json; charset=utf-8' } })).toBe('csp_report');
  });
});

// Chromium sends no Sec-Fetch-* over plain http:// to a non-loopback host: these are its header
// sets there, then non-browser clients.
const WITHOUT_SEC_FETCH: Case[] = [
  { what: 'Chromium navigation Accept', url: 'http://app.test/', headers: chromium({ 'upgrade-insecure-requests': '1', accept: NAVIGATION_ACCEPT }), type: 'main_frame' },
  { what: 'Chromium stylesheet Accept', url: 'http://app.test/s', headers: chromium({ accept: 'text/css,*/*;q=0.1', referer: 'http://app.test/' }), type: 'stylesheet' },
  { what: 'Chromium image Accept', url: 'http://app.test/i', headers: chromium({ accept: IMAGE_ACCEPT, referer: 'http://app.test/' }), type: 'image' },
  { what: 'Chromium EventSource Accept', url: 'http://app.test/events', headers: chromium({ accept: 'text/event-stream', 'cache-control': 'no-cache' }), type: 'xmlhttprequest' },
  { what: 'Chromium <video>: Range with identity-only encoding', url: 'http://media.test/stream', headers: chromium({ accept: '*/*', 'accept-encoding': MEDIA_ENCODING, range: 'bytes=0-' }), type: 'media' },
  { what: 'a Range request for a media file', url: 'http://media.test/clip.webm', headers: { accept: '*/*', range: 'bytes=1000-' }, type: 'media' },
  { what: 'a */* request for a .js file', url: 'http://cdn.test/lib.min.js?v=3', headers: chromium({ accept: '*/*', referer: 'http://app.test/' }), type: 'script' },
  { what: 'a */* request for a .woff2 file', url: 'http://fonts.test/inter.woff2', headers: chromium({ accept: '*/*', origin: 'http://app.test' }), type: 'font' },
  { what: 'Firefox font Accept', url: 'http://fonts.test/f', headers: { accept: 'application/font-woff2;q=1.0,application/font-woff;q=0.9,*/*;q=0.8' }, type: 'font' },
  { what: 'font/* Accept', url: 'http://fonts.test/f', headers: { accept: 'font/woff2' }, type: 'font' },
  { what: 'application/javascript Accept', url: 'http://cdn.test/x', headers: { accept: 'application/javascript, */*;q=0.8' }, type: 'script' },
  { what: 'jQuery XHR (X-Requested-With)', url: 'http://app.test/api', headers: { accept: '*/*', 'x-requested-with': 'XMLHttpRequest' }, type: 'xmlhttprequest' },
  { what: 'application/json Accept', url: 'http://api.test/items', headers: { accept: 'application/json' }, type: 'xmlhttprequest' },
  { what: 'curl', url: 'http://app.test/data', headers: { host: 'app.test', 'user-agent': 'curl/8.14.1', accept: '*/*' }, type: 'other' },
  { what: 'curl for a .png (a */* image fetch is not an <img>)', url: 'http://app.test/logo.png', headers: { 'user-agent': 'curl/8.14.1', accept: '*/*' }, type: 'other' },
  { what: 'a resumed download', url: 'http://files.test/big.zip', headers: { accept: '*/*', range: 'bytes=5000-' }, type: 'other' },
  { what: 'no headers at all', url: 'http://app.test/', headers: {}, type: 'other' },
  { what: 'an unparsable URL', url: 'not a url/x.js', headers: {}, type: 'script' },
];

describe('inferResourceType: without Sec-Fetch-Dest, Accept, Range and a few URL extensions hint', () => {
  it.each(WITHOUT_SEC_FETCH)('$what → $type', (c) => {
    expect(inferResourceType(request(c))).toBe(c.type);
  });

  it('always answers one of the spec types, whatever the headers', () => {
    const headerName = fc.constantFrom('accept', 'sec-fetch-dest', 'content-type', 'upgrade', 'range', 'accept-encoding', 'ping-to', 'x-requested-with', 'sec-purpose', ':protocol');
    fc.assert(
      fc.property(
        fc.dictionary(headerName, fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }))),
        fc.oneof(fc.webUrl(), fc.string()),
        fc.string(),
        (headers, url, method) => {
          expect(RESOURCE_TYPES).toContain(inferResourceType({ method, url, headers }));
        },
      ),
    );
  });
});

describe('frameInfoFor: the frame ids Chrome would report when the frame is unknown', () => {
  it('a main_frame request is frame 0 with no parent', () => {
    expect(frameInfoFor('main_frame')).toEqual({ frameId: 0, parentFrameId: -1 });
    expect(frameInfoFor('main_frame', 7)).toEqual({ frameId: 0, parentFrameId: -1 });
  });

  it('a sub_frame request is frame 1, a child of the main frame', () => {
    expect(frameInfoFor('sub_frame')).toEqual({ frameId: 1, parentFrameId: 0 });
  });

  it('a subresource in a known tab comes from the main frame', () => {
    expect(frameInfoFor('image', 7)).toEqual({ frameId: 0, parentFrameId: -1 });
  });

  it('a subresource related to no tab has no frame either', () => {
    for (const type of RESOURCE_TYPES.filter((t) => t !== 'main_frame' && t !== 'sub_frame')) {
      expect(frameInfoFor(type)).toEqual({ frameId: -1, parentFrameId: -1 });
    }
  });
});

describe('tabIdFrom: the X-Wrtui-Tab-Id header, or -1', () => {
  it('names the header in lower case, as Node gives header names', () => {
    expect(TAB_ID_HEADER).toBe('x-wrtui-tab-id');
  });

  it('reads a decimal tab id', () => {
    expect(tabIdFrom({ [TAB_ID_HEADER]: '42' })).toBe(42);
    expect(tabIdFrom({ [TAB_ID_HEADER]: ' 3 ' })).toBe(3);
    expect(tabIdFrom({ [TAB_ID_HEADER]: ['5'] })).toBe(5);
  });

  it('is -1 when the header is absent or not a plain non-negative 32-bit integer', () => {
    for (const value of [undefined, '', '-1', '1.5', '0x10', '12abc', 'abc', '99999999999', '2147483648']) {
      expect(tabIdFrom(value === undefined ? {} : { [TAB_ID_HEADER]: value })).toBe(-1);
    }
  });
});
