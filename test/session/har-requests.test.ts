// A HAR read as a stream is cut into the same requests, with the same timeline, as read whole, as
// long as its entries are no further out of start order than the window; a request is handed out
// long before the file ends, and what comes later never goes before what was handed out.
import { describe, expect, it } from 'vitest';
import { HarRequestBuilder, type HarEntry } from '../../src/engine/session/har/har-requests.js';
import type { RecordedRequest } from '../../src/engine/session/recorded-session.js';

function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

const BASE = Date.parse('2026-11-26T06:00:00Z');

function entry(index: number, started: number, url: string, extra: Partial<HarEntry> = {}): HarEntry {
  return {
    index,
    started,
    sentAfter: 1,
    respondedAfter: 5,
    endedAfter: 8,
    method: 'GET',
    url,
    clientHeaders: [{ name: 'Accept', value: '*/*' }],
    response: { statusCode: extra.redirectTo ? 302 : 200, statusLine: 'HTTP/1.1 200 OK', headers: [], fromCache: false, bodyDecoded: true },
    internalRedirect: false,
    type: 'xmlhttprequest',
    tabId: -1,
    frameId: -1,
    parentFrameId: -1,
    storeId: '0',
    ...extra,
  };
}

/**
 * A browser-like HAR: requests starting a few ms apart (some in the same ms), lasting up to 2 s,
 * some redirected once or twice, some wrtui groups with an auth retry; listed in start order but
 * for entries moved up to `disorder` places.
 */
function syntheticEntries(count: number, disorder: number, seed: number): HarEntry[] {
  const random = seeded(seed);
  const entries: HarEntry[] = [];
  let clock = BASE;
  for (let n = 0; entries.length < count; n++) {
    clock += Math.floor(random() * 4);
    const url = `http://127.0.0.1:9/r/${n}`;
    const ends = { endedAfter: 8 + Math.floor(random() * 2000) };
    const kind = random();
    if (kind < 0.15) {
      const target = `${url}/moved`;
      entries.push(entry(0, clock, url, { redirectTo: target, endedAfter: 3 }));
      entries.push(entry(0, clock + 4, target, ends));
    } else if (kind < 0.2) {
      const requestId = `w${n}`;
      entries.push(entry(0, clock, url, { group: { requestId, hop: 0, attempt: 0 }, endedAfter: 3 }));
      entries.push(entry(0, clock + 3, url, { group: { requestId, hop: 0, attempt: 1 }, ...ends }));
    } else {
      entries.push(entry(0, clock, url, ends));
    }
  }
  entries.length = count;
  // A few entries listed later than their start order (as a browser writing them when they end might).
  for (let i = 0; i + disorder < entries.length; i++) {
    if (random() < 0.2) {
      const moved = entries.splice(i, 1)[0]!;
      entries.splice(i + Math.floor(random() * (disorder + 1)), 0, moved);
    }
  }
  entries.forEach((each, index) => (each.index = index));
  return entries;
}

const copy = (entries: HarEntry[]) => entries.map((each) => ({ ...each }));

function readWhole(entries: HarEntry[]): { requests: RecordedRequest[]; times: number[] } {
  const builder = new HarRequestBuilder({ window: Infinity });
  for (const each of entries) builder.add(each);
  builder.finish();
  const taken = builder.take();
  return { requests: taken.requests.sort((a, b) => a.index - b.index), times: taken.times };
}

/** Reads as a stream, checking after each entry what a replay relies on; returns what it read and when. */
function readStreamed(entries: HarEntry[], window: number) {
  const builder = new HarRequestBuilder({ window });
  const requests: RecordedRequest[] = [];
  const times: number[] = [];
  let frontier = 0;
  let lowestIndex = 0;
  let firstHandedOutAt: number | undefined;
  const check = (read: number) => {
    const taken = builder.take();
    times.push(...taken.times);
    for (const request of taken.requests) {
      firstHandedOutAt ??= read;
      const positions = request.hops.flatMap((hop) => [hop.at.beforeRequest, hop.at.responseStarted, hop.at.end, ...hop.exchanges.flatMap((exchange) => [exchange.at.beforeSendHeaders, exchange.at.response])]).filter((at) => at !== undefined);
      // Every step placed, and never before what was promised when it was still to come.
      expect(Math.max(...positions)).toBeLessThan(times.length);
      expect(Math.min(...positions)).toBeGreaterThanOrEqual(frontier);
      expect(request.index).toBeGreaterThanOrEqual(lowestIndex);
      requests.push(request);
    }
    const nextFrontier = builder.frontier();
    expect(nextFrontier).toBeGreaterThanOrEqual(frontier);
    frontier = nextFrontier;
    lowestIndex = builder.lowestIndexToCome();
  };
  entries.forEach((each, read) => {
    builder.add(each);
    check(read);
  });
  builder.finish();
  check(entries.length);
  return { requests: requests.sort((a, b) => a.index - b.index), times, firstHandedOutAt, warnings: builder.warnings() };
}

describe('HarRequestBuilder: a HAR read as a stream', () => {
  it('makes exactly the requests and timeline a whole read makes, for entries within the window of their start order', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const entries = syntheticEntries(3000, 6, seed);
      const whole = readWhole(copy(entries));
      const streamed = readStreamed(copy(entries), 16);
      expect(streamed.warnings).toEqual([]);
      expect(streamed.times).toEqual(whole.times);
      expect(streamed.requests).toEqual(whole.requests);
      expect(whole.requests.some((request) => request.hops.length === 2)).toBe(true);
      expect(whole.requests.some((request) => request.hops[0]!.exchanges.length === 2)).toBe(true);
    }
  });

  it('hands requests out while the file is still being read: what is held is the window, not the file', () => {
    const entries = syntheticEntries(5000, 6, 9);
    const streamed = readStreamed(copy(entries), 16);
    // The longest request lasts 2 s, about 1,000 entries here: nothing waits longer than that.
    expect(streamed.firstHandedOutAt).toBeLessThan(1500);
    expect(streamed.requests.length).toBe(readWhole(copy(entries)).requests.length);
  });

  it('a redirect followed nowhere within the window ends its request there, as a redirect nobody followed', () => {
    const entries = [entry(0, BASE, 'http://127.0.0.1:9/a', { redirectTo: 'http://127.0.0.1:9/b', endedAfter: 3 })];
    for (let i = 1; i <= 20; i++) entries.push(entry(i, BASE + i, `http://127.0.0.1:9/other/${i}`));
    entries.push(entry(21, BASE + 30, 'http://127.0.0.1:9/b'));
    const streamed = readStreamed(copy(entries), 8);
    expect(streamed.requests[0]!.hops.map((hop) => hop.url)).toEqual(['http://127.0.0.1:9/a']);
    expect(streamed.requests[0]!.redirectNotFollowed).toBe(true);
    expect(streamed.requests.at(-1)!.hops.map((hop) => hop.url)).toEqual(['http://127.0.0.1:9/b']);
    // Read whole, the same file links them.
    expect(readWhole(copy(entries)).requests[0]!.hops).toHaveLength(2);
  });

  it('whatever the order, redirects and groups (loops, groups spread past the window), every request is handed out once and its steps are placed once, in time order', () => {
    for (const seed of [11, 12, 13, 14, 15, 16]) {
      const random = seeded(seed);
      const urls = ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b', 'http://127.0.0.1:9/c'];
      const pick = () => urls[Math.floor(random() * urls.length)]!;
      const entries: HarEntry[] = [];
      for (let index = 0; index < 600; index++) {
        const kind = random();
        const extra: Partial<HarEntry> = {};
        if (kind < 0.3) extra.redirectTo = pick();
        else if (kind < 0.45) extra.group = { requestId: `g${Math.floor(random() * 20)}`, hop: Math.floor(random() * 3), attempt: Math.floor(random() * 2) };
        if (random() < 0.1) delete extra.response;
        entries.push(entry(index, BASE + Math.floor(random() * 5_000), pick(), { ...extra, endedAfter: Math.floor(random() * 3_000) }));
      }
      const streamed = readStreamed(entries, 8);
      expect(streamed.requests.map((request) => request.index)).toEqual(streamed.requests.map((_, i) => i));
      const positions = streamed.requests.flatMap((request) => request.hops.flatMap((hop) => [hop.at.beforeRequest, hop.at.responseStarted, hop.at.end, ...hop.exchanges.flatMap((exchange) => [exchange.at.beforeSendHeaders, exchange.at.response])])).filter((at) => at !== undefined);
      // Each position given once (a retried hop's earlier attempt's end is overwritten by its last, as read whole).
      expect(new Set(positions).size).toBe(positions.length);
      expect(Math.max(...positions)).toBeLessThan(streamed.times.length);
      expect(positions.length).toBeGreaterThan(streamed.times.length * 0.95);
      expect(streamed.times).toEqual([...streamed.times].sort((a, b) => a - b));
    }
  });

  it('an entry further out of start order than the window still replays, placed with the entry before it, and says so', () => {
    const entries: HarEntry[] = [];
    for (let i = 0; i < 30; i++) entries.push(entry(i, BASE + 10 * i, `http://127.0.0.1:9/${i}`));
    entries.push(entry(30, BASE + 5, 'http://127.0.0.1:9/late'));
    const streamed = readStreamed(entries, 8);
    expect(streamed.requests).toHaveLength(31);
    const late = streamed.requests.find((request) => request.hops[0]!.url.endsWith('/late'))!;
    expect(streamed.times[late.hops[0]!.at.beforeRequest!]).toBe(BASE + 10 * 21);
    expect(streamed.warnings).toEqual(['log.entries[30]: 1 entry starts more than 8 entries out of start order; replayed as if started with the entry before']);
  });
});
