// HAR 1.2 import: a real Chromium export and a Firefox-shaped one become replayable sessions;
// invalid files fail with the JSON path of the problem.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getHeader } from '../../src/engine/headers.js';
import { HarFormatError } from '../../src/engine/session/har/har-validation.js';
import { BODY_ON_DEMAND_BYTES, sessionFromHar } from '../../src/engine/session/har/har-import.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import type { OnSendHeadersDetails } from '../../src/engine/types.js';
import { rule } from './session-harness.js';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';

const FIXTURES = join(import.meta.dirname, '../../fixtures');
const CHROMIUM = join(FIXTURES, 'har/chromium.har');
const FIREFOX = join(FIXTURES, 'har/firefox.har');

async function withRules(files: Record<string, string>, run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-har-rules-'));
  try {
    for (const [name, source] of Object.entries(files)) await writeFile(join(dir, name), source);
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const NO_IMAGES = { 'no-images.ts': rule('no-images', `  chrome.webRequest.onBeforeRequest.addListener(() => ({ cancel: true }), { urls: ['<all_urls>'], types: ['image'] }, ['blocking']);`) };

describe("Chromium's own HAR export (fixtures/har/chromium.har)", () => {
  it('imports as one request per resource, the redirect as two hops of one request', async () => {
    const session = await openRecording(CHROMIUM);
    expect(session.source).toBe('har');
    const summary = session.requests.map((request) => [request.type, request.hops.map((hop) => `${hop.method} ${new URL(hop.url).pathname}`)]);
    expect(summary).toEqual([
      ['main_frame', ['GET /']],
      ['stylesheet', ['GET /style.css']],
      ['script', ['GET /app.js']],
      ['image', ['GET /old-logo.png', 'GET /logo.png']],
      ['xmlhttprequest', ['GET /api/data.json']],
      ['xmlhttprequest', ['POST /api/echo']],
    ]);
  });

  it('keeps headers (without proxy-only ones), statuses, bodies (base64 decoded, content-encoding undone) and the POST body', async () => {
    const session = await openRecording(CHROMIUM);
    const [page, style, , image, , post] = session.requests;
    expect(getHeader(page!.hops[0]!.clientHeaders!, 'sec-fetch-dest')).toBe('document');
    expect(getHeader(page!.hops[0]!.clientHeaders!, 'proxy-connection')).toBeUndefined();
    expect(page!.hops[0]!.exchanges[0]!.response).toMatchObject({ statusCode: 200, statusLine: 'HTTP/1.1 200 OK', ip: '127.0.0.1' });
    expect(Buffer.from(style!.hops[0]!.exchanges[0]!.response!.body!).toString()).toContain('font-family');
    expect(image!.hops[0]!.exchanges[0]!.response!.statusCode).toBe(302);
    const png = await readFile(join(FIXTURES, 'e2e/image.png'));
    expect(Buffer.from(image!.hops[1]!.exchanges[0]!.response!.body!).equals(png)).toBe(true);
    expect(Buffer.from(post!.hops[0]!.body!).toString()).toBe('{"hello":"wrtui"}');
    expect(post!.hops[0]!.requestBody!.raw).toHaveLength(1);
  });

  it('replays without rules: the cookies the document set ride on the later requests, from the store', async () => {
    const result = await replaySession(await openRecording(CHROMIUM));
    expect(result.summary).toMatchObject({ baseline: 'no-rules', requests: 6, identical: 6 });
    const sent = result.journal.filter((e) => e.kind === 'webRequest' && e.event === 'onSendHeaders');
    const logo = sent.find((e) => e.kind === 'webRequest' && e.details.url.endsWith('/logo.png'));
    expect(logo?.kind === 'webRequest' && getHeader((logo.details as OnSendHeadersDetails).requestHeaders!, 'cookie')).toBe('theme=dark; visits=1');
    expect(result.journal.filter((e) => e.kind === 'cookieChanged')).toHaveLength(2);
  });

  it('a rule that cancels images: exactly the image request is newly blocked', async () => {
    await withRules(NO_IMAGES, async (rulesDir) => {
      const result = await replaySession(await openRecording(CHROMIUM), { rulesDir });
      expect(result.diffs.filter((diff) => !diff.identical).map((diff) => [new URL(diff.url).pathname, diff.changes])).toEqual([['/old-logo.png', ['newly-blocked']]]);
    });
  });

  it('re-runs of a HAR held in memory (the TUI\'s, on every save) compare with the replay without rules made the first time: the first verdict does not wait for another', async () => {
    await withRules(NO_IMAGES, async (rulesDir) => {
      const session = await openRecording(CHROMIUM);
      const phasesOf = async (options: { persona?: 'chrome' } = {}) => {
        const phases = new Set<string>();
        const result = await replaySession(session, { rulesDir, ...options, onProgress: (progress) => phases.add(progress.phase) });
        return { phases: [...phases], verdicts: result.diffs.map((diff) => `${new URL(diff.url).pathname} ${diff.changes.join(',') || 'same'}`), baseline: result.summary.baseline };
      };
      const first = await phasesOf();
      expect(first.phases).toEqual(['replaying without rules', 'replaying']);
      const again = await phasesOf();
      expect(again.phases).toEqual(['replaying']);
      expect(again.verdicts).toEqual(first.verdicts);
      expect(again.baseline).toBe('no-rules');
      // Another persona sees other events: its own replay without rules.
      expect((await phasesOf({ persona: 'chrome' })).phases).toEqual(['replaying without rules', 'replaying']);
    });
  });
});

describe("Firefox's export shape (fixtures/har/firefox.har)", () => {
  it('imports leniently: relative redirectURLs, base64 content, a failed entry, missing optional fields', async () => {
    const session = await openRecording(FIREFOX);
    expect(session.requests.map((request) => [request.type, request.hops.map((hop) => `${hop.method} ${new URL(hop.url).pathname}${new URL(hop.url).search}`)])).toEqual([
      ['main_frame', ['GET /']],
      ['stylesheet', ['GET /main.css']],
      ['script', ['GET /offline.js']],
      ['image', ['GET /photo.png', 'GET /img/photo.png']],
      ['main_frame', ['POST /login', 'GET /account']],
      ['xmlhttprequest', ['GET /api/items?page=2']],
    ]);
    const [, , failed, image, login] = session.requests;
    expect(failed!.hops[0]!.exchanges).toEqual([]);
    expect(Buffer.from(image!.hops[1]!.exchanges[0]!.response!.body!).equals(await readFile(join(FIXTURES, 'e2e/image.png')))).toBe(true);
    expect(login!.hops[0]!.requestBody).toEqual({ formData: { user: ['alice'], remember: ['on'] } });
    // The 303 turned the POST into a GET; the client's second request had no body.
    expect(login!.hops[1]!.body).toBeUndefined();
  });

  it('replays: the failed request has no answer in the recording, the rest run as recorded', async () => {
    const result = await replaySession(await openRecording(FIREFOX));
    expect(result.summary).toMatchObject({ requests: 6, identical: 6 });
    const errors = result.journal.filter((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred');
    expect(errors.map((e) => e.kind === 'webRequest' && [new URL(e.details.url).pathname, (e.details as { error: string }).error])).toEqual([['/offline.js', 'net::ERR_CACHE_MISS']]);
    const account = result.journal.find((e) => e.kind === 'webRequest' && e.event === 'onSendHeaders' && e.details.url.endsWith('/account'));
    expect(account?.kind === 'webRequest' && getHeader((account.details as OnSendHeadersDetails).requestHeaders!, 'cookie')).toBe('lang=en; seen=1');
  });
});

// Test data to break in every way: typed loosely on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

describe('invalid HAR files', () => {
  const valid = () => JSON.parse(JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      entries: [
        {
          startedDateTime: '2026-01-01T00:00:00.000Z',
          time: 1,
          request: { method: 'GET', url: 'http://a.test/', headers: [] },
          response: { status: 200, statusText: 'OK', headers: [], content: { size: 2, mimeType: 'text/plain', text: 'hi' } },
        },
      ],
    },
  })) as { log: Loose };

  const cases: [string, (har: ReturnType<typeof valid>) => unknown, string][] = [
    ['no log', () => ({}), 'log: missing'],
    ['entries not an array', (har) => ((har.log.entries = {}), har), 'log.entries: not an array (an object)'],
    ['url missing', (har) => (delete har.log.entries[0].request.url, har), 'log.entries[0].request.url: missing'],
    ['url relative', (har) => ((har.log.entries[0].request.url = '/x'), har), 'log.entries[0].request.url: not an absolute URL ("/x")'],
    ['method a number', (har) => ((har.log.entries[0].request.method = 7), har), 'log.entries[0].request.method: not a string (7)'],
    ['no response', (har) => (delete har.log.entries[0].response, har), 'log.entries[0].response: missing'],
    ['status not a number', (har) => ((har.log.entries[0].response.status = 'ok'), har), 'log.entries[0].response.status: not a number ("ok")'],
    ['bad date', (har) => ((har.log.entries[0].startedDateTime = 'yesterday'), har), 'log.entries[0].startedDateTime: not a date ("yesterday")'],
    ['header without name', (har) => ((har.log.entries[0].request.headers = [{ value: 'x' }]), har), 'log.entries[0].request.headers[0].name: missing'],
    ['unknown encoding', (har) => ((har.log.entries[0].response.content = { size: 1, mimeType: 'x', text: 'a', encoding: 'rot13' }), har), 'log.entries[0].response.content.encoding: unknown encoding "rot13" (HAR knows base64)'],
  ];
  for (const [what, mutate, message] of cases) {
    it(`${what}: "${message}"`, () => {
      expect(() => sessionFromHar('x.har', mutate(valid()))).toThrow(new HarFormatError(message.split(': ')[0]!, message.slice(message.indexOf(': ') + 2)));
      expect(() => sessionFromHar('x.har', mutate(valid()))).toThrow(message);
    });
  }

  it('accepts what is only optional: no creator, no timings, no content, numbers as strings, _-fields', () => {
    const har = valid();
    delete har.log.creator;
    const entry = har.log.entries[0];
    delete entry.time;
    delete entry.response.content;
    entry.response.status = '204';
    entry._priority = 'High';
    entry.request._custom = { anything: true };
    const session = sessionFromHar('x.har', har);
    expect(session.requests[0]!.hops[0]!.exchanges[0]!.response).toMatchObject({ statusCode: 204 });
    expect(session.warnings).toEqual(['log.creator: missing (imported anyway)']);
  });
});

describe('large bodies of a HAR file', () => {
  const bigBody = Buffer.alloc(100 * 1024, 'wrtui ');
  const harWith = (body: Buffer) =>
    JSON.stringify({
      log: {
        version: '1.2',
        creator: { name: 'test', version: '1' },
        entries: [
          {
            startedDateTime: '2026-11-01T00:00:00.000Z',
            time: 5,
            request: { method: 'GET', url: 'http://big.test/file.txt', httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
            response: { status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', headers: [{ name: 'Content-Type', value: 'text/plain' }], cookies: [], content: { size: body.length, mimeType: 'text/plain', text: body.toString('base64'), encoding: 'base64' }, redirectURL: '', headersSize: -1, bodySize: body.length },
            cache: {},
            timings: { send: 1, wait: 2, receive: 2 },
          },
        ],
      },
    });

  it(`are not held by the session (${BODY_ON_DEMAND_BYTES / 1024} KiB and more): read again from the file when the replay needs them, and a file changed since is refused, saying so`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-har-big-'));
    try {
      const file = join(dir, 'big.har');
      await writeFile(file, harWith(bigBody));
      const session = await openRecording(file);
      const response = session.requests[0]!.hops[0]!.exchanges[0]!.response!;
      // Not a value the session holds: a reading from the file.
      expect(Object.getOwnPropertyDescriptor(response, 'body')?.get).toBeTypeOf('function');
      expect(Buffer.from(response.body!).equals(bigBody)).toBe(true);
      const bodies: Uint8Array[] = [];
      const result = await replaySession(session, { journalBodies: true, onEntry: (entry) => entry.kind === 'body' && bodies.push(entry.bytes) });
      expect(result.summary).toMatchObject({ requests: 1, identical: 1 });
      expect(bodies.map((bytes) => Buffer.from(bytes).equals(bigBody))).toEqual([true]);

      await writeFile(file, harWith(Buffer.alloc(100 * 1024, 'other ')));
      expect(() => response.body).toThrow(/big\.har changed since it was read; open it again to replay it/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('of a gzipped HAR (no reading at an offset) are read again from a private decompressed copy that has no name on disk (nothing is left, however wrtui ends)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-har-big-'));
    try {
      const file = join(dir, 'big.har.gz');
      await writeFile(file, gzipSync(harWith(bigBody)));
      const spills = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('wrtui-har-'));
      const before = await spills();
      const session = await openRecording(file);
      expect(await spills()).toEqual(before);
      await rm(file);
      const response = session.requests[0]!.hops[0]!.exchanges[0]!.response!;
      expect(Object.getOwnPropertyDescriptor(response, 'body')?.get).toBeTypeOf('function');
      expect(Buffer.from(response.body!).equals(bigBody)).toBe(true);
      expect(Buffer.from(response.body!).equals(bigBody)).toBe(true); // as often as asked
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
