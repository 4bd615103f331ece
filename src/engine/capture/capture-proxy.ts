// The live proxy: mockttp in front (HTTP, CONNECT + TLS interception with wrtui's CA, HTTP/2,
// WebSocket), the request lifecycle behind it. mockttp blocks in two hooks only:
//   beforeRequest   (whole request body in) → onBeforeRequest, onBeforeSendHeaders, onSendHeaders
//   beforeResponse  (whole response in)     → onHeadersReceived, onAuthRequired
// beforeResponse buffers the entire upstream body, so it is installed only on a second rule, chosen
// per request when a blocking onHeadersReceived / onAuthRequired listener would see the request.
// Everything else streams; its onHeadersReceived and onResponseStarted come from mockttp's trailing
// 'passthrough-response-head' notice, onCompleted from 'response', onErrorOccurred from 'abort'.
import * as mockttp from 'mockttp';
import type { Server, Socket } from "node:net";
import { getHeader, headersFromRaw, headerLatin1, withHeader } from '../headers.js';
import type { Journal } from '../journal.js';
import type { HttpHeaders, NetError } from '../types.js';
import type { HeadersDecision, RequestFlight, RequestLifecycle } from '../web-request/lifecycle.js';
import { parseRequestBody } from '../web-request/request-body.js';
import type { FilterableRequest } from '../web-request/request-filter.js';
import type { ResponseHead } from '../web-request/transport.js';
import { FollowUps } from './follow-ups.js';
import { HttpCache, type CacheRequest, type CacheResponse } from './http-cache.js';
import { installLoopGuard } from './loop-guard.js';
import { netErrorFromTags, netErrorOf } from './net-error.js';
import { frameInfoFor, inferResourceType, TAB_ID_HEADER, tabIdFrom } from './resource-type.js';
import { UpstreamAddressTracker } from './upstream-address.js';
import { UpstreamTransport } from './upstream-transport.js';

export interface CaptureProxyOptions {
  lifecycle: RequestLifecycle;
  /** PEM certificate and key of the CA that signs intercepted hosts' certificates. */
  ca: { cert: string; key: string };
  /** 0 picks a free port. */
  port?: number;
  /**
   * Who may use the proxy. mockttp listens on every interface, so wrtui refuses clients itself:
   * loopback addresses always; with a wildcard host (0.0.0.0, ::) anyone; with another address,
   * clients that reached the proxy through that address.
   */
  host?: string;
  /** The cookie store this port's traffic uses: "0" (default) or "1" (incognito). */
  storeId?: string;
  /** Bytes of a request body kept for requestBody and the journal; larger bodies still stream. */
  maxBodySize?: number;
  http2?: boolean;
  /** Hosts whose upstream certificates are not verified. */
  insecureUpstreamHosts?: string[];
  /** How long a redirect waits for the client's follow-up before the request ends as aborted. */
  followUpTimeoutMs?: number;
  /** An HTTP cache (--cache): fresh hits are served by wrtui with fromCache: true. */
  cache?: HttpCache;
  /** Journal request and response bodies (up to maxBodySize) as `body` entries, for the recorder. */
  recordBodies?: boolean;
}

/** One proxied request as the proxy tracks it, keyed by mockttp's request id. */
interface Tracked {
  flight: RequestFlight;
  /** Phases run one after another per request, whatever order mockttp's notices arrive in. */
  queue: Promise<void>;
  /** The response went back through beforeResponse (buffered), was answered by wrtui itself, or is a WebSocket handshake. */
  handled: 'streaming' | 'buffered' | 'local' | 'websocket';
  /** The response this mockttp request carried was a redirect: its end is not the flight's end. */
  redirected: boolean;
  /** The request body as received, for auth retries. */
  body: Uint8Array | undefined;
  /** The client connection, address:port: its follow-up of a redirect most likely comes on it. */
  client: string;
  /** The request as sent upstream, for storing its response in the cache. */
  cacheRequest?: CacheRequest;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;
const PROXY_ONLY_HEADERS = new Set(['proxy-connection', 'proxy-authorization', TAB_ID_HEADER]);
const DEFAULT_MAX_BODY = 1024 * 1024;

export class CaptureProxy {
  readonly lifecycle: RequestLifecycle;
  readonly journal: Journal;
  readonly storeId: string;
  readonly #options: CaptureProxyOptions;
  readonly #server: mockttp.Mockttp;
  readonly #tracked = new Map<string, Tracked>();
  readonly #followUps: FollowUps;
  readonly #addresses = new UpstreamAddressTracker();
  readonly #upstream: UpstreamTransport;
  readonly #maxBodySize: number;
  readonly #cache: HttpCache | undefined;

  constructor(options: CaptureProxyOptions) {
    this.#options = options;
    this.lifecycle = options.lifecycle;
    this.journal = options.lifecycle.journal;
    this.storeId = options.storeId ?? '0';
    this.#maxBodySize = options.maxBodySize ?? DEFAULT_MAX_BODY;
    this.#cache = options.cache;
    this.#upstream = new UpstreamTransport({ insecureHosts: options.insecureUpstreamHosts ?? [] });
    this.#followUps = new FollowUps({
      ...(options.followUpTimeoutMs !== undefined && { ttlMs: options.followUpTimeoutMs }),
      onUnclaimed: (flight) => {
        this.journal.append({
          kind: 'log',
          level: 'info',
          source: 'capture',
          message: `request ${flight.requestId}: the client did not follow the redirect to ${flight.url}`,
        });
        flight.fail('net::ERR_ABORTED');
      },
    });
    const guard = installLoopGuard();
    if (!guard.installed) this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: guard.warning });
    this.#server = mockttp.getLocal({
      https: { cert: options.ca.cert, key: options.ca.key },
      http2: options.http2 === false ? false : true,
      recordTraffic: false,
      maxBodySize: this.#maxBodySize,
      cors: false,
      suggestChanges: false,
    });
  }

  /** The proxy URL clients use, e.g. http://127.0.0.1:8080. */
  get url(): string {
    return `http://${this.#displayHost()}:${this.#server.port}`;
  }

  get port(): number {
    return this.#server.port;
  }

  async start(): Promise<void> {
    const passThrough = {
      ignoreHostHttpsErrors: this.#options.insecureUpstreamHosts ?? [],
      simulateConnectionErrors: true,
    };
    await withoutWaitingForBody(this.#server.forAnyRequest(), (request: mockttp.CompletedRequest) => this.#needsResponseHook(request))
      .always()
      .thenPassThrough({
        ...passThrough,
        beforeRequest: (request) => this.#beforeRequest(request, 'buffered'),
        beforeResponse: (response, request) => this.#beforeResponse(response, request),
      });
    await this.#server
      .forAnyRequest()
      .always()
      .thenPassThrough({ ...passThrough, beforeRequest: (request) => this.#beforeRequest(request, 'streaming') });
    // WebSocket passthrough has no request hook: the request-side events run in a matcher that
    // routes a cancelled handshake to a rule that resets the connection.
    await withoutWaitingForBody(this.#server.forAnyWebSocket(), (request: mockttp.CompletedRequest) => this.#webSocketRefused(request)).always().thenResetConnection();
    await this.#server.forAnyWebSocket().always().thenPassThrough({ ignoreHostHttpsErrors: passThrough.ignoreHostHttpsErrors });
    await this.#server.on('websocket-accepted', (response) => this.#onWebSocketAccepted(response));

    await this.#server.on('rule-event', (event) => this.#onRuleEvent(event));
    // A 'response' listener also drains mockttp's tracking copy of each response body.
    await this.#server.on('response', (response) => this.#onResponse(response));
    await this.#server.on('abort', (request) => this.#onAbort(request.id, request.error, request.tags));
    // Malformed requests never become requests; a debug line says why the client was answered 400.
    await this.#server.on('client-error', (failure) =>
      this.journal.append({ kind: 'log', level: 'debug', source: 'capture', message: `malformed request from a client: ${failure.errorCode ?? 'error'} (answered ${failure.request?.method ?? ''} ${failure.request?.url ?? ''})`.trim() }),
    );

    await this.#server.start(this.#options.port ?? 8080);
    this.#refuseForeignClients();
  }

  async stop(): Promise<void> {
    this.#followUps.drain();
    for (const tracked of this.#tracked.values()) tracked.flight.fail('net::ERR_ABORTED');
    this.#tracked.clear();
    await this.#server.stop();
    this.#addresses.dispose();
  }

  // ── request side ──────────────────────────────────────────────────────────

  async #beforeRequest(request: mockttp.CompletedRequest, handled: 'buffered' | 'streaming'): Promise<mockttp.requestSteps.CallbackRequestResult | void> {
    // Entered synchronously, before any await, so the upstream request mockttp makes next is ours.
    this.#addresses.run(request.id, () => undefined);
    const clientHeaders = headersFromPairs(request.rawHeaders);
    const headers = withTargetHost(
      clientHeaders.filter((header) => !header.name.startsWith(':') && !PROXY_ONLY_HEADERS.has(header.name.toLowerCase())),
      request.url,
    );
    const body = request.body.buffer.length > 0 ? new Uint8Array(request.body.buffer) : undefined;
    const declaredLength = Number(getHeader(headers, 'content-length') ?? 0);
    const requestBody = parseRequestBody({
      method: request.method,
      contentType: getHeader(headers, 'content-type'),
      bytes: body,
      truncated: declaredLength > (body?.length ?? 0),
    });

    const client = `${request.remoteIpAddress}:${request.remotePort}`;
    let flight = this.#followUps.claim(request.url, request.method, client);
    if (flight) {
      // The client followed a redirect: the same request's next hop, with the client's headers.
      flight.requestHeaders = headers;
      flight.body = body;
      flight.requestBody = requestBody;
    } else {
      const type = inferResourceType({ method: request.method, url: request.url, headers: request.headers });
      const tabId = tabIdFrom(request.headers);
      try {
        flight = this.lifecycle.start({
          url: request.url,
          method: request.method,
          requestHeaders: headers,
          ...(body && { body }),
          ...(requestBody && { requestBody }),
          type,
          tabId,
          ...frameInfoFor(type, tabId),
          storeId: this.storeId,
        });
      } catch (error) {
        // A URL webRequest does not see (or cannot parse): pass it on untouched.
        this.journal.append({ kind: 'log', level: 'debug', source: 'capture', message: `not a web request: ${(error as Error).message}` });
        return;
      }
    }
    const tracked: Tracked = { flight, queue: Promise.resolve(), handled, redirected: false, body, client };
    this.#tracked.set(request.id, tracked);
    if (this.#options.recordBodies && (body || declaredLength > 0)) {
      this.journal.append({ kind: 'body', requestId: flight.requestId, direction: 'request', url: flight.url, bytes: body ?? new Uint8Array(), complete: declaredLength <= (body?.length ?? 0) });
    }

    const before = await flight.beforeRequest();
    if (before.action === 'cancel') return this.#endLocally(request.id, { response: 'reset' });
    if (before.action === 'redirect') {
      tracked.handled = 'local';
      if (flight.finished) return this.#endLocally(request.id, { response: await dataResponse(before.redirectUrl) });
      this.#followUps.expect(flight, client);
      return this.#endLocally(request.id, { response: redirectResponse(before.statusCode, 'Internal Redirect', before.responseHeaders) });
    }
    const stripped = headers.length !== clientHeaders.filter((header) => !header.name.startsWith(':')).length;
    const truncated = declaredLength > (body?.length ?? 0);
    const send = await flight.prepareToSend({
      frame: (sent, changed) => (changed || stripped ? framedForMockttp(sent, request, body, truncated) : sent),
    });
    if (send.action === 'cancel') return this.#endLocally(request.id, { response: 'reset' });
    if (this.#cache) {
      tracked.cacheRequest = { url: flight.url, method: flight.method, headers: headerMap(send.requestHeaders) };
      const answer = await this.#answerFromCache(request.id, tracked, tracked.cacheRequest, send.requestHeaders);
      if (answer) return { response: answer };
    }
    if (send.requestHeaders === headers && !stripped) return;
    return { headers: toMockttpHeaders(send.requestHeaders, request) };
  }

  /**
   * A fresh cached response is served by wrtui itself; a stale one is revalidated upstream by
   * wrtui (a 304 serves the stored body). Either way the events fire as for a network response,
   * with fromCache: true when the body came from the cache. Undefined: go upstream as usual.
   */
  async #answerFromCache(
    requestId: string,
    tracked: Tracked,
    cacheRequest: CacheRequest,
    sentHeaders: HttpHeaders,
  ): Promise<mockttp.requestSteps.CallbackResponseMessageResult | 'reset' | undefined> {
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
          url: tracked.flight.url,
          method: tracked.flight.method,
          headers: [...sentHeaders.filter((h) => !/^if-(none-match|modified-since)$/i.test(h.name)), ...revalidation.filter((h) => /^if-/i.test(h.name))],
        });
      } catch (error) {
        tracked.flight.fail(netErrorOf(error));
        this.#tracked.delete(requestId);
        return 'reset';
      }
      ip = upstream.ip;
      const body = upstream.body instanceof Uint8Array ? upstream.body : new Uint8Array();
      const rawHeaders = pairsOf(upstream.headers);
      const outcome = cache.revalidated(lookup, cacheRequest, {
        statusCode: upstream.statusCode,
        statusMessage: upstream.statusMessage ?? '',
        headers: headerMap(upstream.headers),
        rawHeaders,
        body,
      });
      if (outcome.kind === 'not-modified') response = outcome.response;
      else {
        fromCache = false;
        response = { statusCode: upstream.statusCode, statusMessage: upstream.statusMessage ?? '', headers: headerMap(upstream.headers), rawHeaders, body };
      }
    }
    const { flight } = tracked;
    tracked.handled = 'local';
    const decision = await flight.headersReceived({
      statusCode: response.statusCode,
      statusMessage: response.statusMessage,
      headers: headersFromPairs(response.rawHeaders),
      fromCache,
      ...(ip !== undefined && { ip: ip.replace(/^::ffff:/, '') }),
    });
    this.#tracked.delete(requestId);
    if (decision.action === 'cancel') return 'reset';
    if (decision.action === 'retry-auth') {
      // Credentials for a cached 401 need the network: let the request go upstream after all.
      return undefined;
    }
    const answer = {
      statusCode: decision.action === 'redirect' && decision.internal ? decision.statusCode : response.statusCode,
      statusMessage: decision.action === 'redirect' && decision.internal ? 'Found' : response.statusMessage,
      headers: toMockttpHeaders(withHeader(decision.responseHeaders, 'content-length', String(response.body.length))),
      rawBody: decision.action === 'redirect' && decision.internal ? new Uint8Array() : response.body,
    };
    if (decision.action === 'redirect') {
      if (flight.finished) return dataResponse(decision.redirectUrl);
      this.#followUps.expect(flight, tracked.client);
      return answer;
    }
    flight.responseStarted();
    flight.completed();
    return answer;
  }

  /**
   * onBeforeRequest, onBeforeSendHeaders and onSendHeaders for a WebSocket handshake. True: a
   * listener cancelled it. mockttp cannot change a handshake's headers or target per request, so
   * such changes are reported, not applied; a redirect ends the handshake.
   */
  async #webSocketRefused(request: Pick<mockttp.CompletedRequest, 'id' | 'url' | 'method' | 'headers' | 'rawHeaders' | 'remoteIpAddress' | 'remotePort'>): Promise<boolean> {
    // As in #beforeRequest: entered synchronously, so the upstream handshake is tied to this request.
    this.#addresses.run(request.id, () => undefined);
    const headers = headersFromPairs(request.rawHeaders).filter((header) => !header.name.startsWith(':') && !PROXY_ONLY_HEADERS.has(header.name.toLowerCase()));
    const tabId = tabIdFrom(request.headers);
    let flight: RequestFlight;
    try {
      flight = this.lifecycle.start({ url: request.url, method: request.method, requestHeaders: headers, type: 'websocket', tabId, ...frameInfoFor('websocket', tabId), storeId: this.storeId });
    } catch {
      return false;
    }
    const tracked: Tracked = { flight, queue: Promise.resolve(), handled: 'websocket', redirected: false, body: undefined, client: `${request.remoteIpAddress}:${request.remotePort}` };
    this.#tracked.set(request.id, tracked);
    const before = await flight.beforeRequest();
    if (before.action === 'cancel') return this.#endLocally(request.id, true);
    if (before.action === 'redirect') {
      this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `request ${flight.requestId}: a WebSocket handshake cannot be redirected through the proxy; closing it instead of following ${before.redirectUrl}` });
      flight.fail('net::ERR_ABORTED');
      return this.#endLocally(request.id, true);
    }
    const send = await flight.prepareToSend();
    if (send.action === 'cancel') return this.#endLocally(request.id, true);
    if (send.requestHeaders !== headers) {
      this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `request ${flight.requestId}: request header changes to a WebSocket handshake are not applied (mockttp has no per-request hook for upgrades)` });
    }
    return false;
  }

  #onWebSocketAccepted(response: { id: string; statusCode: number; statusMessage: string; rawHeaders: [string, string][] }): void {
    const tracked = this.#tracked.get(response.id);
    if (!tracked) return;
    this.#enqueue(tracked, async () => {
      this.#tracked.delete(response.id);
      await this.#webSocketAnswered(tracked, response);
      this.#addresses.forget(response.id);
    });
  }

  /** The handshake's answer (101, or a refusal the origin sent): the rest of the events at once. */
  async #webSocketAnswered(tracked: Tracked, response: { id: string; statusCode: number; statusMessage?: string; rawHeaders: [string, string][] }): Promise<void> {
    const { flight } = tracked;
    if (flight.finished) return;
    const decision = await flight.headersReceived({
      statusCode: response.statusCode,
      statusMessage: response.statusMessage ?? '',
      headers: headersFromPairs(response.rawHeaders),
      ...this.#ipOf(response.id),
    });
    if (decision.action !== 'respond') return; // a cancel already ended it; nothing else can apply to an open socket
    flight.responseStarted();
    flight.completed();
  }

  /** wrtui answered this mockttp request itself: it is not tracked any more. */
  #endLocally<T>(requestId: string, result: T): T {
    this.#tracked.delete(requestId);
    return result;
  }

  #needsResponseHook(request: Pick<mockttp.CompletedRequest, 'url' | 'method' | 'headers'>): boolean {
    const registry = this.lifecycle.registry;
    if (registry.count('onHeadersReceived') + registry.count('onAuthRequired') === 0) return false;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return false;
    }
    const type = inferResourceType({ method: request.method, url: request.url, headers: request.headers });
    const filterable: FilterableRequest = { url, type, tabId: tabIdFrom(request.headers), windowId: -1 };
    return registry.hasBlockingListener('onHeadersReceived', filterable) || registry.hasBlockingListener('onAuthRequired', filterable);
  }

  // ── response side ─────────────────────────────────────────────────────────

  /** Blocking path: the whole response is here; listeners may cancel, redirect, rewrite or answer auth. */
  async #beforeResponse(
    response: mockttp.requestSteps.PassThroughResponse,
    request: mockttp.CompletedRequest,
  ): Promise<mockttp.requestSteps.CallbackResponseResult | void> {
    const tracked = this.#tracked.get(request.id);
    if (!tracked || tracked.flight.finished) return;
    const { flight } = tracked;
    let head: ResponseHead = {
      statusCode: response.statusCode,
      statusMessage: response.statusMessage ?? '',
      httpVersion: request.httpVersion === '2.0' || request.httpVersion === '2' ? '2' : '1.1',
      headers: headersFromPairs(response.rawHeaders),
      ...this.#ipOf(request.id),
    };
    let body: Uint8Array | undefined;
    let replaced = false;
    for (;;) {
      const decision: HeadersDecision = await flight.headersReceived(head);
      if (decision.action === 'cancel') return this.#endLocally(request.id, 'reset');
      if (decision.action === 'retry-auth') {
        // mockttp cannot retry: wrtui sends the authenticated request itself and answers with that.
        const send = await flight.prepareToSend();
        if (send.action === 'cancel') return this.#endLocally(request.id, 'reset');
        try {
          const retried = await this.#upstream.send({
            url: flight.url,
            method: flight.method,
            headers: send.requestHeaders,
            ...(tracked.body && { body: tracked.body }),
          });
          head = retried;
          body = retried.body instanceof Uint8Array ? retried.body : undefined;
          replaced = true;
          continue;
        } catch (error) {
          flight.fail(netErrorOf(error));
          return this.#endLocally(request.id, 'reset');
        }
      }
      if (decision.action === 'redirect') {
        tracked.redirected = true;
        if (flight.finished) return this.#endLocally(request.id, await dataResponse(decision.redirectUrl));
        this.#followUps.expect(flight, tracked.client);
        if (decision.internal) return redirectResponse(decision.statusCode, 'Found', decision.responseHeaders);
        if (!replaced) return;
        return { statusCode: head.statusCode, statusMessage: head.statusMessage ?? '', headers: toMockttpHeaders(decision.responseHeaders), body: body ?? new Uint8Array() };
      }
      flight.responseStarted();
      if (!replaced && !decision.headersModified) return;
      return {
        statusCode: decision.statusCode,
        ...(head.statusMessage !== undefined && { statusMessage: head.statusMessage }),
        headers: toMockttpHeaders(decision.responseHeaders),
        ...(replaced && { rawBody: body ?? new Uint8Array() }),
      };
    }
  }

  #onRuleEvent(event: { requestId: string; eventType: string; eventData: unknown }): void {
    if (event.eventType !== 'passthrough-response-head') return;
    const tracked = this.#tracked.get(event.requestId);
    if (!tracked || tracked.handled !== 'streaming') return;
    const data = event.eventData as { statusCode: number; statusMessage?: string; httpVersion?: string; rawHeaders: [string, string][] };
    this.#enqueue(tracked, async () => {
      if (tracked.flight.finished) return;
      // Nobody can block here (no blocking listener matched): the client may already have these headers.
      const decision = await tracked.flight.headersReceived({
        statusCode: data.statusCode,
        statusMessage: data.statusMessage ?? '',
        httpVersion: data.httpVersion ?? '1.1',
        headers: headersFromPairs(data.rawHeaders),
        ...this.#ipOf(event.requestId),
      });
      if (decision.action === 'redirect') {
        tracked.redirected = true;
        if (!tracked.flight.finished) this.#followUps.expect(tracked.flight, tracked.client);
      } else if (decision.action === 'respond') {
        tracked.flight.responseStarted();
      }
    });
  }

  #onResponse(response: mockttp.CompletedResponse): void {
    const requestId = response.id;
    const tracked = this.#tracked.get(requestId);
    if (!tracked) return;
    if (this.#cache && tracked.cacheRequest) this.#storeInCache(tracked.cacheRequest, response);
    if (this.#options.recordBodies) {
      const bytes = new Uint8Array(response.body.buffer);
      this.journal.append({ kind: 'body', requestId: tracked.flight.requestId, direction: 'response', url: tracked.flight.url, bytes, complete: isWholeBody(response, tracked.flight.method) });
    }
    if (tracked.handled === 'websocket') {
      // The origin refused the upgrade with an ordinary response.
      this.#enqueue(tracked, async () => {
        this.#tracked.delete(requestId);
        await this.#webSocketAnswered(tracked, response);
      });
      return;
    }
    this.#enqueue(tracked, () => {
      this.#tracked.delete(requestId);
      this.#addresses.forget(requestId);
      if (!tracked.redirected) tracked.flight.completed();
    });
  }

  /** Every completed upstream response goes to the cache: stored if it may be, and unsafe methods invalidate. */
  #storeInCache(request: CacheRequest, response: mockttp.CompletedResponse): void {
    const buffer = response.body.buffer;
    const whole = isWholeBody(response, request.method);
    this.#cache!.store(request, {
      statusCode: response.statusCode,
      statusMessage: response.statusMessage,
      headers: response.headers,
      rawHeaders: response.rawHeaders,
      ...(whole && { body: new Uint8Array(buffer) }),
    });
  }

  #onAbort(requestId: string, error: { code?: string; message?: string } | undefined, tags: string[]): void {
    const tracked = this.#tracked.get(requestId);
    if (!tracked) return; // already answered or finished: a late notice (FACTS.md)
    this.#enqueue(tracked, () => {
      this.#tracked.delete(requestId);
      this.#addresses.forget(requestId);
      // No error: the client went away (mockttp attaches one to every upstream failure). Its tags
      // may still say passthrough-error:ECONNRESET: that is mockttp aborting the upstream request.
      if (error === undefined || tags.some((tag) => tag.startsWith('client-'))) return tracked.flight.fail('net::ERR_ABORTED');
      const netError: NetError = (error.code ? netErrorOf(error) : undefined) ?? netErrorFromTags(tags) ?? 'net::ERR_ABORTED';
      tracked.flight.fail(netError);
    });
  }

  #enqueue(tracked: Tracked, step: () => void | Promise<void>): void {
    tracked.queue = tracked.queue.then(step).catch((error) => {
      this.journal.append({ kind: 'log', level: 'error', source: 'capture', message: `request ${tracked.flight.requestId}: ${(error as Error).stack ?? error}` });
    });
  }

  #ipOf(requestId: string): { ip?: string } {
    const ip = this.#addresses.addressOf(requestId);
    return ip === undefined ? {} : { ip: ip.replace(/^::ffff:/, '') };
  }

  // ── who may connect ───────────────────────────────────────────────────────

  #refuseForeignClients(): void {
    const host = this.#options.host ?? '127.0.0.1';
    const anyone = host === '0.0.0.0' || host === '::';
    if (anyone) return;
    // mockttp 4 has no host option; its net.Server is a private field.
    const server = (this.#server as unknown as { server?: Server }).server;
    if (!server) throw new Error('wrtui cannot reach mockttp\'s listening server to restrict clients; refusing to run as an open proxy');
    server.prependListener('connection', (socket: Socket) => {
      const remote = socket.remoteAddress;
      if (remote === undefined || LOOPBACK.test(remote)) return;
      if (socket.localAddress !== undefined && socket.localAddress.replace(/^::ffff:/, '') === host) return;
      this.journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `refused a client from ${remote}: wrtui serves only ${host} and loopback (see --host)` });
      socket.destroy();
    });
  }

  #displayHost(): string {
    const host = this.#options.host ?? '127.0.0.1';
    return host === '0.0.0.0' || host === '::' || host === 'localhost' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  }
}

/**
 * Adds a matcher that decides from the URL and headers alone. mockttp's own `.matching()` waits for
 * the whole request body first, and for a body over maxBodySize that loses the body: the upload
 * then never reaches the origin. Matchers are a protected field of mockttp 4.6's rule builder.
 */
function withoutWaitingForBody<B extends object, R extends Partial<mockttp.CompletedRequest>>(builder: B, matches: (request: R) => boolean | Promise<boolean>): B {
  const matchers = (builder as unknown as { matchers?: unknown[] }).matchers;
  if (!Array.isArray(matchers)) throw new Error('mockttp\'s rule builder has changed: wrtui cannot add its matcher (see capture-proxy.ts)');
  matchers.push({ matches, explain: () => 'a blocking onHeadersReceived or onAuthRequired listener would see it', dispose: () => {} });
  return builder;
}

/**
 * When wrtui hands mockttp new request headers, mockttp (HTTP/1 clients) sets Content-Length to
 * the length of the body it buffered: mirror that here so onSendHeaders shows it. A body larger
 * than --max-body-size was not buffered (mockttp would announce 0 bytes and break the request),
 * so it goes out with chunked framing instead, which mockttp leaves alone.
 */
function framedForMockttp(headers: HttpHeaders, request: mockttp.CompletedRequest, body: Uint8Array | undefined, truncated: boolean): HttpHeaders {
  if (!request.httpVersion.startsWith('1')) return headers;
  if (truncated) return withHeader(withHeader(headers, 'content-length', undefined), 'transfer-encoding', 'chunked');
  if (getHeader(headers, 'transfer-encoding')?.includes('chunked')) return headers;
  const length = String(body?.length ?? 0);
  return getHeader(headers, 'content-length') === length ? headers : withHeader(headers, 'content-length', length);
}

/** mockttp drops response bodies over maxBodySize (an empty buffer): was this one kept whole? */
function isWholeBody(response: mockttp.CompletedResponse, method: string): boolean {
  if (response.body.buffer.length > 0) return true;
  return response.headers['content-length'] === '0' || response.statusCode === 204 || response.statusCode === 304 || method === 'HEAD';
}

/**
 * A proxy sends the Host of the absolute URL it was asked for (RFC 9112 §3.2.2), whatever Host the
 * client wrote; listeners see that Host, and mockttp forwards it when they change the headers.
 */
function withTargetHost(headers: HttpHeaders, url: string): HttpHeaders {
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return headers;
  }
  const index = headers.findIndex((header) => header.name.toLowerCase() === 'host');
  if (index === -1 || headerLatin1(headers[index]!) === host) return headers;
  return headers.map((header, i) => (i === index ? { name: header.name, value: host } : header));
}

/** Lower-case name → value(s), the shape http-cache-semantics reads. */
function headerMap(headers: HttpHeaders): Record<string, string | string[]> {
  const map: Record<string, string | string[]> = {};
  for (const header of headers) {
    const name = header.name.toLowerCase();
    const value = headerLatin1(header);
    const existing = map[name];
    map[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return map;
}

function pairsOf(headers: HttpHeaders): [string, string][] {
  return headers.map((header) => [header.name, headerLatin1(header)]);
}

function headersFromPairs(pairs: readonly (readonly [string, string])[]): HttpHeaders {
  return headersFromRaw(pairs.flat());
}

// mockttp reads these from header objects by their lower-case names only.
const FRAMING_HEADERS = new Set(['host', 'content-length', 'transfer-encoding']);

/** mockttp's header object: names as given (first spelling wins), repeated names as arrays. */
function toMockttpHeaders(headers: HttpHeaders, request?: mockttp.CompletedRequest): mockttp.Headers {
  const out: Record<string, string | string[]> = {};
  const spelling = new Map<string, string>();
  for (const header of headers) {
    const lower = header.name.toLowerCase();
    const name = spelling.get(lower) ?? (FRAMING_HEADERS.has(lower) ? lower : header.name);
    spelling.set(lower, name);
    const value = headerLatin1(header);
    const existing = out[name];
    out[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  // HTTP/2 clients: mockttp regenerates the pseudo-headers from the URL, but keeps :authority.
  const authority = request?.headers[':authority'];
  if (typeof authority === 'string' && out.host === undefined) out[':authority'] = authority;
  return out;
}

function redirectResponse(statusCode: number, statusMessage: string, headers: HttpHeaders): mockttp.requestSteps.CallbackResponseMessageResult {
  return { statusCode, statusMessage, headers: toMockttpHeaders(withHeader(headers, 'content-length', '0')), body: '' };
}

/** A listener redirected to data: (or about:blank): the proxy serves the content itself. */
async function dataResponse(url: string): Promise<mockttp.requestSteps.CallbackResponseMessageResult> {
  if (url === 'about:blank') return { statusCode: 200, statusMessage: 'OK', headers: { 'Content-Type': 'text/html' }, body: '' };
  const response = await fetch(url);
  const body = new Uint8Array(await response.arrayBuffer());
  return {
    statusCode: 200,
    statusMessage: 'OK',
    headers: { 'Content-Type': response.headers.get('content-type') ?? 'text/plain;charset=US-ASCII', 'Content-Length': String(body.length) },
    rawBody: body,
  };
}

