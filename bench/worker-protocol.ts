// What one event costs the proxy thread to send to an extension's worker and get answered, with
// wrtui's hand-written protocol (src/engine/extensions/protocol.ts: batches of tuples, one
// postMessage per turn of the event loop, details as JSON text) against two well-kept RPC
// libraries on the same MessagePort: birpc (functions over a message channel, a Promise per call,
// fire-and-forget "event" calls) and Comlink (ES Proxy-based RPC). Run:
//   node --import tsx bench/worker-protocol.ts
// Not a test. Each variant: N blocking events (the caller awaits the answer) sent 32 at a time, as
// 32 concurrent requests would; then N observing events (nobody waits). The worker parses the
// details and answers {}. Measured: the main thread's own CPU per event (/proc, excludes the
// worker), wall time per event; interleaved rounds, medians, ratios to wrtui's. IN_FLIGHT=1 sends
// one event per turn of the event loop (no batching at all: the per-message cost alone).
import { readFileSync } from 'node:fs';
import { MessageChannel, Worker } from 'node:worker_threads';
import { createBirpc } from 'birpc';
import * as Comlink from 'comlink';
import nodeEndpoint from 'comlink/dist/umd/node-adapter.js';

const EVENTS = 20_000;
const CONCURRENCY = Number(process.env.IN_FLIGHT ?? 32);
const ROUNDS = 5;

// A details object as onBeforeSendHeaders sends it (requestHeaders asked for): ~1 KB of JSON.
const DETAILS = JSON.stringify({
  requestId: '12345', url: 'http://127.0.0.1:9000/api/items?page=2&sort=name', method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1,
  type: 'xmlhttprequest', timeStamp: 1795547911202.123,
  requestHeaders: [
    ['Host', '127.0.0.1:9000'], ['User-Agent', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36'],
    ['Accept', 'application/json, text/plain, */*'], ['Accept-Language', 'en-US,en;q=0.9'], ['Accept-Encoding', 'gzip, deflate, br, zstd'],
    ['Referer', 'http://127.0.0.1:9000/'], ['Cookie', 'session=0123456789abcdef; theme=dark'], ['Sec-Fetch-Dest', 'empty'], ['Sec-Fetch-Mode', 'cors'],
  ].map(([name, value]) => ({ name, value })),
});

/** CPU µs of this process's main thread (utime + stime, 10 ms ticks). */
function mainThreadCpu(): number {
  const fields = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

interface Variant {
  name: string;
  /** Sends one blocking event; resolves with the answer. */
  blocking(details: string): Promise<unknown>;
  /** Sends one observing event (nobody waits). */
  observing(details: string): void;
  /** Resolves once every observing event sent so far was handled by the worker. */
  drained(): Promise<void>;
  close(): Promise<void>;
}

// ── wrtui's protocol, as extension-worker.ts / worker-main.ts do it ─────────
const WRTUI_WORKER = `
const { parentPort } = require('node:worker_threads');
let out = []; let scheduled = false; let observed = 0;
const post = (item) => { out.push(item); if (!scheduled) { scheduled = true; setImmediate(() => { scheduled = false; const b = out; out = []; parentPort.postMessage(b); }); } };
parentPort.on('message', (batch) => {
  for (const item of batch) {
    if (item[0] === 'drain') { post(['drained', observed]); continue; }
    const details = JSON.parse(item[4]);
    if (item[1] === 0) { observed++; continue; }
    post(['answers', item[1], [[item[3][0], 'value', details.method === 'DELETE' ? { cancel: true } : {}]]]);
  }
});`;

async function wrtuiVariant(): Promise<Variant> {
  const worker = new Worker(WRTUI_WORKER, { eval: true, execArgv: [] });
  const pending = new Map<number, (value: unknown) => void>();
  let drainedResolve: (() => void) | undefined;
  let outbox: unknown[][] = [];
  let soon: NodeJS.Immediate | undefined;
  let later: NodeJS.Timeout | undefined;
  let next = 1;
  const flush = () => {
    if (soon) clearImmediate(soon);
    if (later) clearTimeout(later);
    soon = undefined;
    later = undefined;
    const batch = outbox;
    outbox = [];
    worker.postMessage(batch);
  };
  const enqueue = (item: unknown[], urgent: boolean) => {
    outbox.push(item);
    if (urgent) soon ??= setImmediate(flush);
    else if (!soon && !later) later = setTimeout(flush, 10);
  };
  worker.on('message', (batch: unknown[][]) => {
    for (const item of batch) {
      if (item[0] === 'drained') drainedResolve?.();
      else {
        const resolve = pending.get(item[1] as number)!;
        pending.delete(item[1] as number);
        resolve((item[2] as unknown[][])[0]![2]);
      }
    }
  });
  return {
    name: "wrtui's protocol",
    blocking(details) {
      const call = next++;
      enqueue(['event', call, 'onBeforeSendHeaders', [1], details], true);
      return new Promise((resolve) => pending.set(call, resolve));
    },
    observing(details) {
      enqueue(['event', 0, 'onSendHeaders', [2], details], false);
    },
    drained() {
      return new Promise((resolve) => {
        drainedResolve = resolve;
        enqueue(['drain'], true);
      });
    },
    close: () => worker.terminate().then(() => {}),
  };
}

// ── birpc ───────────────────────────────────────────────────────────────────
const BIRPC_WORKER = (birpcUrl: string) => `
const { parentPort, workerData } = require('node:worker_threads');
import(${JSON.stringify(birpcUrl)}).then(({ createBirpc }) => {
  let observed = 0;
  createBirpc({
    onEvent(event, lids, details) { const d = JSON.parse(details); return d.method === 'DELETE' ? { cancel: true } : {}; },
    onObserved(event, lids, details) { JSON.parse(details); observed++; },
    drain() { return observed; },
  }, { post: (data) => workerData.port.postMessage(data), on: (fn) => workerData.port.on('message', fn) });
  workerData.port.postMessage('ready');
});`;

async function birpcVariant(): Promise<Variant> {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(BIRPC_WORKER(import.meta.resolve('birpc')), { eval: true, execArgv: [], workerData: { port: port2 }, transferList: [port2] });
  await new Promise<void>((resolve) => port1.once('message', () => resolve()));
  const rpc = createBirpc<{ onEvent(e: string, l: number[], d: string): unknown; onObserved(e: string, l: number[], d: string): void; drain(): number }>(
    {},
    { post: (data) => port1.postMessage(data), on: (fn) => port1.on('message', fn), eventNames: ['onObserved'] },
  );
  return {
    name: 'birpc 4',
    blocking: (details) => rpc.onEvent('onBeforeSendHeaders', [1], details),
    observing: (details) => void rpc.onObserved('onSendHeaders', [2], details),
    drained: async () => {
      await rpc.drain();
    },
    close: async () => {
      port1.close();
      await worker.terminate();
    },
  };
}

// ── Comlink ─────────────────────────────────────────────────────────────────
const COMLINK_WORKER = (comlinkUrl: string, adapterUrl: string) => `
const { parentPort } = require('node:worker_threads');
Promise.all([import(${JSON.stringify(comlinkUrl)}), import(${JSON.stringify(adapterUrl)})]).then(([Comlink, adapter]) => {
  let observed = 0;
  Comlink.expose({
    onEvent(event, lids, details) { const d = JSON.parse(details); return d.method === 'DELETE' ? { cancel: true } : {}; },
    onObserved(event, lids, details) { JSON.parse(details); observed++; },
    drain() { return observed; },
  }, (adapter.default ?? adapter)(parentPort));
});`;

async function comlinkVariant(): Promise<Variant> {
  const worker = new Worker(COMLINK_WORKER(import.meta.resolve('comlink'), import.meta.resolve('comlink/dist/umd/node-adapter.js')), { eval: true, execArgv: [] });
  const remote = Comlink.wrap<{ onEvent(e: string, l: number[], d: string): unknown; onObserved(e: string, l: number[], d: string): void; drain(): number }>(
    (nodeEndpoint as unknown as (w: Worker) => Comlink.Endpoint)(worker),
  );
  return {
    name: 'Comlink 4',
    blocking: (details) => remote.onEvent('onBeforeSendHeaders', [1], details),
    // Comlink has no one-way call: every call is answered, whether or not the caller waits.
    observing: (details) => void remote.onObserved('onSendHeaders', [2], details),
    drained: async () => {
      await remote.drain();
    },
    close: async () => {
      remote[Comlink.releaseProxy]();
      await worker.terminate();
    },
  };
}

async function measure(variant: Variant, kind: 'blocking' | 'observing'): Promise<{ cpu: number; wall: number }> {
  const cpu0 = mainThreadCpu();
  const t0 = performance.now();
  if (kind === 'blocking') {
    for (let sent = 0; sent < EVENTS; sent += CONCURRENCY) {
      await Promise.all(Array.from({ length: CONCURRENCY }, () => variant.blocking(DETAILS)));
    }
  } else {
    // Observing events come as traffic does: a few per turn of the event loop.
    for (let sent = 0; sent < EVENTS; sent += CONCURRENCY) {
      for (let i = 0; i < CONCURRENCY; i++) variant.observing(DETAILS);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await variant.drained();
  }
  return { cpu: (mainThreadCpu() - cpu0) / EVENTS, wall: ((performance.now() - t0) * 1000) / EVENTS };
}

const variants = [await wrtuiVariant(), await birpcVariant(), await comlinkVariant()];
const results = new Map(variants.map((v) => [v.name, { blocking: [] as { cpu: number; wall: number }[], observing: [] as { cpu: number; wall: number }[] }]));
for (const variant of variants) {
  // Warm-up.
  await measure(variant, 'blocking');
  await measure(variant, 'observing');
}
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of round % 2 ? [...variants].reverse() : variants) {
    for (const kind of ['blocking', 'observing'] as const) results.get(variant.name)![kind].push(await measure(variant, kind));
  }
}
for (const variant of variants) await variant.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const base = results.get("wrtui's protocol")!;
console.log(`${EVENTS} events × ${ROUNDS} rounds per variant, ${CONCURRENCY} in flight, ~${DETAILS.length} B of details each; main thread CPU and wall time per event, medians`);
console.log('variant            blocking cpu µs  wall µs  ×wrtui   observing cpu µs  wall µs  ×wrtui');
for (const [name, r] of results) {
  const b = median(r.blocking.map((x) => x.cpu));
  const o = median(r.observing.map((x) => x.cpu));
  console.log(
    `${name.padEnd(18)} ${b.toFixed(1).padStart(15)}  ${median(r.blocking.map((x) => x.wall)).toFixed(1).padStart(7)}  ${(b / median(base.blocking.map((x) => x.cpu))).toFixed(2).padStart(5)}×` +
      `  ${o.toFixed(1).padStart(16)}  ${median(r.observing.map((x) => x.wall)).toFixed(1).padStart(7)}  ${(o / median(base.observing.map((x) => x.cpu))).toFixed(2).padStart(5)}×`,
  );
}
