// Drives one recorded request through a fresh RequestFlight as the live proxy did: the same phases
// in the same order, with the client's headers and body for each hop (a client follows redirects
// with its own request, which replay takes from the recording), the recorded response from
// RecordedTransport, and the recorded framing of what went upstream. Unlike runRequest() it
// follows a redirect only when the recorded client did (or would have had to: a redirect the
// recording does not have is followed, as a browser would).
import { getHeader, withHeader } from '../headers.js';
import type { Journal } from '../journal.js';
import type { HttpHeaders } from '../types.js';
import type { RequestFlight, RequestLifecycle } from '../web-request/lifecycle.js';
import { filterWholeBody } from '../web-request/stream-filter.js';
import { TransportError } from '../web-request/transport.js';
import type { RecordedExchange, RecordedHop, RecordedRequest } from './recorded-session.js';
import type { RecordedTransport } from './recorded-transport.js';
import type { StepGate } from './replay-scheduler.js';
import { KeptBody } from '../web-request/kept-body.js';

export interface ReplayDriverContext {
  lifecycle: RequestLifecycle;
  journal: Journal;
  transport: RecordedTransport;
  /** Journal the request and response bodies, as the proxy does for the recorder and the TUI. */
  journalBodies?: boolean;
}

/** Replays `recorded`; resolves with the requestId it got in the replay. */
export async function replayRequest(recorded: RecordedRequest, context: ReplayDriverContext, gate: StepGate): Promise<string> {
  const { transport, lifecycle } = context;
  /** The latest recorded position this request reached: where a step with no recorded counterpart sits. */
  let position = 0;
  const at: StepGate['at'] = (stepAt, options) => {
    if (stepAt !== undefined) position = stepAt;
    return gate.at(stepAt, options);
  };
  let hopIndex = 0;
  let hop: RecordedHop | undefined = recorded.hops[0]!;
  await at(hop.at.beforeRequest);
  const flight = context.lifecycle.start({
    url: hop.url,
    method: hop.method,
    requestHeaders: hop.clientHeaders ?? [],
    ...(hop.body && { body: hop.body }),
    ...(hop.requestBody && { requestBody: hop.requestBody }),
    type: recorded.type,
    tabId: recorded.tabId,
    frameId: recorded.frameId,
    parentFrameId: recorded.parentFrameId,
    storeId: recorded.storeId,
    ...(recorded.madeBy !== undefined && { madeBy: { name: recorded.madeBy.extension, origin: recorded.madeBy.origin, host: new URL(recorded.madeBy.origin).host } }),
  });
  // While its listeners think, other requests' steps may start; it goes on when the scheduler says (replay-scheduler.ts).
  flight.pace = gate;
  /** As the proxy journals what a client sent, when it arrives. */
  const journalRequestBody = (body: Uint8Array | undefined) => {
    if (context.journalBodies && body) context.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'request', url: flight.url, bytes: body, complete: true });
  };
  journalRequestBody(hop.body);

  /** After a redirect: the client's next hop, or the end when the recorded client did not follow. */
  const followRedirect = async (): Promise<'next-hop' | 'ended'> => {
    const redirectedAsRecorded = hop !== undefined && hop.redirectUrl === flight.url;
    if (redirectedAsRecorded && recorded.redirectNotFollowed && hopIndex === recorded.hops.length - 1) {
      await at(hop!.at.end);
      context.journal.append({ kind: 'log', level: 'info', source: 'replay', message: `request ${flight.requestId}: the client did not follow the redirect to ${flight.url}`, requestId: flight.requestId });
      flight.redirectNotFollowed();
      return 'ended';
    }
    const next: RecordedHop | undefined = redirectedAsRecorded ? recorded.hops[hopIndex + 1] : undefined;
    hopIndex++;
    hop = next && next.url === flight.url && next.method === flight.method ? next : undefined;
    if (hop) {
      // What the proxy does when the client's follow-up arrives: that request's headers and body.
      if (hop.clientHeaders) flight.requestHeaders = hop.clientHeaders;
      if (hop.body) flight.body = hop.body;
      journalRequestBody(hop.body);
      flight.requestBody = hop.requestBody;
      await at(hop.at.beforeRequest);
    }
    return 'next-hop';
  };

  for (;;) {
    const before = await flight.beforeRequest();
    if (before.action === 'cancel') return flight.requestId;
    if (before.action === 'redirect') {
      if (flight.finished || (await followRedirect()) === 'ended') return flight.requestId;
      continue;
    }
    // One hop; a credentials retry sends again.
    for (let attempt = 0; ; attempt++) {
      const expected: RecordedExchange | undefined = hop?.exchanges[attempt];
      await at(expected?.at.cookiesRead ?? expected?.at.beforeSendHeaders, { readsCookies: true });
      const sentAsRecorded = expected?.sentHeaders;
      const send = await flight.prepareToSend(sentAsRecorded && attempt === 0 ? { frame: (headers) => withRecordedFraming(headers, sentAsRecorded) } : {});
      if (send.action === 'cancel') return flight.requestId;
      await at(expected?.at.response, { writesCookies: true });
      let answer;
      try {
        answer = transport.answer(
          { url: flight.url, method: flight.method, headers: send.requestHeaders, ...(flight.body && { body: flight.body }) },
          flight.requestId,
          hop,
          expected,
          expected?.at.response ?? position,
        );
      } catch (error) {
        flight.fail(error instanceof TransportError ? error.netError : 'net::ERR_FAILED');
        return flight.requestId;
      }
      const decision = await flight.headersReceived(answer);
      if (decision.action === 'cancel') return flight.requestId;
      if (decision.action === 'retry-auth') continue;
      if (decision.action === 'redirect') {
        if (flight.finished || (await followRedirect()) === 'ended') return flight.requestId;
        break;
      }
      await at(hop?.at.responseStarted);
      const filters = flight.takeFilters();
      flight.responseStarted();
      // Read once, and only when used: a large HAR body is read from its file.
      const body = filters.length > 0 || context.journalBodies ? answer.readBody() : undefined;
      // What the filters write is the body a client would get: the TUI shows it beside the server's.
      const delivered = filters.length > 0 && context.journalBodies ? new KeptBody(Number.MAX_SAFE_INTEGER) : undefined;
      if (filters.length > 0) {
        // Firefox's StreamFilters get the recorded body as they got the live one.
        const outcome = await filterWholeBody(filters, body, answer.headers, lifecycle.listenerTimeoutMs, delivered && ((chunk) => delivered.add(chunk)));
        if (outcome.kind === 'timed-out') {
          const owners = filters.map((filter) => filter.ownerId).join(', ');
          context.journal.append({ kind: 'log', level: 'warn', source: 'replay', message: `request ${flight.requestId}: the StreamFilter of ${owners} did not close within ${lifecycle.listenerTimeoutMs} ms; replay goes on without it`, requestId: flight.requestId });
        }
        if (outcome.kind === 'broken') {
          flight.fail('net::ERR_FAILED');
          return flight.requestId;
        }
      }
      await at(hop?.at.end);
      finish(flight, answer.bodyError);
      // As the proxy journals the body it passed on, just after the request's end.
      if (context.journalBodies && body) {
        context.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'response', url: flight.url, bytes: body, complete: !answer.bodyError, ...(answer.bodyDecoded ? { decoded: true } : { size: body.length }) });
        if (delivered) context.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'response', filteredBy: filters.map((filter) => filter.ownerId).reverse(), url: flight.url, bytes: delivered.bytes(), complete: !answer.bodyError, size: delivered.size, decoded: true });
      }
      return flight.requestId;
    }
  }
}

function finish(flight: RequestFlight, bodyError: `net::ERR_${string}` | undefined): void {
  if (bodyError) flight.fail(bodyError);
  else flight.completed();
}

// The proxy adjusts Content-Length / Transfer-Encoding after the listeners (capture-proxy.ts,
// framedForMockttp) and onSendHeaders shows it; replay gives them the values that went out live.
const FRAMING = ['content-length', 'transfer-encoding'];

function withRecordedFraming(headers: HttpHeaders, recorded: HttpHeaders): HttpHeaders {
  let framed = headers;
  for (const name of FRAMING) {
    const value = getHeader(recorded, name);
    if (getHeader(framed, name) !== value) framed = withHeader(framed, name, value);
  }
  return framed;
}
