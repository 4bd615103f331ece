// What the request lifecycle needs from whatever carries a request: the live proxy's upstream
// connection, a recorded session's responses, or a test's fake origin.
import type { HttpHeaders, NetError } from '../types.js';
import type { TlsFacts } from './security-info.js';

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: HttpHeaders;
  body?: Uint8Array;
}


export interface ResponseHead {
  statusCode: number;
  /** As received ("HTTP/1.1 200 OK"); built from httpVersion and statusMessage when absent. */
  statusLine?: string;
  httpVersion?: string;
  statusMessage?: string;
  headers: HttpHeaders;
  /** The upstream server's address. */
  ip?: string;
  fromCache?: boolean;
  /** The TLS connection it came over, read when asked (webRequest.getSecurityInfo). */
  tls?: () => TlsFacts;
}

export interface TransportResponse extends ResponseHead {
  body?: Uint8Array | AsyncIterable<Uint8Array>;
  /** Drops a streamed body unread (and its connection): for a response nobody will read. */
  discard?: () => void;
}

export interface Transport {
  send(request: OutgoingRequest, signal?: AbortSignal): Promise<TransportResponse>;
}

/** A failure the transport could name in Chrome's terms (net::ERR_CONNECTION_REFUSED, …). */
export class TransportError extends Error {
  constructor(
    readonly netError: NetError,
    message: string = netError,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** The status line a browser would report for a response head. */
export function statusLineOf(head: ResponseHead): string {
  if (head.statusLine !== undefined) return head.statusLine;
  const version = head.httpVersion ?? '1.1';
  // HTTP/2 and 3 have no status line; Chrome shows them as HTTP/1.1-style lines without a reason.
  const reason = head.statusMessage ?? '';
  return `HTTP/${version} ${head.statusCode}${reason ? ` ${reason}` : ''}`;
}
