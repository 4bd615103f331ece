// The upstream response relayed to the client: its body streamed under the (possibly rewritten)
// head, through any StreamFilters, its kept part journaled and offered to the cache; onResponseStarted
// at the head, onCompleted when the last byte went, onErrorOccurred if the upstream cut it short.
import type { IncomingMessage } from 'node:http';
import { headerObject, headersFromRaw } from '../headers.js';
import type { Journal } from '../journal.js';
import type { HttpHeaders } from '../types.js';
import { KeptBody } from '../web-request/kept-body.js';
import type { RequestFlight } from '../web-request/lifecycle.js';
import { pairsOf } from './cached-answer.js';
import { isHttp2, writeResponseHead } from './client-response.js';
import { relayFiltered } from './filtered-body.js';
import type { HttpCache, CacheRequest } from './http-cache.js';
import type { OngoingRequest, OngoingResponse } from './mockttp-hooks.js';
import { cutShortError, isCutShort, netErrorOf } from './net-error.js';
import type { UpstreamResponse } from './upstream-transport.js';

/** What relaying needs of the proxy. */
export interface RelayContext {
  journal: Journal;
  /** Journal request and response bodies (up to maxBodySize) as `body` entries, for the recorder. */
  journalBodies: boolean;
  maxBodySize: number;
  cache: HttpCache | undefined;
  /** The client sees a network failure: its connection or stream reset. */
  reset: (request: OngoingRequest, response: OngoingResponse) => void;
}

export type RelayedHead = { statusCode: number; statusMessage: string; headers: HttpHeaders; redirected: boolean; cacheRequest: CacheRequest | undefined };

/** Streams the upstream body to the client under the (possibly rewritten) head; onCompleted when the last byte went. */
export function relayResponse(context: RelayContext, flight: RequestFlight, request: OngoingRequest, response: OngoingResponse, upstream: UpstreamResponse, head: RelayedHead): Promise<void> {
  const incoming = upstream.response;
  const kept = context.journalBodies || head.cacheRequest ? new KeptBody(context.maxBodySize) : undefined;
  const filters = flight.takeFilters();
  // A redirect the client follows ends a filter (Firefox: "Channel redirected"); the next hop may get its own.
  if (head.redirected) for (const filter of filters) filter.fail('Channel redirected');
  else if (filters.length > 0) {
    // What the filters wrote, for the TUI: the body the client got is not the server's. A filter
    // writes decoded bytes (it was given them decoded).
    const delivered = context.journalBodies ? new KeptBody(context.maxBodySize) : undefined;
    if (kept) {
      incoming.on('data', (chunk: Buffer) => kept.add(chunk));
      response.once('finish', () => {
        afterResponse(context, flight, head, kept);
        if (delivered) context.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'response', filteredBy: filters.map((filter) => filter.ownerId).reverse(), url: flight.url, bytes: delivered.bytes(), complete: delivered.whole, size: delivered.size, decoded: true });
      });
    }
    return relayFiltered({ flight, request, response, incoming, head, filters, journal: context.journal, reset: () => context.reset(request, response), ...(delivered && { delivered }) });
  }
  return new Promise<void>((resolve) => {
    response.once('finish', () => {
      if (!head.redirected) flight.completed();
      if (kept) afterResponse(context, flight, head, kept);
      resolve();
    });
    // The client leaving is #exchange's to report; here it only ends the wait.
    response.once('close', () => {
      if (!response.writableFinished) incoming.destroy();
      resolve();
    });
    const upstreamFailed = (error: { code?: string } | undefined) => {
      if (flight.finished || incoming.complete) return;
      flight.fail(error && !isCutShort(error) ? netErrorOf(error) : cutShortError(incoming));
      context.reset(request, response);
    };
    incoming.on('error', upstreamFailed);
    // Node may close a response cut short without an error: the server closed the connection mid-body.
    incoming.once('close', () => upstreamFailed(undefined));

    writeResponseHead(request, response, head.statusCode, head.statusMessage, head.headers);
    if (!head.redirected) flight.responseStarted();
    if (request.method === 'HEAD' || head.statusCode === 204 || head.statusCode === 304) {
      incoming.resume();
      response.end();
      return;
    }
    if (kept) incoming.on('data', (chunk: Buffer) => kept.add(chunk));
    incoming.once('end', () => forwardTrailers(request, response, incoming));
    incoming.pipe(response);
  });
}

/** The response body as far as it was kept: journaled for the recorder, offered to the cache. */
function afterResponse(context: RelayContext, flight: RequestFlight, head: RelayedHead, kept: KeptBody): void {
  const bytes = kept.bytes();
  if (context.journalBodies) {
    context.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'response', url: flight.url, bytes, complete: kept.whole, size: kept.size });
  }
  if (context.cache && head.cacheRequest) {
    context.cache.store(head.cacheRequest, {
      statusCode: head.statusCode,
      statusMessage: head.statusMessage,
      headers: headerObject(head.headers),
      rawHeaders: pairsOf(head.headers),
      ...(kept.whole && { body: bytes }),
    });
  }
}

/** Upstream trailers go on to an HTTP/1.1 client (chunked responses carry them; HTTP/2 ones are dropped). */
function forwardTrailers(request: OngoingRequest, response: OngoingResponse, incoming: IncomingMessage): void {
  if (incoming.rawTrailers.length === 0 || isHttp2(request)) return;
  try {
    response.addTrailers(pairsOf(headersFromRaw(incoming.rawTrailers)));
  } catch {
    // An invalid trailer: Node refuses it; the body is still complete.
  }
}
