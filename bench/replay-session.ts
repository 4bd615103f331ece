// The bench's recorded session, shared by bench/replay.ts and bench/replay-fast.ts: ten rules of
// the kinds people write, an origin, and 10,000 requests of a browser-like mix recorded through them.
import { Engine } from '../src/engine/engine.js';
import { ExtensionHost } from '../src/engine/extensions/extension-host.js';
import { SessionRecorder } from '../src/engine/session/session-recorder.js';
import type { HttpHeaders } from '../src/engine/types.js';
import { runRequest } from '../src/engine/web-request/run-request.js';
import type { OutgoingRequest, Transport, TransportResponse } from '../src/engine/web-request/transport.js';

export const SESSION_REQUESTS = 10_000;
const GENERATION_CONCURRENCY = 8;

/** Ten rules of the kinds people write: cancel, redirect, header edits, response edits, observers, dry-run, async. */
export const RULES: Record<string, string> = {
  'block-trackers.ts': rule('block-trackers', `chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://tracker.test/*'], types: ['image', 'script'] }, ['blocking']);`),
  'moved-paths.ts': rule('moved-paths', `chrome.webRequest.onBeforeRequest.addListener((d: any) => ({ redirectUrl: d.url.replace('/old/', '/new/') }), { urls: ['*://*/old/*'] }, ['blocking']);`),
  'gpc.ts': rule('gpc', `chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'Sec-GPC', value: '1' }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`),
  'no-client-data.ts': rule('no-client-data', `chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: d.requestHeaders.filter((h: any) => h.name.toLowerCase() !== 'x-client-data') }), { urls: ['<all_urls>'], types: ['main_frame', 'xmlhttprequest'] }, ['blocking', 'requestHeaders']);`),
  'csp-report-only.ts': rule('csp-report-only', `chrome.webRequest.onHeadersReceived.addListener((d: any) => ({ responseHeaders: [...d.responseHeaders, { name: 'Content-Security-Policy-Report-Only', value: "default-src 'self'" }] }), { urls: ['<all_urls>'], types: ['main_frame'] }, ['blocking', 'responseHeaders']);`),
  'log-cookies.ts': rule('log-cookies', `chrome.cookies.onChanged.addListener((info: any) => console.log(info.cause + ' ' + info.cookie.name));`),
  'count-completed.ts': rule('count-completed', `let n = 0; chrome.webRequest.onCompleted.addListener(() => { n++; }, { urls: ['<all_urls>'] }, ['responseHeaders']);`),
  'watch-sent.ts': rule('watch-sent', `chrome.webRequest.onSendHeaders.addListener((d: any) => void d.requestHeaders.length, { urls: ['<all_urls>'] }, ['requestHeaders']);`),
  'would-block-api.ts': rule('would-block-api', `chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['*://*/api/*'], types: ['xmlhttprequest'] }, ['blocking']);`, { dryRun: true }),
  'async-check.ts': rule('async-check', `chrome.webRequest.onBeforeRequest.addListener(async () => { await null; return {}; }, { urls: ['*://*/static/*'] }, ['blocking']);`),
};

export function rule(name: string, body: string, manifest: Record<string, unknown> = {}): string {
  return `export const manifest = ${JSON.stringify({ name, permissions: ['webRequest', 'webRequestBlocking', 'cookies'], host_permissions: ['<all_urls>'], ...manifest })};
export default function background({ chrome }: any) { ${body} }
`;
}

/** The origin the generated session talks to: pages, assets, an API, redirects, cookies, errors. */
class GeneratedOrigin implements Transport {
  async send(request: OutgoingRequest): Promise<TransportResponse> {
    const url = new URL(request.url);
    const ok = (type: string, body: string | Buffer, extra: HttpHeaders = []): TransportResponse => ({
      statusCode: 200,
      statusMessage: 'OK',
      headers: [{ name: 'Content-Type', value: type }, { name: 'Content-Length', value: String(Buffer.byteLength(body)) }, ...extra],
      body: typeof body === 'string' ? Buffer.from(body) : body,
      ip: '127.0.0.1',
    });
    if (url.pathname.startsWith('/r/')) return { statusCode: 302, statusMessage: 'Found', headers: [{ name: 'Location', value: url.pathname.replace('/r/', '/page/') }], ip: '127.0.0.1' };
    if (url.pathname.startsWith('/page/')) return ok('text/html', `<!doctype html><title>${url.pathname}</title>${'<p>lorem ipsum</p>'.repeat(20)}`, [{ name: 'Set-Cookie', value: `visit=${url.pathname.length}; Path=/` }]);
    if (url.pathname.startsWith('/static/')) return ok('image/png', Buffer.alloc(800, 7));
    if (url.pathname.startsWith('/api/')) return ok('application/json', JSON.stringify({ path: url.pathname, items: [1, 2, 3] }));
    if (url.pathname.startsWith('/new/')) return ok('text/css', 'body { margin: 0 }');
    return { statusCode: 404, statusMessage: 'Not Found', headers: [{ name: 'Content-Type', value: 'text/plain' }], body: Buffer.from('not found'), ip: '127.0.0.1' };
  }
}

/** The nth request of the generated session: a browser-like mix. */
function generatedRequest(n: number) {
  const host = n % 50 === 7 ? 'tracker.test' : `site${n % 20}.test`;
  const headers: HttpHeaders = [
    { name: 'Host', value: host },
    { name: 'User-Agent', value: 'bench/1.0' },
    { name: 'Accept', value: '*/*' },
    { name: 'X-Client-Data', value: 'CIa2yQE=' },
  ];
  const kind = n % 10;
  if (kind === 0) return { url: `http://${host}/page/${n}`, method: 'GET', type: 'main_frame' as const, headers };
  if (kind === 1) return { url: `http://${host}/r/${n}`, method: 'GET', type: 'main_frame' as const, headers };
  if (kind === 2) return { url: `http://${host}/old/${n}.css`, method: 'GET', type: 'stylesheet' as const, headers };
  if (kind === 3) {
    const body = Buffer.from(`q=${n}&page=2`);
    return { url: `http://${host}/api/search`, method: 'POST', type: 'xmlhttprequest' as const, headers: [...headers, { name: 'Content-Type', value: 'application/x-www-form-urlencoded' }], body };
  }
  if (kind === 4) return { url: `http://${host}/missing/${n}`, method: 'GET', type: 'other' as const, headers };
  if (kind <= 6) return { url: `http://${host}/api/items/${n}`, method: 'GET', type: 'xmlhttprequest' as const, headers };
  return { url: `http://${host}/static/${n}.png`, method: 'GET', type: n % 50 === 7 ? ('script' as const) : ('image' as const), headers };
}

export async function generateSession(file: string, rulesDir: string, requests = SESSION_REQUESTS): Promise<void> {
  const engine = await Engine.open({});
  const host = await ExtensionHost.start(engine, { rulesDir, watch: false, typeCheck: false });
  const recorder = await SessionRecorder.start(engine, { file, redact: false, maxBodySize: 1024 * 1024 });
  const origin = new GeneratedOrigin();
  let next = 0;
  const worker = async () => {
    while (next < requests) {
      const spec = generatedRequest(next++);
      const result = await runRequest(
        engine.lifecycle,
        { url: spec.url, method: spec.method, requestHeaders: spec.headers, type: spec.type, ...('body' in spec && { body: spec.body }) },
        origin,
      );
      // As the proxy journals bodies when recording.
      if (result.kind === 'response') engine.journal.append({ kind: 'body', requestId: result.requestId, direction: 'response', url: result.url, bytes: result.body, complete: true });
    }
  };
  await Promise.all(Array.from({ length: GENERATION_CONCURRENCY }, worker));
  await recorder.close();
  await host.close();
  await engine.close();
}
