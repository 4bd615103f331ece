// A session file replayed as it is read (replay-input.ts, SessionBuilder, the streamed scheduler):
// "memory must not grow with the file size", requests are handed out only when whole, and a rule's
// redirect is answered from what the recording had fetched before.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal, type JournalEntry } from '../../src/engine/journal.js';
import type { RecordedRequest } from '../../src/engine/session/recorded-session.js';
import { FALLBACK_HORIZON, RecordedTransport } from '../../src/engine/session/recorded-transport.js';
import { streamedReplayInput } from '../../src/engine/session/replay-input.js';
import { SessionBuilder } from '../../src/engine/session/session-from-journal.js';
import { encodeLine } from '../../src/engine/session/session-json.js';
import { BODY, headerLine, requestEntries, writeSyntheticRecording } from './synthetic-recording.js';
import { readSessionEntries, readSessionFile } from '../../src/engine/session/session-reader.js';
import { replay } from '../../src/engine/session/session-replay.js';
import { TransportError } from '../../src/engine/web-request/transport.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrtui-streamed-replay-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a recording replayed as it is read', () => {
  it('"memory must not grow with the file size": the heap after the last request is what it was a third of the way in', { timeout: 60_000 }, async () => {
    const count = 12_000;
    const file = await writeSyntheticRecording(join(dir, 'big.ndjson'), count);
    const heap: number[] = [];
    let done = 0;
    const result = await replay(streamedReplayInput(file, readSessionEntries(file)), {
      keepJournal: false,
      onDiff: () => {
        done++;
        if (done === count / 3 || done === count) {
          gc();
          heap.push(process.memoryUsage().heapUsed);
        }
      },
    });
    expect(result.summary).toMatchObject({ requests: count, identical: count });
    // Read whole, the requests alone (2 KB bodies each) would add some 30 MB between the two.
    expect(heap[1]! - heap[0]!).toBeLessThan(4 * 1024 * 1024);
  });

  it('a recording with its header and no request yet replays as an empty wrtui session, its header read', async () => {
    const file = join(dir, 'empty.ndjson');
    await writeFile(file, `${headerLine({ redacted: true })}\n`);
    const input = streamedReplayInput(file, readSessionEntries(file));
    const result = await replay(input, { keepJournal: false });
    expect(result.summary).toMatchObject({ source: 'wrtui-session', requests: 0, skipped: 0, baseline: 'recording' });
    expect(input.redacted).toBe(true);
  });

  it('a request whose replay throws still gets its verdict (compared with nothing) and the summary says why; the requests after it are not held back', async () => {
    const file = join(dir, 'one-broken.ndjson');
    const lines = [headerLine()];
    let seq = 0;
    for (const [id, url] of [[1, 'http://a.test/1'], [2, 'http://[broken/2'], [3, 'http://a.test/3']] as const) {
      for (const entry of requestEntries(id, url.startsWith('http://[') ? 'http://a.test/2' : url)) {
        // The recording says a URL no request can be made to: the lifecycle throws on it.
        const line = encodeLine({ ...entry, seq: ++seq, time: 1_000 + seq });
        lines.push(id === 2 ? line.replaceAll('http://a.test/2', url) : line);
      }
    }
    await writeFile(file, `${lines.join('\n')}\n`);
    const verdicts: { index: number; identical: boolean }[] = [];
    const result = await replay(streamedReplayInput(file, readSessionEntries(file)), { keepJournal: false, onDiff: (diff) => verdicts.push({ index: diff.index, identical: diff.identical }) });
    expect(verdicts).toEqual([
      { index: 0, identical: true },
      { index: 1, identical: false },
      { index: 2, identical: true },
    ]);
    expect(result.summary).toMatchObject({ requests: 3, identical: 2, differing: 1 });
    expect(result.summary.warnings).toEqual([expect.stringMatching(/^a request could not be replayed: /)]);
  });

  it('stopped midway (the TUI\'s user quit or saved again): no further request starts, the result says stopped and holds what was compared by then, in order', { timeout: 30_000 }, async () => {
    const file = await writeSyntheticRecording(join(dir, 'to-stop.ndjson'), 4_000);
    const controller = new AbortController();
    const told: number[] = [];
    const result = await replay(streamedReplayInput(file, readSessionEntries(file)), {
      keepJournal: false,
      signal: controller.signal,
      onDiff: (diff) => {
        told.push(diff.index);
        if (told.length === 200) controller.abort();
      },
    });
    expect(result.stopped).toBe(true);
    expect(result.summary.requests).toBe(told.length);
    expect(told.length).toBeGreaterThanOrEqual(200);
    expect(told.length).toBeLessThan(1_000); // a few in flight finish; nothing new starts
    expect(told).toEqual([...told].sort((a, b) => a - b));
    expect(result.summary.warnings).toEqual([]); // stopping is no failure of any request
  });

  it('a request open for the whole recording (a long poll) holds reading back to its start, and everything still replays as a whole read does', { timeout: 30_000 }, async () => {
    const file = join(dir, 'long-poll.ndjson');
    const poll = requestEntries(1, 'http://a.test/poll');
    const lines = [headerLine()];
    let seq = 0;
    const line = (entry: (typeof poll)[number]) => lines.push(encodeLine({ ...entry, seq: ++seq, time: 1_000 + seq }));
    poll.slice(0, 3).forEach(line); // asked, sent: the answer comes at the very end
    for (let id = 2; id <= 1_500; id++) requestEntries(id, `http://a.test/item/${id}`).forEach(line);
    poll.slice(3).forEach(line);
    await writeFile(file, `${lines.join('\n')}\n`);
    const told: number[] = [];
    const started: string[] = [];
    const streamed = await replay(streamedReplayInput(file, readSessionEntries(file)), {
      keepJournal: false,
      onDiff: (diff) => told.push(diff.index),
      onEntry: (entry) => entry.kind === 'webRequest' && entry.event === 'onBeforeRequest' && started.push(new URL(entry.details.url).pathname),
    });
    expect(streamed.summary).toMatchObject({ requests: 1_500, identical: 1_500 });
    // Its steps run where they were recorded: first, although it is read last.
    expect(started.slice(0, 2)).toEqual(['/poll', '/item/2']);
    expect(told).toEqual(Array.from({ length: 1_500 }, (_, i) => i)); // in recording order, the poll first
  });

  it('a line longer than the chunks the file is read in (a big body) reads back whole', async () => {
    const file = join(dir, 'long-line.ndjson');
    const message = 'x'.repeat(3 * 1024 * 1024 + 17); // across four 1 MiB chunks
    await writeFile(file, `${headerLine()}\n${encodeLine({ kind: 'log', level: 'info', source: 'test', message, seq: 1, time: 1 })}\n${encodeLine({ kind: 'log', level: 'info', source: 'test', message: 'after', seq: 2, time: 2 })}\n`);
    const { entries } = await readSessionFile(file);
    expect(entries.map((entry) => (entry as { message: string }).message.length)).toEqual([message.length, 5]);
  });

  it('a request is handed out once whole: after the entry following its end (its response body), never before; one that never ends is counted, not replayed', () => {
    const builder = new SessionBuilder(undefined, { keep: false });
    const one = requestEntries(1, 'http://a.test/1').map((entry, i) => ({ ...entry, seq: i + 1, time: i }) as JournalEntry);
    for (const entry of one.slice(0, 6)) builder.add(entry); // up to onCompleted
    expect(builder.take()).toEqual([]);
    expect(builder.frontier()).toBe(0); // request 1 may still need every step from its first
    builder.add(one[6]!); // its body
    expect(builder.take()).toEqual([]);
    const two = requestEntries(2, 'http://a.test/2').map((entry, i) => ({ ...entry, seq: i + 8, time: i + 7 }) as JournalEntry);
    builder.add(two[0]!);
    const [ready] = builder.take();
    expect(ready!.hops[0]!.exchanges[0]!.response!.body).toEqual(BODY);
    expect(builder.frontier()).toBe(7); // request 2's first step
    builder.finish();
    expect(builder.incomplete).toBe(1);
    expect(builder.take()).toEqual([]);
  });

  it('a URL the recording fetched earlier answers a step with no recorded answer of its own; one fetched only later, or longer ago than the horizon, does not', () => {
    const journal = new Journal();
    const transport = new RecordedTransport(journal);
    const exchange = (position: number) => ({ at: { response: position }, response: { statusCode: 200, statusLine: 'HTTP/1.1 200 OK', headers: [], fromCache: false, bodyDecoded: false, body: new TextEncoder().encode(`at ${position}`) } });
    const request = (url: string, position: number): RecordedRequest => ({ index: 0, requestId: '1', type: 'other', tabId: -1, frameId: 0, parentFrameId: -1, storeId: '0', hops: [{ url, method: 'GET', exchanges: [exchange(position)], at: {} }], redirectNotFollowed: false, complete: true });
    transport.add(request('http://a.test/x', 500));
    transport.add(request('http://a.test/x', 100)); // added later, recorded earlier
    const ask = (position: number) => new TextDecoder().decode(transport.answer({ url: 'http://a.test/x', method: 'GET', headers: [] }, '9', undefined, undefined, position).readBody());
    expect(ask(600)).toBe('at 500');
    expect(ask(300)).toBe('at 100');
    expect(() => ask(50)).toThrow(TransportError);
    expect(() => ask(500 + FALLBACK_HORIZON + 1)).toThrow(/not in the recording/);
  });
});
