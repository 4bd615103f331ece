// The fast path ("predict and verify", src/engine/replay/) against today's engine: over recorded
// sessions with redirects, cancels, auth, cookies read and written, stateful rules, DNR and rules
// changed between runs, both give the same report (every request's verdict and the summary). The
// fast path must be the one that ran where it can (same rules), and must hand the run over where
// it cannot vouch for the result.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRecording } from '../../src/engine/session/open-recording.js';
import type { RecordedSession } from '../../src/engine/session/recorded-session.js';
import { replaySession, type ReplayOptions, type ReplayResult } from '../../src/engine/session/session-replay.js';
import { replayPredicted, type PredictedReplayResult } from '../../src/engine/replay/predicted-replay.js';
import { BASE_RULES, recordSession, rule, type Recording } from '../session/session-harness.js';

/** The report as a user reads it: timing aside. */
function report(result: ReplayResult) {
  const { durationMs: _d, requestsPerSecond: _r, ...summary } = result.summary;
  return { diffs: result.diffs, summary };
}

/** Both engines on fresh copies of the session (each run reads it whole, as the TUI does). */
async function bothWays(file: string, options: ReplayOptions): Promise<{ fast: PredictedReplayResult; slow: ReplayResult }> {
  const fast = await replayPredicted(await openRecording(file), options);
  const slow = await replaySession(await openRecording(file), options);
  return { fast, slow };
}

const STATEFUL_RULES: Record<string, string> = {
  ...BASE_RULES,
  // A counter whose count is in what it answers: every request's header depends on all before it.
  'counter.ts': rule('counter', `  let n = 0; chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Count', value: String(++n) }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`),
  // Blocks every image after the second one it saw.
  'block-after-two.ts': rule('block-after-two', `  let seen = 0; chrome.webRequest.onBeforeRequest.addListener(() => (++seen > 2 ? { cancel: true } : {}), { urls: ['*://*/img/*'] }, ['blocking']);`),
  // Listens to cookie changes (the recorded ones reach it) without calling the host.
  'count-cookies.ts': rule('count-cookies', `  let changes = 0; chrome.cookies.onChanged.addListener(() => { changes++; });`),
  // Says every event it gets, in the order it gets them (its log is the order its worker saw).
  'order-watch.ts': rule('order-watch', `  for (const event of ['onBeforeRequest', 'onSendHeaders', 'onCompleted', 'onErrorOccurred']) (chrome.webRequest as any)[event].addListener((d: any) => console.log(event + ' ' + d.requestId + ' ' + d.url), { urls: ['<all_urls>'] });`),
};

let recording: Recording;

beforeAll(async () => {
  recording = await recordSession({
    rules: STATEFUL_RULES,
    async traffic(harness, origin) {
      const curl = async (...args: string[]) => expect((await harness.curl(args)).code).toBe(0);
      await curl(`${origin.url}/page`); // sets session=abc123
      await curl('-L', `${origin.url}/r`); // a redirect the client follows
      await curl(`${origin.url}/r`); // one it does not
      for (const name of ['a', 'b', 'c', 'd']) await harness.curl(['-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/${name}.png`]); // the last two blocked
      await curl('-d', 'x=1&y=two', `${origin.url}/form`);
      await curl(`${origin.url}/api`); // reads the cookie; response stamped; a dry-run cancel
      await curl(`${origin.url}/auth`); // 401, credentials from a rule, 200
      await harness.curl([`${origin.url}/tracker/pixel.gif`]); // cancelled
      await harness.curl(['http://127.0.0.1:1/refused']); // a network error
      const slow = harness.curl([`${origin.url}/slow-cookie?ms=300`]); // interleaved, writes a cookie late
      await new Promise((resolve) => setTimeout(resolve, 100));
      await curl(`${origin.url}/api?while-slow`);
      await slow;
      await curl(`${origin.url}/api?after-slow`); // reads the late cookie
    },
  });
}, 90_000);

afterAll(() => recording?.cleanup());

describe('predict and verify gives the slow path’s report', () => {
  it('with the recorded rules (stateful ones included) the fast path runs and every verdict matches the slow path', async () => {
    const { fast, slow } = await bothWays(recording.file, { rulesDir: recording.rulesDir });
    expect(fast.fellBack).toBeUndefined();
    expect(fast.path).toBe('fast');
    expect(slow.summary.identical).toBe(slow.summary.requests);
    expect(report(fast)).toEqual(report(slow));
  }, 60_000);

  it('a rule edited so that its answers change: the run goes to the slow path and the report is the slow path’s', async () => {
    const edited = await recording.editedRules({ 'counter.ts': rule('counter', `  let n = 10; chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Count', value: String(++n) }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`) });
    const { fast, slow } = await bothWays(recording.file, { rulesDir: edited });
    expect(fast.path).toBe('slow');
    expect(fast.fellBack?.reason).toMatch(/outcomes differ/);
    expect(slow.summary.differing).toBeGreaterThan(0);
    expect(report(fast)).toEqual(report(slow));
  }, 60_000);

  it('a stateful rule whose threshold moved (block after one image): the first request it now blocks, and the counter after it, come from the slow path', async () => {
    const edited = await recording.editedRules({ 'block-after-two.ts': rule('block-after-two', `  let seen = 0; chrome.webRequest.onBeforeRequest.addListener(() => (++seen > 1 ? { cancel: true } : {}), { urls: ['*://*/img/*'] }, ['blocking']);`) });
    const { fast, slow } = await bothWays(recording.file, { rulesDir: edited });
    expect(fast.path).toBe('slow');
    // /img/b.png is newly blocked; every later request sent one fewer to the counter (X-Count moved).
    const differing = slow.diffs.filter((diff) => !diff.identical);
    expect(differing[0]).toMatchObject({ changes: ['newly-blocked'] });
    expect(new URL(differing[0]!.url).pathname).toBe('/img/b.png');
    expect(differing.slice(1).every((diff) => diff.changes.includes('request-headers'))).toBe(true);
    expect(fast.fellBack?.requestIndex).toBe(differing[0]!.index);
    expect(report(fast)).toEqual(report(slow));
  }, 60_000);

  it('an edit that changes no answer (a comment) keeps the fast path, with the slow path’s report', async () => {
    const edited = await recording.editedRules({ 'counter.ts': `// edited\n${STATEFUL_RULES['counter.ts']}` });
    const { fast, slow } = await bothWays(recording.file, { rulesDir: edited });
    expect(fast.path).toBe('fast');
    expect(report(fast)).toEqual(report(slow));
  }, 60_000);

  it('a rule removed between runs: its recorded outcomes are missing, so the slow path decides', async () => {
    const edited = await recording.editedRules({ 'login.ts': `export const manifest = { name: 'login', permissions: ['webRequest'] };\nexport default function background() {}\n` });
    const { fast, slow } = await bothWays(recording.file, { rulesDir: edited });
    expect(fast.path).toBe('slow');
    expect(report(fast)).toEqual(report(slow));
  }, 60_000);

  it('a listener that reads the cookie store (cookies.getAll) cannot be predicted: the slow path runs it', async () => {
    const edited = await recording.editedRules({ 'count-cookies.ts': rule('count-cookies', `  chrome.webRequest.onCompleted.addListener(() => { chrome.cookies.getAll({}); }, { urls: ['*://*/api*'] });`) });
    const { fast, slow } = await bothWays(recording.file, { rulesDir: edited });
    expect(fast.path).toBe('slow');
    expect(fast.fellBack?.reason).toMatch(/count-cookies called cookies.getAll/);
    expect(report(fast)).toEqual(report(slow));
  }, 60_000);
});

describe('every worker gets its events in recorded order', () => {
  it('the same order on every run, and it is the recording\'s (with the requestIds the slow path gives)', async () => {
    const session = await openRecording(recording.file);
    const replayed = session.requests.filter((request) => request.complete && request.hops.length > 0);
    const replayedId = new Map(replayed.map((request, i) => [request.requestId, String(i + 1)]));
    const watched = new Set(['onBeforeRequest', 'onSendHeaders', 'onCompleted', 'onErrorOccurred']);
    const recorded = session.journal!.flatMap((entry) =>
      // An event journaled for the record only (an auth retry's, fired for no spec listener: firedFor []) reached nobody.
      entry.kind === 'webRequest' && watched.has(entry.event) && entry.firedFor === undefined && replayedId.has(entry.details.requestId) ? [`${entry.event} ${replayedId.get(entry.details.requestId)} ${entry.details.url}`] : [],
    );
    const seenIn = (result: ReplayResult) => result.journal.flatMap((entry) => (entry.kind === 'log' && entry.source === 'order-watch' ? [entry.message] : []));
    const runs: string[][] = [];
    for (let run = 0; run < 3; run++) {
      const result = await replayPredicted(await openRecording(recording.file), { rulesDir: recording.rulesDir, requestsPerSlice: 2 });
      expect(result.path).toBe('fast');
      runs.push(seenIn(result));
    }
    expect(recorded.length).toBeGreaterThan(20);
    for (const order of runs) expect(order).toEqual(recorded);
  }, 90_000);
});

describe('stopping a fast run', () => {
  it('stopped midway (the TUI saved again): it says so, and reports only requests verified by then, in recording order', async () => {
    const stop = new AbortController();
    const result = await replayPredicted(await openRecording(recording.file), { rulesDir: recording.rulesDir, requestsPerSlice: 2, signal: stop.signal, onProgress: () => stop.abort() });
    expect(result.path).toBe('fast');
    expect(result.stopped).toBe(true);
    const all = (await openRecording(recording.file)).requests.filter((request) => request.complete && request.hops.length > 0).length;
    expect(result.diffs.length).toBeGreaterThan(0);
    expect(result.diffs.length).toBeLessThan(all);
    expect(result.summary.requests).toBe(result.diffs.length);
    const indices = result.diffs.map((diff) => diff.index);
    expect(indices).toEqual([...indices].sort((a, b) => a - b));
  }, 60_000);
});

describe('declarativeNetRequest goes to the slow path', () => {
  const manifest = JSON.stringify({
    manifest_version: 3,
    name: 'Ad Rules',
    version: '1.0',
    permissions: ['declarativeNetRequest'],
    host_permissions: ['<all_urls>'],
    declarative_net_request: { rule_resources: [{ id: 'main', enabled: true, path: 'rules.json' }] },
  });
  const dnrRules = JSON.stringify([{ id: 1, action: { type: 'block' }, condition: { urlFilter: '/tracker/' } }]);
  let dnr: Recording;
  let session: RecordedSession;
  beforeAll(async () => {
    dnr = await recordSession({
      rules: { 'ad-rules/manifest.json': manifest, 'ad-rules/rules.json': dnrRules },
      async traffic(harness, origin) {
        await harness.curl([`${origin.url}/tracker/pixel.gif`]);
        await harness.curl([`${origin.url}/page`]);
      },
    });
    session = await openRecording(dnr.file);
  }, 60_000);
  afterAll(() => dnr?.cleanup());

  it('with the ruleset: handed over, the same report', async () => {
    const { fast, slow } = await bothWays(dnr.file, { rulesDir: dnr.rulesDir });
    expect(fast.path).toBe('slow');
    expect(report(fast)).toEqual(report(slow));
  }, 60_000);

  it('with the ruleset gone: the recorded DNR block is no longer there, and the fast path does not call it identical', async () => {
    const edited = await dnr.editedRules({ 'ad-rules/rules.json': '[]' });
    const fast = await replayPredicted(session, { rulesDir: edited });
    expect(fast.path).toBe('slow');
    expect(fast.summary.differing).toBeGreaterThan(0);
  }, 60_000);
});
