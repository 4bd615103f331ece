// Rule reload: latency from a save to the new listener being live, memory after many reloads,
// and how long a hung listener keeps its rule out of service.
//
//   node --import tsx bench/reload.ts            (add --expose-gc for exact heap figures)
//   RELOAD_SAVES=100 RELOAD_MEMORY_RELOADS=1000 node --expose-gc --import tsx bench/reload.ts
//
// Latency: a rule whose listener filter names a marker; each save writes a new marker and the
// clock stops when the engine journals the reload and its registry holds the new marker's
// listener. The watcher, the debounce, esbuild, the import and the swap are all inside. Saves are
// spaced by a random 50–350 ms, as an author's are, which also lets the type checker (on, as by
// default) run in between. Every load starts a new worker for the rule and ends the old one.
// Memory: reloads through ExtensionHost.reload (no watcher), each a new build and a new worker;
// RSS and the proxy thread's heap after a full GC, before and after (a terminated worker's heap is
// freed with it). Hang: a listener enters `while (true)` on a request; measured from that request
// to the rule answering again (found stuck, stack read, terminated, restarted), with wrtui's
// default limits (a ping unanswered 5 s is "stuck"; the first restart after 100 ms).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Engine } from '../src/engine/engine.js';
import { ExtensionHost } from '../src/engine/extensions/extension-host.js';
import { runRequest } from '../src/engine/web-request/run-request.js';
import type { Transport } from '../src/engine/web-request/transport.js';

const SAVES = Number(process.env.RELOAD_SAVES ?? 100);
const HANGS = Number(process.env.RELOAD_HANGS ?? 3);
const MEMORY_RELOADS = Number(process.env.RELOAD_MEMORY_RELOADS ?? 1000);
const TARGET_MEDIAN_MS = 300;

const HELPER = `// A helper, as real rules have: bundled into every build.
export function patternsFor(hosts: string[]): string[] {
  return hosts.map((host) => \`*://\${host}/*\`);
}
`;

function ruleSource(marker: string): string {
  return `import type { RuleContext, RuleManifest } from 'wrtui/rules';
import { patternsFor } from './lib/patterns';

export const manifest = {
  name: 'bench',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['<all_urls>'],
} as const satisfies RuleManifest;

export default function background({ chrome }: RuleContext<typeof manifest>): void {
  chrome.webRequest.onBeforeRequest.addListener(
    (details) => (details.url.includes('ads') ? { cancel: true } : undefined),
    { urls: patternsFor(['${marker}.example', 'www.${marker}.example']), types: ['script', 'image'] },
    ['blocking'],
  );
  chrome.webRequest.onHeadersReceived.addListener(() => undefined, { urls: ['<all_urls>'] }, ['responseHeaders']);
}
`;
}

const gc: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
})();

function settleMemory(): { rss: number; heap: number } {
  for (let i = 0; i < 3; i++) gc();
  return { rss: process.memoryUsage().rss, heap: v8.getHeapStatistics().used_heap_size };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function measureLatency(dir: string): Promise<number[]> {
  const file = path.join(dir, 'bench.ts');
  await writeFile(file, ruleSource('m0'));
  const engine = await Engine.open();
  const host = await ExtensionHost.start(engine, { rulesDir: dir });
  const latencies: number[] = [];
  try {
    for (let save = 1; save <= SAVES; save++) {
      const marker = `m${save}`;
      const live = new Promise<number>((resolve, reject) => {
        const timeout = setTimeout(() => reject(new Error(`save ${save}: no reload within 5 s`)), 5000);
        const unsubscribe = engine.journal.subscribe((entry) => {
          if (entry.kind === 'rule' && entry.action === 'failed') reject(new Error(entry.message));
          if (entry.kind !== 'rule' || entry.action !== 'reloaded') return;
          const urls = engine.registry.describe().flatMap((listener) => listener.filter.urls);
          if (!urls.includes(`*://${marker}.example/*`)) return;
          clearTimeout(timeout);
          unsubscribe();
          resolve(performance.now());
        });
      });
      const saved = performance.now();
      await writeFile(file, ruleSource(marker));
      latencies.push((await live) - saved);
      await sleep(50 + Math.random() * 300);
    }
  } finally {
    await host.close();
    await engine.close();
  }
  return latencies;
}

/** RSS after each quarter of the reloads: flat once the allocator has the memory workers reuse. */
const rssAlong: number[] = [];

async function measureMemory(dir: string): Promise<{ before: { rss: number; heap: number }; after: { rss: number; heap: number }; ms: number }> {
  const file = path.join(dir, 'bench.ts');
  await writeFile(file, ruleSource('warm'));
  const engine = await Engine.open();
  const host = await ExtensionHost.start(engine, { rulesDir: dir, watch: false, typeCheck: false });
  try {
    for (let i = 0; i < 20; i++) await host.reload('bench'); // warm up esbuild and the loader
    const before = settleMemory();
    const started = performance.now();
    for (let i = 1; i <= MEMORY_RELOADS; i++) {
      await writeFile(file, ruleSource(`r${i}`));
      const status = await host.reload('bench');
      if (status.state !== 'active' || status.error) throw new Error(`reload ${i} failed: ${status.error?.message}`);
      if (i % (MEMORY_RELOADS / 4) === 0) rssAlong.push(process.memoryUsage().rss);
    }
    const ms = performance.now() - started;
    return { before, after: settleMemory(), ms };
  } finally {
    await host.close();
    await engine.close();
  }
}

const HANGING_RULE = `export const manifest = { name: 'hangs', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener((d: { url: string }) => {
    if (d.url.includes('/hang')) while (true) {}
    return { cancel: true };
  }, { urls: ['<all_urls>'] }, ['blocking']);
}
`;

/** An origin that answers at once (no network). */
const origin: Transport = {
  send: async () => ({ statusCode: 200, statusMessage: 'OK', headers: [], body: new Uint8Array() }),
};

/** Each hang in a fresh host: repeated faults of one rule are restarted with a growing back-off. */
async function measureHang(dir: string): Promise<number[]> {
  await writeFile(path.join(dir, 'hangs.ts'), HANGING_RULE);
  const times: number[] = [];
  for (let i = 0; i < HANGS; i++) {
    const engine = await Engine.open({ listenerTimeoutMs: 1000 });
    const host = await ExtensionHost.start(engine, { rulesDir: dir, watch: false, typeCheck: false });
    const request = (url: string) => runRequest(engine.lifecycle, { url, method: 'GET', requestHeaders: [], type: 'main_frame' }, origin);
    try {
      const hung = performance.now();
      void request(`http://bench.example/hang/${i}`);
      // Serving again: its verdict (cancel) applies once more.
      for (;;) {
        await sleep(20);
        if ((await request('http://bench.example/ok')).kind === 'error') break;
        if (performance.now() - hung > 30_000) throw new Error('the rule never served again');
      }
      times.push(performance.now() - hung);
    } finally {
      await host.close();
      await engine.close();
    }
  }
  return times;
}

const dir = await mkdtemp(path.join(tmpdir(), 'wrtui-bench-reload-'));
try {
  await mkdir(path.join(dir, 'lib'));
  await writeFile(path.join(dir, 'lib', 'patterns.ts'), HELPER);

  console.log(`wrtui rule reload — Node ${process.version}, ${SAVES} saves, ${MEMORY_RELOADS} reloads\n`);
  const latencies = (await measureLatency(dir)).sort((a, b) => a - b);
  const median = percentile(latencies, 50);
  const memory = await measureMemory(dir);
  const hangDir = path.join(dir, 'hang');
  await mkdir(hangDir);
  const hangs = await measureHang(hangDir);

  const rows: [string, string][] = [
    ['save → live listener, median', `${median.toFixed(1)} ms  (target < ${TARGET_MEDIAN_MS} ms: ${median < TARGET_MEDIAN_MS ? 'met' : 'MISSED'})`],
    ['save → live listener, p95', `${percentile(latencies, 95).toFixed(1)} ms`],
    ['save → live listener, min / max', `${latencies[0]!.toFixed(1)} / ${latencies.at(-1)!.toFixed(1)} ms`],
    ['  of which the watcher debounce', '40 ms (ExtensionHostOptions.debounceMs)'],
    [`reload without watcher (×${MEMORY_RELOADS}), mean`, `${(memory.ms / MEMORY_RELOADS).toFixed(1)} ms`],
    ['RSS before → after', `${mb(memory.before.rss)} → ${mb(memory.after.rss)}  (+${mb(memory.after.rss - memory.before.rss)})`],
    ['RSS after each quarter of the reloads', rssAlong.map(mb).join(' → ')],
    ['heap after GC before → after', `${mb(memory.before.heap)} → ${mb(memory.after.heap)}  (+${mb(memory.after.heap - memory.before.heap)})`],
    ['heap growth per reload', `${((memory.after.heap - memory.before.heap) / MEMORY_RELOADS / 1024).toFixed(1)} KB`],
    [`hung listener → serving again (×${HANGS})`, hangs.map((ms) => `${(ms / 1000).toFixed(2)} s`).join(', ')],
    ['  of which: stalled until "stuck"', '5 s of its own time with no progress between two looks 1 s apart (WorkerLimits.stuckAfterMs); then terminate, 100 ms back-off, new worker'],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
