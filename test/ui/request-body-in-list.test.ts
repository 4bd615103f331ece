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
import { startStoreRig, type StoreRig } from '../helpers/store-rig.js';

let rig: StoreRig;
let dir: string;

beforeAll(async () => {
  rig = await startStoreRig(
    (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"ok":true}');
    },
    { journalBodies: true },
  );
  dir = await mkdtemp(join(tmpdir(), 'wrtui-request-body-'));
});
afterAll(async () => {
  await rig.close();
  await rm(dir, { recursive: true, force: true });
});

const post = (path: string, args: string[]) => rig.record(path, ['-s', '-o', '/dev/null', ...args]);

const matches = (expression: string) => {
  const compiled = compileFilter(expression);
  if (!compiled.ok || !compiled.predicate) throw new Error(`not a filter: ${expression}`);
  return compiled.predicate;
};

describe("a request's body in the list", () => {
  it('journaled before its onBeforeRequest (as the proxy does), it is on the record: shown as sent, found by body:', async () => {
    const bodyEntry = rig.h.entries.length;
    const record = await post('/json', ['-H', 'Content-Type: application/json', '--data', '{"token":"only-in-the-request"}']);
    // The order this test is about: the body entry before the request's first event.
    const bodyAt = rig.h.entries.findIndex((entry, index) => index >= bodyEntry && entry.kind === 'body' && entry.direction === 'request');
    const eventAt = rig.h.entries.findIndex((entry, index) => index >= bodyEntry && entry.kind === 'webRequest' && entry.event === 'onBeforeRequest');
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
