import { describe, expect, it } from 'vitest';
import { parseRequestBody } from '../../src/engine/web-request/request-body.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('requestBody (onBeforeRequest)', () => {
  it('formData: "holds all values per key" for application/x-www-form-urlencoded POST bodies', () => {
    const body = parseRequestBody({ method: 'POST', contentType: 'application/x-www-form-urlencoded; charset=UTF-8', bytes: bytes('q=caf%C3%A9&tag=a&tag=b+c') });
    expect(body).toEqual({ formData: { q: ['café'], tag: ['a', 'b c'] } });
  });

  it('formData for multipart/form-data, with a file field reported by its filename', () => {
    const text = [
      '--XyZ', 'Content-Disposition: form-data; name="title"', '', 'Hello, world', '--XyZ',
      'Content-Disposition: form-data; name="upload"; filename="notes.txt"', 'Content-Type: text/plain', '', 'file\r\ncontent', '--XyZ--', '',
    ].join('\r\n');
    const body = parseRequestBody({ method: 'POST', contentType: 'multipart/form-data; boundary=XyZ', bytes: bytes(text) });
    expect(body).toEqual({ formData: { title: ['Hello, world'], upload: ['notes.txt'] } });
  });

  it('"absent for other media types or malformed data": raw bytes instead', () => {
    const json = parseRequestBody({ method: 'POST', contentType: 'application/json', bytes: bytes('{"a":1}') });
    expect(json?.formData).toBeUndefined();
    expect(Buffer.from(json!.raw![0]!.bytes!).toString()).toBe('{"a":1}');
    const badMultipart = parseRequestBody({ method: 'POST', contentType: 'multipart/form-data; boundary=nope', bytes: bytes('garbage') });
    expect(badMultipart?.raw).toHaveLength(1);
    const notUtf8 = parseRequestBody({ method: 'POST', contentType: 'application/x-www-form-urlencoded', bytes: Uint8Array.from([0xff, 0x3d, 0x31]) });
    expect(notUtf8?.raw).toHaveLength(1);
  });

  it('"for PUT or POST when the body was not already parsed into formData": a PUT form body is raw', () => {
    const body = parseRequestBody({ method: 'PUT', contentType: 'application/x-www-form-urlencoded', bytes: bytes('a=1') });
    expect(body?.formData).toBeUndefined();
    expect(body?.raw).toHaveLength(1);
  });

  it('raw bytes are exactly the body when it sits in Node\'s shared buffer pool (a small Buffer): never the pool\'s other bytes', () => {
    // Small Buffers share one 8 KiB ArrayBuffer: what else is in it belongs to other requests.
    const pooled = Buffer.from('{"token":"secret of another request"}');
    const body = Buffer.from('{"a":1}');
    expect(body.buffer.byteLength).toBeGreaterThan(body.length);
    const raw = parseRequestBody({ method: 'POST', contentType: 'application/json', bytes: body })!.raw![0]!.bytes!;
    expect(raw.byteLength).toBe(7);
    expect(Buffer.from(raw).toString()).toBe('{"a":1}');
    expect(Buffer.from(raw).includes(pooled)).toBe(false);
  });

  it('raw bytes are an ArrayBuffer copy, not a view of the proxy\'s buffer', () => {
    const source = bytes('abc');
    const body = parseRequestBody({ method: 'POST', contentType: 'text/plain', bytes: source });
    source[0] = 0x7a;
    expect(Buffer.from(body!.raw![0]!.bytes!).toString()).toBe('abc');
    expect(body!.raw![0]!.bytes).toBeInstanceOf(ArrayBuffer);
  });

  it('a body over the size cap gives only `error`', () => {
    expect(parseRequestBody({ method: 'POST', contentType: 'text/plain', bytes: undefined, truncated: true })).toEqual({
      error: expect.stringContaining('larger than the size wrtui keeps'),
    });
  });

  it('no body, no requestBody', () => {
    expect(parseRequestBody({ method: 'GET', contentType: undefined, bytes: undefined })).toBeUndefined();
  });
});
