// --redact: no credentials in the session file, and the session still replays identically.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import type { JournalEntry } from '../../src/engine/journal.js';
import { openRecording } from '../../src/engine/session/open-recording.js';
import { redactEntry, redactHeaders } from '../../src/engine/session/redaction.js';
import { SessionRecorder } from '../../src/engine/session/session-recorder.js';
import { readSessionFile } from '../../src/engine/session/session-reader.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { recordSession, type Recording } from './session-harness.js';

const BASIC = Buffer.from('tester:s3cret-pass').toString('base64');

describe('redacting headers and cookie changes', () => {
  it('keeps the structure, replaces the values of Authorization, Proxy-Authorization, Cookie and Set-Cookie', () => {
    expect(
      redactHeaders([
        { name: 'Authorization', value: `Basic ${BASIC}` },
        { name: 'proxy-authorization', value: 'Negotiate abc' },
        { name: 'Cookie', value: 'a=1; b=two; flag' },
        { name: 'Set-Cookie', value: 'sid=xyz; Path=/; HttpOnly; Max-Age=60' },
        { name: 'Set-Cookie', binaryValue: [...Buffer.from('bin=\xff; Secure', 'latin1')] },
        { name: 'Authorization', value: 'opaque-token' },
        { name: 'Accept', value: 'text/html' },
      ]),
    ).toEqual([
      { name: 'Authorization', value: 'Basic REDACTED' },
      { name: 'proxy-authorization', value: 'Negotiate REDACTED' },
      { name: 'Cookie', value: 'a=REDACTED; b=REDACTED; REDACTED' },
      { name: 'Set-Cookie', value: 'sid=REDACTED; Path=/; HttpOnly; Max-Age=60' },
      { name: 'Set-Cookie', value: 'bin=REDACTED; Secure' },
      { name: 'Authorization', value: 'REDACTED' },
      { name: 'Accept', value: 'text/html' },
    ]);
  });

  it('redacts details, what listeners returned (headers, credentials) and cookie values, and leaves the entry itself alone', () => {
    const entry = {
      kind: 'webRequest',
      event: 'onAuthRequired',
      details: { requestId: '1', url: 'http://a.test/', method: 'GET', frameId: -1, parentFrameId: -1, tabId: -1, type: 'other', timeStamp: 1, responseHeaders: [{ name: 'Set-Cookie', value: 'k=v' }] },
      outcomes: [{ owner: 'r', event: 'onAuthRequired', status: 'applied', durationMs: 0, response: { authCredentials: { username: 'u', password: 'p' }, requestHeaders: [{ name: 'Cookie', value: 'c=d' }] } }],
      seq: 1,
      time: 1,
    } as unknown as JournalEntry;
    const redacted = redactEntry(entry);
    expect(JSON.stringify(redacted)).not.toMatch(/"p"|k=v|c=d/);
    expect(JSON.stringify(entry)).toMatch(/k=v/);
    const cookie = redactEntry({ kind: 'cookieChanged', changeInfo: { removed: false, cause: 'explicit', cookie: { name: 'n', value: 'secret', domain: 'a.test', hostOnly: true, path: '/', secure: false, httpOnly: false, session: true, storeId: '0' } }, seq: 2, time: 2 });
    expect(cookie.kind === 'cookieChanged' && cookie.changeInfo.cookie.value).toBe('REDACTED');
  });

  it('redacts the cookie stores in the header', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-redact-'));
    const engine = await Engine.open({});
    try {
      engine.cookies.setFromResponse('http://shop.test/', ['cart=secret-cart; Path=/'], '0');
      const recorder = await SessionRecorder.start(engine, { file: join(dir, 's.ndjson'), redact: true, maxBodySize: 1 });
      await recorder.close();
      const { header } = await readSessionFile(join(dir, 's.ndjson'));
      expect(header).toMatchObject({ redacted: true, cookies: { '0': [expect.objectContaining({ key: 'cart', value: 'REDACTED' })] } });
    } finally {
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a session recorded with redaction', () => {
  let recording: Recording;
  beforeAll(async () => {
    recording = await recordSession({
      redact: true,
      async traffic(harness, origin) {
        await harness.curl([`${origin.url}/page`]); // Set-Cookie session=abc123
        await harness.curl([`${origin.url}/form`, '-d', 'x=1']); // carries Cookie session=abc123
        await harness.curl([`${origin.url}/auth`]); // the login rule answers with tester:s3cret-pass
        await harness.curl(['-H', 'Authorization: Bearer tok-XYZ', `${origin.url}/missing`]);
      },
    });
  }, 60_000);
  afterAll(() => recording?.cleanup());

  it('holds no credential outside bodies (bodies are recorded as they were)', async () => {
    const lines = (await readFile(recording.file, 'utf8')).trim().split('\n');
    const notBodies = lines.filter((line) => !line.startsWith('{"kind":"body"'));
    const text = notBodies.join('\n');
    for (const secret of ['abc123', 's3cret-pass', BASIC, 'tok-XYZ']) expect(text).not.toContain(secret);
    for (const kept of ['session=REDACTED; Path=/', 'Cookie","value":"session=REDACTED"', 'Basic REDACTED', 'Bearer REDACTED', '"username":"tester","password":"REDACTED"']) expect(text).toContain(kept);
    expect(JSON.parse(lines[0]!).redacted).toBe(true);
    const changes = notBodies.map((line) => JSON.parse(line)).filter((entry) => entry.kind === 'cookieChanged');
    expect(changes.map((entry) => entry.changeInfo.cookie.value)).toEqual(['REDACTED']);
  });

  it('still replays identically under the same rules', async () => {
    const result = await replaySession(await openRecording(recording.file), { rulesDir: recording.rulesDir });
    expect(result.summary).toMatchObject({ requests: 4, identical: 4, differing: 0 });
  });
});
