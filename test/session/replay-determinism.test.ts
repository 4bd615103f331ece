// "Every worker receives its events in one order, the same on every run": a recording replayed 10
// times through rules whose answers come back in a different order each time (random delays in the
// worker), two of them stateful (a counter that stamps each request with its count; a rule that
// blocks after N requests). Each worker logs every event it is given, in the order it got them: those
// lists, and every request's verdict, must be the same on every run.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamedReplayInput } from '../../src/engine/session/replay-input.js';
import { readSessionEntries } from '../../src/engine/session/session-reader.js';
import { replay } from '../../src/engine/session/session-replay.js';
import { rule } from './session-harness.js';
import { writeSyntheticRecording } from './synthetic-recording.js';

const REQUESTS = 400;
const RUNS = 10;

/** Logs each event as received, `<event> <url> #<how many it has seen>`; `answer` (blocking) after a random wait, made from what it had seen then (`seen`). */
function logging(name: string, event: string, answer: string, extra: string[] = ['blocking']): string {
  return rule(
    name,
    `  let n = 0;
  chrome.webRequest.${event}.addListener(async (d: any) => {
    const seen = ++n;
    console.log('${event} ' + d.url + ' #' + seen);
    if (${extra.includes('blocking')}) await new Promise((resolve) => setTimeout(resolve, Math.random() * 4));
    return ${answer};
  }, { urls: ['<all_urls>'] }, ${JSON.stringify(extra)});`,
  );
}

const RULES: Record<string, string> = {
  // Blocking with random delays: answers come back in a different order every run.
  'slow-before-request.ts': logging('slow-before-request', 'onBeforeRequest', '{}'),
  // Stateful: stamps each request with how many it has seen.
  'counter.ts': logging('counter', 'onBeforeSendHeaders', "{ requestHeaders: [...d.requestHeaders, { name: 'X-Count', value: String(seen) }] }", ['blocking', 'requestHeaders']),
  // Stateful: blocks every request after the 300th it sees.
  'block-after-300.ts': logging('block-after-300', 'onHeadersReceived', 'seen > 300 ? { cancel: true } : {}', ['blocking']),
  // Not blocking: what it is told after the others' waits (onSendHeaders follows onBeforeSendHeaders' answers).
  'watch-sent.ts': logging('watch-sent', 'onSendHeaders', 'undefined', ['requestHeaders']),
  'watch-ends.ts': rule(
    'watch-ends',
    `  chrome.webRequest.onCompleted.addListener((d: any) => console.log('onCompleted ' + d.url), { urls: ['<all_urls>'] });
  chrome.webRequest.onErrorOccurred.addListener((d: any) => console.log('onErrorOccurred ' + d.url), { urls: ['<all_urls>'] });`,
  ),
};

let dir: string;
let file: string;
let rulesDir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrtui-replay-determinism-'));
  file = await writeSyntheticRecording(join(dir, 'recording.ndjson'), REQUESTS);
  rulesDir = join(dir, 'rules');
  await mkdir(rulesDir);
  for (const [name, source] of Object.entries(RULES)) await writeFile(join(rulesDir, name), source);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

interface RunRecord {
  /** Each worker's log lines, in the order it wrote them. */
  received: Map<string, string[]>;
  /** Each request's verdict: identical or not, and what differs. */
  verdicts: string[];
}

async function replayOnce(): Promise<RunRecord> {
  const received = new Map<string, string[]>();
  const verdicts: string[] = [];
  const result = await replay(streamedReplayInput(file, readSessionEntries(file)), {
    rulesDir,
    keepJournal: false,
    onEntry: (entry) => {
      if (entry.kind !== 'log' || !(entry.source in RULE_NAMES)) return;
      let lines = received.get(entry.source);
      if (!lines) received.set(entry.source, (lines = []));
      lines.push(entry.message);
    },
    onDiff: (diff) => verdicts.push(JSON.stringify([diff.index, diff.identical, diff.changes, diff.blocked, diff.status, diff.requestHeaders, diff.responseHeaders, diff.events])),
  });
  expect(result.summary.requests).toBe(REQUESTS);
  return { received, verdicts };
}

const RULE_NAMES: Record<string, true> = Object.fromEntries(Object.keys(RULES).map((name) => [name.replace(/\.ts$/, ''), true]));

describe('replay order is deterministic', () => {
  it('every worker receives its events in the same order on every run, stateful rules included, and 10 of 10 runs give the same verdicts', { timeout: 300_000 }, async () => {
    const first = await replayOnce();
    // Every rule saw every request (the blocker after 300 cancels: later requests still reach it first).
    expect(first.received.get('slow-before-request')).toHaveLength(REQUESTS);
    expect(first.received.get('watch-sent')!.length).toBeGreaterThan(0);
    expect(first.verdicts).toHaveLength(REQUESTS);
    for (let run = 2; run <= RUNS; run++) {
      const again = await replayOnce();
      for (const [worker, lines] of first.received) {
        const other = again.received.get(worker) ?? [];
        // A non-blocking listener's last few lines may still be on their way when the replay closes its workers.
        const compared = Math.min(lines.length, other.length);
        expect(compared).toBeGreaterThan(REQUESTS - 16);
        const moved = lines.slice(0, compared).filter((line, index) => other[index] !== line).length;
        expect({ run, worker, moved }).toEqual({ run, worker, moved: 0 });
      }
      const differing = first.verdicts.filter((verdict, index) => again.verdicts[index] !== verdict).length;
      expect({ run, differing }).toEqual({ run, differing: 0 });
    }
  });
});
