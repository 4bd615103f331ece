// Lifecycle cost per request with 0, 5 and 50 listeners, side by side in one run.
// Run: node --import tsx bench/lifecycle.ts
// Each round runs every variant in turn (interleaved), so machine noise hits all of them alike.
import { Journal } from '../src/engine/journal.js';
import { createTrustedOwner } from '../src/engine/owner.js';
import { RequestLifecycle } from '../src/engine/web-request/lifecycle.js';
import { ListenerRegistry } from '../src/engine/web-request/listener-registry.js';
import { runRequest } from '../src/engine/web-request/run-request.js';
import type { Transport } from '../src/engine/web-request/transport.js';
import { createWebRequestNamespace } from '../src/engine/web-request/web-request-namespace.js';
import { HandlerBehaviorChangedQuota } from '../src/engine/web-request/handler-behavior-changed.js';

const REQUESTS_PER_ROUND = 2_000;
const ROUNDS = 7;

const transport: Transport = {
  async send() {
    return {
      statusCode: 200,
      statusMessage: 'OK',
      headers: [{ name: 'Content-Type', value: 'text/html' }, { name: 'Content-Length', value: '2' }, { name: 'Cache-Control', value: 'no-store' }],
      body: Buffer.from('ok'),
      ip: '127.0.0.1',
    };
  },
};

function makeVariant(listenerCount: number) {
  const journal = new Journal();
  journal.subscribe(() => {}); // a subscriber, as the UI or headless output would be
  const registry = new ListenerRegistry();
  const lifecycle = new RequestLifecycle({ registry, journal });
  const host = { registry, journal, quota: new HandlerBehaviorChangedQuota(), flushCaches() {} };
  // A realistic mix: half blocking (one per blocking event in turn), half observers with headers.
  const blockingEvents = ['onBeforeRequest', 'onBeforeSendHeaders', 'onHeadersReceived'] as const;
  const observingEvents = ['onSendHeaders', 'onResponseStarted', 'onCompleted'] as const;
  for (let i = 0; i < listenerCount; i++) {
    const wr = createWebRequestNamespace(host, createTrustedOwner(`rule-${i % 5}`));
    if (i % 2 === 0) {
      const event = blockingEvents[i % blockingEvents.length]!;
      wr[event].addListener(
        ((details: { url: string }) => (details.url.includes('/never-') ? { cancel: true } : undefined)) as never,
        { urls: ['*://*.example.test/*'], types: ['main_frame', 'xmlhttprequest'] },
        ['blocking'],
      );
    } else {
      const event = observingEvents[i % observingEvents.length]!;
      const spec = event === 'onSendHeaders' ? ['requestHeaders'] : ['responseHeaders'];
      wr[event].addListener((() => {}) as never, { urls: ['<all_urls>'] }, spec as never);
    }
  }
  return async () => {
    for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
      await runRequest(
        lifecycle,
        {
          url: `https://www.example.test/api/items/${i}?page=2`,
          method: 'GET',
          type: 'xmlhttprequest',
          requestHeaders: [
            { name: 'Host', value: 'www.example.test' },
            { name: 'User-Agent', value: 'bench' },
            { name: 'Accept', value: 'application/json' },
            { name: 'Accept-Language', value: 'en' },
          ],
        },
        transport,
      );
    }
  };
}

const variants = [0, 5, 50].map((n) => ({ name: `${n} listeners`, run: makeVariant(n), samples: [] as number[] }));
for (const variant of variants) await variant.run(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    const started = process.hrtime.bigint();
    await variant.run();
    variant.samples.push(Number(process.hrtime.bigint() - started) / 1e3 / REQUESTS_PER_ROUND);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const base = median(variants[0]!.samples);
console.log(`lifecycle cost per request (median of ${ROUNDS} interleaved rounds of ${REQUESTS_PER_ROUND} requests, one hop, 6 events)`);
console.log('variant        µs/request   requests/s   × cost of 0 listeners');
for (const variant of variants) {
  const us = median(variant.samples);
  console.log(`${variant.name.padEnd(14)} ${us.toFixed(2).padStart(10)} ${Math.round(1e6 / us).toString().padStart(12)} ${(us / base).toFixed(2).padStart(12)}`);
}
