// The live proxy. mockttp terminates the client side: plain HTTP proxying, CONNECT with TLS
// interception through wrtui's CA, HTTP/2, WebSocket upgrades. Every request and WebSocket
// handshake then comes to wrtui's own handlers (mockttp-hooks.ts), which run the request lifecycle
// around wrtui's own upstream client (upstream-transport.ts), so each phase happens where a browser
// has it:
//   request body in        → onBeforeRequest, onBeforeSendHeaders, onSendHeaders
//   upstream response head → onHeadersReceived (blocking listeners hold the head, never the body),
//                            onAuthRequired (retried upstream in place), onBeforeRedirect
//   first byte / last byte → onResponseStarted / onCompleted; a failure → onErrorOccurred
// Bodies stream both ways; only the first --max-body-size bytes are kept (requestBody, recorder,
// cache). After a WebSocket's 101 the two connections are spliced; webRequest sees no frames.
// Beside this file: CONNECT tunnels (connect-tunnels.ts), the upstream response relayed
// (response-relay.ts), answers from the HTTP cache (cached-answer.ts).
import * as mockttp from 'mockttp';
import { createServer, type Server, type Socket } from 'node:net';
import type { ClientRequest } from 'node:http';
import { getHeader, headerObject, headersFromRaw, withHeader } from '../headers.js';
import type { Journal } from '../journal.js';
import type { HttpHeaders } from '../types.js';
import type { HeadersDecision, RequestFlight, RequestLifecycle } from '../web-request/lifecycle.js';
import { parseRequestBody } from '../web-request/request-body.js';
import { TransportError, type ResponseHead } from '../web-request/transport.js';
import type { ClientFault } from './client-guard.js';
import { ClientConnections } from './client-connections.js';
import { DescriptorWatch } from './descriptor-watch.js';
import type { HostMap, HostMapping } from './host-map.js';
import { destroyResponse, isHttp2, plainText, resetClient, refuseClient, writeResponseHead, type WholeResponse } from './client-response.js';
import { localContent } from './data-url.js';
import { FollowUps } from './follow-ups.js';
import { HttpCache, type CacheRequest } from './http-cache.js';
import { costlySubscriptions, deferClientErrorsToResponses, guardClientInput, guardUpgrades, handleConnect, handleEveryRequest, setRequestHeadLimit, handleEveryUpgrade, listenOn, listeningServer, rememberListeningAddress, requestHeaderList, type OngoingRequest, type OngoingResponse } from './mockttp-hooks.js';
import { TunnelCheck } from './tunnel-check.js';
import { insecureUpstreamHint, netErrorOf } from './net-error.js';
import { framed, headersToForward, readRequestBody, type RequestBodyRead } from './request-intake.js';
import { inferResourceType, NO_TAB_ID, tabAndFrame, tabIdFrom } from './resource-type.js';
import { handleUpgrade } from './websocket-handshake.js';
import { UpstreamTransport, type UpstreamResponse } from './upstream-transport.js';
import type { UpstreamProxy } from './upstream-proxy.js';
import type { BrowserToldRequests } from './browser-told.js';
import { answerFromCache } from './cached-answer.js';
import { ConnectTunnels } from './connect-tunnels.js';
import { relayResponse, type RelayContext } from './response-relay.js';


/** The most request head wrtui reads from a client (Node's default: 16 KiB). */
const MAX_REQUEST_HEAD_BYTES = 64 * 1024;
export interface CaptureProxyOptions {
  lifecycle: RequestLifecycle;
  /** PEM certificate and key of the CA that signs intercepted hosts' certificates. */
  ca: { cert: string; key: string };
  /** 0 picks a free port. */
  port?: number;
  /**
   * The address the proxy's socket is bound to: 'localhost' (default: 127.0.0.1 and ::1), one IP
   * address (exactly that), or 0.0.0.0 / :: (every interface: anyone who can reach this machine).
   */
  host?: string;
  /** The cookie store this port's traffic uses: "0" (default) or "1" (incognito). */
  storeId?: string;
  /** Bytes of a request or response body kept for requestBody, the journal and the cache; larger bodies still stream. */
  maxBodySize?: number;
  http2?: boolean;
  /** Hosts whose upstream certificates are not verified. */
  insecureUpstreamHosts?: string[];
  /** Where to connect for some hostnames (--resolve), the request itself unchanged. */
  hostMap?: HostMap;
  /** --upstream-proxy: every upstream connection goes through it, but to hosts its NO_PROXY names. */
  upstreamProxy?: UpstreamProxy;
  /** How long a redirect waits for the client's follow-up before the request ends as aborted. */
  followUpTimeoutMs?: number;
  /** An upstream connection silent this long fails the request with net::ERR_TIMED_OUT. */
  upstreamTimeoutMs?: number;
  /** An HTTP cache (--cache): fresh hits are served by wrtui with fromCache: true. */
  cache?: HttpCache;
  /** Journal request and response bodies (up to maxBodySize) as `body` entries, for the recorder. */
  journalBodies?: boolean;
  /** A client connection that sends nothing this long is closed (default 60 s, client-connections.ts). */
  clientFirstByteTimeoutMs?: number;
}

const DEFAULT_MAX_BODY = 1024 * 1024;
/**
 * How long a request from an attached browser waits for the browser's report of it before wrtui
 * infers its context instead. The report nearly always comes first (the browser tells before it
 * sends); this only covers the two pipes racing (bench/browser-attach.ts measures both).
 */
const TOLD_WAIT_MS = 25;
/**
 * A navigation (a request its headers type as a document) waits longer: a page's document decides the type, frame
 * and tab of everything it loads, and Firefox's BiDi event for the first one came 25 ms late once in
 * CI. A browser's own background requests are not navigations, so they never wait this long.
 */
const TOLD_NAVIGATION_WAIT_MS = 250;

export class CaptureProxy {
  readonly lifecycle: RequestLifecycle;
  readonly journal: Journal;
  readonly storeId: string;
  /** Set while a browser wrtui started is attached (`wrtui browser`): its reports of its own requests. */
  browserTold: BrowserToldRequests | undefined;
  readonly #options: CaptureProxyOptions;
  readonly #server: mockttp.Mockttp;
  readonly #followUps: FollowUps;
  readonly #upstream: UpstreamTransport;
  readonly #maxBodySize: number;
  readonly #cache: HttpCache | undefined;
  /** Requests between their body's arrival and their response's end, to end them on stop(). */
  readonly #inFlight = new Set<RequestFlight>();
  readonly #tunnels: TunnelCheck;
  /** CONNECT tunnels and the TLS handshakes in them (connect-tunnels.ts). */
  readonly #connects: ConnectTunnels;
  /** What relaying an upstream response needs (response-relay.ts). */
  readonly #relayContext: RelayContext;
  /** More listening sockets feeding mockttp's server (::1 beside 127.0.0.1). */
  readonly #alsoListening: Server[] = [];
  #addresses: string[] = [];

  constructor(options: CaptureProxyOptions) {
    this.#options = options;
    this.lifecycle = options.lifecycle;
    this.journal = options.lifecycle.journal;
    this.storeId = options.storeId ?? '0';
    this.#maxBodySize = options.maxBodySize ?? DEFAULT_MAX_BODY;
    this.#clients = new ClientConnections(options.clientFirstByteTimeoutMs);
    this.#cache = options.cache;
    this.#upstream = new UpstreamTransport({
      insecureHosts: options.insecureUpstreamHosts ?? [],
      ...(options.hostMap && { hostMap: options.hostMap, onMapped: (hostname, port, mapping) => this.#toldMapped(hostname, port, mapping) }),
      knownFailure: (hostname, port) => this.#tunnels.recentFailure(hostname, port),
      ...(options.upstreamTimeoutMs !== undefined && { timeoutMs: options.upstreamTimeoutMs }),
      ...(options.upstreamProxy && { upstreamProxy: options.upstreamProxy }),
    });
    // Extensions' own requests go out as the proxy's do (insecure hosts, timeouts), in the default store.
    if (this.storeId === '0') this.lifecycle.network ??= this.#upstream.streaming;
    this.#tunnels = new TunnelCheck({ timeoutMs: Math.min(options.upstreamTimeoutMs || 15_000, 15_000), ...(options.hostMap && { hostMap: options.hostMap }), ...(options.upstreamProxy && { via: this.#upstream }) });
    this.#followUps = new FollowUps({
      ...(options.followUpTimeoutMs !== undefined && { ttlMs: options.followUpTimeoutMs }),
      onUnclaimed: (flight) => {
        this.journal.append({
          kind: 'log',
          level: 'info',
          source: 'capture',
          message: `request ${flight.requestId}: the client did not follow the redirect to ${flight.url}`,
          requestId: flight.requestId,
        });
        flight.redirectNotFollowed();
      },
    });
    this.#server = mockttp.getLocal({
      https: { cert: options.ca.cert, key: options.ca.key },
      http2: options.http2 === false ? false : true,
      recordTraffic: false,
      maxBodySize: this.#maxBodySize,
      cors: false,
      suggestChanges: false,
    });
    this.#connects = new ConnectTunnels({ lifecycle: this.lifecycle, journal: this.journal, storeId: this.storeId, server: this.#server, ca: options.ca, tunnels: this.#tunnels });
    this.#relayContext = {
      journal: this.journal,
      journalBodies: options.journalBodies === true,
      maxBodySize: this.#maxBodySize,
      cache: this.#cache,
      reset: (request, response) => this.#reset(request, response),
    };
  }

  /** The proxy URL clients use, e.g. http://127.0.0.1:8080 (a loopback one when listening on every interface). */
  get url(): string {
    const host = this.#options.host ?? 'localhost';
    const shown = host === 'localhost' || isWildcard(host) ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    return `http://${shown}:${this.#server.port}`;
  }

  /** The addresses the proxy's sockets are bound to (0.0.0.0 or :: when every interface). */
  get addresses(): readonly string[] {
    return this.#addresses;
  }

  /** Bound to every interface: reachable from the network. */
  get everyInterface(): boolean {
    return isWildcard(this.#options.host ?? 'localhost');
  }

  get port(): number {
    return this.#server.port;
  }

  /** mockttp events something subscribed to that make every request dearer (mockttp-hooks.ts): none, or a regression. */
  get costlySubscriptions(): string[] {
    return costlySubscriptions(this.#server);
  }

  /** --upstream-proxy as the user may see it (credentials hidden); undefined: connections go direct. */
  get upstreamProxy(): string | undefined {
    return this.#upstream.upstreamProxy;
  }

  async start(): Promise<void> {
    handleEveryRequest(this.#server, (request, response) => this.#handle(request, response));
    await handleEveryUpgrade(this.#server, (request, socket, head) => this.#handleUpgrade(request, socket, head));
    await this.#server.on('tls-client-error', (failure) => void this.#connects.tlsFailed(failure));
    // Malformed requests never become requests; a debug line says why the client was answered 400.
    await this.#server.on('client-error', (failure) =>
      this.journal.append(
        failure.errorCode === 'HPE_HEADER_OVERFLOW'
          ? // Refused, not truncated: the client is told (431) and so is the user.
            { kind: 'log', level: 'warn', source: 'capture', message: `a request head too large for wrtui (over ${MAX_REQUEST_HEAD_BYTES / 1024} KiB, or too many header lines) was answered 431: ${failure.request?.method ?? ''} ${JSON.stringify(String(failure.request?.url ?? '').slice(0, 200))}` }
          : { kind: 'log', level: 'debug', source: 'capture', message: `malformed request from a client: ${failure.errorCode ?? 'error'} (answered ${failure.request?.method ?? ''} ${failure.request?.url ?? ''})`.trim() },
      ),
    );

    const host = this.#options.host ?? 'localhost';
    listenOn(this.#server, host === 'localhost' ? '127.0.0.1' : host);
    // What mockttp and Node throw on while parsing a client's request is that client's 400, not the end of wrtui.
    const onFault = (fault: ClientFault) => this.#clientFault(fault);
    guardClientInput(this.#server, onFault);
    await this.#server.start(this.#options.port ?? 8080);
    guardUpgrades(this.#server, onFault);
    rememberListeningAddress(this.#server);
    this.#addresses = [host === 'localhost' ? '127.0.0.1' : host];
    if (host === 'localhost') await this.#alsoListenOn('::1');
    handleConnect(this.#server, (request, socket, proceed) => void this.#connects.handleConnect(request, socket, proceed));
    deferClientErrorsToResponses(this.#server);
    this.#clients.watch(listeningServer(this.#server));
    // One watch per process: the default store's proxy keeps it.
    if (this.storeId === '0') {
      this.#descriptors = await DescriptorWatch.start({
        holders: () => `${this.#clients.open} client connections, ${this.#upstream.sockets.size} upstream (${this.#upstream.idleSockets} idle)`,
        warn: (message) => this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message }),
      });
    }
    // wrtui should not refuse (431) a request head the origin would take, a browser's big Cookie
    // header say: servers commonly allow 16–64 KiB. Past that it is answered 431, as before.
    if (!setRequestHeadLimit(this.#server, MAX_REQUEST_HEAD_BYTES)) {
      this.journal.append({ kind: 'log', level: 'debug', source: 'capture', message: "mockttp's HTTP/1 server is not where wrtui expects it: request heads over 16 KiB are answered 431" });
    }
  }

  #clients!: ClientConnections;
  #descriptors: DescriptorWatch | undefined;

  /** Each host:port --resolve sends elsewhere, said once (the request's own `ip` says it every time). */
  readonly #mappedHosts = new Set<string>();
  #toldMapped(hostname: string, port: number, mapping: HostMapping): void {
    const key = `${hostname}:${port}`;
    if (this.#mappedHosts.has(key) || this.#mappedHosts.size >= 1000) return;
    this.#mappedHosts.add(key);
    this.journal.append({ kind: 'log', level: 'info', source: 'capture', message: `${key} is connected to at ${mapping.address} (--resolve ${mapping.text}); the request keeps its URL, Host and TLS name` });
  }

  /** A request wrtui could not read was answered 400: the journal says what came and why. */
  #clientFault(fault: ClientFault): void {
    this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `a client sent a request wrtui cannot read, answered 400: ${fault.method} ${JSON.stringify(fault.target)} (${fault.reason})` });
  }

  /** One more listening socket on `address`, same port, its connections handed to mockttp's server. */
  async #alsoListenOn(address: string): Promise<void> {
    const mockttpServer = listeningServer(this.#server);
    const server = createServer((socket) => mockttpServer.emit('connection', socket));
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        // No IPv6 loopback on this machine, or the port is taken there: 127.0.0.1 serves alone.
        this.journal.append({ kind: 'log', level: 'debug', source: 'capture', message: `not listening on ${address} too: ${error.code ?? error.message}` });
        resolve(false);
      });
      server.listen({ port: this.port, host: address, ipv6Only: true }, () => resolve(true));
    });
    if (!listening) return;
    this.#alsoListening.push(server);
    this.#addresses.push(address);
  }

  async stop(): Promise<void> {
    this.#descriptors?.stop();
    this.#followUps.drain();
    for (const flight of this.#inFlight) flight.fail('net::ERR_ABORTED');
    this.#inFlight.clear();
    await Promise.all(this.#alsoListening.map((server) => new Promise((resolve) => server.close(resolve))));
    await this.#server.stop();
    if (this.lifecycle.network === this.#upstream.streaming) this.lifecycle.network = undefined;
    this.#upstream.close();
  }

  // ── plain requests ────────────────────────────────────────────────────────

  /** One client request, from its arrival to the end of its response (mockttp waits for this). */
  async #handle(request: OngoingRequest, response: OngoingResponse): Promise<void> {
    if (this.#upstream.sockets.leadBack(request.socket)) return this.#refuseLoop(request, response);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch (error) {
      this.#clientFault({ method: request.method, target: request.url, reason: (error as Error).message });
      const close: HttpHeaders = isHttp2(request) ? [] : [{ name: 'Connection', value: 'close' }];
      return this.#sendWhole(request, response, plainText(400, 'Bad Request', `wrtui: cannot parse the request's URL ${JSON.stringify(request.url)}`, close));
    }
    const headers = headersToForward(requestHeaderList(request), url, isHttp2(request));
    let body: RequestBodyRead;
    try {
      body = await readRequestBody(request, this.#maxBodySize);
    } catch {
      // The client went away before its request was whole: nothing was sent, nothing to report.
      destroyResponse(response);
      return;
    }
    const requestBody = parseRequestBody({ method: request.method, contentType: getHeader(headers, 'content-type'), bytes: body.bytes, truncated: !body.complete });
    const client = `${request.socket.remoteAddress}:${request.socket.remotePort}`;
    this.#connects.requestCameThrough(client);
    let flight = this.#followUps.claim(request.url, request.method, client);
    if (flight) {
      // The client followed a redirect: the same request's next hop, with the client's headers.
      flight.requestHeaders = headers;
      flight.body = body.bytes;
      flight.requestBody = requestBody;
    } else {
      const type = inferResourceType({ method: request.method, url: request.url, headers: request.headers });
      const tabId = tabIdFrom(request.headers);
      // An attached browser's report of this request, when it is there or comes within the bound.
      const told = this.browserTold && tabId === NO_TAB_ID ? await this.browserTold.claim(request.method, request.url, type === 'main_frame' || type === 'sub_frame' ? TOLD_NAVIGATION_WAIT_MS : TOLD_WAIT_MS) : undefined;
      try {
        flight = this.lifecycle.start({
          url: request.url,
          method: request.method,
          requestHeaders: headers,
          ...(body.bytes && { body: body.bytes }),
          ...(requestBody && { requestBody }),
          type,
          ...tabAndFrame(type, tabId),
          storeId: this.storeId,
          ...(told ? { told } : this.browserTold && { inferred: true }),
        });
      } catch (error) {
        this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `not a web request, answered 400: ${(error as Error).message}` });
        return this.#sendWhole(request, response, plainText(400, 'Bad Request', `wrtui: ${(error as Error).message}`));
      }
    }
    this.#inFlight.add(flight);
    try {
      await this.#exchange(flight, request, response, url, headers, body, client);
    } catch (error) {
      // A bug of wrtui's, not the network's: say so, end the request, keep serving.
      this.journal.append({ kind: 'log', level: 'error', source: 'capture', message: `request ${flight.requestId}: ${(error as Error).stack ?? error}`, requestId: flight.requestId });
      flight.fail('net::ERR_FAILED');
      this.#reset(request, response);
    } finally {
      this.#inFlight.delete(flight);
      // mockttp requires a response ended or destroyed when the handler settles; a client that left
      // (an HTTP/2 stream it cancelled, say) may leave one neither.
      if (!response.writableEnded && !response.destroyed) destroyResponse(response);
    }
  }

  async #exchange(flight: RequestFlight, request: OngoingRequest, response: OngoingResponse, url: URL, headers: HttpHeaders, body: RequestBodyRead, client: string): Promise<void> {
    if (this.#options.journalBodies && body.bytes) {
      this.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'request', url: flight.url, bytes: body.bytes, complete: body.complete });
    }
    // The client may leave at any point: the request ends there (onErrorOccurred net::ERR_ABORTED)
    // and so does its upstream request, connection and all.
    const pending: { request?: ClientRequest } = {};
    response.once('close', () => {
      if (response.writableFinished) return;
      flight.fail('net::ERR_ABORTED');
      pending.request?.destroy();
    });

    const before = await flight.beforeRequest();
    if (before.action === 'cancel') return this.#block(flight, request, response);
    if (before.action === 'redirect') return this.#answerRedirect(flight, request, response, before, 'Internal Redirect', client);
    if (flight.finished) return this.#reset(request, response); // the client left while listeners thought

    const frame = (sent: HttpHeaders) => framed(sent, body);
    const send = await flight.prepareToSend({ frame });
    if (send.action === 'cancel') return this.#block(flight, request, response);
    if (flight.finished) return this.#reset(request, response);
    let sentHeaders = send.requestHeaders;
    let cacheRequest: CacheRequest | undefined;
    if (this.#cache) {
      cacheRequest = { url: flight.url, method: flight.method, headers: headerObject(sentHeaders) };
      const answer = await answerFromCache({ cache: this.#cache, upstream: this.#upstream, followUps: this.#followUps, localAnswer: (answered, to) => this.#localAnswer(answered, to) }, flight, cacheRequest, sentHeaders, client, request.socket);
      if (answer === 'reset') return this.#block(flight, request, response);
      if (answer && 'failed' in answer) return this.#upstreamFailed(flight, request, response, url, answer.failed);
      // A listener redirected the cached answer to an extension's own URL: wrtui takes that hop.
      if (answer && 'internalRedirect' in answer) return this.#answerRedirect(flight, request, response, answer.internalRedirect, 'Found', client);
      if (answer) return this.#sendWhole(request, response, answer);
    }

    for (;;) {
      if (flight.finished) return this.#reset(request, response); // the client left meanwhile
      let upstream: UpstreamResponse;
      try {
        upstream = await this.#upstream.open({
          url,
          method: flight.method,
          headers: sentHeaders,
          ...(body.complete ? body.bytes && { body: body.bytes } : { body: body.stream! }),
        }, pending);
      } catch (error) {
        return this.#upstreamFailed(flight, request, response, url, error);
      }
      const { response: incoming } = upstream;
      const head: ResponseHead = {
        statusCode: incoming.statusCode ?? 0,
        statusMessage: incoming.statusMessage ?? '',
        httpVersion: upstream.http09 ? '0.9' : incoming.httpVersion,
        ...(upstream.http09 && { statusLine: 'HTTP/0.9 200 OK' }),
        headers: headersFromRaw(incoming.rawHeaders),
        ...(upstream.ip !== undefined && { ip: upstream.ip }),
        ...(upstream.tls && { tls: upstream.tls }),
      };
      if (flight.finished) {
        upstream.request.destroy();
        return this.#reset(request, response);
      }
      // Blocking listeners hold the head here; the body waits, unread, in the socket.
      const decision: HeadersDecision = await flight.headersReceived(head);
      if (decision.action === 'cancel') {
        upstream.request.destroy();
        return this.#block(flight, request, response);
      }
      if (decision.action === 'retry-auth') {
        incoming.resume(); // the challenge's body is of no use; draining keeps the connection
        if (!body.complete) {
          this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `request ${flight.requestId}: cannot answer the auth challenge: the request body was larger than --max-body-size and cannot be sent again`, requestId: flight.requestId });
          flight.fail('net::ERR_FAILED');
          return this.#reset(request, response);
        }
        const again = await flight.prepareToSend({ frame });
        if (again.action === 'cancel') return this.#block(flight, request, response);
        if (flight.finished) return this.#reset(request, response);
        sentHeaders = again.requestHeaders;
        continue;
      }
      if (decision.action === 'redirect' && decision.internal) {
        incoming.resume();
        return this.#answerRedirect(flight, request, response, decision, 'Found', client);
      }
      if (decision.action === 'respond' && decision.statusCode === 407) {
        // An origin asking for *proxy* credentials that no listener gave: passed on, the client would
        // take it for wrtui's own demand. Chrome fails it (ERR_UNEXPECTED_PROXY_AUTH); so does wrtui.
        // Through --upstream-proxy it is that proxy asking: failed as a refused tunnel is.
        const proxy = this.#upstream.proxyFor(url);
        upstream.request.destroy();
        if (proxy) this.journal.append({ kind: 'log', level: 'warn', source: 'capture', requestId: flight.requestId, message: `request ${flight.requestId}: the upstream proxy ${proxy} answered 407: it needs credentials (--upstream-proxy http://user:password@host:port), or refused those given` });
        flight.fail(proxy ? 'net::ERR_PROXY_AUTH_REQUESTED' : 'net::ERR_UNEXPECTED_PROXY_AUTH');
        return this.#reset(request, response);
      }
      if (decision.action === 'redirect' && !flight.finished) this.#followUps.expect(flight, client, request.socket);
      return relayResponse(this.#relayContext, flight, request, response, upstream, {
        statusCode: decision.statusCode,
        statusMessage: head.statusMessage ?? '',
        headers: decision.responseHeaders,
        redirected: decision.action === 'redirect',
        cacheRequest,
      });
    }
  }

  /** A listener's redirect, answered by wrtui: a data: URL served, anything else a redirect the client follows. */
  async #answerRedirect(flight: RequestFlight, request: OngoingRequest, response: OngoingResponse, redirect: { redirectUrl: string; statusCode: number; responseHeaders: HttpHeaders }, reason: string, client: string): Promise<void> {
    if (flight.finished) {
      // The request ended at a URL webRequest never sees: its content if wrtui has it, never fetched.
      const local = this.#localAnswer(flight, redirect.redirectUrl);
      return local ? this.#sendWhole(request, response, local) : this.#block(flight, request, response);
    }
    if (flight.atExtensionUrl) {
      // No client can follow a redirect to an extension's own URL: wrtui takes the hop itself.
      const before = await flight.beforeRequest();
      if (before.action === 'cancel') return this.#block(flight, request, response);
      if (before.action === 'redirect') return this.#answerRedirect(flight, request, response, before, 'Internal Redirect', client);
      const served = await flight.serveExtensionResource();
      if (!served) return this.#block(flight, request, response);
      return this.#sendWhole(request, response, { statusCode: 200, statusMessage: 'OK', headers: served.headers, body: served.body });
    }
    this.#followUps.expect(flight, client, request.socket);
    return this.#sendWhole(request, response, { statusCode: redirect.statusCode, statusMessage: reason, headers: redirect.responseHeaders, body: new Uint8Array() });
  }

  /**
   * What a request redirected to a URL webRequest never sees is answered with: a data: URL's content
   * or about:blank (data-url.ts). Anything else (a rule's file: or about:srcdoc) is refused, with a
   * line in the journal: wrtui makes no request of its own.
   */
  #localAnswer(flight: RequestFlight, url: string): WholeResponse | undefined {
    const content = localContent(url);
    if (content) return { statusCode: 200, statusMessage: 'OK', headers: [{ name: 'Content-Type', value: content.mediaType }], body: content.body };
    this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `request ${flight.requestId}: redirected to ${url.slice(0, 200)}, which wrtui does not serve (only data: and about:blank); the client's request fails`, requestId: flight.requestId });
    return undefined;
  }

  /** Answers with a whole response (Content-Length set to its body) and waits until it went. */
  #sendWhole(request: OngoingRequest, response: OngoingResponse, whole: WholeResponse): Promise<void> {
    return new Promise<void>((resolve) => {
      response.once('close', () => resolve());
      response.once('finish', () => resolve());
      writeResponseHead(request, response, whole.statusCode, whole.statusMessage, withHeader(whole.headers, 'content-length', String(whole.body.length)));
      response.end(request.method === 'HEAD' ? undefined : whole.body);
    });
  }

  /**
   * The upstream failed before any byte of its response reached the client: the request ends with
   * the net::ERR_* it was (onErrorOccurred), and the client, instead of a bare reset it can say
   * nothing about, gets a 502 (504 for a timeout) naming the error and the upstream, as a proxy
   * should (mitmproxy does the same).
   */
  #upstreamFailed(flight: RequestFlight, request: OngoingRequest, response: OngoingResponse, url: URL, error: unknown): Promise<void> {
    const netError = error instanceof TransportError ? error.netError : netErrorOf(error);
    const detail = (error as Error | undefined)?.message;
    // A certificate refused (a self-signed test server, a corporate CA): say which flag accepts it.
    const hint = insecureUpstreamHint(netError, url.hostname);
    if (hint) this.journal.append({ kind: 'log', level: 'warn', source: 'capture', requestId: flight.requestId, message: `${netError} from ${url.host}${detail && detail !== netError ? ` (${detail})` : ''}: ${hint}` });
    flight.fail(netError);
    if (response.headersSent || response.destroyed) return Promise.resolve(this.#reset(request, response));
    const timedOut = netError === 'net::ERR_TIMED_OUT';
    return this.#sendWhole(
      request,
      response,
      plainText(
        timedOut ? 504 : 502,
        timedOut ? 'Gateway Timeout' : 'Bad Gateway',
        `wrtui: ${netError} from ${url.host}${detail && detail !== netError ? ` (${detail})` : ''}${hint ? `; ${hint}` : ''}`,
        [{ name: 'X-Wrtui-Error', value: netError }],
      ),
    );
  }

  /**
   * A request a listener or a rule cancelled: the client sees a failed request, once. A reset
   * connection would do for curl, but a browser resends a request whose reused connection was reset
   * before any answer (Chromium 156 sent a blocked fetch up to three times), so the journal would
   * show one cancellation as several requests; an answer the client must reject does not invite that.
   */
  #block(flight: RequestFlight, request: OngoingRequest, response: OngoingResponse): void {
    refuseClient(request, `${flight.url} was blocked by ${flight.cancelledBy ?? 'wrtui'} (net::ERR_BLOCKED_BY_CLIENT)`);
    destroyResponse(response);
  }

  /** The client sees a network failure (a body cut short, the client gone): its connection or stream reset. */
  #reset(request: OngoingRequest, response: OngoingResponse): void {
    resetClient(request);
    destroyResponse(response);
  }

  /** The proxy was asked, directly or through a chain, to forward to itself. */
  #refuseLoop(request: OngoingRequest, response: OngoingResponse): Promise<void> {
    this.#journalLoop(request);
    return this.#sendWhole(request, response, plainText(508, 'Loop Detected', `wrtui: ${request.url} leads back to this proxy (a proxy loop); point the client at the target, not at wrtui's port`));
  }

  #journalLoop(request: OngoingRequest): void {
    this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `refused ${request.method} ${request.url}: it leads back to wrtui itself (a proxy loop)` });
  }

  // ── WebSocket handshakes (websocket-handshake.ts) ────────────────────────

  #handleUpgrade(request: OngoingRequest, socket: Socket, head: Buffer): Promise<void> {
    return handleUpgrade(
      {
        lifecycle: this.lifecycle,
        journal: this.journal,
        storeId: this.storeId,
        upstream: this.#upstream,
        inFlight: this.#inFlight,
        // The messages both ways, journaled where bodies are (the TUI, a recording).
        ...(this.#options.journalBodies && { watchMessages: { maxBytes: this.#maxBodySize } }),
        journalLoop: (looped) => this.#journalLoop(looped),
        clientFault: (fault) => this.#clientFault(fault),
      },
      request,
      socket,
      head,
    );
  }
}

/** 0.0.0.0 or ::: every interface. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}
