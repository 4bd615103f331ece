// Writing to the proxy's client: response heads exactly as given (HTTP/1 keeps order, case and
// duplicates; HTTP/2 drops what it forbids), a network failure the client really sees (a TCP
// reset, or an HTTP/2 stream error) rather than an error page, and the whole responses wrtui
// answers itself (errors, a refused CONNECT, WebSocket handshakes written to the socket).
import http2 from 'node:http2';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { headerLatin1, headerObject } from '../headers.js';
import type { HttpHeaders } from '../types.js';
import type { OngoingResponse } from './mockttp-hooks.js';

/** What a request looks like from here: mockttp's OngoingRequest is a Node request. */
export interface ClientRequestLike {
  httpVersion: string;
  socket: Socket;
  stream?: http2.ServerHttp2Stream;
}

export interface ClientResponseLike {
  writeHead(statusCode: number, statusMessage: string, headers: string[]): unknown;
  writeHead(statusCode: number, headers: Record<string, string | string[]>): unknown;
  removeHeader(name: string): void;
  sendDate: boolean;
}

/** Connection-specific headers HTTP/2 forbids (RFC 9113 §8.2.2); Node throws on them. */
const NOT_IN_HTTP2 = new Set(['connection', 'upgrade', 'host', 'http2-settings', 'keep-alive', 'proxy-connection', 'transfer-encoding']);

/**
 * What an origin's HTTP/1.1 framing says about its connection to wrtui: meaningless to an HTTP/1.0
 * client, and to any client whose response wrtui delimits by closing the connection.
 */
export const ORIGIN_FRAMING = new Set(['transfer-encoding', 'connection', 'keep-alive']);

export function isHttp2(request: ClientRequestLike): boolean {
  return request.httpVersion.startsWith('2');
}

/** Sends the status line and headers as given: nothing added by Node (no Date, no framing of its own). */
export function writeResponseHead(request: ClientRequestLike, response: ClientResponseLike, statusCode: number, statusMessage: string, headers: HttpHeaders): void {
  response.sendDate = false;
  for (const name of ['connection', 'content-length', 'transfer-encoding', 'date']) response.removeHeader(name);
  if (!isHttp2(request)) {
    // An HTTP/1.0 client knows no chunked framing (RFC 9112 §6.1) nor keep-alive by default: its
    // framing is Node's to choose (the body delimited by closing the connection), not the origin's.
    const http10 = request.httpVersion !== '1.1';
    const flat: string[] = [];
    for (const header of headers) {
      if (http10 && ORIGIN_FRAMING.has(header.name.toLowerCase())) continue;
      flat.push(header.name, headerLatin1(header));
    }
    response.writeHead(statusCode, statusMessage, flat);
    return;
  }
  const allowed = headers.filter((header) => !header.name.startsWith(':') && !NOT_IN_HTTP2.has(header.name.toLowerCase()));
  response.writeHead(statusCode, headerObject(allowed)); // HTTP/2 has no reason phrase
}

/**
 * What a cancelled HTTP/1 request gets: a response head with two different Content-Lengths, which
 * a browser must reject (RFC 9112 §6.3; Chromium: ERR_RESPONSE_HEADERS_MULTIPLE_CONTENT_LENGTH), so
 * it reports a failed request and, unlike after a reset, does not send it again. The body says what
 * was blocked and by whom; the second length is one byte more than it, so a client that takes the
 * last length (curl) shows the body and then fails ("transfer closed with 1 bytes remaining", exit
 * 18), and one that takes the first reads it whole.
 */
export function refusal(text: string): Buffer {
  const body = Buffer.from(`wrtui: ${text}\n`, 'utf8');
  return Buffer.concat([
    Buffer.from(`HTTP/1.1 400 Blocked by wrtui\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nContent-Length: ${body.length + 1}\r\nConnection: close\r\n\r\n`, 'latin1'),
    body,
  ]);
}

/** Fails the client's request without inviting a retry (HTTP/1), or resets its HTTP/2 stream. */
export function refuseClient(request: ClientRequestLike, why: string): void {
  if (isHttp2(request)) return resetClient(request);
  const socket = request.socket;
  if (socket.destroyed || !socket.writable) return resetClient(request);
  socket.end(refusal(why), () => socket.destroy());
}

/**
 * The client sees a network failure: its TCP connection reset (the TLS layers of an intercepted
 * connection unwrapped first), or for HTTP/2 just this stream closed with INTERNAL_ERROR.
 */
export function resetClient(request: ClientRequestLike): void {
  if (isHttp2(request) && request.stream) {
    if (!request.stream.destroyed) request.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  let socket: Socket = request.socket;
  // An intercepted HTTPS connection: TLS over the CONNECT tunnel's socket. Reset the TCP beneath.
  for (let depth = 0; socket instanceof TLSSocket && depth < 4; depth++) {
    const parent = (socket as unknown as { _parent?: Socket })._parent ?? (socket as unknown as { stream?: Socket }).stream;
    if (!parent) break;
    socket = parent;
  }
  if (typeof socket.resetAndDestroy === 'function' && !socket.destroyed) {
    try {
      socket.resetAndDestroy();
      return;
    } catch {
      // Not a TCP socket after all (a wrapped stream): destroy instead.
    }
  }
  socket.destroy();
}

/** A response to send whole (from the cache, or a redirect wrtui answers itself). */
export interface WholeResponse {
  statusCode: number;
  statusMessage: string;
  headers: HttpHeaders;
  body: Uint8Array;
}

export function plainText(statusCode: number, statusMessage: string, text: string, extraHeaders: HttpHeaders = []): WholeResponse {
  return { statusCode, statusMessage, headers: [{ name: 'Content-Type', value: 'text/plain; charset=utf-8' }, ...extraHeaders], body: Buffer.from(`${text}\n`) };
}

/** A whole plain-text HTTP/1.1 response, for a socket wrtui answers itself (a refused CONNECT). */
export function rawResponse(statusCode: number, statusMessage: string, text: string, netError?: string): Buffer {
  const body = Buffer.from(`${text}\n`);
  const headers: HttpHeaders = [
    { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
    ...(netError ? [{ name: 'X-Wrtui-Error', value: netError }] : []),
    { name: 'Content-Length', value: String(body.length) },
    { name: 'Connection', value: 'close' },
  ];
  return Buffer.concat([rawResponseHead(statusCode, statusMessage, headers), body]);
}

/** A response head as HTTP/1.1 bytes, for a socket wrtui writes to directly (WebSocket handshakes). */
export function rawResponseHead(statusCode: number, statusMessage: string, headers: HttpHeaders): Buffer {
  let head = `HTTP/1.1 ${statusCode} ${statusMessage}\r\n`;
  for (const header of headers) head += `${header.name}: ${headerLatin1(header)}\r\n`;
  return Buffer.from(`${head}\r\n`, 'latin1');
}

/**
 * Destroys a response so that mockttp sees it as finished. Node's HTTP/2 compatibility response has
 * no `destroyed` property, and mockttp reports a handler that settles with a response neither ended
 * nor destroyed as a failure ("Request handler finished successfully without ending the response").
 */
export function destroyResponse(response: OngoingResponse): void {
  response.destroy();
  if (response.destroyed !== true) Object.defineProperty(response, 'destroyed', { value: true, configurable: true });
}

/** A raw socket's client (a WebSocket handshake's) sees a reset connection. */
export function resetSocket(socket: Socket): void {
  resetClient({ httpVersion: '1.1', socket });
}
