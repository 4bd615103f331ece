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

  it('a line without bytes reads back as it was written', () => {
    const entry = { kind: 'log', message: 'base64 is just a word here', nested: { base64: 1 } };
    expect(decodeLine(encodeLine(entry))).toEqual(entry);
  });
});
