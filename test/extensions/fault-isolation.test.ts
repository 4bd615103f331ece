// Faults of user code are contained: each in a real worker, with real requests measured through
// the proxy while the fault happens. Whatever a rule does (a synchronous infinite loop, a listener
// burning CPU, exhausting its heap, process.exit, a throw in a timer, an unhandled rejection, a
// background that never finishes), an unrelated request is not slowed down (< 50 ms added), the
// journal says which rule, what it was doing and where, and the rule serves again.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost, type ExtensionHostOptions } from '../../src/engine/extensions/extension-host.js';
import type { JournalEntry, LogEntry, RuntimeEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';
import { closeRig } from '../helpers/close-rig.js';

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let dir: string | undefined;
afterEach(async () => {
  await closeRig({ host, harness, origin, folder: dir });
  host = harness = origin = dir = undefined;
});

/** The faulty rule: its listener sees only /faulty…, and does what `?fault=` says. */
const FAULTY = `export const manifest = {
  name: 'faulty',
  permissions: ['webRequest', 'webRequestBlocking'],
  host_permissions: ['<all_urls>'],
  node: true,
};
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener((details: { url: string }) => {
    const fault = new URL(details.url).searchParams.get('fault');
    if (fault === 'loop') {
      while (true) {}
    }
    if (fault === 'cpu') {
      const end = Date.now() + 200;
      while (Date.now() < end) {}
    }
    if (fault === 'oom') {
      const hog: number[][] = [];
      for (;;) hog.push(new Array(100_000).fill(Math.random()));
    }
    if (fault === 'exit') process.exit(1);
    if (fault === 'timer') setTimeout(() => { throw new Error('thrown in a timer'); }, 0);
    if (fault === 'rejection') void Promise.reject(new Error('nobody catches this'));
    return { cancel: true };
  }, { urls: ['*://*/faulty*'] }, ['blocking']);
}
`;

/** A well-behaved rule that sees every request: other rules keep answering while one faults. */
const WITNESS = `export const manifest = { name: 'witness', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Witness', value: '1' }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);
}
`;

const TIMING: Partial<ExtensionHostOptions> = { limits: { heapLimitMb: 64, stuckAfterMs: 1000, unresponsiveAfterMs: 300, heartbeatMs: 100 } };

async function start(files: Record<string, string>, options: Partial<ExtensionHostOptions> = {}): Promise<void> {
  dir = await mkdtemp(path.join(tmpdir(), 'wrtui-faults-'));
  for (const [file, source] of Object.entries(files)) await writeFile(path.join(dir, file), source);
  origin = await startOrigin((req, res) => res.end(`ok ${req.url}`));
  harness = await startProxyHarness({ engine: { listenerTimeoutMs: 1000 } });
  // Two shared workers: the faulty rule and the witness each have one (placed in turn), as rules in different workers.
  host = await ExtensionHost.start(harness.engine, { rulesDir: dir, typeCheck: false, debounceMs: 20, ruleWorkers: 2, ...TIMING, ...options });
}

/** Wall time of one unrelated request through the proxy (the witness rule sees it; the faulty one does not). */
async function unrelated(): Promise<number> {
  const started = performance.now();
  const response = await harness!.fetch(`${origin!.url}/unrelated`);
  expect(await response.body.text()).toBe('ok /unrelated');
  return performance.now() - started;
}

async function medianOf(n: number, measure: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await measure());
  return times.sort((a, b) => a - b)[n >> 1]!;
}

/** Sends a request that triggers the fault; it goes on without the faulty listener (or is cancelled once it serves again). */
function trigger(fault: string): Promise<unknown> {
  return harness!.fetch(`${origin!.url}/faulty?fault=${fault}`).then((r) => r.body.text(), (error: unknown) => error);
}

const runtimeEntries = () => harness!.entries.filter((e): e is RuntimeEntry & JournalEntry => e.kind === 'runtime' && e.owner === 'faulty');
const logs = (level: LogEntry['level']) => harness!.entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === 'faulty' && e.level === level).map((e) => e.message);

/** The faulty rule serves again: its listener cancels /faulty?fault=none. */
async function servesAgain(): Promise<void> {
  await expect
    .poll(async () => {
      const result = await trigger('none');
      return typeof result === 'string' ? 'went through' : 'cancelled';
    }, { timeout: 8000, interval: 100 })
    .toBe('cancelled');
}

describe('a fault in one rule never slows an unrelated request, and the rule comes back', () => {
  it.each([
    { fault: 'loop', reason: /^its event loop did not turn for \d+ ms of its own time, with no progress \(a synchronous loop\?\); starting it again in 100 ms$/, at: 'while (true)' },
    { fault: 'oom', reason: /^it ran out of memory \(heap limit 64 MB\); starting it again in 100 ms$/, at: undefined },
    { fault: 'exit', reason: /^its worker exited with code 1 \(process\.exit\?\); starting it again in 100 ms$/, at: undefined },
  ])('$fault: terminated, journaled with what it was doing (and where), restarted', { timeout: 30_000 }, async ({ fault, reason, at }) => {
    await start({ 'faulty.ts': FAULTY, 'witness.ts': WITNESS });
    const baseline = await medianOf(7, unrelated);
    const pending = trigger(fault);
    const during = await medianOf(7, unrelated);
    expect(during - baseline).toBeLessThan(50);
    expect(origin!.received.filter((r) => r.url === '/unrelated').every((r) => r.headers['x-witness'] === '1')).toBe(true);

    // Stuck is judged in the worker's own time: on a machine loaded by other tests it takes longer in wall time.
    await harness!.waitFor((e) => e.kind === 'runtime' && e.owner === 'faulty' && e.state === 'restarting', 30_000);
    const restarting = runtimeEntries().find((e) => e.state === 'restarting')!;
    expect(restarting.reason).toMatch(reason);
    expect(restarting.doing).toMatchObject({ event: 'onBeforeRequest', url: `${origin!.url}/faulty?fault=${fault}` });
    if (at) expect(restarting.location).toMatch(new RegExp(`faulty\\.ts:${FAULTY.split('\n').findIndex((line) => line.includes(at)) + 1}:\\d+$`));
    // The request that met the fault went on without the rule's verdict.
    expect(await pending).toBe(`ok /faulty?fault=${fault}`);
    await servesAgain();
    expect(runtimeEntries().map((e) => e.state)).toEqual(['starting', 'running', 'restarting', 'running']);
    expect(host!.rule('faulty')?.runtime).toMatchObject({ state: 'running', restarts: 1, fault: { reason: restarting.reason!.replace(/; starting it again in 100 ms$/, '') } });
  });

  it('a request that arrives while it is being started again waits for it and gets its verdict, as Chromium 156 holds one for a service worker it restarts', { timeout: 60_000 }, async () => {
    await start({ 'faulty.ts': FAULTY, 'witness.ts': WITNESS }, { ...TIMING, restartPolicy: { backoffMs: [300], maxFaults: 4, windowMs: 60_000 } });
    const pending = trigger('loop');
    await harness!.waitFor((e) => e.kind === 'runtime' && e.owner === 'faulty' && e.state === 'restarting', 30_000);
    // Sent during the back-off (300 ms; the listener timeout is 1 s): it waits for the worker started again, whose listener cancels it.
    const started = performance.now();
    expect(typeof (await trigger('none'))).not.toBe('string');
    expect(performance.now() - started).toBeGreaterThan(200);
    expect(runtimeEntries().map((e) => e.state)).toEqual(['starting', 'running', 'restarting', 'running']);
    // What waited on the stuck worker itself went on without it, as in Chromium.
    expect(await pending).toBe('ok /faulty?fault=loop');
    // Unrelated requests never waited.
    expect(await unrelated()).toBeLessThan(1000);
  });

  it('cpu: a listener burning 200 ms per call slows only its own events; unrelated requests do not wait', { timeout: 30_000 }, async () => {
    await start({ 'faulty.ts': FAULTY, 'witness.ts': WITNESS });
    const baseline = await medianOf(7, unrelated);
    const pending = Array.from({ length: 5 }, () => trigger('cpu'));
    const during = await medianOf(7, unrelated);
    expect(during - baseline).toBeLessThan(50);
    await Promise.all(pending);
    const durations = harness!.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url.includes('fault=cpu')).flatMap((e) => e.outcomes).filter((o) => o.owner === 'faulty');
    expect(durations.length).toBe(5);
    // Each answered after ≥ 200 ms (applied), or the request went on without it (failed): never an error in the proxy.
    for (const outcome of durations) expect(outcome.status === 'applied' ? outcome.durationMs >= 200 : outcome.status === 'failed').toBe(true);
    await servesAgain();
  });

  it.each([
    { fault: 'timer', message: /^setTimeout callback: Error: thrown in a timer at .*faulty\.ts:\d+:\d+$/ },
    { fault: 'rejection', message: /^Uncaught \(in promise\) Error: nobody catches this at .*faulty\.ts:\d+:\d+$/ },
  ])('$fault: reported with file:line as a browser logs it; the worker goes on serving, no restart', { timeout: 30_000 }, async ({ fault, message }) => {
    await start({ 'faulty.ts': FAULTY, 'witness.ts': WITNESS });
    const baseline = await medianOf(5, unrelated);
    const result = await trigger(fault);
    expect(typeof result).not.toBe('string'); // its listener answered: cancelled
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'faulty' && e.level === 'error');
    expect(logs('error')).toEqual([expect.stringMatching(message)]);
    expect((await medianOf(5, unrelated)) - baseline).toBeLessThan(50);
    await servesAgain();
    expect(runtimeEntries().map((e) => e.state)).toEqual(['starting', 'running']);
  });

  it('a background that never finishes: the load fails after the background timeout, the worker is stopped, requests never wait for it; fixing the file loads it', { timeout: 30_000 }, async () => {
    const hanging = FAULTY.replace('export default function background({ chrome }: any) {', 'export default async function background({ chrome }: any) {\n  await new Promise(() => {});');
    await start({ 'faulty.ts': hanging, 'witness.ts': WITNESS }, { backgroundTimeoutMs: 500 });
    expect(host!.rule('faulty')).toMatchObject({ state: 'failed', error: { message: 'the background did not settle within 500 ms (an async background must resolve; see backgroundTimeoutMs)' } });
    expect(await trigger('none')).toBe('ok /faulty?fault=none');
    const baseline = await medianOf(5, unrelated);
    expect(baseline).toBeLessThan(1000);
    await writeFile(path.join(dir!, 'faulty.ts'), FAULTY);
    await servesAgain();
  });

  it('after repeated faults it is marked crashed and stays down until its files change', { timeout: 40_000 }, async () => {
    // It exits shortly after every start, once live.
    await start({ 'faulty.ts': FAULTY.replace("{ urls: ['*://*/faulty*'] }", "{ urls: ['*://*/faulty*'] }); setTimeout(() => process.exit(3), 100); ({ urls: [] }"), 'witness.ts': WITNESS }, {
      ...TIMING,
      restartPolicy: { backoffMs: [50], maxFaults: 3, windowMs: 60_000 },
    });
    // Started, restarted twice, then given up on at the third fault.
    await harness!.waitFor((e) => e.kind === 'runtime' && e.owner === 'faulty' && e.state === 'crashed', 15_000);
    expect(host!.rule('faulty')).toMatchObject({ state: 'failed', runtime: { state: 'crashed' }, error: { message: expect.stringMatching(/^crashed 3 times within \d+ minutes; last: .*exited with code 3.*; it stays down until its files change$/) } });
    expect(await trigger('none')).toBe('ok /faulty?fault=none');
    expect((await unrelated())).toBeLessThan(1000);
    await writeFile(path.join(dir!, 'faulty.ts'), FAULTY);
    await servesAgain();
  });
});
