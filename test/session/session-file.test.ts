// The session file on disk: its header, mode 0600, never overwriting, the sessions index and the
// settings in the state dir, and what survives a crash.
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJsonLine } from '../../src/app/json-line.js';
import { Engine } from '../../src/engine/engine.js';
import { openRecording, RecordingFormatError, sniff } from '../../src/engine/session/open-recording.js';
import { replaySession } from '../../src/engine/session/session-replay.js';
import { SessionIndex } from '../../src/engine/session/session-index.js';
import { SessionRecorder } from '../../src/engine/session/session-recorder.js';
import { readSessionFile, SessionFileError } from '../../src/engine/session/session-reader.js';
import { SettingsFile } from '../../src/engine/session/settings.js';
import { recordSession, type Recording } from './session-harness.js';

let recording: Recording;
let stateDir: string;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'wrtui-session-file-'));
  stateDir = join(scratch, 'state');
  recording = await recordSession({
    stateDir,
    async traffic(harness, origin) {
      await harness.curl([`${origin.url}/page`]);
      await harness.curl(['-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/x.png`]);
    },
  });
}, 60_000);

afterAll(async () => {
  await recording?.cleanup();
  await rm(scratch, { recursive: true, force: true });
});

describe('the session file', () => {
  it('is created with mode 0600', async () => {
    expect((await stat(recording.file)).mode & 0o777).toBe(0o600);
  });

  it('starts with a header line, then holds one journal entry per line, bodies as base64', async () => {
    const lines = (await readFile(recording.file, 'utf8')).split('\n');
    expect(lines.at(-1)).toBe('');
    const [header, ...entries] = lines.slice(0, -1).map((line) => JSON.parse(line));
    expect(header).toMatchObject({
      format: 'wrtui-session',
      version: 2,
      started: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      startedAt: expect.any(Number),
      wrtui: '0.1.0',
      redacted: false,
      maxBodySize: 1024 * 1024,
      listenerTimeoutMs: 5000,
      cookies: { '0': [], '1': [] },
    });
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => entries[0].seq + i));
    const body = entries.find((entry) => entry.kind === 'body' && entry.url.endsWith('/img/x.png'));
    expect(body).toMatchObject({ direction: 'response', complete: true, bytes: { base64: expect.any(String) } });
    expect(Buffer.from(body.bytes.base64, 'base64').toString('hex')).toMatch(/^89504e47/);
  });

  it('is never overwritten: recording to an existing file fails', async () => {
    const engine = await Engine.open({});
    try {
      await expect(SessionRecorder.start(engine, { file: recording.file, redact: false, maxBodySize: 1 })).rejects.toMatchObject({ code: 'EEXIST' });
    } finally {
      await engine.close();
    }
  });

  it('holds the cookie stores as recording started', async () => {
    const engine = await Engine.open({});
    const file = join(scratch, 'seeded.ndjson');
    try {
      engine.cookies.setFromResponse('http://shop.test/', ['cart=3; Path=/; Max-Age=600'], '0');
      engine.cookies.setFromResponse('http://shop.test/', ['private=1'], '1');
      const recorder = await SessionRecorder.start(engine, { file, redact: false, maxBodySize: 1 });
      await recorder.close();
    } finally {
      await engine.close();
    }
    const { header } = await readSessionFile(file);
    expect(header!.cookies['0']).toEqual([expect.objectContaining({ key: 'cart', value: '3', domain: 'shop.test', path: '/' })]);
    expect(header!.cookies['1']).toEqual([expect.objectContaining({ key: 'private', value: '1' })]);
  });
});

describe('a `wrtui headless --json` capture', () => {
  it('(journal lines, no header) replays too, without bodies or starting cookies', async () => {
    const capture = join(scratch, 'headless.ndjson');
    // What headless --json prints: every journal entry, bytes as {"base64": …} (src/app/json-line.ts).
    await writeFile(capture, recording.live.filter((entry) => entry.kind !== 'body').map((entry) => `${toJsonLine(entry)}\n`).join(''));
    const session = await openRecording(capture);
    expect(session).toMatchObject({ source: 'wrtui-journal', header: undefined, cookies: {} });
    const result = await replaySession(session, { rulesDir: recording.rulesDir });
    expect(result.summary).toMatchObject({ requests: 2, identical: 2 });
  });
});

describe('opening a recording', () => {
  it('tells a session from a HAR even when the header line is longer than what is sniffed (many cookies)', async () => {
    const engine = await Engine.open({});
    const file = join(scratch, 'many-cookies.ndjson');
    try {
      for (let i = 0; i < 400; i++) engine.cookies.setFromResponse(`http://host${i}.test/`, [`cookie${i}=${'v'.repeat(40)}; Path=/; Max-Age=3600`], '0');
      const recorder = await SessionRecorder.start(engine, { file, redact: false, maxBodySize: 1 });
      await recorder.close();
    } finally {
      await engine.close();
    }
    expect((await readFile(file, 'utf8')).indexOf('\n')).toBeGreaterThan(64 * 1024);
    const session = await openRecording(file);
    expect(session.source).toBe('wrtui-session');
    expect(session.cookies['0']).toHaveLength(400);
  });

  it('refuses what is not a recording, saying what it is: a folder, an empty file, a file that is not JSON', async () => {
    const empty = join(scratch, 'empty.ndjson');
    const emptyGz = join(scratch, 'empty.ndjson.gz');
    const binary = join(scratch, 'binary.ndjson');
    await writeFile(empty, '\n  \n');
    await writeFile(emptyGz, gzipSync(''));
    await writeFile(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]));
    await expect(sniff(scratch)).rejects.toThrow(new RecordingFormatError(scratch, 'is a folder, not a recording'));
    await expect(sniff(empty)).rejects.toThrow('empty.ndjson is empty: nothing to replay');
    await expect(sniff(emptyGz)).rejects.toThrow('empty.ndjson.gz is empty (once decompressed): nothing to replay');
    await expect(sniff(binary)).rejects.toThrow(/binary\.ndjson is neither a wrtui recording \(NDJSON\) nor a HAR file \(JSON\): it starts with "\x7fELF\\u0002/);
  });

  it('reads a session file and a HAR that start with a byte-order mark (saved by some Windows editors)', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const session = join(scratch, 'bom.ndjson');
    const har = join(scratch, 'bom.har');
    await writeFile(session, Buffer.concat([bom, await readFile(recording.file)]));
    await writeFile(har, Buffer.concat([bom, await readFile(join(import.meta.dirname, '../../fixtures/har/chromium.har'))]));
    const fromSession = await openRecording(session);
    expect(fromSession.source).toBe('wrtui-session');
    expect(fromSession.requests).toHaveLength(2);
    const fromHar = await openRecording(har);
    expect(fromHar.source).toBe('har');
    expect(fromHar.requests.length).toBeGreaterThan(0);
  });
});

describe('the state dir', () => {
  it('indexes the session in sessions.json: file, start, end, request count', async () => {
    const sessions = await SessionIndex.forStateDir(stateDir).list();
    expect(sessions).toEqual([{ file: recording.file, started: expect.any(String), ended: expect.any(String), requests: 2, redacted: false }]);
    expect(Date.parse(sessions[0]!.ended!)).toBeGreaterThanOrEqual(Date.parse(sessions[0]!.started));
    expect((await stat(join(stateDir, 'sessions.json'))).mode & 0o777).toBe(0o600);
  });

  it('keeps settings in settings.json, each section left as found by the others', async () => {
    const settings = SettingsFile.forStateDir(join(scratch, 'settings-state'));
    expect((await settings.read()).recording).toEqual({ redact: false });
    await mkdir(join(scratch, 'settings-state'));
    await writeFile(settings.file, JSON.stringify({ ui: { theme: 'dark' } }));
    await settings.updateRecording({ redact: true });
    expect(JSON.parse(await readFile(settings.file, 'utf8'))).toEqual({ ui: { theme: 'dark' }, recording: { redact: true } });
    expect((await settings.read()).recording.redact).toBe(true);
  });

  it('reads an unreadable settings file as redaction on (security settings fail safe), and keeps it so', async () => {
    const settings = SettingsFile.forStateDir(join(scratch, 'broken-state'));
    await settings.updateRecording({ redact: false });
    await writeFile(settings.file, '{ not json');
    expect((await settings.read()).recording).toEqual({ redact: true });
    expect((await SettingsFile.forStateDir(join(scratch, 'broken-state')).read()).recording).toEqual({ redact: true });
  });

  it('reads a recording section whose redact is not a boolean as redaction on; only false turns it off', async () => {
    const settings = SettingsFile.forStateDir(join(scratch, 'odd-state'));
    for (const [recording, redact] of [[{ redact: 'no' }, true], ['off', true], [{ redact: 0 }, true], [{}, false], [{ redact: false }, false]] as const) {
      await settings.updateSection('recording', recording);
      expect([recording, (await settings.read()).recording.redact]).toEqual([recording, redact]);
    }
  });
});

describe('a compressed recording (a file named *.gz)', () => {
  it('is gzip, 0600, a fraction of the plain file for the same traffic, and replays identically', async () => {
    const compressed = await recordSession({
      fileName: 'session.ndjson.gz',
      async traffic(harness, origin) {
        await harness.curl([`${origin.url}/page`]);
        await harness.curl(['-H', 'Sec-Fetch-Dest: image', `${origin.url}/img/x.png`]);
      },
    });
    try {
      const bytes = await readFile(compressed.file);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      expect((await stat(compressed.file)).mode & 0o777).toBe(0o600);
      expect(bytes.length).toBeLessThan((await stat(recording.file)).size / 3);
      const { header, entries } = await readSessionFile(compressed.file);
      expect(header?.format).toBe('wrtui-session');
      expect(entries.some((entry) => entry.kind === 'body')).toBe(true);
      const { summary } = await replaySession(await openRecording(compressed.file), { rulesDir: compressed.rulesDir });
      expect(summary.requests).toBeGreaterThan(0);
      expect(summary.identical).toBe(summary.requests);
    } finally {
      await compressed.cleanup();
    }
  }, 60_000);

  it('a HAR compressed with gzip opens as a HAR', async () => {
    const har = join(import.meta.dirname, '../../fixtures/har/chromium.har');
    const gz = join(scratch, 'chromium.har.gz');
    await writeFile(gz, gzipSync(await readFile(har)));
    const [plain, compressed] = await Promise.all([openRecording(har), openRecording(gz)]);
    expect(compressed.source).toBe('har');
    expect(compressed.requests.map((request) => request.hops[0]!.url)).toEqual(plain.requests.map((request) => request.hops[0]!.url));
  });
});

describe('crash safety', () => {
  it('a compressed recorder killed mid-write leaves a file readable up to where it stops', async () => {
    const file = join(scratch, 'killed.ndjson.gz');
    await killRecorderMidWrite(file, 64 * 1024);
    const { header, entries } = await readSessionFile(file);
    expect(header?.format).toBe('wrtui-session');
    expect(entries.length).toBeGreaterThan(100);
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => i + 1));
  }, 30_000);

  it('a compressed recording cut off inside its last block reads up to there, with a warning', async () => {
    const whole = join(scratch, 'whole.ndjson.gz');
    await writeFile(whole, gzipSync(await readFile(recording.file)));
    const cut = join(scratch, 'cut.ndjson.gz');
    await copyFile(whole, cut);
    await truncate(cut, (await stat(cut)).size - 40);
    const full = await readSessionFile(whole);
    const read = await readSessionFile(cut);
    expect(full.entries).toHaveLength((await readSessionFile(recording.file)).entries.length);
    expect(read.entries.length).toBeGreaterThan(0);
    expect(read.entries.length).toBeLessThan(full.entries.length);
    expect(read.warnings).toContainEqual(expect.stringMatching(/stops inside its last block/));
  });

  it('a recorder killed mid-write leaves a file valid up to its last complete line', async () => {
    const file = join(scratch, 'killed.ndjson');
    await killRecorderMidWrite(file, 2 * 1024 * 1024);

    const text = await readFile(file, 'utf8');
    // Everything before the last newline is complete lines; after it, at most a cut-off one.
    for (const line of text.split('\n').slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();
    const { header, entries } = await readSessionFile(file);
    expect(header?.format).toBe('wrtui-session');
    expect(entries.length).toBeGreaterThan(100);
    // Nothing lost in the middle: entries are contiguous from the first.
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => i + 1));
  }, 30_000);

  it('a partial last line (a write cut short) is skipped with a warning; a broken line elsewhere is an error', async () => {
    const cut = join(scratch, 'cut.ndjson');
    await copyFile(recording.file, cut);
    const size = (await stat(cut)).size;
    await truncate(cut, size - 20);
    const full = await readSessionFile(recording.file);
    const read = await readSessionFile(cut);
    expect(read.entries).toHaveLength(full.entries.length - 1);
    expect(read.warnings).toEqual([expect.stringMatching(/the last line is incomplete/)]);

    const broken = join(scratch, 'broken.ndjson');
    const lines = (await readFile(recording.file, 'utf8')).split('\n');
    lines[3] = lines[3]!.slice(0, 10);
    await writeFile(broken, lines.join('\n'));
    await expect(readSessionFile(broken)).rejects.toThrow(SessionFileError);
    await expect(readSessionFile(broken)).rejects.toThrow(/broken\.ndjson:4: not JSON/);
  });
});

/** Runs a recorder writing as fast as it can into `file` and kills it (SIGKILL) once the file holds `bytes`, mid-write. */
async function killRecorderMidWrite(file: string, bytes: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'record-until-killed.ts'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the recorder exited with ${code} before recording`)));
  });
  for (let i = 0; i < 200 && (await stat(file)).size < bytes; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  child.kill('SIGKILL');
  await exited;
}
