// What a persona costs the proxy thread, without the network: the same ten listeners (5 blocking,
// 5 observing, as bench/proxy.ts's "mixed") under spec, chrome and firefox, driven through the
// request lifecycle with a scripted origin and the headers Chromium sends for an <img>. The
// variants take turns in rounds (A B C C B A …) in one process. Run: node --import tsx bench/personas.ts
import { Journal } from '../src/engine/journal.js';
import { createTrustedOwner } from '../src/engine/owner.js';
import { chromePersona, firefoxPersona, specPersona, type Persona } from '../src/engine/personas/index.js';
import type { HttpHeaders } from '../src/engine/types.js';
import { RequestLifecycle } from '../src/engine/web-request/lifecycle.js';
import { ListenerRegistry } from '../src/engine/web-request/listener-registry.js';
import { runRequest } from '../src/engine/web-request/run-request.js';
import type { Transport } from '../src/engine/web-request/transport.js';
import { createWebRequestNamespace } from '../src/engine/web-request/web-request-namespace.js';
import { HandlerBehaviorChangedQuota } from '../src/engine/web-request/handler-behavior-changed.js';

const HEADERS: HttpHeaders = [
  ['Host', '127.0.0.1:8000'], ['Connection', 'keep-alive'], ['User-Agent', 'Mozilla/5.0 Chrome/156.0.0.0'],
  ['Accept', 'image/avif,image/webp,*/*;q=0.8'], ['Sec-Fetch-Site', 'same-origin'], ['Sec-Fetch-Mode', 'no-cors'],
  ['Sec-Fetch-Dest', 'image'], ['Referer', 'http://127.0.0.1:8000/page'], ['Accept-Encoding', 'gzip, deflate'],
  ['Accept-Language', 'en-US,en;q=0.9'], ['Cookie', 'session=abc; theme=dark'],
].map(([name, value]) => ({ name: name!, value: value! }));
const origin: Transport = {
  send: async () => ({ statusCode: 200, statusMessage: 'OK', headers: [{ name: 'Content-Type', value: 'text/plain' }, { name: 'Content-Length', value: '2' }], body: Buffer.from('ok'), ip: '127.0.0.1' }),
};

function setUp(persona: Persona) {
  const journal = new Journal();
  journal.subscribe(() => {});
  const registry = new ListenerRegistry();
  const lifecycle = new RequestLifecycle({ registry, journal });
  const host = { registry, quota: new HandlerBehaviorChangedQuota(), journal, flushCaches: () => {} };
  const a = createWebRequestNamespace(host, createTrustedOwner('a', { persona }));
  const b = createWebRequestNamespace(host, createTrustedOwner('b', { persona }));
  const all = { urls: ['<all_urls>'] };
  a.onBeforeRequest.addListener(() => undefined, all, ['blocking']);
  b.onBeforeRequest.addListener(() => undefined, { urls: ['http://127.0.0.1/*'] }, ['blocking']);
  a.onBeforeSendHeaders.addListener((d) => ({ requestHeaders: [...d.requestHeaders!, { name: 'X-Bench', value: '1' }] }), all, ['blocking', 'requestHeaders']);
  a.onHeadersReceived.addListener(() => undefined, all, ['blocking']);
  b.onHeadersReceived.addListener((d) => ({ responseHeaders: [...d.responseHeaders!, { name: 'X-Bench-Response', value: '1' }] }), all, ['blocking', 'responseHeaders']);
  b.onBeforeRequest.addListener((d) => void d.url, all);
  b.onSendHeaders.addListener((d) => void d.requestHeaders, all, ['requestHeaders']);
  a.onHeadersReceived.addListener((d) => void d.responseHeaders, all, ['responseHeaders']);
  a.onResponseStarted.addListener((d) => void d.responseHeaders, all, ['responseHeaders']);
  b.onCompleted.addListener((d) => void d.responseHeaders, all, ['responseHeaders']);
  return lifecycle;
}

const variants = [specPersona, chromePersona, firefoxPersona].map((persona) => ({ persona, lifecycle: setUp(persona), requests: 0, ms: 0, perRound: [] as number[] }));
const ROUNDS = 10;
const RUN_MS = 700;
async function measure(variant: (typeof variants)[number]): Promise<void> {
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < RUN_MS) {
    await Promise.all(Array.from({ length: 32 }, () => runRequest(variant.lifecycle, { url: 'http://127.0.0.1:8000/img.png', method: 'GET', type: 'image', requestHeaders: HEADERS }, origin)));
    n += 32;
  }
  const ms = performance.now() - started;
  variant.requests += n;
  variant.ms += ms;
  variant.perRound.push(n / (ms / 1000));
}
for (const variant of variants) await measure(variant); // warm-up, not counted
for (const variant of variants) Object.assign(variant, { requests: 0, ms: 0, perRound: [] });
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) await measure(variant);
}
const spec = variants[0]!;
const rate = (v: (typeof variants)[number]) => v.requests / (v.ms / 1000);
console.log(`ten listeners (5 blocking, 5 observing), in-process, browser-like image requests, ${ROUNDS} rounds × ${RUN_MS} ms each:`);
for (const variant of variants) {
  const paired = variant.perRound.map((r, i) => r / spec.perRound[i]!).sort((x, y) => x - y)[variant.perRound.length >> 1]!;
  console.log(
    `  ${variant.persona.name.padEnd(8)} ${rate(variant).toFixed(0).padStart(6)} req/s  ${(1e6 / rate(variant)).toFixed(1).padStart(6)} µs/req  ` +
      `vs spec: paired ${(100 * paired).toFixed(1)} %`,
  );
}
