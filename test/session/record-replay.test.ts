// Record through a real proxy with rules, replay the file offline with the same rules: the same
// events and outcomes, request by request (modulo requestIds and timestamps, event-signature.ts).
// Then a rule edit shows exactly the difference it makes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getHeader } from '../../src/engine/headers.js';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { eventSignature } from '../../src/engine/session/event-signature.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import type { RecordedSession } from '../../src/engine/session/recorded-session.js';
import { streamedReplayInput } from '../../src/engine/session/replay-input.js';
import type { ReplayRunView } from '../../src/engine/session/replay-run-view.js';
import type { RequestDiff } from '../../src/engine/session/request-diff.js';
import { readSessionEntries } from '../../src/engine/session/session-reader.js';
import { replay, replaySession, type ReplayResult } from '../../src/engine/session/session-replay.js';
import type { OnSendHeadersDetails } from '../../src/engine/types.js';
import { NO_IMAGES_RULE, recordSession, rule, type Recording } from './session-harness.js';

let recording: Recording;
let session: RecordedSession;
let sameRules: ReplayResult;

beforeAll(async () => {
  recording = await recordSession({
    async traffic(harness, origin) {
      const curl = async (...args: string[]) => expect((await harness.curl(args)).code).toBe(0);
      await curl(`${origin.url}/page`); // sets session=abc123
      await curl('-L', `${origin.url}/r`); // 302 followed by the client
      await curl(`${origin.url}/r`); // 302 the client does not follow
      await curl('-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/a.png`);
      await curl('-d', 'x=1&y=two', `${origin.url}/form`); // formData
      await curl(`${origin.url}/api`); // carries the cookie; response stamped; a dry-run cancel
      await curl(`${origin.url}/auth`); // 401, credentials from a rule, 200
      await curl(`${origin.url}/gzip`, '--compressed');
      await harness.curl([`${origin.url}/tracker/pixel.gif`]); // cancelled by a rule: curl fails
      await curl(`${origin.url}/missing`);
      await harness.curl(['http://127.0.0.1:1/refused']); // a network error
      await curl('-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/b.png`);
      // Interleaved: /plain starts while /slow-cookie is out, and must not carry its cookie.
      const slow = harness.curl([`${origin.url}/slow-cookie?ms=300`]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await curl(`${origin.url}/api?while-slow`);
      await slow;
      await curl(`${origin.url}/api?after-slow`);
    },
  });
  session = await openRecording(recording.file);
  sameRules = await replaySession(session, { rulesDir: recording.rulesDir });
}, 60_000);

afterAll(() => recording?.cleanup());

function byRequest(entries: readonly JournalEntry[]): Map<string, WebRequestEntry[]> {
  const requests = new Map<string, WebRequestEntry[]>();
  for (const entry of entries) {
    if (entry.kind !== 'webRequest') continue;
    const list = requests.get(entry.details.requestId) ?? [];
    list.push(entry);
    requests.set(entry.details.requestId, list);
  }
  return requests;
}

describe('record → replay with the same rules', () => {
  it('replays every request of the recording', () => {
    expect(session.source).toBe('wrtui-session');
    expect(session.warnings).toEqual([]);
    expect(session.requests).toHaveLength(15);
    expect(sameRules.summary).toMatchObject({ requests: 15, identical: 15, differing: 0, skipped: 0, changes: {}, cookies: { added: [], removed: [] } });
    expect(sameRules.summary.rules.sort()).toEqual(['add-header', 'block-tracker', 'login', 'stamp-response', 'would-block-api']);
  });

  it('gives identical events and outcomes, request by request', () => {
    const live = [...byRequest(recording.live).values()];
    const replayed = [...byRequest(sameRules.journal).values()];
    expect(replayed).toHaveLength(live.length);
    live.forEach((events, i) => {
      expect(replayed[i]!.map(eventSignature)).toEqual(events.map(eventSignature));
    });
    // The comparison ignores requestIds and timestamps only: the events themselves are all there.
    const names = replayed.map((events) => events.map((e) => e.event).join(' '));
    expect(names).toContain('onBeforeRequest onErrorOccurred'); // the tracker, cancelled
    expect(names).toContain('onBeforeRequest onBeforeSendHeaders onSendHeaders onHeadersReceived onAuthRequired onBeforeSendHeaders onSendHeaders onHeadersReceived onResponseStarted onCompleted');
  });

  it('the same cookie changes happen, caused by the same requests', () => {
    const changes = (entries: readonly JournalEntry[]) => entries.filter((e) => e.kind === 'cookieChanged').map((e) => e.kind === 'cookieChanged' && `${e.changeInfo.cause} ${e.changeInfo.cookie.name}=${e.changeInfo.cookie.value}`);
    expect(changes(sameRules.journal)).toEqual(changes(recording.live));
    expect(changes(sameRules.journal)).toEqual(['explicit session=abc123', 'overwrite session=abc123', 'explicit session=abc123', 'explicit late=1']);
  });

  it('cookies evolve during replay through the lifecycle: the store, not the recording, puts them on requests', () => {
    const api = session.requests.find((request) => request.hops[0]!.url.endsWith('/api'))!;
    // The recorded client sent no Cookie: the store added it live, and the replay's store adds it again.
    expect(getHeader(api.hops[0]!.clientHeaders!, 'cookie')).toBeUndefined();
    const sent = sameRules.journal.find(
      (e): e is WebRequestEntry & JournalEntry => e.kind === 'webRequest' && e.event === 'onSendHeaders' && e.details.url.endsWith('/api'),
    )!;
    expect(getHeader((sent.details as OnSendHeadersDetails).requestHeaders!, 'cookie')).toBe('session=abc123');
  });

  it('replays interleaved requests in their recorded interleaving (a Set-Cookie reaches only later requests)', () => {
    const cookieSentTo = (query: string) => {
      const sent = sameRules.journal.find((e) => e.kind === 'webRequest' && e.event === 'onSendHeaders' && e.details.url.endsWith(query));
      return sent?.kind === 'webRequest' ? getHeader((sent.details as OnSendHeadersDetails).requestHeaders!, 'cookie') : 'missing';
    };
    expect(cookieSentTo('?while-slow')).toBe('session=abc123');
    expect(cookieSentTo('?after-slow')).toBe('session=abc123; late=1');
  });

  it('answers from the recording only: a network error is replayed as that error, bodies as recorded', () => {
    const refused = sameRules.journal.find((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && e.details.url.includes(':1/refused'));
    expect(refused?.kind === 'webRequest' && (refused.details as { error: string }).error).toBe('net::ERR_CONNECTION_REFUSED');
    const image = session.requests.find((request) => request.hops[0]!.url.endsWith('/img/a.png'))!;
    expect(image.type).toBe('image');
    expect(Buffer.from(image.hops[0]!.exchanges[0]!.response!.body!).toString('hex')).toMatch(/^89504e47/);
    const form = session.requests.find((request) => request.hops[0]!.url.endsWith('/form'))!;
    expect(form.hops[0]!.requestBody).toEqual({ formData: { x: ['1'], y: ['two'] } });
    expect(Buffer.from(form.hops[0]!.body!).toString()).toBe('x=1&y=two');
  });

  it('keeps what the client did with redirects: followed once, not followed once', () => {
    const redirects = session.requests.filter((request) => request.hops[0]!.url.endsWith('/r'));
    expect(redirects.map((request) => [request.hops.length, request.redirectNotFollowed])).toEqual([
      [2, false],
      [1, true],
    ]);
  });
});

describe('record → replay: when the cookie store was read', () => {
  it('a request whose onBeforeSendHeaders listener is still answering when another response sets a cookie is replayed without that cookie, as it was sent', async () => {
    // Live, the store is read before the listeners run; the request's onBeforeSendHeaders entry is
    // journaled after they answered, by when /page's cookie had landed.
    const slowListener = rule('slow-listener', `  chrome.webRequest.onBeforeSendHeaders.addListener(async (d: any) => { if (d.url.includes('slow-listener')) await new Promise((r) => setTimeout(r, 400)); return {}; }, { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`);
    const raced = await recordSession({
      rules: { 'slow-listener.ts': slowListener },
      async traffic(harness, origin) {
        const waiting = harness.curl([`${origin.url}/api?slow-listener`]);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect((await harness.curl([`${origin.url}/page`])).code).toBe(0); // sets session=abc123
        expect((await waiting).code).toBe(0);
      },
    });
    try {
      const api = raced.origin.received.find((request) => request.url.includes('slow-listener'))!;
      expect(api.headers.cookie).toBeUndefined();
      const { summary, diffs } = await replaySession(await openRecording(raced.file), { rulesDir: raced.rulesDir });
      expect(diffs.filter((diff) => !diff.identical)).toEqual([]);
      expect(summary.identical).toBe(2);
    } finally {
      await raced.cleanup();
    }
  }, 60_000);
});

describe('record → replay under edited rules', () => {
  it('a rule that newly cancels images: exactly the image requests are reported, as newly blocked', async () => {
    const rulesDir = await recording.editedRules({ 'no-images.ts': NO_IMAGES_RULE });
    const result = await replaySession(session, { rulesDir });
    const differing = result.diffs.filter((diff) => !diff.identical);
    expect(differing.map((diff) => [diff.url.replace(recording.origin.url, ''), diff.changes])).toEqual([
      ['/img/a.png', ['newly-blocked']],
      ['/img/b.png', ['newly-blocked']],
    ]);
    expect(differing[0]).toMatchObject({
      blocked: { recorded: null, replayed: { owner: 'no-images', event: 'onBeforeRequest' } },
      status: { recorded: 200, replayed: 'net::ERR_BLOCKED_BY_CLIENT' },
    });
    expect(result.summary).toMatchObject({ requests: 15, identical: 13, differing: 2, changes: { 'newly-blocked': 2 } });
  });

  it('a rule no longer cancelling: no longer blocked, and no recorded response to fall back on', async () => {
    const rulesDir = await recording.editedRules({ 'block-tracker.ts': rule('block-tracker', '') });
    const result = await replaySession(session, { rulesDir });
    const differing = result.diffs.filter((diff) => !diff.identical);
    expect(differing).toHaveLength(1);
    expect(differing[0]).toMatchObject({
      url: `${recording.origin.url}/tracker/pixel.gif`,
      changes: ['no-longer-blocked'],
      status: { recorded: 'net::ERR_BLOCKED_BY_CLIENT', replayed: 'net::ERR_CACHE_MISS' },
    });
    expect(result.journal.some((e) => e.kind === 'log' && e.source === 'replay' && e.message.includes('/tracker/pixel.gif is not in the recording'))).toBe(true);
  });

  it('a changed header, a changed response header and a changed redirect are reported as such', async () => {
    const rulesDir = await recording.editedRules({
      'add-header.ts': rule('add-header', `  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: [...d.requestHeaders, { name: 'X-Rule', value: 'changed' }] }), { urls: ['<all_urls>'] }, ['blocking', 'requestHeaders']);`),
      'stamp-response.ts': rule('stamp-response', ''),
      'moved.ts': rule('moved', `  chrome.webRequest.onBeforeRequest.addListener((d: any) => d.url.endsWith('/missing') ? { redirectUrl: d.url.replace('/missing', '/page') } : undefined, { urls: ['<all_urls>'] }, ['blocking']);`),
    });
    const result = await replaySession(session, { rulesDir });
    const api = result.diffs.find((diff) => diff.url === `${recording.origin.url}/api`)!;
    expect(api.changes).toEqual(['request-headers', 'response-headers', 'outcomes']);
    expect(api.requestHeaders).toEqual([{ hop: 0, url: `${recording.origin.url}/api`, added: [{ name: 'X-Rule', value: 'changed' }], removed: [{ name: 'X-Rule', value: 'yes' }] }]);
    expect(api.responseHeaders).toEqual({ added: [], removed: [{ name: 'X-Seen-By', value: 'wrtui' }] });
    const missing = result.diffs.find((diff) => diff.url === `${recording.origin.url}/missing`)!;
    expect(missing.changes).toContain('redirect');
    expect(missing.redirects).toEqual({ recorded: [], replayed: [`${recording.origin.url}/page`] });
    expect(missing.status).toEqual({ recorded: 404, replayed: 200 });
  });

  it('dry-run: every verdict computed, none applied', async () => {
    const result = await replaySession(session, { rulesDir: recording.rulesDir, dryRun: true });
    const tracker = result.diffs.find((diff) => diff.url.endsWith('/tracker/pixel.gif'))!;
    expect(tracker.changes).toEqual(['no-longer-blocked']);
    expect(result.journal.some((e) => e.kind === 'webRequest' && e.outcomes.some((o) => o.owner === 'block-tracker' && o.status === 'dry-run'))).toBe(true);
  });
});

describe('streamed, as printed output replays a file (read as it is replayed)', () => {
  const verdicts = (diffs: RequestDiff[]) => diffs.map(({ replayedRequestId: _id, ...diff }) => diff);
  const streamed = async (rulesDir: string) => {
    const diffs: RequestDiff[] = [];
    const result = await replay(streamedReplayInput(recording.file, readSessionEntries(recording.file)), { rulesDir, keepJournal: false, onDiff: (diff) => diffs.push(diff) });
    return { diffs, summary: result.summary };
  };

  it('gives every request the same verdict, in recording order, as the file read whole: under the same rules and under edited ones', async () => {
    const same = await streamed(recording.rulesDir);
    expect(same.diffs.map((diff) => diff.index)).toEqual(sameRules.diffs.map((diff) => diff.index));
    expect(verdicts(same.diffs)).toEqual(verdicts(sameRules.diffs));
    const { durationMs: _a, requestsPerSecond: _b, ...summary } = same.summary;
    const { durationMs: _c, requestsPerSecond: _d, ...wholeSummary } = sameRules.summary;
    expect(summary).toEqual(wholeSummary);

    const edited = await recording.editedRules({ 'no-images.ts': NO_IMAGES_RULE });
    const whole = await replaySession(session, { rulesDir: edited });
    const stream = await streamed(edited);
    expect(verdicts(stream.diffs)).toEqual(verdicts(whole.diffs));
    expect(stream.diffs.filter((diff) => !diff.identical).map((diff) => new URL(diff.url).pathname)).toEqual(['/img/a.png', '/img/b.png']);
  });

  it('verdicts are told as the replay goes (the first request\'s before the last request has started), and onLoaded can stop a run whose rules failed before any request', async () => {
    const told: string[] = [];
    await replay(streamedReplayInput(recording.file, readSessionEntries(recording.file)), {
      rulesDir: recording.rulesDir,
      keepJournal: false,
      onEntry: (entry) => entry.kind === 'webRequest' && entry.event === 'onBeforeRequest' && told.push(`start ${entry.details.url}`),
      onDiff: (diff) => told.push(`verdict #${diff.index}`),
    });
    const lastStart = told.findLastIndex((line) => line.startsWith('start'));
    expect(told.indexOf('verdict #0')).toBeLessThan(lastStart);

    const broken = await recording.editedRules({ 'broken.ts': 'export const manifest = { name: "broken" ;' });
    const seen: string[] = [];
    const stopped = await replaySession(session, {
      rulesDir: broken,
      onLoaded: (failures) => {
        seen.push(...failures);
        return false;
      },
      onDiff: () => seen.push('a verdict'),
    });
    expect(stopped.stopped).toBe(true);
    expect(stopped.summary.requests).toBe(0);
    expect(seen).toEqual([expect.stringMatching(/^broken failed to load/)]);
  });

  it('onLoaded is told the run\'s rules and cookie stores (the TUI\'s views), which show the run as it left them once it has ended; dryRunOverrides put a rule in dry-run for that run', async () => {
    const edited = await recording.editedRules({ 'no-images.ts': NO_IMAGES_RULE });
    let run: ReplayRunView | undefined;
    let rulesWhenLoaded: string[] = [];
    const result = await replaySession(session, {
      rulesDir: edited,
      dryRunOverrides: new Map([['no-images', true]]),
      onLoaded: (_failures, loaded) => {
        run = loaded;
        rulesWhenLoaded = loaded.rules().map((status) => `${status.name}${status.dryRun ? ' (dry-run)' : ''}`);
      },
    });
    expect(rulesWhenLoaded).toContain('no-images (dry-run)');
    // In dry-run the images are no longer blocked: only the new dry-run verdict differs.
    const images = result.diffs.filter((diff) => diff.url.includes('/img/'));
    expect(images.map((diff) => diff.changes)).toEqual([['outcomes'], ['outcomes']]);
    // After the run (its workers gone): its rules and the cookies its requests left.
    expect(run!.rules().find((status) => status.name === 'no-images')).toMatchObject({ state: 'active', dryRun: true, runtime: { state: 'stopped' } });
    expect(run!.storeIds).toEqual(['0', '1']);
    expect(run!.cookies('0').map((cookie) => `${cookie.name}=${cookie.value}`)).toContain('session=abc123');
  });
});

describe("record → replay: a request an extension made itself", () => {
  it('is recorded as made by it, and replayed so: its own listener is told of it, no other rule is, and it replays identical', async () => {
    // A rule that, once /page completes, fetches a beacon itself; another rule watches every URL.
    const beacon = rule('beacon', `  chrome.webRequest.onCompleted.addListener((d: any) => { if (d.url.endsWith('/page')) void fetch(d.url.replace('/page', '/api?beacon')); }, { urls: ['<all_urls>'] });
  chrome.webRequest.onSendHeaders.addListener((d: any) => { if (d.url.includes('beacon')) console.log('beacon sees its own request'); }, { urls: ['<all_urls>'] });`);
    const watcher = rule('watcher', `  chrome.webRequest.onSendHeaders.addListener((d: any) => { if (d.url.includes('beacon')) console.log('watcher sees the beacon'); }, { urls: ['<all_urls>'] });`);
    const made = await recordSession({
      rules: { 'beacon.ts': beacon, 'watcher.ts': watcher },
      async traffic(harness, origin) {
        expect((await harness.curl([`${origin.url}/page`])).code).toBe(0);
        await harness.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onCompleted' && entry.details.url.endsWith('beacon'));
        // The listeners' console lines travel after the events; the watcher's would come with the beacon's.
        await harness.waitFor((entry) => entry.kind === 'log' && entry.message === 'beacon sees its own request');
        await new Promise((resolve) => setTimeout(resolve, 200));
      },
    });
    try {
      const logs = (entries: readonly JournalEntry[]) => entries.flatMap((entry) => (entry.kind === 'log' && entry.message.includes('sees') ? [entry.message] : []));
      expect(logs(made.live)).toEqual(['beacon sees its own request']);
      const first = made.live.find((entry): entry is JournalEntry & WebRequestEntry => entry.kind === 'webRequest' && entry.event === 'onBeforeRequest' && entry.details.url.endsWith('beacon'));
      expect(first?.madeBy).toEqual({ extension: 'beacon', origin: expect.stringMatching(/^chrome-extension:\/\/[a-p]{32}$/) });
      expect(first?.details).toMatchObject({ type: 'xmlhttprequest', tabId: -1, frameId: -1 });

      const recorded = await openRecording(made.file);
      expect(recorded.requests.map((request) => request.madeBy)).toEqual([undefined, first?.madeBy]);
      const replayed = await replaySession(recorded, { rulesDir: made.rulesDir });
      expect(replayed.diffs.filter((diff) => !diff.identical)).toEqual([]);
      expect(replayed.summary).toMatchObject({ requests: 2, identical: 2 });
    } finally {
      await made.cleanup();
    }
  });
});
