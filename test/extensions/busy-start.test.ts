// The watchdog judges hangs, not work (issue #34): an extension busy at start-up, compiling its
// filter lists for seconds in one task as uBlock Origin does, is not restarted, and a request that
// arrives meanwhile waits for its listener (up to --listener-timeout) and is blocked, as Firefox
// ESR 153.8 and Chromium 156 wait for a busy extension (docs/extensions-and-host.md, "Extension host"). Before, the
// watchdog took a thread that did not answer its ping for the stuck threshold for a hang: it
// killed the extension again and again while it compiled, and every request went on unblocked.
// The thresholds are the tests' short ones (a 1 s stuck threshold, a 1 s background timeout);
// the fixture is busy three times as long.
import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { JournalEntry, LogEntry, RuntimeEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { closeRig } from '../helpers/close-rig.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/extensions/busy-start', import.meta.url));
const LIMITS = { stuckAfterMs: 1000, unresponsiveAfterMs: 300, heartbeatMs: 100, hangLimitMs: 30_000 };

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let folder: string | undefined;
afterEach(async () => {
  await closeRig({ host, harness, origin, folder });
  host = harness = origin = folder = undefined;
});

/**
 * The fixture, busy `topLevelMs` in its top level and `deferredMs` in a task after it, run in wrtui
 * (firefox persona); `edit` changes its background further.
 */
async function start(topLevelMs: number, deferredMs: number, options: { edit?: (source: string) => string; hangLimitMs?: number } = {}): Promise<void> {
  folder = await mkdtemp(path.join(tmpdir(), 'wrtui-busy-start-'));
  await cp(FIXTURE, folder, { recursive: true });
  const background = path.join(folder, 'background.js');
  const source = (await readFile(background, 'utf8')).replace('const TOP_LEVEL_MS = 0;', `const TOP_LEVEL_MS = ${topLevelMs};`).replace('const DEFERRED_MS = 3000;', `const DEFERRED_MS = ${deferredMs};`);
  await writeFile(background, options.edit ? options.edit(source) : source);
  origin = await startOrigin((req, res) => res.end(`ok ${req.url}`));
  harness = await startProxyHarness({ engine: { listenerTimeoutMs: 20_000 } });
  const limits = { ...LIMITS, ...(options.hangLimitMs !== undefined && { hangLimitMs: options.hangLimitMs }) };
  host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, persona: 'firefox', backgroundTimeoutMs: 1000, limits });
}

const runtimeStates = () => harness!.entries.filter((e): e is RuntimeEntry & JournalEntry => e.kind === 'runtime').map((e) => e.state);
const logs = () => harness!.entries.filter((e): e is LogEntry & JournalEntry => e.kind === 'log' && e.source === 'Busy Start').map((e) => e.message);

/** The tracker's request through the proxy: cancelled by the extension (a failed fetch), and its onBeforeRequest outcome. */
async function requestTracker() {
  const result = await harness!.fetch('http://tracker.example/pixel.gif').then((response) => response.statusCode, (error: Error) => error.message);
  const entry = harness!.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === 'http://tracker.example/pixel.gif').at(-1) as WebRequestEntry;
  const ended = harness!.webRequestEntries((e) => e.event === 'onErrorOccurred' && e.details.requestId === entry.details.requestId)[0];
  return { result, outcome: entry.outcomes.find((o) => o.owner === 'Busy Start'), error: (ended?.details as { error?: string } | undefined)?.error };
}

describe('the watchdog judges hangs, not work', () => {
  it('an extension compiling its filter lists for 3 s after it started is not restarted; a request that arrives meanwhile waits for it and is blocked', { timeout: 60_000 }, async () => {
    await start(0, 3000);
    expect(host!.rules()[0]).toMatchObject({ state: 'active', persona: 'firefox' });
    const tracker = await requestTracker();
    expect(tracker.error).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect(tracker.outcome).toMatchObject({ status: 'applied', response: { cancel: true } });
    // It waited for the lists: the listener's answer came once they were compiled.
    expect(tracker.outcome!.durationMs).toBeGreaterThan(1000);
    await expect.poll(logs).toContainEqual(expect.stringMatching(/^lists: compiled \d+ filters in \d+ ms$/));
    expect(await (await harness!.fetch(`${origin!.url}/page`)).body.text()).toBe('ok /page');
    expect(runtimeStates()).toEqual(['starting', 'running']);
  });

  it('an extension whose top level compiles for 3 s before it registers its listener loads (not a background that never finishes); then it blocks', { timeout: 60_000 }, async () => {
    await start(3000, 0);
    expect(host!.rules()[0]).toMatchObject({ state: 'active' });
    expect(logs()).toContainEqual(expect.stringMatching(/^top level: compiled \d+ filters in (\d+) ms$/));
    expect(Number(/in (\d+) ms$/.exec(logs().find((m) => m.startsWith('top level'))!)![1])).toBeGreaterThanOrEqual(3000);
    expect((await requestTracker()).error).toBe('net::ERR_BLOCKED_BY_CLIENT');
    expect(runtimeStates()).toEqual(['starting', 'running']);
  });

  // The threshold is the thread's own CPU time: on a machine loaded 10× over its cores the loop
  // gets a tenth of a core, and reaching it takes ten times as long in wall time (7 s alone here).
  it('a top level that loops without progress is a hang: the load fails, naming the line, once it made no progress for the stuck threshold', { timeout: 180_000 }, async () => {
    await start(0, 0, { edit: (source) => source.replace("const started = Date.now();", "const started = Date.now();\nwhile (started > 0) {}") });
    const rule = host!.rules()[0]!;
    expect(rule.state).toBe('failed');
    expect(rule.error!.message).toMatch(/^the background's top-level code made no progress for \d+ ms of its own time \(a synchronous loop\?\); it was busy at .*background\.js:\d+:\d+$/);
    expect(rule.error!.location).toMatch(new RegExp(`background\\.js:${(await readFile(path.join(folder!, 'background.js'), 'utf8')).split('\n').findIndex((line) => line.startsWith('while (started'))+ 1}:\\d+$`));
  });

  // The limit is the thread's own CPU time too: bounded in wall time for a loaded machine.
  it('work past the hang limit is stopped and started again, as Chromium stops a service worker that has not answered for 30 s', { timeout: 180_000 }, async () => {
    await start(0, 60_000, { hangLimitMs: 2000 });
    await harness!.waitFor((e) => e.kind === 'runtime' && e.state === 'restarting', 150_000);
    const restarting = harness!.entries.find((e): e is RuntimeEntry & JournalEntry => e.kind === 'runtime' && e.state === 'restarting')!;
    expect(restarting.reason).toMatch(/^its event loop did not turn for \d+ ms of its own time \(busy past the 2 s limit\); starting it again in 100 ms$/);
    expect(restarting.location).toMatch(/compile\.js:\d+:\d+$/);
  });
});
