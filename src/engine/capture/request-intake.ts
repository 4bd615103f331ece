// What the proxy reads from a client request before any listener runs: the headers it will forward
// (as listeners see them) and the body, whole up to a cap and streamed beyond it.
import { Readable } from 'node:stream';
import { getHeader, getHeaderValues, headerLatin1, withHeader } from '../headers.js';
import type { HttpHeaders } from '../types.js';
import { TAB_ID_HEADER } from './resource-type.js';

/** Headers meant for the proxy itself, never forwarded. */
const PROXY_ONLY_HEADERS = new Set(['proxy-connection', 'proxy-authorization', TAB_ID_HEADER]);

/**
 * The request headers as they go upstream (HTTP/1.1): without the proxy's own headers and
 * HTTP/2 pseudo-headers, with the Host of the absolute URL the client asked for (RFC 9112 §3.2.2;
 * first, where HTTP/1.1 clients put it) and, from an HTTP/2 client, its Cookie fields joined into
 * one (RFC 9113 §8.2.3) as HTTP/1.1 requires.
 */
export function headersToForward(clientHeaders: HttpHeaders, url: URL, fromHttp2: boolean): HttpHeaders {
  let headers = clientHeaders.filter((header) => !header.name.startsWith(':') && !PROXY_ONLY_HEADERS.has(header.name.toLowerCase()));
  const index = headers.findIndex((header) => header.name.toLowerCase() === 'host');
  if (index === -1) headers.unshift({ name: 'Host', value: url.host });
  else if (headerLatin1(headers[index]!) !== url.host) headers[index] = { name: headers[index]!.name, value: url.host };
  if (fromHttp2 && getHeaderValues(headers, 'cookie').length > 1) headers = withHeader(headers, 'Cookie', getHeaderValues(headers, 'cookie').join('; '));
  return headers;
}

/**
 * Framing for what wrtui sends: a whole body goes out with its exact Content-Length; a body over
 * the cap streams, with the client's Content-Length if it gave one, chunked otherwise. Applied
 * after the listeners so that onSendHeaders shows what really goes out.
 */
export function framed(headers: HttpHeaders, body: RequestBodyRead): HttpHeaders {
  if (!body.complete) {
    if (getHeader(headers, 'content-length') !== undefined || getHeader(headers, 'transfer-encoding')?.toLowerCase().includes('chunked')) return headers;
    return withHeader(headers, 'transfer-encoding', 'chunked');
  }
  const length = body.bytes?.length ?? 0;
  const declared = getHeader(headers, 'content-length');
  if (declared === undefined && length === 0) return headers;
  if (getHeader(headers, 'transfer-encoding') !== undefined) headers = withHeader(headers, 'transfer-encoding', undefined);
  return declared === String(length) ? headers : withHeader(headers, 'content-length', String(length));
}

export interface RequestBodyRead {
  /** The body's first bytes (all of it when complete); undefined when there is none. */
  bytes: Uint8Array | undefined;
  complete: boolean;
  /** When not complete: the whole body (what was read, then the rest as it arrives). */
  stream?: Readable;
}

interface BodySource extends NodeJS.ReadableStream {
  headers: Record<string, string | string[] | undefined>;
  httpVersion: string;
  method?: string;
  readableEnded?: boolean;
}

/** Reads the body up to `max` bytes; a longer one is handed on as a stream, nothing lost. */
export function readRequestBody(request: BodySource, max: number): Promise<RequestBodyRead> {
  const declared = request.headers['content-length'];
  const mayHaveBody =
    (declared !== undefined && declared !== '0') ||
    request.headers['transfer-encoding'] !== undefined ||
    // HTTP/2 needs no framing header; a GET or HEAD with a body is too rare to wait for.
    (request.httpVersion.startsWith('2') && request.method !== 'GET' && request.method !== 'HEAD');
  if (!mayHaveBody || request.readableEnded) return Promise.resolve({ bytes: undefined, complete: true });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= max) return;
      request.pause();
      cleanup();
      const seen = ownBytes(chunks, size);
      resolve({ bytes: seen.subarray(0, max), complete: false, stream: Readable.from(prepended(Buffer.from(seen.buffer), request), { objectMode: false }) });
    };
    const onEnd = () => {
      cleanup();
      resolve({ bytes: size > 0 ? ownBytes(chunks, size) : undefined, complete: true });
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    // The client went away mid-body (Node may close the request without an error).
    const onClose = () => onError(Object.assign(new Error('the client aborted the request body'), { code: 'ECONNRESET' }));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

/** The chunks in one Uint8Array of its own: Buffer.concat may hand out a slice of Node's shared pool, and listeners get `.buffer`. */
export function ownBytes(chunks: readonly Buffer[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

async function* prepended(first: Buffer, rest: NodeJS.ReadableStream): AsyncGenerator<Buffer> {
  yield first;
  for await (const chunk of rest) yield chunk as Buffer;
}
