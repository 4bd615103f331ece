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
import * as mockttp from 'mockttp';
import { createServer, isIP, type Server, type Socket } from 'node:net';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { getHeader, headerObject, headersFromRaw, headerLatin1, withHeader } from '../headers.js';
import type { Journal } from '../journal.js';
import type { HttpHeaders, NetError } from '../types.js';
import type { HeadersDecision, InternalRedirect, RequestFlight, RequestLifecycle } from '../web-request/lifecycle.js';
import { parseRequestBody } from '../web-request/request-body.js';
import { TransportError, type ResponseHead } from '../web-request/transport.js';
import type { ClientFault } from './client-guard.js';
import { ClientConnections } from './client-connections.js';
import { DescriptorWatch } from './descriptor-watch.js';
import type { HostMap, HostMapping } from './host-map.js';
import { destroyResponse, isHttp2, plainText, rawResponse, resetClient, refuseClient, writeResponseHead, type WholeResponse } from './client-response.js';
import { localContent } from './data-url.js';
import { relayFiltered } from './filtered-body.js';
import { FollowUps } from './follow-ups.js';
import { HttpCache, type CacheRequest, type CacheResponse } from './http-cache.js';
import { costlySubscriptions, deferClientErrorsToResponses, guardClientInput, guardUpgrades, handleConnect, handleEveryRequest, setRequestHeadLimit, handleEveryUpgrade, listenOn, listeningServer, rememberListeningAddress, requestHeaderList, setDefaultCertificate, type OngoingRequest, type OngoingResponse } from './mockttp-hooks.js';
import { issueCertificate } from './ip-certificate.js';
import { KeptBody } from '../web-request/kept-body.js';
import { TunnelCheck, authorityText, parseAuthority, type Authority } from './tunnel-check.js';
import { cutShortError, insecureUpstreamHint, isCutShort, netErrorOf } from './net-error.js';
import { watchWebSocketMessages } from './websocket-messages.js';
import { framed, headersToForward, readRequestBody, type RequestBodyRead } from './request-intake.js';
import { inferResourceType, NO_TAB_ID, tabAndFrame, tabIdFrom } from './resource-type.js';
import { handleUpgrade } from './websocket-handshake.js';
import { UpstreamTransport, type UpstreamResponse } from './upstream-transport.js';
import type { UpstreamProxy } from './upstream-proxy.js';
import type { BrowserToldRequests } from './browser-told.js';


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
  /** The target of each open tunnel, by its client's address and port. */
  readonly #tunnelTargets = new Map<string, Authority>();
  /** IP targets the certificate for clients without SNI names (beside localhost and loopback), as they came. */
  #coveredAddresses = new Set<string>();
  #certificateIssued: Promise<void> = Promise.resolve();
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
    await this.#server.on('tls-client-error', (failure) => void this.#tlsFailed(failure));
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
    handleConnect(this.#server, (request, socket, proceed) => void this.#handleConnect(request, socket, proceed));
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

  // ── CONNECT ───────────────────────────────────────────────────────────────

  /** A tunnel is checked before it is granted (tunnel-check.ts); an IP target gets a certificate naming it. */
  async #handleConnect(request: IncomingMessage, socket: Socket, proceed: () => void): Promise<void> {
    socket.on('error', () => socket.destroy());
    const authority = parseAuthority(request.url);
    if (!authority) {
      this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `CONNECT to ${JSON.stringify(request.url ?? '')}, which is not a host:port: answered 400` });
      socket.end(rawResponse(400, 'Bad Request', `wrtui: cannot open a tunnel to ${JSON.stringify(request.url ?? '')}: a CONNECT names host:port`));
      return;
    }
    try {
      await this.#tunnels.reach(authority);
    } catch (error) {
      // Chromium (without a proxy) shows the request itself (BR, BSH, SH) ending with the connection
      // error. So the tunnel is granted: the request inside it is learnt and fails at once with this
      // error (UpstreamTransport's knownFailure). A client that sends none (a TLS client that does
      // not trust wrtui, a non-HTTP tunnel) leaves the origin's failure in the journal when it closes.
      const client = `${socket.remoteAddress}:${socket.remotePort}`;
      this.#unreachableTunnels.set(client, () => void this.#tunnelFailed(request, authority, error));
      socket.once('close', () => {
        this.#unreachableTunnels.get(client)?.();
        this.#unreachableTunnels.delete(client);
      });
    }
    if (isIP(authority.host) !== 0) {
      try {
        await this.#coverAddress(authority.host);
      } catch (error) {
        this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `no certificate for ${authority.host}: ${(error as Error).message}; the client will see mockttp's default one` });
      }
    }
    if (socket.destroyed) return;
    // What a TLS failure inside the tunnel was for (mockttp's event names only the client's address).
    const client = `${socket.remoteAddress}:${socket.remotePort}`;
    this.#tunnelTargets.set(client, authority);
    socket.once('close', () => this.#tunnelTargets.delete(client));
    proceed();
  }

  /** Tunnels to a target that could not be reached, by client address, until a request comes through one. */
  readonly #unreachableTunnels = new Map<string, () => void>();

  /** No request came through a tunnel to a target that cannot be reached: the journal names the origin and why. */
  async #tunnelFailed(request: IncomingMessage, authority: Authority, error: unknown): Promise<void> {
    const netError = error instanceof TransportError ? error.netError : netErrorOf(error);
    const target = authorityText(authority);
    // What the client meant to fetch is inside the tunnel, never sent: the journal names the origin.
    const url = authority.port === 80 ? `http://${target}/` : `https://${authority.port === 443 ? target.replace(/:443$/, '') : target}/`;
    try {
      const flight = this.lifecycle.start({ url, method: 'GET', requestHeaders: headersFromRaw(request.rawHeaders), type: 'other', storeId: this.storeId });
      await flight.beforeRequest();
      flight.fail(netError);
    } catch (failure) {
      this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `CONNECT ${target}: ${netError} (${(failure as Error).message})` });
    }
  }

  /**
   * A client's TLS handshake with wrtui failed (it refused wrtui's certificate, offered nothing
   * wrtui speaks, sent garbage, stalled): a row with the reason, as the request the client meant
   * failed. A client that merely closed an unused connection (browsers open spare ones) is not news.
   */
  async #tlsFailed(failure: mockttp.TlsHandshakeFailure): Promise<void> {
    const netError = TLS_FAILURES[failure.failureCause];
    const tunnel = this.#tunnelTargets.get(`${failure.remoteIpAddress}:${failure.remotePort}`);
    const host = failure.tlsMetadata?.sniHostname ?? tunnel?.host ?? failure.destination?.hostname;
    if (netError === undefined || host === undefined) {
      this.journal.append({ kind: 'log', level: 'debug', source: 'capture', message: `TLS handshake with a client ended: ${failure.failureCause}${host ? ` (${host})` : ''}` });
      return;
    }
    const port = tunnel?.port ?? failure.destination?.port;
    const target = port === undefined || port === 443 ? authorityText({ host, port: 443 }).replace(/:443$/, '') : authorityText({ host, port });
    if (failure.failureCause === 'cert-rejected') {
      this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `a client refused wrtui's certificate for ${target}: it does not trust wrtui's CA yet (wrtui ca says how)` });
    }
    try {
      const flight = this.lifecycle.start({ url: `https://${target}/`, method: 'GET', requestHeaders: [], type: 'other', storeId: this.storeId });
      await flight.beforeRequest();
      flight.fail(netError);
    } catch (error) {
      this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `TLS handshake with a client for ${target} failed (${failure.failureCause}): ${(error as Error).message}` });
    }
  }

  /** Makes the certificate for clients that send no server name (IP targets) name `address` too. */
  #coverAddress(address: string): Promise<void> {
    if (this.#coveredAddresses.has(address)) return this.#certificateIssued;
    if (this.#coveredAddresses.size >= 256) this.#coveredAddresses = new Set();
    this.#coveredAddresses.add(address);
    const names = ['localhost', '127.0.0.1', '::1', ...this.#coveredAddresses].filter((name, index, all) => all.indexOf(name) === index);
    this.#certificateIssued = this.#certificateIssued
      .catch(() => {})
      .then(async () => setDefaultCertificate(this.#server, { ...(await issueCertificate(this.#options.ca, names)), chain: this.#options.ca.cert }));
    return this.#certificateIssued;
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
    if (this.#unreachableTunnels.size > 0) this.#unreachableTunnels.delete(client); // a request came through it
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
      const told = this.browserTold && tabId === NO_TAB_ID ? await this.browserTold.claim(request.method, request.url, TOLD_WAIT_MS) : undefined;
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
      const answer = await this.#answerFromCache(flight, cacheRequest, sentHeaders, client, request.socket);
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
      return this.#relay(flight, request, response, upstream, {
        statusCode: decision.statusCode,
        statusMessage: head.statusMessage ?? '',
        headers: decision.responseHeaders,
        redirected: decision.action === 'redirect',
        cacheRequest,
      });
    }
  }

  /** Streams the upstream body to the client under the (possibly rewritten) head; onCompleted when the last byte went. */
  #relay(
    flight: RequestFlight,
    request: OngoingRequest,
    response: OngoingResponse,
    upstream: UpstreamResponse,
    head: { statusCode: number; statusMessage: string; headers: HttpHeaders; redirected: boolean; cacheRequest: CacheRequest | undefined },
  ): Promise<void> {
    const incoming = upstream.response;
    const kept = this.#options.journalBodies || head.cacheRequest ? new KeptBody(this.#maxBodySize) : undefined;
    const filters = flight.takeFilters();
    // A redirect the client follows ends a filter (Firefox: "Channel redirected"); the next hop may get its own.
    if (head.redirected) for (const filter of filters) filter.fail('Channel redirected');
    else if (filters.length > 0) {
      // What the filters wrote, for the TUI: the body the client got is not the server's. A filter
      // writes decoded bytes (it was given them decoded).
      const delivered = this.#options.journalBodies ? new KeptBody(this.#maxBodySize) : undefined;
      if (kept) {
        incoming.on('data', (chunk: Buffer) => kept.add(chunk));
        response.once('finish', () => {
          this.#afterResponse(flight, head, kept);
          if (delivered) this.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'response', filteredBy: filters.map((filter) => filter.ownerId).reverse(), url: flight.url, bytes: delivered.bytes(), complete: delivered.whole, size: delivered.size, decoded: true });
        });
      }
      return relayFiltered({ flight, request, response, incoming, head, filters, journal: this.journal, reset: () => this.#reset(request, response), ...(delivered && { delivered }) });
    }
    return new Promise<void>((resolve) => {
      response.once('finish', () => {
        if (!head.redirected) flight.completed();
        if (kept) this.#afterResponse(flight, head, kept);
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
        this.#reset(request, response);
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

  /** The response body as far as it was kept: journaled for the recorder, offered to the cache. */
  #afterResponse(flight: RequestFlight, head: { statusCode: number; statusMessage: string; headers: HttpHeaders; cacheRequest: CacheRequest | undefined }, kept: KeptBody): void {
    const bytes = kept.bytes();
    if (this.#options.journalBodies) {
      this.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'response', url: flight.url, bytes, complete: kept.whole, size: kept.size });
    }
    if (this.#cache && head.cacheRequest) {
      this.#cache.store(head.cacheRequest, {
        statusCode: head.statusCode,
        statusMessage: head.statusMessage,
        headers: headerObject(head.headers),
        rawHeaders: pairsOf(head.headers),
        ...(kept.whole && { body: bytes }),
      });
    }
  }

  /**
   * A fresh cached response is served by wrtui itself; a stale one is revalidated upstream by
   * wrtui (a 304 serves the stored body). Either way the events fire as for a network response,
   * with fromCache: true when the body came from the cache. Undefined: go upstream as usual.
   */
  async #answerFromCache(flight: RequestFlight, cacheRequest: CacheRequest, sentHeaders: HttpHeaders, client: string, connection: Socket): Promise<WholeResponse | 'reset' | { failed: unknown } | { internalRedirect: InternalRedirect } | undefined> {
    const cache = this.#cache!;
    const lookup = cache.lookup(cacheRequest);
    if (lookup.kind === 'miss') return undefined;
    let response: CacheResponse;
    let fromCache = true;
    let ip: string | undefined;
    if (lookup.kind === 'fresh') response = lookup.response;
    else {
      const revalidation = Object.entries(lookup.revalidationHeaders).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : [value]).map((v) => ({ name, value: v })),
      );
      let upstream;
      try {
        upstream = await this.#upstream.send({
          url: flight.url,
          method: flight.method,
          headers: [...sentHeaders.filter((h) => !/^if-(none-match|modified-since)$/i.test(h.name)), ...revalidation.filter((h) => /^if-/i.test(h.name))],
        });
      } catch (error) {
        return { failed: error };
      }
      ip = upstream.ip;
      const body = upstream.body instanceof Uint8Array ? upstream.body : new Uint8Array();
      const fromUpstream: CacheResponse = {
        statusCode: upstream.statusCode,
        statusMessage: upstream.statusMessage ?? '',
        headers: headerObject(upstream.headers),
        rawHeaders: pairsOf(upstream.headers),
        body,
      };
      const outcome = cache.revalidated(lookup, cacheRequest, fromUpstream);
      if (outcome.kind === 'not-modified') response = outcome.response;
      else {
        fromCache = false;
        response = fromUpstream;
      }
    }
    const decision = await flight.headersReceived({
      statusCode: response.statusCode,
      statusMessage: response.statusMessage,
      headers: headersFromPairs(response.rawHeaders),
      fromCache,
      ...(ip !== undefined && { ip }),
    });
    if (decision.action === 'cancel') return 'reset';
    if (decision.action === 'retry-auth') {
      // Credentials for a cached 401 need the network: let the request go upstream after all.
      return undefined;
    }
    if (decision.action === 'redirect' && decision.internal) {
      if (flight.finished) return this.#localAnswer(flight, decision.redirectUrl) ?? 'reset';
      if (flight.atExtensionUrl) return { internalRedirect: decision };
      this.#followUps.expect(flight, client, connection);
      return { statusCode: decision.statusCode, statusMessage: 'Found', headers: decision.responseHeaders, body: new Uint8Array() };
    }
    const answer = { statusCode: response.statusCode, statusMessage: response.statusMessage, headers: decision.responseHeaders, body: response.body };
    if (decision.action === 'redirect') {
      if (!flight.finished) this.#followUps.expect(flight, client, connection);
      return answer;
    }
    flight.responseStarted();
    flight.completed();
    return answer;
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

/** Upstream trailers go on to an HTTP/1.1 client (chunked responses carry them; HTTP/2 ones are dropped). */
function forwardTrailers(request: OngoingRequest, response: OngoingResponse, incoming: IncomingMessage): void {
  if (incoming.rawTrailers.length === 0 || isHttp2(request)) return;
  try {
    response.addTrailers(pairsOf(headersFromRaw(incoming.rawTrailers)));
  } catch {
    // An invalid trailer: Node refuses it; the body is still complete.
  }
}

/** A client's failed TLS handshake, as the net::ERR_* its request ended with (undefined: not worth a row). */
const TLS_FAILURES: Readonly<Record<mockttp.TlsHandshakeFailure['failureCause'], NetError | undefined>> = {
  'cert-rejected': 'net::ERR_CERT_AUTHORITY_INVALID',
  'no-shared-cipher': 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  'handshake-timeout': 'net::ERR_TIMED_OUT',
  unknown: 'net::ERR_SSL_PROTOCOL_ERROR',
  closed: undefined,
  reset: undefined,
};

function pairsOf(headers: HttpHeaders): [string, string][] {
  return headers.map((header) => [header.name, headerLatin1(header)]);
}

function headersFromPairs(pairs: readonly (readonly [string, string])[]): HttpHeaders {
  return headersFromRaw(pairs.flat());
}
