// Response bodies as the proxy journals them (for the TUI and recordings): the bytes that crossed
// the wire counted for every response, chunked included; a body over --max-body-size journaled as
// its beginning (the screen shows it), and a recording keeps none of a cut body, as before.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BodyEntry } from '../../src/engine/journal.js';
import { SessionRecorder } from '../../src/engine/session/session-recorder.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let origin: Origin;
let h: ProxyHarness;
let dir: string;
let recorder: SessionRecorder;

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain' }); // no Content-Length: chunked
    res.write('0123456789');
    res.end(req.url === '/long' ? 'abcdefghijklmnopqrstuvwxyz' : '');
  });
  h = await startProxyHarness({ proxy: { journalBodies: true, maxBodySize: 16 } });
  dir = await mkdtemp(join(tmpdir(), 'wrtui-bodies-'));
  recorder = await SessionRecorder.start(h.engine, { file: join(dir, 'session.ndjson'), redact: false, maxBodySize: 16, stateDir: dir });
});
afterAll(async () => {
  await h.close();
  await origin.close();
  await rm(dir, { recursive: true, force: true });
});

const bodyOf = (url: string) =>
  new Promise<BodyEntry>((resolve) => {
    const find = () => h.entries.find((entry): entry is BodyEntry & typeof entry => entry.kind === 'body' && entry.direction === 'response' && entry.url === url);
    const poll = () => (find() ? resolve(find()!) : setTimeout(poll, 10));
    poll();
  });

describe('response bodies in the journal', () => {
  it('a chunked response: every byte, and its size', async () => {
    await h.curl([`${origin.url}/short`]);
    const body = await bodyOf(`${origin.url}/short`);
    expect(body).toMatchObject({ complete: true, size: 10 });
    expect(Buffer.from(body.bytes).toString()).toBe('0123456789');
  });

  it('over --max-body-size: the first 16 bytes for the screen, the size that crossed the wire, the client gets all of it', async () => {
    const { stdout } = await h.curl([`${origin.url}/long`]);
    expect(stdout).toBe('0123456789abcdefghijklmnopqrstuvwxyz');
    const body = await bodyOf(`${origin.url}/long`);
    expect(body).toMatchObject({ complete: false, size: 36 });
    expect(Buffer.from(body.bytes).toString()).toBe('0123456789abcdef');
    await recorder.close();
    const recorded = (await readFile(join(dir, 'session.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; requestId?: string; complete?: boolean; bytes?: unknown })
      .filter((entry) => entry.kind === 'body' && entry.requestId === requestIdOf(h, `${origin.url}/long`) && entry.complete === false);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.bytes).toEqual({ base64: '' });
  });
});
