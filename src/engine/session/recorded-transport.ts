// The Transport of a replay: answers from the recording, never from the network. A request gets
// the response recorded for the same step when it went to the same URL with the same method;
// otherwise the latest response recorded before that step to that method and URL (a rule now
// redirects to a URL another request fetched earlier), as a cache would have it. A request the recording has no answer for fails with net::ERR_CACHE_MISS (what
// Chrome reports when it may use only its cache and the cache has nothing), and the journal says
// why.
import type { Journal } from '../journal.js';
import type { NetError } from '../types.js';
import { TransportError, type OutgoingRequest, type ResponseHead } from '../web-request/transport.js';
import type { RecordedExchange, RecordedHop, RecordedRequest, RecordedResponse } from './recorded-session.js';
import { insertSorted } from './sorted-insert.js';

export const ERR_NOT_IN_RECORDING: NetError = 'net::ERR_CACHE_MISS';

export interface RecordedAnswer extends ResponseHead {
  /** The recorded body broke off with this error. */
  bodyError?: NetError;
  /** The body was recorded decoded (a HAR's content), though its headers may name a Content-Encoding. */
  bodyDecoded: boolean;
  /** The recorded body, read when asked (a large HAR body comes from its file each time: read it once). */
  readBody(): Uint8Array | undefined;
}

/**
 * How far back (in timeline positions, one per journal entry: some 2,000 to 3,000 requests) an
 * answer recorded for another request may be taken: a streamed replay lets older ones go, so its
 * memory does not grow with the recording, and a whole one honours the same bound, so both give
 * the same answers.
 */
export const FALLBACK_HORIZON = 20_000;

interface IndexedAnswer {
  position: number;
  exchange: RecordedExchange;
}

export class RecordedTransport {
  /** Recorded answers by request line, ascending by position. */
  readonly #byRequestLine = new Map<string, IndexedAnswer[]>();
  readonly #journal: Journal;
  #answers = 0;
  #sweptAt = 0;

  constructor(journal: Journal, requests: Iterable<RecordedRequest> = []) {
    this.#journal = journal;
    for (const request of requests) this.add(request);
  }

  /** A recorded request's answers join those other requests may be given. */
  add(request: RecordedRequest): void {
    for (const hop of request.hops) {
      for (const exchange of hop.exchanges) {
        const position = exchange.at.response;
        if (position === undefined || !(exchange.response || exchange.error)) continue;
        const key = requestLine(hop.method, hop.url);
        let answers = this.#byRequestLine.get(key);
        if (!answers) this.#byRequestLine.set(key, (answers = []));
        // Requests are added as they end, not in the order of their answers: insert in place.
        insertSorted(answers, { position, exchange }, (answer) => answer.position);
        this.#answers++;
      }
    }
  }

  /** Lets go of answers no lookup at `position` or later may be given (see FALLBACK_HORIZON). */
  forgetBefore(position: number): void {
    // A sweep costs the index's size: run it once the index has grown by as much again.
    if (this.#answers < 2 * this.#sweptAt + 1024) return;
    const oldest = position - FALLBACK_HORIZON;
    for (const [key, answers] of this.#byRequestLine) {
      let drop = 0;
      while (drop < answers.length && answers[drop]!.position < oldest) drop++;
      if (drop === answers.length) this.#byRequestLine.delete(key);
      else if (drop > 0) answers.splice(0, drop);
      this.#answers -= drop;
    }
    this.#sweptAt = this.#answers;
  }

  /**
   * The recorded answer to `request`, sent by replayed request `requestId` at timeline `position`;
   * `expected` is the step's own recording. Another request's answer is the latest one recorded
   * for the same method and URL before `position` (within FALLBACK_HORIZON).
   */
  answer(request: OutgoingRequest, requestId: string, hop: RecordedHop | undefined, expected: RecordedExchange | undefined, position: number): RecordedAnswer {
    const own = hop && expected && hop.url === request.url && hop.method === request.method && (expected.response || expected.error) ? expected : undefined;
    const exchange = own ?? this.#latestBefore(requestLine(request.method, request.url), position);
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

  #latestBefore(key: string, position: number): RecordedExchange | undefined {
    const answers = this.#byRequestLine.get(key);
    if (!answers) return undefined;
    for (let i = answers.length - 1; i >= 0; i--) {
      const answer = answers[i]!;
      if (answer.position >= position) continue;
      return answer.position >= position - FALLBACK_HORIZON ? answer.exchange : undefined;
    }
    return undefined;
  }
}

function answerOf(response: RecordedResponse): RecordedAnswer {
  return {
    statusCode: response.statusCode,
    statusLine: response.statusLine,
    headers: response.headers,
    fromCache: response.fromCache,
    ...(response.ip !== undefined && { ip: response.ip }),
    ...(response.bodyError && { bodyError: response.bodyError }),
    bodyDecoded: response.bodyDecoded,
    // Only StreamFilters and the TUI's bodies need it: most replays never read it.
    readBody: () => response.body,
  };
}

function requestLine(method: string, url: string): string {
  return `${method.toUpperCase()} ${url}`;
}
