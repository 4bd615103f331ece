// A loaded machine is not a stuck rule (issue #33). With busy loops of the test's own keeping the
// machine's CPUs (8 on a 2-core machine, bounded in time), a listener that takes half a second of
// CPU takes seconds of wall time; it still answers within --listener-timeout (5 s), and so every
// verdict of its rule is given: the trackers that arrive meanwhile wait for it and are blocked, and
// the recording replays through the same rules with no difference. Before, the watchdog judged its
// ping by the wall clock: a ping queued behind that call went unanswered for a second, the worker
// was "not responding", and the trackers arriving then went through unblocked.
import { availableParallelism } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { runnableThreads, startCpuHog, type CpuHog } from '../helpers/cpu-hog.js';
import { recordSession, rule, type Recording } from '../session/session-harness.js';

// Its listener does `?work=` rounds of arithmetic before it answers (a rule checking a long list
// the slow way), and blocks trackers.
const RULES: Record<string, string> = {
  'block-tracker.ts': rule(
    'block-tracker',
    `  chrome.webRequest.onBeforeRequest.addListener((d: any) => {
    const work = Number(new URL(d.url).searchParams.get('work') ?? 0);
    let x = 1;
    for (let i = 0; i < work; i++) x = (x * 31 + i) | 0;
    return { cancel: d.url.includes('/tracker/') && x !== 0.5 };
  }, { urls: ['<all_urls>'] }, ['blocking']);`,
  ),
  'add-header.ts': rule('add-header', `  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Rule', value: 'yes' }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`),
};
/** 8 on 2 cores: as loaded as the machine of the issue, whatever the CI machine's cores. */
const HOGS = 4 * Math.max(2, availableParallelism());
/** The slow call's time on the idle machine (its CPU), and the wall time it is made to take on the loaded one (under --listener-timeout, 5 s). */
const SLOW_IDLE_MS = 400;
const SLOW_LOADED_MS = 3000;

let hog: CpuHog | undefined;
let recording: Recording | undefined;
afterAll(async () => {
  await hog?.stop();
  await recording?.cleanup();
});

const outcomesOf = (entries: readonly JournalEntry[], status: string) =>
  entries.filter((e): e is WebRequestEntry & JournalEntry => e.kind === 'webRequest').flatMap((e) => e.outcomes.filter((o) => o.status === status).map((o) => ({ url: e.details.url, ...o })));

describe('a loaded machine is not a stuck rule', () => {
  it(`under load (${HOGS} busy loops on the machine's CPUs) no blocking verdict is skipped for a listener that answers within --listener-timeout, and the recording replays with 0 differences`, { timeout: 120_000 }, async () => {
    let busiest = 0;
    recording = await recordSession({
      rules: RULES,
      async traffic(harness, origin) {
        /** Sends a request; resolves with how long it took (a blocked one is a failed fetch for the client). */
        const send = async (path: string) => {
          const started = performance.now();
          await harness.fetch(`${origin.url}${path}`).then((response) => response.body.dump(), () => {});
          return performance.now() - started;
        };
        // Some hundreds of ms of the listener's CPU on the idle machine…
        let work = 1_000_000;
        for (let i = 0; i < 4; i++) work = Math.round((work * SLOW_IDLE_MS) / Math.max(1, await send(`/page?calibrate=${i}&work=${work}`)));
        // …is seconds of wall time on the loaded one, below --listener-timeout.
        hog = startCpuHog(HOGS, 30_000);
        work = Math.round((work * SLOW_LOADED_MS) / (await send(`/page?loaded&work=${work}`)));
        // Three such calls, trackers arriving every 100 ms all the while, whatever the answers.
        for (let round = 0; round < 3; round++) {
          const slow = send(`/page?round=${round}&work=${work}`);
          const trackers: Promise<number>[] = [];
          for (let i = 0; i < SLOW_LOADED_MS / 100; i++) {
            busiest = Math.max(busiest, runnableThreads() ?? HOGS);
            trackers.push(send(`/tracker/${round}-${i}`));
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          await Promise.all([slow, ...trackers]);
        }
        await hog.stop();
      },
    });
    // The machine was loaded: as many threads ready to run as hogs.
    expect(busiest).toBeGreaterThanOrEqual(HOGS);
    expect(outcomesOf(recording.live, 'failed').map((o) => `${o.url}: ${o.owner} ${o.reason}`)).toEqual([]);
    const trackers = recording.live.filter((e) => e.kind === 'webRequest' && e.event === 'onBeforeRequest' && e.details.url.includes('/tracker/'));
    expect(trackers).toHaveLength(3 * (SLOW_LOADED_MS / 100));
    const blocked = recording.live.filter((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && e.details.url.includes('/tracker/'));
    expect(blocked).toHaveLength(trackers.length);

    const result = await replaySession(await openRecording(recording.file), { rulesDir: recording.rulesDir });
    expect(outcomesOf(result.journal, 'failed')).toEqual([]);
    expect(result.summary).toMatchObject({ identical: result.summary.requests, differing: 0 });
  });
});
