// Undoing a response's Content-Encoding, as a browser does before a StreamFilter sees the body
// (Firefox hands a filter the decoded bytes of a gzip response; FACTS.md). Codings are undone in
// the reverse of the order they were applied (RFC 9110 §8.4). An encoding Node cannot undo (zstd,
// compress, an unknown token) leaves the body as it came: the filter sees the encoded bytes and the
// client gets the header unchanged.
import { Transform, pipeline, type Duplex, type Readable, type TransformCallback } from 'node:stream';
import zlib from 'node:zlib';
import { getHeaderValues } from '../headers.js';
import type { HttpHeaders } from '../types.js';

/** The streams that undo `contentEncoding`, outermost coding first; undefined: cannot (or need not) be undone. */
function decodersFor(contentEncoding: string | undefined): Transform[] | undefined {
  if (contentEncoding === undefined) return undefined;
  const codings = contentEncoding
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '' && token !== 'identity');
  if (codings.length === 0) return undefined;
  const decoders: Transform[] = [];
  for (const coding of codings.reverse()) {
    const decoder = decoderFor(coding);
    if (!decoder) return undefined;
    decoders.push(decoder);
  }
  return decoders;
}

/** Whether `error` is a decoder's (zlib says Z_…, brotli ERR__ERROR_… or ERR_BROTLI…): the body could not be decoded. */
export function isDecodingFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_') || code.startsWith('ERR_BROTLI'));
}

/** `body` with the Content-Encoding `headers` name undone, and whether it was; a decoding error surfaces as the returned stream's 'error'. */
export function decodedStream(body: Readable, headers: HttpHeaders): { stream: Readable; decoded: boolean } {
  const decoders = decodersFor(getHeaderValues(headers, 'content-encoding').join(', ') || undefined);
  if (!decoders) return { stream: body, decoded: false };
  return { stream: pipeline([body, ...decoders] as [Readable, ...Duplex[]], () => {}) as unknown as Readable, decoded: true };
}

// Browsers forgive a body cut short at the end of a compressed stream; so does a sync flush.
const LENIENT = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

function decoderFor(coding: string): Transform | undefined {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(LENIENT);
    case 'br':
      return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    case 'deflate':
      return new DeflateDecoder();
    default:
      return undefined;
  }
}

/**
 * "deflate" is meant to be zlib-wrapped (RFC 9110 §8.4.1.2), but servers send raw deflate too, and
 * browsers take both: the first two bytes tell (a zlib header is a multiple of 31 with method 8).
 */
class DeflateDecoder extends Transform {
  #inner: zlib.Inflate | zlib.InflateRaw | undefined;
  #pending: ((error?: Error | null) => void) | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (!this.#inner) {
      const zlibWrapped = chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0;
      this.#inner = zlibWrapped ? zlib.createInflate(LENIENT) : zlib.createInflateRaw(LENIENT);
      this.#inner.on('data', (out: Buffer) => this.push(out));
      this.#inner.on('error', (error) => this.destroy(error));
      this.#inner.on('end', () => this.#pending?.());
    }
    this.#inner.write(chunk, () => done());
  }

  override _flush(done: TransformCallback): void {
    if (!this.#inner) return done();
    this.#pending = done;
    this.#inner.end();
  }
}
