// Rule files share workers (rule-workers.ts), each rule in a realm of its own. Checked with real
// workers and real requests through the proxy: worker-mates cannot see each other's globals,
// prototypes or module state; a neighbour's save replaces only its own realm; a fault of one rule
// (loop, heap, exit) takes its worker-mates into the restart, and the journal names the rule at
// fault, not them; a rule in another worker (here one with `ownWorker: true`) and unrelated
// requests are not affected.
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

/** Does what `?fault=` says to requests for /faulty…. */
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

/** Shares faulty's worker; tells which run of its top level answers /mate requests. */
const MATE = `export const manifest = { name: 'mate', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
const run = Math.random().toString(36).slice(2);
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Mate', value: run }] }), { urls: ['*://*/mate*'] }, ['blocking', 'requestHeaders']);
}
`;

/** A worker of its own: sees every request, and tells which run of its top level answers. */
const LONER = `export const manifest = { name: 'loner', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], ownWorker: true };
const run = Math.random().toString(36).slice(2);
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Loner', value: run }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);
}
`;

const TIMING: Partial<ExtensionHostOptions> = { limits: { heapLimitMb: 64, stuckAfterMs: 1000, unresponsiveAfterMs: 300, heartbeatMs: 100 } };

async function start(files: Record<string, string>, options: Partial<ExtensionHostOptions> = {}): Promise<void> {
  dir = await mkdtemp(path.join(tmpdir(), 'wrtui-shared-'));
  for (const [file, source] of Object.entries(files)) await writeFile(path.join(dir, file), source);
  origin = await startOrigin((req, res) => res.end(`ok ${req.url}`));
  harness = await startProxyHarness({ engine: { listenerTimeoutMs: 1000 } });
  // One shared worker: every rule without ownWorker is a worker-mate of every other.
  host = await ExtensionHost.start(harness.engine, { rulesDir: dir, typeCheck: false, debounceMs: 20, ruleWorkers: 1, ...TIMING, ...options });
}

/** The value of header `name` the origin received for a request to `pathname`. */
async function headerFor(pathname: string, name: string): Promise<string | undefined> {
  const response = await harness!.fetch(`${origin!.url}${pathname}`);
  await response.body.text();
  const received = origin!.received.filter((r) => r.url === pathname).at(-1);
  return received?.headers[name] as string | undefined;
}

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

function trigger(fault: string): Promise<unknown> {
  return harness!.fetch(`${origin!.url}/faulty?fault=${fault}`).then((r) => r.body.text(), (error: unknown) => error);
}

const runtimeOf = (owner: string) => harness!.entries.filter((e): e is RuntimeEntry & JournalEntry => e.kind === 'runtime' && e.owner === owner);
const errorsOf = (source: string) => harness!.entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === source && e.level === 'error').map((e) => e.message);

async function servesAgain(): Promise<void> {
  await expect.poll(async () => (typeof (await trigger('none')) === 'string' ? 'went through' : 'cancelled'), { timeout: 15_000, interval: 100 }).toBe('cancelled');
}

describe('worker-mates: a fault takes them into the restart, and the journal names the rule at fault', () => {
  it.each([
    { fault: 'loop', reason: /^its event loop did not turn for \d+ ms of its own time, with no progress \(a synchronous loop\?\)/, what: 'was stuck' },
    { fault: 'oom', reason: /^it ran out of memory \(heap limit 64 MB\)/, what: 'ran out of memory' },
    { fault: 'exit', reason: /^its worker exited with code 1 \(process\.exit\?\)/, what: 'exited with code 1' },
  ])('$fault: the faulty rule is blamed and restarted; its worker-mate runs its top level again; a rule in another worker and unrelated requests are untouched', { timeout: 60_000 }, async ({ fault, reason, what }) => {
    await start({ 'faulty.ts': FAULTY, 'mate.ts': MATE, 'loner.ts': LONER });
    expect(host!.rules().map((r) => [r.name, r.runtime.shared ?? false])).toEqual([['faulty', true], ['loner', false], ['mate', true]]);
    const mateRun = await headerFor('/mate', 'x-mate');
    const lonerRun = await headerFor('/mate', 'x-loner');
    expect(mateRun).toMatch(/^\w+$/);
    const baseline = await medianOf(7, unrelated);

    const pending = trigger(fault);
    const during = await medianOf(7, unrelated);
    // The loner sees every unrelated request, from a worker of its own: never slowed.
    expect(during - baseline).toBeLessThan(50);

    await harness!.waitFor((e) => e.kind === 'runtime' && e.owner === 'faulty' && e.state === 'restarting', 30_000);
    await harness!.waitFor((e) => e.kind === 'runtime' && e.owner === 'mate' && e.state === 'restarting', 30_000);
    expect(runtimeOf('faulty').find((e) => e.state === 'restarting')!.reason).toMatch(reason);
    // The mate's entry names the rule at fault; nothing blames the mate itself.
    const mateEntry = runtimeOf('mate').find((e) => e.state === 'restarting')!;
    expect(mateEntry.reason).toBe(`the worker it shares with other rules ended: "faulty" ${what}; its top level runs again in another; starting it again in 0 ms`);
    expect(mateEntry.doing).toBeUndefined();
    expect(await pending).toBe(`ok /faulty?fault=${fault}`);

    await servesAgain();
    await expect.poll(async () => {
      const run = await headerFor('/mate', 'x-mate');
      return run !== undefined && run !== mateRun;
    }, { timeout: 15_000, interval: 100 }).toBe(true);
    expect(host!.rule('mate')!.runtime).toMatchObject({ state: 'running', restarts: 1 });
    expect(host!.rule('mate')!.runtime.fault).toBeUndefined();
    expect(host!.rule('faulty')!.runtime).toMatchObject({ state: 'running', restarts: 1, fault: { reason: expect.stringMatching(reason) } });
    // The loner never restarted: the same run of its top level answers.
    expect(runtimeOf('loner').map((e) => e.state)).toEqual(['starting', 'running']);
    expect(await headerFor('/mate', 'x-loner')).toBe(lonerRun);
  });

  it.each([
    { fault: 'timer', message: /^setTimeout callback: Error: thrown in a timer at .*faulty\.ts:\d+:\d+$/ },
    { fault: 'rejection', message: /^Uncaught \(in promise\) Error: nobody catches this at .*faulty\.ts:\d+:\d+$/ },
  ])('$fault in a shared worker: reported as the faulty rule\'s (never its worker-mate\'s); nobody restarts', { timeout: 30_000 }, async ({ fault, message }) => {
    await start({ 'faulty.ts': FAULTY, 'mate.ts': MATE });
    const mateRun = await headerFor('/mate', 'x-mate');
    expect(typeof (await trigger(fault))).not.toBe('string');
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'faulty' && e.level === 'error');
    expect(errorsOf('faulty')).toEqual([expect.stringMatching(message)]);
    expect(errorsOf('mate')).toEqual([]);
    expect(await headerFor('/mate', 'x-mate')).toBe(mateRun);
    expect(runtimeOf('faulty').map((e) => e.state)).toEqual(['starting', 'running']);
    expect(runtimeOf('mate').map((e) => e.state)).toEqual(['starting', 'running']);
  });

  it('a background that never settles fails to load alone: its worker-mate loads and serves, the shared worker goes on', { timeout: 30_000 }, async () => {
    const hanging = FAULTY.replace('export default function background({ chrome }: any) {', 'export default async function background({ chrome }: any) {\n  await new Promise(() => {});');
    await start({ 'faulty.ts': hanging, 'mate.ts': MATE }, { backgroundTimeoutMs: 500 });
    expect(host!.rule('faulty')).toMatchObject({ state: 'failed', error: { message: 'the background did not settle within 500 ms (an async background must resolve; see backgroundTimeoutMs)' } });
    expect(host!.rule('mate')).toMatchObject({ state: 'active', runtime: { state: 'running', shared: true } });
    expect(await headerFor('/mate', 'x-mate')).toMatch(/^\w+$/);
    expect(await trigger('none')).toBe('ok /faulty?fault=none');
    await writeFile(path.join(dir!, 'faulty.ts'), FAULTY);
    await servesAgain();
    expect(runtimeOf('mate').map((e) => e.state)).toEqual(['starting', 'running']);
  });
});

/** Leaves marks in its globals, its realm's prototypes and a helper module; reports what it sees of the other's. */
const marker = (me: string, other: string) => `import { bump } from './_shared-helper.js';
export const manifest = { name: '${me}', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
(globalThis as any).mark_${me} = '${me}';
(Array.prototype as any).mark_${me} = '${me}';
(Object.prototype as any).proto_${me} = '${me}';
let seen = 0;
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => {
    seen++;
    const sees = [typeof (globalThis as any).mark_${other}, typeof ([] as any).mark_${other}, typeof ({} as any).proto_${other}].join(',');
    return { requestHeaders: [...d.requestHeaders, { name: 'X-${me}', value: sees + ' helper=' + bump() + ' seen=' + seen }] };
  }, { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);
}
`;
const HELPER = `let count = 0;
export function bump(): number {
  return ++count;
}
`;

describe('worker-mates are isolated realms', () => {
  it("cannot see each other's globals, prototypes or module state (each has its own copy of a helper both import)", { timeout: 30_000 }, async () => {
    await start({ '_shared-helper.ts': HELPER, 'a.ts': marker('a', 'b'), 'b.ts': marker('b', 'a') });
    expect(host!.rules().map((r) => r.runtime.shared)).toEqual([true, true]);
    await headerFor('/one', 'x-a');
    expect(await headerFor('/two', 'x-a')).toBe('undefined,undefined,undefined helper=2 seen=2');
    // (The same request, as the origin received it.)
    expect(origin!.received.filter((r) => r.url === '/two').at(-1)!.headers['x-b']).toBe('undefined,undefined,undefined helper=2 seen=2');
  });

  it("a save replaces the saved rule's realm only: its worker-mate keeps its state", { timeout: 30_000 }, async () => {
    await start({ '_shared-helper.ts': HELPER, 'a.ts': marker('a', 'b'), 'b.ts': marker('b', 'a') });
    for (const pathname of ['/1', '/2', '/3']) await headerFor(pathname, 'x-a');
    await writeFile(path.join(dir!, 'a.ts'), `${marker('a', 'b')}\n// saved again\n`);
    await harness!.waitFor((e) => e.kind === 'rule' && e.action === 'reloaded' && e.rule === 'a', 15_000);
    // a starts over (a new realm, a new copy of the helper); b goes on counting.
    expect(await headerFor('/4', 'x-a')).toBe('undefined,undefined,undefined helper=1 seen=1');
    expect(await headerFor('/5', 'x-b')).toBe('undefined,undefined,undefined helper=5 seen=5');
    expect(runtimeOf('b').map((e) => e.state)).toEqual(['starting', 'running']);
  });

  it('a rule that asks for a worker of its own (ownWorker) gets one, and back to a shared one when it stops asking', { timeout: 30_000 }, async () => {
    await start({ 'mate.ts': MATE, 'loner.ts': LONER });
    expect(host!.rule('loner')!.runtime.shared).toBeUndefined();
    expect(host!.rule('mate')!.runtime.shared).toBe(true);
    await writeFile(path.join(dir!, 'loner.ts'), LONER.replace(', ownWorker: true', ''));
    await expect.poll(() => host!.rule('loner')!.runtime.shared, { timeout: 15_000 }).toBe(true);
    expect(host!.rule('loner')).toMatchObject({ state: 'active', reloadCount: 1 });
    expect(await headerFor('/x', 'x-loner')).toMatch(/^\w+$/);
  });
});
