// A save replaces the rule's realm in the worker it shares with other rules; the old realm (its
// context, its copy of wrtui's bindings, its timers) goes with it, so the shared worker's heap stays
// flat however often a rule is saved (1,000 saves: +0.47 MB in all; SHARED_RELOADS=1000 runs that).
// A worker-mate with Node measures that worker's heap after a
// full GC, from inside it. (bench/reload.ts measures 1,000 reloads of the proxy thread's side.)
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { closeRig } from '../helpers/close-rig.js';

const RELOADS = Number(process.env.SHARED_RELOADS ?? 200);

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let dir: string | undefined;
afterEach(async () => {
  await closeRig({ host, harness, origin, folder: dir });
  host = harness = origin = dir = undefined;
});

/** Redirects /gauge to /heap/<bytes>: its worker's heap in use after a full GC. */
const GAUGE = `declare const require: (id: string) => any;
export const manifest = { name: 'gauge', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], node: true };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener((d: { url: string }) => {
    // Required when called: the manifest that allows Node is known by then.
    const v8 = require('node:v8');
    const vm = require('node:vm');
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    for (let i = 0; i < 4; i++) gc();
    return { redirectUrl: new URL('/heap/' + v8.getHeapStatistics().used_heap_size, d.url).href };
  }, { urls: ['*://*/gauge'] }, ['blocking']);
}
`;

const saved = (n: number) => `export const manifest = { name: 'saved-often', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
// Some text, as a real rule has: ${'x'.repeat(8_000)}
const state = new Array(1000).fill(${n});
export default function background({ chrome }: any) {
  setInterval(() => state.reverse(), 60_000);
  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: state.length === 0 }), { urls: ['*://v${n}.example/*'] }, ['blocking']);
}
`;

async function sharedWorkerHeap(): Promise<number> {
  const response = await harness!.fetch(`${origin!.url}/gauge`);
  const text = await response.body.text();
  // The proxy answers the redirect itself (the client follows it, or not: undici does not).
  const where = `${String(response.headers.location ?? '')} ${text}`;
  const match = /\/heap\/(\d+)/.exec(where);
  if (!match) throw new Error(`no heap figure: ${response.statusCode} ${where}`);
  return Number(match[1]);
}

it(`the shared worker's heap stays flat over ${RELOADS} saves of a rule in it`, { timeout: 300_000 }, async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'wrtui-shared-reload-'));
  await writeFile(path.join(dir, 'gauge.ts'), GAUGE);
  await writeFile(path.join(dir, 'saved-often.ts'), saved(0));
  origin = await startOrigin((req, res) => res.end(`ok ${req.url}`));
  harness = await startProxyHarness({ engine: { listenerTimeoutMs: 5000 } });
  host = await ExtensionHost.start(harness.engine, { rulesDir: dir, watch: false, typeCheck: false, ruleWorkers: 1 });
  expect(host.rules().map((r) => [r.name, r.runtime.shared, r.error?.message])).toEqual([['gauge', true, undefined], ['saved-often', true, undefined]]);
  for (let i = 1; i <= 20; i++) await host.reload('saved-often'); // warm-up
  const before = await sharedWorkerHeap();
  for (let i = 1; i <= RELOADS; i++) {
    await writeFile(path.join(dir, 'saved-often.ts'), saved(i));
    expect((await host.reload('saved-often')).state).toBe('active');
  }
  const growth = (await sharedWorkerHeap()) - before;
  // A realm kept would be ~1 MB each (a context and wrtui's bindings in it): 200 MB. Flat is well under 4 KB each.
  expect(growth / RELOADS).toBeLessThan(4_096);
  expect(host.rule('gauge')!.runtime).toMatchObject({ state: 'running', restarts: 0 });
  expect(harness.engine.registry.describe().map((listener) => listener.filter.urls[0]).sort()).toEqual(['*://*/gauge', `*://v${RELOADS}.example/*`]);
});
