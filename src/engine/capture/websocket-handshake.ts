// A WebSocket handshake through the proxy, from its arrival to the splice of the two connections
// (or the origin's refusal), with the request-side events and onHeadersReceived as for any request.
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import type { Journal } from '../journal.js';
import type { RequestFlight, RequestLifecycle } from '../web-request/lifecycle.js';
import { TransportError } from '../web-request/transport.js';
import type { ClientFault } from './client-guard.js';
import { ORIGIN_FRAMING, rawResponseHead, resetSocket } from './client-response.js';
import { releaseHandshakeSocket, requestHeaderList, type OngoingRequest } from './mockttp-hooks.js';
import { netErrorOf } from './net-error.js';
import { headersToForward } from './request-intake.js';
import { tabAndFrame, tabIdFrom } from './resource-type.js';
import type { UpgradeResult, UpstreamTransport } from './upstream-transport.js';
import { headersFromRaw } from '../headers.js';
import { watchWebSocketMessages } from './websocket-messages.js';

/** What a handshake needs of the capture proxy that received it. */
export interface HandshakeContext {
  lifecycle: RequestLifecycle;
  journal: Journal;
  storeId: string;
  upstream: UpstreamTransport;
  /** Requests in flight, ended on stop(). */
  inFlight: Set<RequestFlight>;
  /** Journal each message of an upgraded connection (websocket-messages.ts), up to maxBytes of each. */
  watchMessages?: { maxBytes: number };
  /** The request leads back to the proxy itself: the journal says so. */
  journalLoop(request: OngoingRequest): void;
  clientFault(fault: ClientFault): void;
}

/**
 * A WebSocket handshake: the request-side events, the handshake sent upstream with the headers the
 * listeners left, onHeadersReceived on the answer; on a 101 the two connections are spliced and
 * the request completes (Chrome's webRequest sees nothing of the frames).
 */
export async function handleUpgrade(context: HandshakeContext, request: OngoingRequest, socket: Socket, head: Buffer): Promise<void> {
  socket.on('error', () => socket.destroy()); // the client vanished; its flight ends on 'close'
  if (context.upstream.sockets.leadBack(socket)) {
    context.journalLoop(request);
    socket.end(rawResponseHead(508, 'Loop Detected', [{ name: 'Content-Length', value: '0' }, { name: 'Connection', value: 'close' }]));
    return;
  }
  let url: URL;
  let flight: RequestFlight;
  const headers = requestHeaderList(request);
  try {
    url = new URL(request.url);
    const tabId = tabIdFrom(request.headers);
    flight = context.lifecycle.start({
      url: request.url,
      method: request.method,
      requestHeaders: headersToForward(headers, url, false),
      type: 'websocket',
      ...tabAndFrame('websocket', tabId),
      storeId: context.storeId,
    });
  } catch (error) {
    context.clientFault({ method: request.method, target: request.url, reason: (error as Error).message });
    socket.end(rawResponseHead(400, 'Bad Request', [{ name: 'Content-Length', value: '0' }, { name: 'Connection', value: 'close' }]));
    return;
  }
  context.inFlight.add(flight);
  const pending: { request?: ClientRequest } = {};
  // The client leaving before the handshake's answer is whole ends the request (after it: nothing).
  socket.once('close', () => {
    context.inFlight.delete(flight);
    flight.fail('net::ERR_ABORTED');
    pending.request?.destroy();
  });
  try {
    const before = await flight.beforeRequest();
    if (before.action === 'cancel') return resetSocket(socket);
    if (before.action === 'redirect') {
      // A client cannot follow a redirect of a handshake through a proxy (RFC 6455 §4.1): it fails.
      context.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `request ${flight.requestId}: a WebSocket handshake cannot be redirected through the proxy; closing it instead of following ${before.redirectUrl}`, requestId: flight.requestId });
      flight.fail('net::ERR_ABORTED');
      return resetSocket(socket);
    }
    if (flight.finished) return resetSocket(socket); // the client left while listeners thought
    const send = await flight.prepareToSend();
    if (send.action === 'cancel' || flight.finished) return resetSocket(socket);
    let answer: UpgradeResult;
    try {
      answer = await context.upstream.openUpgrade({ url, method: request.method, headers: send.requestHeaders }, pending);
    } catch (error) {
      // As for a plain request: the handshake is answered 502 naming what failed.
      const netError = error instanceof TransportError ? error.netError : netErrorOf(error);
      flight.fail(netError);
      const body = Buffer.from(`wrtui: ${netError} from ${url.host}\n`);
      socket.end(Buffer.concat([rawResponseHead(502, 'Bad Gateway', [{ name: 'Content-Type', value: 'text/plain; charset=utf-8' }, { name: 'X-Wrtui-Error', value: netError }, { name: 'Content-Length', value: String(body.length) }, { name: 'Connection', value: 'close' }]), body]));
      return;
    }
    const decision = await flight.headersReceived({
      statusCode: answer.response.statusCode ?? 0,
      statusMessage: answer.response.statusMessage ?? '',
      httpVersion: answer.response.httpVersion,
      headers: headersFromRaw(answer.response.rawHeaders),
      ...(answer.ip !== undefined && { ip: answer.ip }),
    });
    if (decision.action === 'cancel' || decision.action === 'retry-auth' || decision.action === 'redirect' || flight.finished || socket.destroyed) {
      if (answer.kind === 'upgraded') answer.socket.destroy();
      else answer.request.destroy();
      if (decision.action !== 'cancel') flight.fail('net::ERR_ABORTED'); // no auth retry or redirect for a handshake
      return resetSocket(socket);
    }
    const statusMessage = answer.response.statusMessage ?? '';
    if (answer.kind === 'upgraded') {
      const upstream = answer.socket;
      upstream.setTimeout(0); // a quiet WebSocket is not a silent server
      socket.write(rawResponseHead(decision.statusCode, statusMessage, decision.responseHeaders));
      releaseHandshakeSocket(socket);
      if (answer.head.length > 0) socket.write(answer.head);
      if (head.length > 0) upstream.write(head);
      flight.responseStarted();
      flight.completed();
      if (context.watchMessages) {
        // The messages both ways, read off the spliced bytes (which go on untouched).
        watchWebSocketMessages(context.journal, { requestId: flight.requestId, client: socket, upstream, clientHead: head, upstreamHead: answer.head, responseHeaders: decision.responseHeaders, maxBytes: context.watchMessages.maxBytes });
      }
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => socket.destroy());
      socket.pipe(upstream);
      upstream.pipe(socket);
      return;
    }
    // The origin refused to switch: its answer goes back as it is, the body delimited by closing.
    const refused = answer.response;
    socket.write(rawResponseHead(decision.statusCode, statusMessage, [...decision.responseHeaders.filter((h) => !ORIGIN_FRAMING.has(h.name.toLowerCase())), { name: 'Connection', value: 'close' }]));
    releaseHandshakeSocket(socket);
    flight.responseStarted();
    refused.on('error', () => {
      flight.fail('net::ERR_CONNECTION_RESET');
      socket.destroy();
    });
    refused.on('end', () => {
      flight.completed();
      socket.end();
    });
    refused.pipe(socket, { end: false });
  } catch (error) {
    context.journal.append({ kind: 'log', level: 'error', source: 'capture', message: `request ${flight.requestId}: ${(error as Error).stack ?? error}`, requestId: flight.requestId });
    flight.fail('net::ERR_FAILED');
    resetSocket(socket);
  }
}
