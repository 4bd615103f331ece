// Bodies in HAR: `content.text` holds the decoded body (no Content-Encoding), as UTF-8 text or,
// with `encoding: "base64"`, as base64. wrtui records bodies as they crossed the wire, so export
// undoes gzip, deflate and br first; a body it cannot decode is kept as it is, with a comment.
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { HarFormatError } from './har-validation.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes `text` holds. */
export function bytesOfHarText(text: string, encoding: string | undefined, path: string): Uint8Array {
  if (encoding === undefined || encoding === '' || /^utf-?8$/i.test(encoding)) return Buffer.from(text, 'utf8');
  if (encoding.toLowerCase() === 'base64') return new Uint8Array(Buffer.from(text, 'base64'));
  throw new HarFormatError(`${path}.encoding`, `unknown encoding ${JSON.stringify(encoding)} (HAR knows base64)`);
}

export interface HarText {
  text: string;
  encoding?: 'base64';
  /** Bytes saved by the content coding (wire size minus decoded size). */
  compression?: number;
  size: number;
  comment?: string;
}

/** A recorded body as HAR content: decoded when `contentEncoding` names a coding wrtui can undo. */
export function harTextOf(bytes: Uint8Array, options: { mimeType: string; contentEncoding: string | undefined; decoded: boolean }): HarText {
  let body = bytes;
  let comment: string | undefined;
  const coding = options.decoded ? undefined : options.contentEncoding?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    try {
      body = decode(bytes, coding);
    } catch (error) {
      comment = `body kept ${coding}-encoded: ${(error as Error).message}`;
    }
  }
  const compression = body.length !== bytes.length ? bytes.length - body.length : undefined;
  const base = { size: body.length, ...(compression !== undefined && { compression }), ...(comment !== undefined && { comment }) };
  if (isTextual(options.mimeType) && comment === undefined) {
    try {
      return { ...base, text: utf8.decode(body) };
    } catch {
      // Not UTF-8 after all: base64 below.
    }
  }
  return { ...base, text: Buffer.from(body).toString('base64'), encoding: 'base64' };
}

function decode(bytes: Uint8Array, coding: string): Uint8Array {
  const codings = coding.split(',').map((c) => c.trim()).filter(Boolean).reverse();
  let body: Uint8Array = bytes;
  for (const one of codings) {
    if (one === 'gzip' || one === 'x-gzip') body = gunzipSync(body);
    else if (one === 'br') body = brotliDecompressSync(body);
    else if (one === 'deflate') {
      // "deflate" is zlib-wrapped by the RFC, raw in some servers.
      try {
        body = inflateSync(body);
      } catch {
        body = inflateRawSync(body);
      }
    } else if (one !== 'identity') throw new Error(`wrtui cannot decode "${one}"`);
  }
  return body;
}

function isTextual(mimeType: string): boolean {
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    /\+(json|xml)$/.test(type) ||
    ['application/json', 'application/javascript', 'application/ecmascript', 'application/xml', 'application/x-www-form-urlencoded', 'image/svg+xml'].includes(type)
  );
}
