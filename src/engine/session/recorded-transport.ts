// The Transport of a replay: answers from the recording, never from the network. A request gets
// the response recorded for the same step when it went to the same URL with the same method;
// otherwise any recorded response to that method and URL (a rule now redirects to a URL another
// request fetched). A request the recording has no answer for fails with net::ERR_CACHE_MISS (what
// Chrome reports when it may use only its cache and the cache has nothing), and the journal says
// why.
import type { Journal } from '../journal.js';
import type { NetError } from '../types.js';
import { TransportError, type OutgoingRequest, type TransportResponse } from '../web-request/transport.js';
import type { RecordedExchange, RecordedHop, RecordedResponse, RecordedSession } from './recorded-session.js';

export const ERR_NOT_IN_RECORDING: NetError = 'net::ERR_CACHE_MISS';

export interface RecordedAnswer extends TransportResponse {
  /** The recorded body broke off with this error. */
  bodyError?: NetError;
}

export class RecordedTransport {
  readonly #byRequestLine = new Map<string, RecordedExchange>();
  readonly #journal: Journal;

  constructor(session: RecordedSession, journal: Journal) {
    this.#journal = journal;
    for (const request of session.requests) {
      for (const hop of request.hops) {
        for (const exchange of hop.exchanges) {
          const key = requestLine(hop.method, hop.url);
          if ((exchange.response || exchange.error) && !this.#byRequestLine.has(key)) this.#byRequestLine.set(key, exchange);
        }
      }
    }
  }

  /** The recorded answer to `request`, sent by replayed request `requestId`; `expected` is the step's own recording. */
  answer(request: OutgoingRequest, requestId: string, hop: RecordedHop | undefined, expected: RecordedExchange | undefined): RecordedAnswer {
    const own = hop && expected && hop.url === request.url && hop.method === request.method && (expected.response || expected.error) ? expected : undefined;
    const exchange = own ?? this.#byRequestLine.get(requestLine(request.method, request.url));
    if (exchange?.response) return answerOf(exchange.response);
    if (exchange?.error) throw new TransportError(exchange.error, `recorded failure: ${exchange.error}`);
    this.#journal.append({
      kind: 'log',
      level: 'warn',
      source: 'replay',
      message: `request ${requestId}: ${request.method} ${request.url} is not in the recording; it fails with ${ERR_NOT_IN_RECORDING}`,
    });
    throw new TransportError(ERR_NOT_IN_RECORDING, `${request.method} ${request.url} is not in the recording`);
  }
}

function answerOf(response: RecordedResponse): RecordedAnswer {
  return {
    statusCode: response.statusCode,
    statusLine: response.statusLine,
    headers: response.headers,
    fromCache: response.fromCache,
    ...(response.ip !== undefined && { ip: response.ip }),
    ...(response.body && { body: response.body }),
    ...(response.bodyError && { bodyError: response.bodyError }),
  };
}

function requestLine(method: string, url: string): string {
  return `${method.toUpperCase()} ${url}`;
}
