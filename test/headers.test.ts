import { describe, expect, it } from 'vitest';
import { headerFromBytes, headersFromRaw, headersToRaw, invalidHeadersReason } from '../src/engine/headers.js';

describe('HttpHeaders: "each header carries name and either value or binaryValue"', () => {
  it('a value representable as UTF-8 is a value', () => {
    expect(headerFromBytes('X', Buffer.from('café', 'utf8'))).toEqual({ name: 'X', value: 'café' });
  });

  it('bytes that are not UTF-8 are a binaryValue of bytes 0..255', () => {
    expect(headerFromBytes('X', Uint8Array.from([0x63, 0xe9]))).toEqual({ name: 'X', binaryValue: [0x63, 0xe9] });
  });

  it('Node rawHeaders (latin1 strings) round-trip byte for byte, order and duplicates kept', () => {
    const raw = ['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'X-Utf8', Buffer.from('é').toString('latin1'), 'X-Bin', '\xe9'];
    const headers = headersFromRaw(raw);
    expect(headers).toEqual([
      { name: 'Set-Cookie', value: 'a=1' },
      { name: 'Set-Cookie', value: 'b=2' },
      { name: 'X-Utf8', value: 'é' },
      { name: 'X-Bin', binaryValue: [0xe9] },
    ]);
    expect(headersToRaw(headers)).toEqual(raw);
  });

  it('listener-supplied headers are checked before use', () => {
    expect(invalidHeadersReason([{ name: 'Ok', value: 'fine' }, { name: 'B', binaryValue: [0, 255].map((x) => x || 1) }])).toBeUndefined();
    expect(invalidHeadersReason('nope')).toMatch(/must be an array/);
    expect(invalidHeadersReason([{ name: '', value: 'x' }])).toMatch(/invalid name/);
    expect(invalidHeadersReason([{ name: 'X' }])).toMatch(/exactly one of value or binaryValue/);
  });
});
