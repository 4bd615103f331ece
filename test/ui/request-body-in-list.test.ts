// A request's body in the TUI, as the real proxy journals it: the proxy reads what the client sent
// before onBeforeRequest fires (that event's requestBody needs it), so the body's journal entry
// comes before the event that makes the request's record. The store holds it until then: the
// Request tab shows the bytes "as sent", `body:` finds text that only the request body has (the
// help: "the request's or the response's body contains it"), and S exports it as postData.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { requestLines } from '../../src/ui/detail/request-lines.js';
import { compileFilter } from '../../src/ui/filter/compile-filter.js';
import { TrafficStore } from '../../src/ui/store/traffic-store.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let origin: Origin;
let h: ProxyHarness;
let store: TrafficStore;
let dir: string;

beforeAll(async () => {
  origin = await startOrigin((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('{"ok":true}');
  });
  h = await startProxyHarness({ proxy: { journalBodies: true } });
  store = new TrafficStore({ maxRequests: 100, flushIntervalMs: 0 });
  store.attach(h.engine.journal);
  dir = await mkdtemp(join(tmpdir(), 'wrtui-request-body-'));
});
afterAll(async () => {
  store.close();
  await h.close();
  await origin.close();
  await rm(dir, { recursive: true, force: true });
});

async function post(path: string, args: string[]) {
  const url = `${origin.url}${path}`;
  await h.curl(['-s', '-o', '/dev/null', ...args, url]);
  await finished(h, requestIdOf(h, url));
  store.flush();
  const record = store.all().find((candidate) => candidate.url === url);
  if (!record) throw new Error(`no record for ${url}`);
  return record;
}

const matches = (expression: string) => {
  const compiled = compileFilter(expression);
  if (!compiled.ok || !compiled.predicate) throw new Error(`not a filter: ${expression}`);
  return compiled.predicate;
};

describe("a request's body in the list", () => {
  it('journaled before its onBeforeRequest (as the proxy does), it is on the record: shown as sent, found by body:', async () => {
    const bodyEntry = h.entries.length;
    const record = await post('/json', ['-H', 'Content-Type: application/json', '--data', '{"token":"only-in-the-request"}']);
    // The order this test is about: the body entry before the request's first event.
    const bodyAt = h.entries.findIndex((entry, index) => index >= bodyEntry && entry.kind === 'body' && entry.direction === 'request');
    const eventAt = h.entries.findIndex((entry, index) => index >= bodyEntry && entry.kind === 'webRequest' && entry.event === 'onBeforeRequest');
    expect(bodyAt).toBeGreaterThan(-1);
    expect(bodyAt).toBeLessThan(eventAt);

    expect(Buffer.from(record.requestBytes!.bytes).toString()).toBe('{"token":"only-in-the-request"}');
    expect(requestLines(record).map(lineText)).toContain('Body (31 B, as sent)');
    expect(matches('body:only-in-the-request')(record)).toBe(true);
    expect(matches('body:only-in-the-request and body:ok')(record)).toBe(true);
  });

  it("a multipart upload: the bytes as sent, the file's content included (onBeforeRequest's formData has only its name)", async () => {
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'secret-file-content');
    const record = await post('/upload', ['-F', 'note=hello', '-F', `file=@${file}`]);
    expect(record.requestBody?.formData?.file).toEqual(['notes.txt']);
    expect(Buffer.from(record.requestBytes!.bytes).toString()).toContain('secret-file-content');
    expect(matches('body:secret-file-content')(record)).toBe(true);
  });
});
