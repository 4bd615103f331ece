// A HAR read as a stream (har-stream.ts): "read recordings and HAR files as a stream". Each of
// `log.entries` comes out as soon as it is read, whatever the chunking; what it gives equals what
// JSON.parse gives for the whole document; a broken file fails with where.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { harEntryBatches, type ByteRange } from '../../src/engine/session/har/har-stream.js';
import { HarFormatError } from '../../src/engine/session/har/har-validation.js';
import { openRecording } from '../../src/engine/session/open-recording.js';

const FIXTURES = join(import.meta.dirname, '../../fixtures/har');

async function* chunked(bytes: Uint8Array, size: number, seen?: (offset: number) => void): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) {
    seen?.(offset);
    yield bytes.subarray(offset, offset + size);
  }
}

/** Each entry to `onEntry` as its batch comes; resolves with the rest of the document. */
async function readHarDocument(chunks: AsyncIterable<Uint8Array>, onEntry: (entry: unknown, index: number, range: ByteRange) => void): Promise<unknown> {
  const batches = harEntryBatches(chunks);
  for (let next = await batches.next(); ; next = await batches.next()) {
    if (next.done) return next.value;
    for (const { entry, index, range } of next.value) onEntry(entry, index, range);
  }
}

async function read(bytes: Uint8Array, size: number) {
  const entries: unknown[] = [];
  const rest = await readHarDocument(chunked(bytes, size), (entry, index) => {
    expect(index).toBe(entries.length);
    entries.push(entry);
  });
  return { entries, rest };
}

describe('a HAR read as a stream', () => {
  it('gives the same entries, and the same rest of the document, as JSON.parse of the whole, however the bytes are cut (1, 3, 7, 4096 bytes, whole)', async () => {
    for (const name of ['chromium.har', 'firefox.har']) {
      const bytes = await readFile(join(FIXTURES, name));
      const whole = JSON.parse(bytes.toString('utf8')) as { log: { entries: unknown[] } };
      for (const size of [1, 3, 7, 4096, bytes.length]) {
        const { entries, rest } = await read(bytes, size);
        expect(entries).toEqual(whole.log.entries);
        expect(rest).toEqual({ ...whole, log: { ...whole.log, entries: [] } });
      }
    }
  });

  it('tells where each entry\'s text is in the file, however the bytes are cut (a large body is read again from there)', async () => {
    for (const name of ['chromium.har', 'firefox.har']) {
      const bytes = await readFile(join(FIXTURES, name));
      for (const size of [1, 7, 4096]) {
        const ranges: { start: number; end: number }[] = [];
        await readHarDocument(chunked(bytes, size), (_entry, _index, range) => ranges.push(range));
        const whole = JSON.parse(bytes.toString('utf8')) as { log: { entries: unknown[] } };
        expect(ranges.map((range) => JSON.parse(bytes.subarray(range.start, range.end).toString('utf8')))).toEqual(whole.log.entries);
      }
    }
  });

  it('hands each entry out as soon as it is read, before the rest of the file', async () => {
    const bytes = await readFile(join(FIXTURES, 'chromium.har'));
    let offset = 0;
    const readBy: number[] = [];
    await readHarDocument(chunked(bytes, 512, (at) => (offset = at)), () => readBy.push(offset));
    expect(readBy.length).toBeGreaterThan(2);
    expect(readBy[0]).toBeLessThan(bytes.length / 2);
  });

  it('is not fooled by strings: escaped quotes and backslashes, brackets, "entries" as a value or a deeper key, characters cut between chunks', async () => {
    const doc = {
      log: {
        version: '1.2',
        pages: [{ id: 'p', title: 'entries: [ "x" ] \\ }', entries: ['not these'] }],
        creator: { name: 'test "quoted" \\ name', version: '1' },
        entries: [
          { request: { url: 'https://a.test/?q=]},{"', headers: [{ name: 'x-é', value: 'ü€😀 \\"\\\\' }] }, entries: 'a value' },
          { response: { content: { text: '{"entries": [1, 2]}\n\t\\u0041' } } },
          'a string entry, [ and , ]',
        ],
        comment: 'after the entries',
      },
    };
    const bytes = new TextEncoder().encode(JSON.stringify(doc, null, 1));
    for (const size of [1, 2, 5, bytes.length]) {
      const { entries, rest } = await read(bytes, size);
      expect(entries).toEqual(doc.log.entries);
      expect(rest).toEqual({ log: { ...doc.log, entries: [] } });
    }
  });

  it('a broken entry fails naming it, a file that ends inside one says so, and text that is not JSON names the file', async () => {
    const broken = new TextEncoder().encode('{"log": {"entries": [{"a": 1}, {"b": ]}}');
    await expect(read(broken, 4)).rejects.toThrow(HarFormatError);
    await expect(read(broken, 4)).rejects.toThrow(/^log\.entries\[1\]: not JSON/);
    await expect(read(new TextEncoder().encode('{"log": {"entries": [{"a": 1}, {"b": 2'), 4)).rejects.toThrow('log.entries[1]: not JSON (the file ends inside it)');
    await expect(read(new TextEncoder().encode('<html>not a HAR</html>'), 4)).rejects.toThrow(/^\(file\): not JSON/);
  });

  it('a gzip-compressed HAR file opens as the plain one does', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wrtui-har-stream-'));
    try {
      const plain = join(FIXTURES, 'chromium.har');
      const compressed = join(dir, 'chromium.har.gz');
      await writeFile(compressed, gzipSync(await readFile(plain)));
      const [a, b] = await Promise.all([openRecording(plain), openRecording(compressed)]);
      expect(b.requests).toEqual(a.requests);
      expect(b.requests.length).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
