// Session format 2: a webRequest entry is written as what changed since its request's previous
// event, and read back exactly; format 1 recordings still read and replay.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { readSessionFile, SessionFileError } from '../../src/engine/session/session-reader.js';
import { decodeLine, encodeLine } from '../../src/engine/session/session-json.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { DeltaDecoder, DeltaEncoder } from '../../src/engine/session/webrequest-delta.js';
import { BASE_RULES, recordSession, type Recording } from './session-harness.js';

const V1_FIXTURE = join(import.meta.dirname, '../../fixtures/sessions/v1-session.ndjson');

let seq = 0;
function webRequest(event: WebRequestEntry['event'], details: Record<string, unknown>, extra: Partial<WebRequestEntry> = {}): JournalEntry {
  seq++;
  return { kind: 'webRequest', event, details: details as unknown as WebRequestEntry['details'], outcomes: [], ...extra, seq, time: 1_000 + seq };
}

/** Encodes the entries as one file would hold them, then decodes those lines in order. */
function roundTrip(entries: JournalEntry[]): { lines: string[]; back: unknown[] } {
  const encoder = new DeltaEncoder();
  const decoder = new DeltaDecoder();
  const lines = entries.map((entry) => encoder.line(entry));
  return { lines, back: lines.map((line) => decoder.entry(decodeLine(line) as Record<string, unknown>)) };
}

const base = { requestId: '7', url: 'http://a.test/x', method: 'GET', frameId: 0, parentFrameId: -1, tabId: -1, type: 'main_frame' };
const sent = [{ name: 'Host', value: 'a.test' }, { name: 'Accept', value: '*/*' }];
const received = [{ name: 'Content-Type', value: 'text/html' }];

describe('format 2 lines', () => {
  it('rebuild every entry exactly: same keys, same order, same values', () => {
    const entries: JournalEntry[] = [
      webRequest('onBeforeRequest', { ...base, timeStamp: 1, requestBody: { raw: [{ bytes: new Uint8Array([1, 2, 3]).buffer }] } }),
      webRequest('onBeforeSendHeaders', { ...base, timeStamp: 2, requestHeaders: sent }, {
        outcomes: [{ owner: 'gpc', event: 'onBeforeSendHeaders', durationMs: 0.5, status: 'applied', response: { requestHeaders: [...sent, { name: 'Sec-GPC', value: '1' }] } }],
        wrtuiAdded: [{ header: 'Cookie', value: 'a=1', source: 'cookie store' } as never],
      }),
      { kind: 'log', level: 'info', source: 'rule', message: 'between', seq: 99, time: 99 } as JournalEntry,
      webRequest('onSendHeaders', { ...base, timeStamp: 3, requestHeaders: [...sent, { name: 'Sec-GPC', value: '1' }] }),
      webRequest('onHeadersReceived', { ...base, timeStamp: 4, statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders: received }),
      // Keys in another order than the previous event's: still rebuilt in this order.
      webRequest('onResponseStarted', { ...base, timeStamp: 5, fromCache: false, statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders: received, ip: '127.0.0.1' }),
      webRequest('onCompleted', { ...base, timeStamp: 6, fromCache: false, statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders: received, ip: '127.0.0.1' }, {
        outcomes: [{ owner: 'other', event: 'onResponseStarted', durationMs: 1, status: 'applied' }],
      }),
    ];
    const { back } = roundTrip(entries);
    expect(back.map((entry) => encodeLine(entry))).toEqual(entries.map((entry) => encodeLine(entry)));
  });

  it('do not repeat what the request said before: a later event holds its requestId and what changed', () => {
    const { lines } = roundTrip([
      webRequest('onBeforeRequest', { ...base, timeStamp: 1 }),
      webRequest('onBeforeSendHeaders', { ...base, timeStamp: 2, requestHeaders: sent }),
      webRequest('onSendHeaders', { ...base, timeStamp: 3, requestHeaders: sent }),
      webRequest('onHeadersReceived', { ...base, timeStamp: 4, statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders: received }),
      webRequest('onCompleted', { ...base, timeStamp: 5, statusCode: 200, statusLine: 'HTTP/1.1 200 OK', responseHeaders: received }),
    ]);
    expect(JSON.parse(lines[0]!).details).toEqual({ ...base, timeStamp: 1 });
    expect(JSON.parse(lines[1]!)).toMatchObject({ kind: 'webRequest', event: 'onBeforeSendHeaders', delta: { requestId: '7', timeStamp: 2, requestHeaders: sent } });
    expect(JSON.parse(lines[1]!).delta).toEqual({ requestId: '7', timeStamp: 2, requestHeaders: sent });
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('outcomes');
    expect(JSON.parse(lines[2]!).delta).toEqual({ requestId: '7', timeStamp: 3 });
    expect(JSON.parse(lines[3]!)).toMatchObject({ delta: { requestId: '7', timeStamp: 4, statusCode: 200 }, gone: ['requestHeaders'] });
    expect(JSON.parse(lines[4]!).delta).toEqual({ requestId: '7', timeStamp: 5 });
    for (const line of lines.slice(1)) expect(line).not.toContain('a.test/x');
  });

  it('a listener outcome keeps its event when it is not the entry’s; outcomes of another request are untouched', () => {
    const outcome = { owner: 'o', event: 'onAuthRequired', durationMs: 1, status: 'applied' } as const;
    const { lines, back } = roundTrip([webRequest('onBeforeRequest', { ...base, timeStamp: 1 }, { outcomes: [outcome] })]);
    expect(JSON.parse(lines[0]!).outcomes).toEqual([outcome]);
    expect((back[0] as WebRequestEntry).outcomes).toEqual([outcome]);
  });

  it('a request seen again after its last event is written whole (its state was let go)', () => {
    const entries = [
      webRequest('onBeforeRequest', { ...base, timeStamp: 1 }),
      webRequest('onErrorOccurred', { ...base, timeStamp: 2, error: 'net::ERR_ABORTED' }),
      webRequest('onBeforeRequest', { ...base, timeStamp: 3 }),
    ];
    const { lines, back } = roundTrip(entries);
    expect(JSON.parse(lines[2]!).details).toEqual({ ...base, timeStamp: 3 });
    expect(back.map((entry) => encodeLine(entry))).toEqual(entries.map((entry) => encodeLine(entry)));
  });
});

describe('a malformed format 2 line', () => {
  it('is refused saying what is wrong: a delta without a requestId, a "gone" that is not a list of names', () => {
    const decoder = new DeltaDecoder();
    decoder.entry({ kind: 'webRequest', event: 'onBeforeRequest', details: { ...base, timeStamp: 1 }, outcomes: [] });
    expect(() => decoder.entry({ kind: 'webRequest', event: 'onSendHeaders', delta: 42 })).toThrow('a webRequest "delta" without a requestId');
    expect(() => decoder.entry({ kind: 'webRequest', event: 'onSendHeaders', delta: { requestId: 7 } })).toThrow('a webRequest "delta" without a requestId');
    expect(() => decoder.entry({ kind: 'webRequest', event: 'onSendHeaders', delta: { requestId: '7' }, gone: 'url' })).toThrow('a webRequest "gone" that is not a list of names');
    expect(() => decoder.entry({ kind: 'webRequest', event: 'onSendHeaders', delta: { requestId: '7' }, gone: [1] })).toThrow('a webRequest "gone" that is not a list of names');
    // The request is still open: a good line after the bad ones rebuilds.
    expect(decoder.entry({ kind: 'webRequest', event: 'onSendHeaders', delta: { requestId: '7', timeStamp: 2 } })).toEqual({ kind: 'webRequest', event: 'onSendHeaders', details: { ...base, timeStamp: 2 }, outcomes: [] });
  });
});

describe('a recording (format 2)', () => {
  let recording: Recording;
  beforeAll(async () => {
    recording = await recordSession({
      async traffic(harness, origin) {
        await harness.curl([`${origin.url}/page`]);
        await harness.curl(['-L', `${origin.url}/r`]);
        await harness.curl(['-H', 'Sec-Fetch-Dest: image', `${origin.url}/tracker/t.png`]);
        await harness.curl([`${origin.url}/auth`]);
      },
    });
  }, 60_000);
  afterAll(() => recording?.cleanup());

  it('reads back as exactly the journal the live session wrote', async () => {
    const { header, entries } = await readSessionFile(recording.file);
    expect(header?.version).toBe(2);
    expect(entries.length).toBeGreaterThan(20);
    expect(entries.map((entry) => encodeLine(entry))).toEqual(recording.live.slice(0, entries.length).map((entry) => encodeLine(entry)));
  });

  it('names a request’s URL on its first line only, unless a redirect changed it', async () => {
    const lines = (await readFile(recording.file, 'utf8')).split('\n').slice(1, -1).map((line) => JSON.parse(line));
    const events = lines.filter((line) => line.kind === 'webRequest');
    const requestId = (line: { details?: { requestId: string }; delta?: { requestId: string } }) => (line.details ?? line.delta)!.requestId;
    const first = events.find((line) => line.event === 'onBeforeRequest' && line.details.url.endsWith('/page'))!;
    const page = events.filter((line) => requestId(line) === requestId(first));
    expect(page.map((line) => line.event)).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted']);
    expect(page.filter((line) => JSON.stringify(line).includes('/page"'))).toEqual([first]);
    // The redirected request names its new URL once more: on its next onBeforeRequest, where it changed.
    const redirected = events.filter((line) => requestId(line) === requestId(events.find((line) => line.event === 'onBeforeRequest' && line.details.url.endsWith('/r'))!));
    expect(redirected.filter((line) => (line.details ?? line.delta).url !== undefined).map((line) => line.event)).toEqual(['onBeforeRequest', 'onBeforeRequest']);
  });

  it('a line that continues a request the file never opened is an error naming the line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-delta-'));
    try {
      const lines = (await readFile(recording.file, 'utf8')).split('\n');
      const first = lines.findIndex((line) => line.includes('"event":"onBeforeRequest"'));
      const file = join(dir, 'cut.ndjson');
      await writeFile(file, lines.filter((_, i) => i !== first).join('\n'));
      const reading = readSessionFile(file);
      await expect(reading).rejects.toBeInstanceOf(SessionFileError);
      await expect(reading).rejects.toThrow(/cut\.ndjson:\d+: a webRequest "delta" of request \S+, whose earlier events are not before it in the file/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a format wrtui does not know yet (version 3) is refused, saying so', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-delta-'));
    try {
      const [header, ...rest] = (await readFile(recording.file, 'utf8')).split('\n');
      const file = join(dir, 'future.ndjson');
      await writeFile(file, [header!.replace('"version":2', '"version":3'), ...rest].join('\n'));
      await expect(readSessionFile(file)).rejects.toThrow('future.ndjson:1: a version 3 "wrtui-session" file, newer than this wrtui reads (2)');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a format 1 recording (every entry whole, before format 2)', () => {
  it('still reads and replays through the rules it was recorded with, every request identical', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-v1-'));
    try {
      const rulesDir = join(dir, 'rules');
      await mkdir(rulesDir);
      for (const [name, source] of Object.entries(BASE_RULES)) await writeFile(join(rulesDir, name), source);
      const session = await openRecording(V1_FIXTURE);
      expect(session.header?.version).toBe(1);
      const result = await replaySession(session, { rulesDir });
      expect(result.summary).toMatchObject({ requests: 8, identical: 8, differing: 0 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
