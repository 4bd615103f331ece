// A recorded journal (a session file, or headless NDJSON) turned into replayable requests. Each
// request's entries give its hops (onBeforeRequest starts one), each hop's exchanges with the
// network (onBeforeSendHeaders starts one; a credentials retry starts another), the response as
// received (onHeadersReceived's details, before listeners changed it) and how it ended. The
// client's headers are onBeforeSendHeaders' without what the cookie store added
// (store-cookie-timeline.ts); bodies come from the `body` entries.
import type { SerializedCookie } from 'tough-cookie';
import type { JournalEntry, WebRequestEntry } from '../journal.js';
import {
  ERR_BLOCKED_BY_CLIENT,
  type NetError,
  type OnBeforeRedirectDetails,
  type OnBeforeRequestDetails,
  type OnErrorOccurredDetails,
  type OnHeadersReceivedDetails,
  type OnResponseStartedDetails,
  type OnSendHeadersDetails,
  type WebRequestBody,
  type WebRequestEventName,
} from '../types.js';
import type { RecordedExchange, RecordedRequest, RecordedResponse, RecordedSession } from './recorded-session.js';
import { JournalTracer } from './request-trace.js';
import type { SessionFileContents } from './session-reader.js';
import { arrayBufferOf, bytesOf } from './session-json.js';
import { StoreCookieTimeline } from './store-cookie-timeline.js';

interface Recorded {
  bytes: Uint8Array;
  complete: boolean;
  /** Already decoded (a replayed HAR's content, saved from the TUI). */
  decoded?: boolean;
}

interface RequestInProgress {
  request: RecordedRequest;
  /** Timeline position of its first entry. */
  firstPosition: number;
  /** Its end is in (onCompleted or onErrorOccurred). */
  ended?: boolean;
  lastEvent: WebRequestEventName | undefined;
  /** Timeline position of its latest event. */
  lastPosition: number | undefined;
  /** The body of the hop about to start. */
  requestBody?: Recorded | undefined;
  responseBodies: Recorded[];
}

export function sessionFromJournal(file: string, contents: SessionFileContents): RecordedSession {
  const { header, entries } = contents;
  const builder = new SessionBuilder(header?.cookies);
  const times: number[] = [];
  for (const entry of entries) {
    times.push(entry.time);
    builder.add(entry);
  }
  builder.finish();
  const requests = builder.requests;
  const warnings = [...contents.warnings];
  if (builder.incomplete > 0) warnings.push(incompleteWarning(builder.incomplete));
  return {
    source: contents.source,
    file,
    header,
    requests,
    times,
    startedAt: header?.startedAt ?? entries[0]?.time ?? Date.now(),
    cookies: header?.cookies ?? {},
    journal: entries,
    redacted: header?.redacted ?? false,
    listenerTimeoutMs: header?.listenerTimeoutMs,
    warnings,
  };
}

export function incompleteWarning(count: number): string {
  return `${count} request(s) did not finish before the recording ended; they are not replayed`;
}

/**
 * Builds requests entry by entry, as a recording is read: each entry is the next timeline
 * position. A request is handed out (`take()`) once it has ended and the entry after its end is in
 * (the proxy journals a response's body just after the request's end); one that never ends is
 * counted in `incomplete` when the recording does. `frontier()` says how far a replay may go: no
 * request still to be handed out has a step before it.
 */
export class SessionBuilder {
  /** The recorded journal cut into requests, as it is read: what a replay compares with (take() each request's trace). */
  readonly tracer = new JournalTracer();
  /** Requests that never ended, once finish() ran. */
  incomplete = 0;
  /** Every request, in start order, while `keep` (sessionFromJournal); otherwise empty. */
  readonly requests: RecordedRequest[] = [];
  readonly #keep: boolean;
  readonly #timeline: StoreCookieTimeline;
  /** Started and not yet handed out, in start order (a Map keeps insertion order). */
  readonly #building = new Map<string, RequestInProgress>();
  readonly #requestBodies = new Map<string, Recorded>();
  /** Ended, waiting for the entry after their end (a response body may be it). */
  #ended: RequestInProgress[] = [];
  #ready: RecordedRequest[] = [];
  #position = 0;
  #started = 0;

  constructor(cookies: Record<string, SerializedCookie[]> | undefined, options: { keep?: boolean } = {}) {
    this.#timeline = new StoreCookieTimeline(cookies);
    this.#keep = options.keep ?? true;
  }

  /** Positions read so far (the next entry's position). */
  get position(): number {
    return this.#position;
  }

  /** The lowest position any request not yet handed out may have a step at. */
  frontier(): number {
    for (const state of this.#building.values()) return state.firstPosition;
    return this.#position;
  }

  /** The lowest index of a request not yet handed out. */
  lowestIndexToCome(): number {
    for (const state of this.#building.values()) return state.request.index;
    return this.#started;
  }

  /** Requests ready since the last call, in the order they became ready (none when keeping every request). */
  take(): RecordedRequest[] {
    const ready = this.#ready;
    this.#ready = [];
    return ready;
  }

  add(entry: JournalEntry): void {
    const position = this.#position++;
    if (this.#ended.length > 0) this.#settleEnded(entry);
    this.tracer.add(entry);
    switch (entry.kind) {
      case 'webRequest': {
        const requestId = entry.details.requestId;
        let state = this.#building.get(requestId);
        if (!state) {
          const request = newRequest(entry, this.#started++);
          if (this.#keep) this.requests.push(request);
          state = { request, firstPosition: position, lastEvent: undefined, lastPosition: undefined, responseBodies: [] };
          this.#building.set(requestId, state);
        }
        // Firefox's re-fired onBeforeRequest on an auth retry is no new hop.
        if (entry.event === 'onBeforeRequest' && entry.firedFor) return;
        if (entry.event === 'onBeforeRequest') {
          if (entry.madeBy !== undefined) state.request.madeBy ??= entry.madeBy;
          state.requestBody = this.#requestBodies.get(requestId);
          this.#requestBodies.delete(requestId);
        }
        follow(state, entry, position, this.#timeline);
        state.lastEvent = entry.event;
        state.lastPosition = position;
        if (state.request.complete && !state.ended) {
          state.ended = true;
          this.#ended.push(state);
        }
        return;
      }
      case 'body': {
        if (entry.filteredBy) return; // what StreamFilters made of the server's body: a replay makes its own
        const body = { bytes: bytesOf(entry.bytes) ?? new Uint8Array(), complete: entry.complete, decoded: entry.decoded === true };
        // A request body comes just before its hop's onBeforeRequest: kept until that event.
        if (entry.direction === 'request') this.#requestBodies.set(entry.requestId, body);
        else this.#building.get(entry.requestId)?.responseBodies.push(body);
        return;
      }
      case 'cookieChanged':
        this.#timeline.apply(entry.changeInfo);
        return;
      default:
        return;
    }
  }

  /** The recording ended: what ended is handed out; what did not is counted, never replayed. */
  finish(): void {
    for (const state of this.#ended) this.#handOut(state);
    this.#ended = [];
    for (const state of this.#building.values()) {
      attachResponseBodies(state);
      this.incomplete++;
    }
    this.#building.clear();
    this.#requestBodies.clear();
  }

  /** Ended requests are handed out at the next entry, unless it is their own response body. */
  #settleEnded(next: JournalEntry): void {
    const waiting: RequestInProgress[] = [];
    for (const state of this.#ended) {
      if (next.kind === 'body' && next.direction === 'response' && !next.filteredBy && next.requestId === state.request.requestId) waiting.push(state);
      else this.#handOut(state);
    }
    this.#ended = waiting;
  }

  #handOut(state: RequestInProgress): void {
    attachResponseBodies(state);
    const { request } = state;
    request.storeId = this.tracer.trace().requests.get(request.requestId)?.storeId ?? '0';
    this.#building.delete(request.requestId);
    // Kept whole (`requests`), nobody takes them one by one.
    if (!this.#keep) this.#ready.push(request);
  }
}

function newRequest(entry: WebRequestEntry & JournalEntry, index: number): RecordedRequest {
  const { details } = entry;
  return {
    index,
    requestId: details.requestId,
    type: details.type,
    tabId: details.tabId,
    frameId: details.frameId,
    parentFrameId: details.parentFrameId,
    // Known once it has ended: "1" when a cookie change it caused was in the incognito store.
    storeId: '0',
    hops: [],
    redirectNotFollowed: false,
    complete: false,
  };
}

function follow(state: RequestInProgress, entry: WebRequestEntry & JournalEntry, position: number, timeline: StoreCookieTimeline): void {
  const { request } = state;
  const details = entry.details;
  let hop = request.hops.at(-1);
  if (entry.event === 'onBeforeRequest' || !hop) {
    hop = {
      url: details.url,
      method: details.method,
      exchanges: [],
      at: entry.event === 'onBeforeRequest' ? { beforeRequest: position } : {},
    };
    const requestBody = (details as OnBeforeRequestDetails).requestBody;
    if (requestBody) hop.requestBody = reviveRequestBody(requestBody);
    if (state.requestBody?.complete) hop.body = state.requestBody.bytes;
    state.requestBody = undefined;
    request.hops.push(hop);
    if (entry.event === 'onBeforeRequest') return;
  }
  let exchange = hop.exchanges.at(-1);
  const newExchange = (): RecordedExchange => {
    const created: RecordedExchange = { at: {} };
    hop!.exchanges.push(created);
    return created;
  };

  switch (entry.event) {
    case 'onBeforeSendHeaders': {
      exchange = newExchange();
      exchange.at.beforeSendHeaders = position;
      if (state.lastPosition !== undefined) exchange.at.cookiesRead = state.lastPosition + 0.5;
      if (hop.exchanges.length === 1) {
        hop.clientHeaders = timeline.clientHeaders((details as OnSendHeadersDetails).requestHeaders ?? [], details.url, request.storeId, entry.time);
      }
      return;
    }
    case 'onSendHeaders':
      (exchange ?? newExchange()).sentHeaders = (details as OnSendHeadersDetails).requestHeaders ?? [];
      return;
    case 'onHeadersReceived': {
      const received = details as OnHeadersReceivedDetails;
      exchange ??= newExchange();
      exchange.response = {
        statusCode: received.statusCode,
        statusLine: received.statusLine,
        headers: received.responseHeaders ?? [],
        fromCache: false,
        bodyDecoded: false,
      };
      exchange.at.response = position;
      return;
    }
    case 'onBeforeRedirect':
      hop.redirectUrl = (details as OnBeforeRedirectDetails).redirectUrl;
      if (state.lastEvent === 'onBeforeRequest') hop.redirectedInternally = true;
      // A listener's redirect at onBeforeRequest has no response; a server's carries ip and fromCache.
      if (state.lastEvent !== 'onBeforeRequest') takeNetworkFacts(exchange?.response, details as OnBeforeRedirectDetails);
      hop.at.end = position;
      return;
    case 'onResponseStarted':
      hop.at.responseStarted = position;
      takeNetworkFacts(exchange?.response, details as OnResponseStartedDetails);
      return;
    case 'onCompleted':
      hop.at.end = position;
      request.complete = true;
      takeNetworkFacts(exchange?.response, details as OnResponseStartedDetails);
      return;
    case 'onErrorOccurred': {
      const { error } = details as OnErrorOccurredDetails;
      request.complete = true;
      hop.at.end = position;
      hop.error = error;
      if (state.lastEvent === 'onBeforeRedirect' && error === 'net::ERR_ABORTED') {
        request.redirectNotFollowed = true;
        return;
      }
      if (!exchange || error === ERR_BLOCKED_BY_CLIENT) return;
      if (exchange.sentHeaders && !exchange.response) {
        exchange.error = error as NetError;
        exchange.at.response = position;
      } else if (exchange.response && hop.at.responseStarted !== undefined) {
        exchange.response.bodyError = error as NetError;
      }
      return;
    }
    default:
      return;
  }
}

function takeNetworkFacts(response: RecordedResponse | undefined, details: { ip?: string; fromCache: boolean }): void {
  if (!response) return;
  response.fromCache = details.fromCache;
  if (details.ip !== undefined) response.ip = details.ip;
}

/**
 * Each mockttp response gives one body entry: normally one per exchange with a response, in order.
 * When they do not pair up (wrtui retried with credentials itself, so two responses came back as one),
 * the last body is the last response's.
 */
function attachResponseBodies(state: RequestInProgress): void {
  const responses = state.request.hops.flatMap((hop) => hop.exchanges).flatMap((exchange) => (exchange.response ? [exchange.response] : []));
  const bodies = state.responseBodies;
  const pairs: [RecordedResponse, Recorded][] =
    responses.length === bodies.length ? responses.map((response, i) => [response, bodies[i]!]) : responses.length > 0 && bodies.length > 0 ? [[responses.at(-1)!, bodies.at(-1)!]] : [];
  for (const [response, body] of pairs) {
    if (!body.complete) continue;
    response.body = body.bytes;
    // A body a HAR replay journaled (and the TUI saved) is already decoded.
    if (body.decoded) response.bodyDecoded = true;
  }
}

/** requestBody.raw[].bytes is an ArrayBuffer (§2.9); the file holds it as base64. */
function reviveRequestBody(requestBody: WebRequestBody): WebRequestBody {
  if (!requestBody.raw) return requestBody;
  return {
    ...requestBody,
    raw: requestBody.raw.map((element) => {
      const bytes = bytesOf(element.bytes);
      return bytes ? { ...element, bytes: arrayBufferOf(bytes) } : element;
    }),
  };
}

