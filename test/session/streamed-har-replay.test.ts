// A HAR replayed as it is read (replay-input.ts streamedHarInput, har-requests.ts, trace-spill.ts),
// as `wrtui replay file.har --json` does: "read recordings and HAR files as a stream; memory must
// not grow with the file size", with the same verdicts, summary and journal as a HAR read whole.
import { createWriteStream, readdirSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/engine/journal.js';
import { openHarFile, readHarFile } from '../../src/engine/session/har/har-import.js';
import { streamedHarInput } from '../../src/engine/session/replay-input.js';
import type { RequestDiff } from '../../src/engine/session/request-diff.js';
import { encodeLine } from '../../src/engine/session/session-json.js';
import { replay, replaySession, type ReplayOptions, type ReplayResult } from '../../src/engine/session/session-replay.js';
import { rule } from './session-harness.js';

let dir: string;
let rulesDir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wrtui-streamed-har-'));
  rulesDir = join(dir, 'rules');
  await mkdir(rulesDir);
  await writeFile(
    join(rulesDir, 'no-images.ts'),
    rule('no-images', `  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'], types: ['image'] }, ['blocking']);`),
  );
});
afterAll(() => process.env.KEEP_HAR ? undefined : rm(dir, { recursive: true, force: true }));

const ORIGIN = 'http://shop.test';
const BIG_BODY = 80 * 1024; // over BODY_ON_DEMAND_BYTES: read again from the file when used

/**
 * A browser's HAR of `pages` page loads: each a document that sets a cookie, two images (one
 * redirected), a POST that sends the cookie back; a large script now and then. Listed in start
 * order but for entries a few places late, as browsers write them.
 */
function harEntries(pages: number): object[] {
  const entries: { started: number; value: object }[] = [];
  const at = (ms: number) => new Date(Date.UTC(2026, 10, 26, 6) + ms).toISOString();
  const exchange = (started: number, method: string, url: string, status: number, extra: { type?: string; requestHeaders?: object[]; responseHeaders?: object[]; body?: string; post?: string; redirectURL?: string }) => ({
    started,
    value: {
      startedDateTime: at(started),
      time: 12,
      _resourceType: extra.type ?? 'document',
      request: {
        method,
        url,
        httpVersion: 'HTTP/1.1',
        headers: [{ name: 'Accept', value: '*/*' }, ...(extra.requestHeaders ?? [])],
        queryString: [],
        cookies: [],
        headersSize: -1,
        bodySize: extra.post?.length ?? 0,
        ...(extra.post && { postData: { mimeType: 'application/json', text: extra.post } }),
      },
      response: {
        status,
        statusText: status === 302 ? 'Found' : 'OK',
        httpVersion: 'HTTP/1.1',
        headers: [{ name: 'Content-Type', value: 'text/plain' }, ...(extra.responseHeaders ?? [])],
        cookies: [],
        content: { size: extra.body?.length ?? 0, mimeType: 'text/plain', ...(extra.body !== undefined && { text: extra.body }) },
        redirectURL: extra.redirectURL ?? '',
        headersSize: -1,
        bodySize: extra.body?.length ?? 0,
      },
      cache: {},
      timings: { send: 1, wait: 6, receive: 5 },
    },
  });
  for (let page = 0; page < pages; page++) {
    const t = page * 40;
    entries.push(exchange(t, 'GET', `${ORIGIN}/page/${page}`, 200, { responseHeaders: [{ name: 'Set-Cookie', value: `visit=${page}; Path=/` }], body: `page ${page}` }));
    entries.push(exchange(t + 15, 'GET', `${ORIGIN}/img/${page}.png`, 200, { type: 'image', body: 'png' }));
    entries.push(exchange(t + 16, 'GET', `${ORIGIN}/old/${page}.png`, 302, { type: 'image', redirectURL: `${ORIGIN}/new/${page}.png` }));
    entries.push(exchange(t + 19, 'GET', `${ORIGIN}/new/${page}.png`, 200, { type: 'image', body: 'png' }));
    entries.push(exchange(t + 20, 'POST', `${ORIGIN}/api/${page}`, 200, { type: 'xhr', requestHeaders: [{ name: 'Content-Type', value: 'application/json' }], post: `{"page":${page}}`, body: '{"ok":true}' }));
    if (page % 50 === 0) entries.push(exchange(t + 21, 'GET', `${ORIGIN}/big/${page}.js`, 200, { type: 'script', body: 'x'.repeat(BIG_BODY) }));
  }
  // Every seventh entry written two places late.
  for (let i = 7; i + 2 < entries.length; i += 7) entries.splice(i + 2, 0, entries.splice(i, 1)[0]!);
  return entries.map((entry) => entry.value);
}

async function writeHar(file: string, pages: number, gzipped = false): Promise<string> {
  const out = createWriteStream(file);
  const sink = gzipped ? createGzip() : undefined;
  sink?.pipe(out);
  const target = sink ?? out;
  const closed = new Promise<void>((resolve, reject) => out.once('close', resolve).once('error', reject));
  const entries = harEntries(pages);
  target.write('{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[\n');
  entries.forEach((entry, i) => target.write(`${i > 0 ? ',\n' : ''}${JSON.stringify(entry)}`));
  target.end('\n]}}\n');
  await closed;
  return file;
}

/** What this process has open (Linux), as the names the files had. */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').map((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return '';
    }
  });
}

interface Observed {
  result: ReplayResult;
  diffs: string[];
  entries: string[];
}

/** Verdicts and journal lines as printed (but for how long listeners took), so that streamed and whole can be compared line for line. */
function observing(options: ReplayOptions = {}): { options: ReplayOptions; observed: (result: ReplayResult) => Observed } {
  const diffs: string[] = [];
  const entries: string[] = [];
  return {
    options: { ...options, keepJournal: false, onDiff: (diff: RequestDiff) => diffs.push(encodeLine(diff)), onEntry: (entry: JournalEntry) => entries.push(encodeLine(entry).replace(/"durationMs":[^,}]+/g, '"durationMs":0')) },
    observed: (result) => ({ result, diffs, entries }),
  };
}

describe('a HAR replayed as it is read', () => {
  for (const gzipped of [false, true]) {
    it(`gives the same verdicts, journal and summary as the HAR read whole${gzipped ? ' (gzipped)' : ''}: redirects linked, cookies carried, large bodies read again`, { timeout: 60_000 }, async () => {
      const file = await writeHar(join(dir, `shop${gzipped ? '.har.gz' : '.har'}`), 120, gzipped);
      const streamedRun = observing({ rulesDir });
      const streamed = streamedRun.observed(await replay(streamedHarInput(await openHarFile(file)), streamedRun.options));
      const wholeRun = observing({ rulesDir });
      const whole = wholeRun.observed(await replaySession(await readHarFile(file), wholeRun.options));

      expect(streamed.result.summary).toMatchObject({ source: 'har', baseline: 'no-rules', requests: 120 * 4 + 3, differing: 240, changes: { 'newly-blocked': 240 } });
      const timeless = (result: ReplayResult) => ({ ...result.summary, durationMs: 0, requestsPerSecond: 0 });
      expect(timeless(streamed.result)).toEqual(timeless(whole.result));
      expect(streamed.diffs).toEqual(whole.diffs);
      expect(streamed.entries).toEqual(whole.entries);
      // The page's cookie went back with the POST after it, and the big script's body was read again.
      const sent = streamed.entries.map((line) => JSON.parse(line)).filter((entry) => entry.event === 'onSendHeaders' && entry.details.url === `${ORIGIN}/api/7`);
      expect(sent[0].details.requestHeaders).toContainEqual({ name: 'Cookie', value: 'visit=7' });
      expect(streamed.entries.some((line) => line.includes(`"url":"${ORIGIN}/big/50.js"`) && line.includes('"statusCode":200'))).toBe(true);
    });
  }

  it('"memory must not grow with the file size": the file is read no further ahead than the replay needs, and the replay without rules waits on disk, not in memory', { timeout: 120_000 }, async () => {
    const pages = 2_400; // 12,048 entries, 9,648 requests
    const file = await writeHar(join(dir, 'many.har'), pages);
    const har = await openHarFile(file);
    let read = 0;
    const entries = har.entries.bind(har);
    har.entries = async function* (onRead) {
      const batches = entries(onRead);
      for (let next = await batches.next(); ; next = await batches.next()) {
        if (next.done) return next.value;
        read += next.value.length;
        yield next.value;
      }
    };
    const ahead: number[] = [];
    let baselineOnDisk = false;
    let done = 0;
    const result = await replay(streamedHarInput(har, { window: 256 }), {
      keepJournal: false,
      onDiff: () => {
        // The rules' pass (the pass without rules read the whole file once): entries read beyond
        // those of the requests compared so far (this file has 5 entries for 4 requests throughout).
        ahead.push(read - 12_048 - Math.round((++done * 12_048) / 9_648));
        baselineOnDisk ||= openFiles().some((name) => /wrtui-baseline-.*traces\.ndjson \(deleted\)$/.test(name));
      },
    });
    expect(result.summary).toMatchObject({ requests: 9_648, identical: 9_648 });
    // Ahead by the reorder window (256 entries here), the replay's read-ahead (512 requests) and the
    // chunk being read (1 MiB, some 1,200 entries): a fraction of the file, and not growing with it.
    const half = ahead.length / 2;
    expect(Math.max(...ahead)).toBeLessThan(12_048 / 4);
    expect(Math.max(...ahead.slice(half))).toBeLessThanOrEqual(Math.max(...ahead.slice(0, half)) + 256);
    expect(baselineOnDisk).toBe(true);
  });

  it('leaves nothing on disk: the replay without rules it is compared with is kept in a file already removed', { timeout: 30_000 }, async () => {
    const file = await writeHar(join(dir, 'clean.har.gz'), 20, true);
    const ours = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('wrtui-baseline-') || name.startsWith('wrtui-har-'));
    const before = await ours();
    const input = streamedHarInput(await openHarFile(file));
    let during: string[] = [];
    const result = await replay(input, { keepJournal: false, onDiff: async () => (during = await ours()) });
    expect(result.summary).toMatchObject({ requests: 81, identical: 81 });
    expect(during).toEqual(before);
    expect(await ours()).toEqual(before);
  });

  it('a HAR with no entries replays as nothing, with its summary', async () => {
    const file = join(dir, 'empty.har');
    await writeFile(file, '{"log":{"version":"1.2","creator":{"name":"test","version":"1"},"entries":[]}}');
    const result = await replay(streamedHarInput(await openHarFile(file)), { keepJournal: false });
    expect(result.summary).toMatchObject({ source: 'har', baseline: 'no-rules', requests: 0, warnings: [] });
  });

  it('a HAR changed between the replay without rules and the rules\' replay is refused, not compared with another file', async () => {
    const file = await writeHar(join(dir, 'changing.har'), 3);
    const har = await openHarFile(file);
    for await (const batch of har.entries()) expect(batch.length).toBeGreaterThan(0);
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    await expect(har.entries().next()).rejects.toThrow(`${file} changed since it was read; open it again to replay it`);
  });

  it('a file that is no HAR fails with the reason, after nothing was replayed', async () => {
    const file = join(dir, 'not-har.json');
    await writeFile(file, '{"log":{"version":"1.2","entries":{}}}');
    await expect(replay(streamedHarInput(await openHarFile(file)), { keepJournal: false })).rejects.toThrow('log.entries: not an array (an object)');
  });
});
