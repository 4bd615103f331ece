// Drives one request through the lifecycle over a Transport, following redirects and auth retries
// itself. Replay and the tests use it; the live proxy calls the phases from mockttp's hooks instead,
// because there the client follows redirects.
import type { NetError } from '../types.js';
import type { RequestInit, RequestLifecycle } from './lifecycle.js';
import { TransportError, type Transport, type TransportResponse } from './transport.js';

export interface RunRequestOptions {
  /** Redirects followed before net::ERR_TOO_MANY_REDIRECTS (Chrome's limit is 20). */
  maxRedirects?: number;
  signal?: AbortSignal;
  /**
   * fetch's redirect mode: "follow" (the default) follows a server's redirects; "manual" and "error"
   * take the 3xx as the answer (kind 'redirect-not-followed'), as Chromium ends such a request.
   * A listener's redirect is followed in every mode.
   */
  redirect?: 'follow' | 'manual' | 'error';
  /**
   * Looks at each hop's response before webRequest is told of it (and may ask the server more, as a
   * preflight for a redirect's next hop does): true lets it on; false refuses it
   * (the request fails with net::ERR_FAILED, the body unread), as Chromium's CORS check refuses a
   * response its reader may not have (the caller says why in the journal).
   */
  admit?: (url: string, response: TransportResponse, requestId: string) => boolean | Promise<boolean>;
  /**
   * Takes the response body as it arrives, for a caller that streams it on (the result's body is then
   * empty); told the response first. The request completes once it resolves; a TransportError it
   * throws fails the request with that error.
   */
  takeBody?: (response: ResponseSoFar, body: AsyncIterable<Uint8Array>) => Promise<void>;
}

export interface ResponseSoFar {
  url: string;
  statusCode: number;
  statusLine: string;
  headers: import('../types.js').HttpHeaders;
}

export type RequestResult =
  | { kind: 'response'; requestId: string; url: string; statusCode: number; statusLine: string; headers: import('../types.js').HttpHeaders; body: Uint8Array }
  | { kind: 'error'; requestId: string; url: string; error: NetError }
  /** A server redirect the caller does not follow (RunRequestOptions.redirect), at the URL that answered it. */
  | { kind: 'redirect-not-followed'; requestId: string; url: string; redirectUrl: string; statusCode: number }
  /** A listener redirected to a data: or about: URL: webRequest sees nothing more of it. */
  | { kind: 'non-web-redirect'; requestId: string; url: string };

export async function runRequest(
  lifecycle: RequestLifecycle,
  init: RequestInit,
  transport: Transport,
  options: RunRequestOptions = {},
): Promise<RequestResult> {
  const maxRedirects = options.maxRedirects ?? 20;
  const flight = lifecycle.start(init);
  const error = (netError: NetError): RequestResult => ({ kind: 'error', requestId: flight.requestId, url: flight.url, error: netError });

  for (let redirects = 0; ; redirects++) {
    if (redirects > maxRedirects) {
      flight.fail('net::ERR_TOO_MANY_REDIRECTS');
      return error('net::ERR_TOO_MANY_REDIRECTS');
    }
    const before = await flight.beforeRequest();
    if (before.action === 'cancel') return error(before.error);
    if (before.action === 'redirect') {
      if (flight.finished) return { kind: 'non-web-redirect', requestId: flight.requestId, url: before.redirectUrl };
      continue;
    }
    if (flight.atExtensionUrl) {
      // An extension's own resource: served as the browser serves it, or refused.
      const served = await flight.serveExtensionResource();
      if (!served) return error('net::ERR_BLOCKED_BY_CLIENT');
      return { kind: 'response', requestId: flight.requestId, url: flight.url, statusCode: 200, ...served };
    }

    // One hop; loops only for auth retries.
    for (;;) {
      const send = await flight.prepareToSend();
      if (send.action === 'cancel') return error(send.error);
      let response: TransportResponse;
      try {
        response = await transport.send(
          { url: flight.url, method: flight.method, headers: send.requestHeaders, ...(flight.body && { body: flight.body }) },
          options.signal,
        );
      } catch (failure) {
        const netError = failure instanceof TransportError ? failure.netError : 'net::ERR_FAILED';
        flight.fail(netError);
        return error(netError);
      }
      if (options.admit && !(await options.admit(flight.url, response, flight.requestId))) {
        discard(response);
        flight.fail('net::ERR_FAILED');
        return error('net::ERR_FAILED');
      }
      const decision = await flight.headersReceived(response);
      if (decision.action === 'cancel') {
        discard(response);
        return error(decision.error);
      }
      // A body nobody reads (a redirect's, an auth challenge's): read to its end first, so its
      // connection serves the next hop, as a browser reads a small one; a large one is dropped.
      if (decision.action !== 'respond') await drain(response);
      if (decision.action === 'retry-auth') continue;
      if (decision.action === 'redirect') {
        if (flight.finished) return { kind: 'non-web-redirect', requestId: flight.requestId, url: decision.redirectUrl };
        if (!decision.internal && options.redirect !== undefined && options.redirect !== 'follow') {
          flight.redirectNotFollowed();
          return { kind: 'redirect-not-followed', requestId: flight.requestId, url: flight.url, redirectUrl: decision.redirectUrl, statusCode: decision.statusCode };
        }
        break;
      }
      flight.responseStarted();
      let body: Uint8Array = new Uint8Array();
      try {
        if (options.takeBody) {
          const head = { url: flight.url, statusCode: decision.statusCode, statusLine: decision.statusLine, headers: decision.responseHeaders };
          await options.takeBody(head, chunksOf(response.body));
        } else body = await readBody(response.body);
      } catch (failure) {
        const netError = failure instanceof TransportError ? failure.netError : 'net::ERR_CONNECTION_RESET';
        flight.fail(netError);
        return error(netError);
      }
      flight.completed();
      return {
        kind: 'response',
        requestId: flight.requestId,
        url: flight.url,
        statusCode: decision.statusCode,
        statusLine: decision.statusLine,
        headers: decision.responseHeaders,
        body,
      };
    }
  }
}

async function readBody(body: TransportResponse['body']): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  if (body instanceof Uint8Array) return body;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* chunksOf(body: TransportResponse['body']): AsyncIterable<Uint8Array> {
  if (body instanceof Uint8Array) yield body;
  else if (body) yield* body;
}

/** A body read to its end, unused, before the next hop; past this size it is dropped with its connection instead. */
const DRAIN_LIMIT_BYTES = 1024 * 1024;

/** Reads a streamed body to its end, unused (or drops it, past DRAIN_LIMIT_BYTES). */
async function drain(response: TransportResponse): Promise<void> {
  const { body } = response;
  if (!body || body instanceof Uint8Array) return;
  let bytes = 0;
  try {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      if (bytes > DRAIN_LIMIT_BYTES) return discard(response);
    }
  } catch {
    // its connection failed: nothing was waiting for it
  }
}

/** Drops a response's body unread (its connection with it). */
function discard(response: TransportResponse): void {
  if (response.discard) response.discard();
  else if (response.body && !(response.body instanceof Uint8Array)) void response.body[Symbol.asyncIterator]().return?.();
}
