// A response body rewritten on the wire by StreamFilters (Firefox's filterResponseData): the
// upstream body, decoded as Firefox decodes it before a filter sees it, goes through the filters,
// and what they write goes to the client. The head keeps what the listeners decided, but for what
// the rewrite makes untrue: Content-Length (the client's framing is chunked for HTTP/1.1, the
// connection's close for HTTP/1.0, frames for HTTP/2) and, for a decoded body, Content-Encoding.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Journal } from '../journal.js';
import type { HttpHeaders, NetError } from '../types.js';
import type { RequestFlight } from '../web-request/lifecycle.js';
import { FilterChain, type ResponseFilter } from '../web-request/stream-filter.js';
import { writeResponseHead, type ClientRequestLike } from './client-response.js';
import { decodedStream } from '../web-request/content-decoding.js';
import type { OngoingResponse } from './mockttp-hooks.js';
import { cutShortError, isCutShort, netErrorOf } from './net-error.js';

export interface FilteredRelay {
  flight: RequestFlight;
  request: ClientRequestLike & { method?: string };
  response: OngoingResponse;
  incoming: IncomingMessage;
  head: { statusCode: number; statusMessage: string; headers: HttpHeaders };
  filters: readonly ResponseFilter[];
  journal: Journal;
  /** Fails the client's request (a reset it sees). */
  reset: () => void;
  /** Keeps what the filters wrote, the body the client got (for the journal). */
  delivered?: { add(chunk: Uint8Array): void };
}

/** Streams the filtered body; resolves once the client's response ended one way or another. */
export function relayFiltered(relay: FilteredRelay): Promise<void> {
  const { flight, request, response, incoming, head, filters, journal } = relay;
  const noBody = request.method === 'HEAD' || head.statusCode === 204 || head.statusCode === 304;
  let source: Readable;
  let decoded = false;
  if (noBody) {
    incoming.resume();
    source = Readable.from([]);
  } else {
    ({ stream: source, decoded } = decodedStream(incoming, head.headers));
  }
  // A response without a body (HEAD, 204, 304) keeps its head: there is nothing to rewrite.
  const wireHeaders = noBody
    ? head.headers
    : head.headers.filter((header) => {
        const name = header.name.toLowerCase();
        return name !== 'content-length' && name !== 'transfer-encoding' && !(decoded && name === 'content-encoding');
      });
  // Framing of wrtui's own for an HTTP/1.1 client (Node adds none once the origin's was removed).
  if (!noBody && request.httpVersion === '1.1') wireHeaders.push({ name: 'Transfer-Encoding', value: 'chunked' });

  const chain = new FilterChain(filters, source, {
    write: (chunk) => {
      if (noBody) return true;
      relay.delivered?.add(chunk);
      return response.write(chunk);
    },
    end: () => response.end(),
    once: (event, listener) => response.once(event, listener),
  });

  return new Promise<void>((resolve) => {
    let over = false;
    const fail = (error: NetError, why?: string) => {
      if (over) return;
      over = true;
      if (why) journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `request ${flight.requestId} (${flight.url}): ${why}`, requestId: flight.requestId });
      flight.fail(error);
      incoming.destroy();
      relay.reset();
    };
    response.once('finish', () => {
      over = true;
      flight.completed();
      const passes = [...filters].reverse().map((filter) => `${filter.ownerId} (${filter.bytesIn} bytes in, ${filter.bytesOut} out)`).join(', then ');
      journal.append({ kind: 'log', level: 'info', source: 'capture', message: `request ${flight.requestId}: the response body went through the StreamFilter${filters.length > 1 ? 's' : ''} of ${passes}`, requestId: flight.requestId });
      if (!incoming.complete) incoming.destroy(); // a filter closed early: the rest is of no use
      resolve();
    });
    response.once('close', () => {
      // The client left: each filter hears the body is over, as Firefox's do when a channel is cancelled.
      if (!response.writableFinished) {
        chain.cancel();
        incoming.destroy();
      }
      resolve();
    });
    // The server closed the connection mid-body (Node says so with 'aborted', and an error when listened for).
    incoming.once('aborted', () => fail(cutShortError(incoming)));
    void chain.done.then((outcome) => {
      if (outcome.kind === 'broken') {
        fail('net::ERR_FAILED', `the StreamFilter of ${outcome.ownerId} went away mid-body (${outcome.reason}); the request fails, as Firefox fails it`);
      } else if (outcome.kind === 'source-failed') {
        const error = outcome.error as { code?: string };
        const decoding = typeof error?.code === 'string' && error.code.startsWith('Z_');
        fail(decoding ? 'net::ERR_CONTENT_DECODING_FAILED' : error && !isCutShort(error) ? netErrorOf(error) : cutShortError(incoming));
      }
    });

    writeResponseHead(request, response, head.statusCode, head.statusMessage, wireHeaders);
    flight.responseStarted();
    chain.start();
  });
}
