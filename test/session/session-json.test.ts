// The session file's line encoding: "Bytes are written as {"base64":"…"}" (session README), and
// read back as bytes.
import { describe, expect, it } from 'vitest';
import { arrayBufferOf, bytesOf, decodeLine, encodeLine } from '../../src/engine/session/session-json.js';

describe('session lines', () => {
  it('bytes are written as {"base64": …} whatever holds them (Uint8Array, Node Buffer, ArrayBuffer) and read back as the same bytes', () => {
    const data = [0, 1, 2, 250, 255];
    for (const bytes of [new Uint8Array(data), Buffer.from(data), new Uint8Array(data).buffer]) {
      const line = encodeLine({ kind: 'body', bytes });
      // A Buffer's own toJSON would give {"type":"Buffer","data":[…]}: bigger, and not bytes when read back.
      expect(line).toBe('{"kind":"body","bytes":{"base64":"AAEC+v8="}}');
      expect([...bytesOf((decodeLine(line) as { bytes: unknown }).bytes)!]).toEqual(data);
    }
  });

  it('requestBody.raw bytes made from a small Node Buffer hold exactly its bytes, not the shared pool it sits in', () => {
    const small = Buffer.from('x=1');
    expect(small.buffer.byteLength).toBeGreaterThan(3);
    const copy = arrayBufferOf(small);
    expect(copy.byteLength).toBe(3);
    expect(Buffer.from(copy).toString()).toBe('x=1');
  });

  it('bytes deep in an entry (a listener outcome\'s requestBody) are written as {"base64": …} too, and a Date as its JSON', () => {
    const entry = { kind: 'webRequest', outcomes: [{ response: { raw: [{ bytes: new Uint8Array([104, 105]).buffer }] } }], at: new Date(0) };
    expect(encodeLine(entry)).toBe('{"kind":"webRequest","outcomes":[{"response":{"raw":[{"bytes":{"base64":"aGk="}}]}}],"at":"1970-01-01T00:00:00.000Z"}');
    expect(encodeLine({ ...entry, outcomes: [] })).toBe(JSON.stringify({ ...entry, outcomes: [] }));
  });

  it('a cyclic entry throws as JSON.stringify does, and a very deep one is written whole', () => {
    const cyclic: Record<string, unknown> = { kind: 'log' };
    cyclic.self = cyclic;
    expect(() => encodeLine(cyclic)).toThrow(TypeError);
    let deep: unknown = { bytes: new Uint8Array([1]) };
    for (let i = 0; i < 40; i++) deep = { deep };
    expect(encodeLine(deep)).toContain('"bytes":{"base64":"AQ=="}');
  });

  it('a line without bytes reads back as it was written', () => {
    const entry = { kind: 'log', message: 'base64 is just a word here', nested: { base64: 1 } };
    expect(decodeLine(encodeLine(entry))).toEqual(entry);
  });
});
