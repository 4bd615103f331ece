// HAR 1.2 export: any session, loadable by Chrome DevTools, importing back to the same requests,
// statuses, headers and bodies, and replaying as the original.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { eventSignature } from '../../src/engine/session/event-signature.js';
import { sessionToHar, writeHarFile } from '../../src/engine/session/har/har-export.js';
import type { HarLog } from '../../src/engine/session/har/har-format.js';
import { sessionFromHar } from '../../src/engine/session/har/har-import.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import type { RecordedSession } from '../../src/engine/session/recorded-session.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { devToolsHarProblems } from './devtools-har-loader.js';
import { BASE_RULES, recordSession, rule, type Recording } from './session-harness.js';

let recording: Recording;
let session: RecordedSession;
let har: HarLog;
let imported: RecordedSession;

beforeAll(async () => {
  recording = await recordSession({
    rules: {
      ...BASE_RULES,
      'moved.ts': rule('moved', `  chrome.webRequest.onBeforeRequest.addListener((d: any) => ({ redirectUrl: d.url.replace('/old-api', '/api') }), { urls: ['*://*/old-api*'] }, ['blocking']);`),
    },
    async traffic(harness, origin) {
      await harness.curl([`${origin.url}/page`]);
      await harness.curl(['-L', `${origin.url}/r`]);
      await harness.curl([`${origin.url}/r`]);
      await harness.curl(['-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/a.png`]);
      await harness.curl(['-d', 'x=1&y=two', `${origin.url}/form`]);
      await harness.curl([`${origin.url}/auth`]);
      await harness.curl([`${origin.url}/gzip`, '--compressed']);
      await harness.curl([`${origin.url}/tracker/pixel.gif`]);
      await harness.curl(['-L', `${origin.url}/old-api`]);
      await harness.curl(['http://127.0.0.1:1/refused']);
    },
  });
  session = await openRecording(recording.file);
  // Through JSON, as a file would be.
  har = JSON.parse(JSON.stringify(sessionToHar(session)));
  imported = sessionFromHar('exported.har', har);
}, 60_000);

afterAll(() => recording?.cleanup());

describe('export', () => {
  it('writes HAR 1.2 that Chrome DevTools loads', () => {
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator).toEqual({ name: 'wrtui', version: '0.1.0' });
    expect(devToolsHarProblems(har)).toEqual([]);
  });

  it('is written entry by entry, 0600, byte for byte what JSON.stringify(har, null, 2) makes (a big session\'s HAR can be longer than one string)', async () => {
    const file = join(recording.dir, 'written.har');
    await writeHarFile(file, har);
    expect(await readFile(file, 'utf8')).toBe(`${JSON.stringify(har, null, 2)}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const empty = { log: { ...har.log, entries: [] } };
    const emptyFile = join(recording.dir, 'empty.har');
    await writeHarFile(emptyFile, empty);
    expect(await readFile(emptyFile, 'utf8')).toBe(`${JSON.stringify(empty, null, 2)}\n`);
  });

  it('one entry per exchange: redirects linked by redirectURL, a credentials retry as two, blocked and failed requests as status 0', () => {
    const rows = har.log.entries.map((entry) => [entry.request.method, new URL(entry.request.url).pathname, entry.response.status, entry.response.redirectURL.replace(recording.origin.url, ''), entry.response._error ?? '']);
    expect(rows).toEqual([
      ['GET', '/page', 200, '', ''],
      ['GET', '/r', 302, '/page', ''],
      ['GET', '/page', 200, '', ''],
      ['GET', '/r', 302, '/page', 'net::ERR_ABORTED'],
      ['GET', '/img/a.png', 200, '', ''],
      ['POST', '/form', 200, '', ''],
      ['GET', '/auth', 401, '', ''],
      ['GET', '/auth', 200, '', ''],
      ['GET', '/gzip', 200, '', ''],
      ['GET', '/tracker/pixel.gif', 0, '', 'net::ERR_BLOCKED_BY_CLIENT'],
      ['GET', '/old-api', 307, '/api', ''],
      ['GET', '/api', 200, '', ''],
      ['GET', '/refused', 0, '', 'net::ERR_CONNECTION_REFUSED'],
    ]);
  });

  it('holds what wrtui received; what the rules sent is in _webRequest', () => {
    const api = har.log.entries.find((entry) => entry.request.url.endsWith('/api'))!;
    expect(api.request.headers.find((h) => h.name === 'X-Rule')).toBeUndefined();
    expect(api.request.cookies).toEqual([]);
    expect(api._webRequest!.sentHeaders).toEqual(expect.arrayContaining([{ name: 'X-Rule', value: 'yes' }, { name: 'Cookie', value: 'session=abc123' }]));
    expect(api.response.headers.find((h) => h.name === 'X-Seen-By')).toBeUndefined();
    expect(api._resourceType).toBe('other');
    const gzip = har.log.entries.find((entry) => entry.request.url.endsWith('/gzip'))!;
    expect(gzip.response.content).toMatchObject({ text: 'compressed hello', mimeType: 'text/plain; charset=utf-8' });
    expect(gzip.response.content.compression).toBeGreaterThan(0);
    const image = har.log.entries.find((entry) => entry.request.url.endsWith('/img/a.png'))!;
    expect(image.response.content.encoding).toBe('base64');
    expect(image._resourceType).toBe('image');
    const form = har.log.entries.find((entry) => entry.request.url.endsWith('/form'))!;
    expect(form.request.postData).toEqual({ mimeType: 'application/x-www-form-urlencoded', text: 'x=1&y=two', params: [{ name: 'x', value: '1' }, { name: 'y', value: 'two' }] });
  });

  it('exports a browser HAR (the Chromium fixture) loadable by DevTools too', async () => {
    const chromium = await openRecording(join(import.meta.dirname, '../../fixtures/har/chromium.har'));
    expect(devToolsHarProblems(JSON.parse(JSON.stringify(sessionToHar(chromium))))).toEqual([]);
  });

  it('the DevTools check itself refuses what DevTools refuses', async () => {
    const broken = JSON.parse(JSON.stringify(har));
    delete broken.log.entries[0].request.headersSize;
    delete broken.log.entries[1].timings.wait;
    broken.log.entries[2].startedDateTime = 'soon';
    expect(devToolsHarProblems(broken)).toEqual([
      'log.entries[0].request.headersSize: Casting to number results in NaN',
      'log.entries[1].timings.wait: Casting to number results in NaN',
      'log.entries[2].startedDateTime: Invalid date format',
    ]);
    const firefox = JSON.parse(await readFile(join(import.meta.dirname, '../../fixtures/har/firefox.har'), 'utf8'));
    expect(devToolsHarProblems(firefox)).toEqual([]);
  });
});

describe('export → import round trip', () => {
  it('gives the same requests, hops, statuses, headers and bodies', () => {
    const shape = (s: RecordedSession) =>
      s.requests.map((request) => ({
        type: request.type,
        redirectNotFollowed: request.redirectNotFollowed,
        hops: request.hops.map((hop) => ({
          url: hop.url,
          method: hop.method,
          // Headers of a request cancelled before it was sent are unknown; exported as none.
          clientHeaders: hop.clientHeaders ?? [],
          body: hop.body && Buffer.from(hop.body).toString('base64'),
          requestBody: hop.requestBody,
          error: hop.error,
          exchanges: hop.exchanges.map((exchange) => ({
            sentHeaders: exchange.sentHeaders,
            error: exchange.error,
            status: exchange.response?.statusCode,
            statusLine: exchange.response?.statusLine,
            headers: exchange.response?.headers,
            ip: exchange.response?.ip,
          })),
        })),
      }));
    expect(shape(imported)).toEqual(shape(session));
  });

  it('bodies: the same bytes, decoded where the wire had a content coding', () => {
    const bodies = (s: RecordedSession) => s.requests.flatMap((request) => request.hops.flatMap((hop) => hop.exchanges.map((exchange) => exchange.response?.body && Buffer.from(exchange.response.body).toString('hex'))));
    const before = bodies(session);
    const after = bodies(imported);
    const gzipIndex = session.requests.flatMap((r) => r.hops.flatMap((h) => h.exchanges.map(() => h.url))).findIndex((url) => url.endsWith('/gzip'));
    expect(Buffer.from(after[gzipIndex]!, 'hex').toString()).toBe('compressed hello');
    expect(after.filter((_, i) => i !== gzipIndex)).toEqual(before.filter((_, i) => i !== gzipIndex));
  });

  it('the imported HAR replays, under the same rules, exactly as the recording happened', async () => {
    const result = await replaySession(imported, { rulesDir: recording.rulesDir });
    const perRequest = (entries: readonly JournalEntry[]) => {
      const requests = new Map<string, string[]>();
      for (const entry of entries) {
        if (entry.kind !== 'webRequest') continue;
        const list = requests.get(entry.details.requestId) ?? [];
        list.push(eventSignature(entry as WebRequestEntry));
        requests.set(entry.details.requestId, list);
      }
      return [...requests.values()];
    };
    expect(perRequest(result.journal)).toEqual(perRequest(recording.live));
  });
});
