// wrtui's own upstream HTTP client: every request the live proxy forwards goes out here, over
// node:http(s) with keep-alive agents. mockttp terminates the client side (CONNECT, TLS with
// wrtui's CA, HTTP/2, WebSocket); its passthrough step is not used for plain requests because it
// can only block on a fully buffered response and costs ~3× a plain forward (FACTS.md, bench/proxy).
//
// TLS is verified as Node does (default roots plus NODE_EXTRA_CA_CERTS) unless the host is one the
// user named as insecure. Upstream is always HTTP/1.1 (what Chrome speaks to a proxy's origin when it
// cannot negotiate h2 is not observable through webRequest beyond statusLine; see docs/semantics.md).
import { lookup as systemLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket, type ConnectionOptions } from 'node:tls';
import type { Readable } from 'node:stream';
import { headersFromRaw, headersToRaw } from '../headers.js';
import type { HttpHeaders } from '../types.js';
import type { OutgoingRequest, Transport, TransportResponse } from '../web-request/transport.js';
import { TransportError } from '../web-request/transport.js';
import { tlsFactsReader, type TlsFacts } from '../web-request/security-info.js';
import type { HostMap, HostMapping } from './host-map.js';
import { IdleSockets, MAX_IDLE_SOCKETS, POOL_OPTIONS } from './idle-sockets.js';
import { UpstreamSockets } from './loop-guard.js';
import { cutShortError, isCutShort, netErrorOf } from './net-error.js';
import { openTunnel, type UpstreamProxy } from './upstream-proxy.js';


/** The most response head wrtui reads from an upstream, as Chromium does. */
export const MAX_RESPONSE_HEAD_BYTES = 256 * 1024;
export interface UpstreamTransportOptions {
  /** Hosts whose certificates are not verified (--insecure-upstream). */
  insecureHosts?: readonly string[];
  /** An upstream connection silent for this long fails the request with net::ERR_TIMED_OUT. */
  timeoutMs?: number;
  /** Where to connect for some hostnames (--resolve); told to `onMapped` as each is used. */
  hostMap?: HostMap;
  onMapped?: (hostname: string, port: number, mapping: HostMapping) => void;
  /** Why a host:port is known not to answer right now (a tunnel check just failed): requests to it fail at once. */
  knownFailure?: (hostname: string, port: number) => Error | undefined;
  /** --upstream-proxy: connections go through it, except to hosts its NO_PROXY names (upstream-proxy.ts). */
  upstreamProxy?: UpstreamProxy;
}

export interface StreamingRequest {
  url: URL;
  method: string;
  /** Sent exactly as given: order, case and duplicates (flat raw headers). */
  headers: HttpHeaders;
  /** The whole body, or a stream of it (piped as it arrives). */
  body?: Uint8Array | Readable;
}

/** An upstream response whose body has not been read yet. */
export interface UpstreamResponse {
  response: http.IncomingMessage;
  /** The server's address as connected to (IPv4-mapped IPv6 unmapped). */
  ip: string | undefined;
  /** The server answered in HTTP/0.9 (no status line, no headers; the body ends with the connection). */
  http09: boolean;
  /** The request, to abort it (and its socket) when the client goes away. */
  request: http.ClientRequest;
  /** Over TLS: the connection's facts, read when an extension asks (getSecurityInfo). */
  tls?: () => TlsFacts;
}

export type UpgradeResult =
  | { kind: 'upgraded'; response: http.IncomingMessage; socket: Socket; head: Buffer; ip: string | undefined }
  | ({ kind: 'refused' } & UpstreamResponse);

/**
 * An upstream connection silent this long fails its request with net::ERR_TIMED_OUT. A minute, as
 * nginx's proxy_read_timeout: a debugging user is told well before giving up on the screen, and a
 * slow but live upstream (data flowing) is never cut.
 */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;

/** Connections whose server answered in HTTP/0.9 (see acceptHttp09). */
const HTTP09 = new WeakSet<Socket>();
const HTTP10_HEAD = Buffer.from('HTTP/1.0 200 OK\r\n\r\n', 'latin1');

/**
 * Node's HTTP client cannot read an HTTP/0.9 answer (bytes with no status line). The first bytes a
 * new connection receives decide: if they do not start like "HTTP/", the answer is given to Node
 * as what it means, an HTTP/1.0 200 with no headers whose body ends with the connection, and the
 * connection is marked. Only the first read is looked at (Readable#push, put back at once).
 */
function acceptHttp09(socket: Socket): void {
  const own = socket as unknown as { push: (chunk: Buffer | null) => boolean };
  const push = (Object.getPrototypeOf(socket) as typeof own).push;
  own.push = function (this: Socket, chunk: Buffer | null): boolean {
    own.push = push;
    if (chunk && chunk.length > 0 && !startsLikeStatusLine(chunk)) {
      HTTP09.add(socket);
      return push.call(this, Buffer.concat([HTTP10_HEAD, chunk]));
    }
    return push.call(this, chunk);
  };
}

function startsLikeStatusLine(chunk: Buffer): boolean {
  const length = Math.min(chunk.length, 5);
  return chunk.subarray(0, length).toString('latin1').toUpperCase() === 'HTTP/'.slice(0, length);
}

function addressOf(socket: Socket | null | undefined): string | undefined {
  const ip = socket?.remoteAddress;
  return ip?.startsWith('::ffff:') ? ip.slice(7) : ip;
}

export class UpstreamTransport implements Transport {
  /** Every connected upstream socket, for telling a request loop back to the proxy (loop-guard.ts). */
  readonly sockets = new UpstreamSockets();
  readonly #insecure: ReadonlySet<string>;
  readonly #timeoutMs: number;
  readonly #hostMap: HostMap | undefined;
  readonly #onMapped: UpstreamTransportOptions['onMapped'];
  readonly #knownFailure: UpstreamTransportOptions['knownFailure'];
  // One pool per scheme; the https agent keys its pool by TLS options, so insecure hosts are separate.
  // Idle connections are bounded (idle-sockets.ts): one client visiting 1,500 hosts left ~1,000
  // open and then ran out of descriptors.
  readonly #http = new http.Agent(POOL_OPTIONS);
  readonly #https = new https.Agent(POOL_OPTIONS);
  readonly #proxy: UpstreamProxy | undefined;
  /** Through --upstream-proxy: plain http in absolute form, on kept-alive connections to the proxy. */
  readonly #viaProxy: http.Agent | undefined;
  /** Through --upstream-proxy: https in CONNECT tunnels, pooled per origin as direct ones are. */
  readonly #tunnelled: https.Agent | undefined;
  readonly #idle: IdleSockets;

  /** Kept-alive upstream connections waiting for a request. */
  get idleSockets(): number {
    return this.#idle.size;
  }

  constructor(options: UpstreamTransportOptions = {}) {
    this.#insecure = new Set(options.insecureHosts ?? []);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
    this.#hostMap = options.hostMap?.empty ? undefined : options.hostMap;
    this.#onMapped = options.onMapped;
    this.#knownFailure = options.knownFailure;
    this.#proxy = options.upstreamProxy;
    if (this.#proxy) {
      const proxy = this.#proxy;
      const insecureProxy = this.#insecure.has(proxy.host);
      this.#viaProxy = proxy.protocol === 'https:' ? new https.Agent({ ...POOL_OPTIONS, rejectUnauthorized: !insecureProxy, ...(!/^[\d.]+$|:/.test(proxy.host) && { servername: proxy.host }) }) : new http.Agent(POOL_OPTIONS);
      this.#tunnelled = new TunnelAgent(POOL_OPTIONS, this.#tunnelConnection(true));
    }
    this.#idle = new IdleSockets(MAX_IDLE_SOCKETS, [this.#http, this.#https, ...(this.#viaProxy ? [this.#viaProxy] : []), ...(this.#tunnelled ? [this.#tunnelled] : [])]);
  }

  /** The upstream proxy as the user may see it (credentials hidden), when there is one. */
  get upstreamProxy(): string | undefined {
    return this.#proxy?.display;
  }

  /** Whether a connection to `hostname:port` goes through --upstream-proxy (not when NO_PROXY names the host). */
  proxies(hostname: string, port: number): boolean {
    return this.#proxy !== undefined && !this.#proxy.bypass.bypasses(hostname, port);
  }

  /** The upstream proxy (as shown) that a request to `url` goes through, if any. */
  proxyFor(url: URL): string | undefined {
    if (!this.#proxy) return undefined;
    const secure = url.protocol === 'https:' || url.protocol === 'wss:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    return this.proxies(hostname, Number(url.port || (secure ? 443 : 80))) ? this.#proxy.display : undefined;
  }

  /** A tunnel through the upstream proxy to `hostname:port`, open (for the CONNECT check: tunnel-check.ts). */
  tunnel(hostname: string, port: number, timeoutMs: number): Promise<Socket> {
    if (!this.#proxy) throw new Error('no upstream proxy');
    return openTunnel(this.#proxy, hostname, port, { timeoutMs, insecure: this.#insecure.has(this.#proxy.host) });
  }

  /**
   * An agent's createConnection for connections through CONNECT tunnels: opens the tunnel, then
   * (for https and wss) TLS to the origin over it, verified as a direct connection is.
   */
  #tunnelConnection(secure: boolean): TunnelConnect {
    return (options, done) => {
      const hostname = String(options.host ?? options.hostname ?? '');
      const port = Number(options.port);
      this.tunnel(hostname, port, this.#timeoutMs || DEFAULT_UPSTREAM_TIMEOUT_MS).then(
        (socket) => {
          if (!secure) return done(null, socket);
          const tlsOptions: ConnectionOptions = {
            socket,
            // The certificate is checked against the origin's name (or address), as directly.
            host: hostname,
            ...(options.servername && isIP(options.servername) === 0 && { servername: options.servername }),
            rejectUnauthorized: options.rejectUnauthorized !== false,
            ALPNProtocols: ['http/1.1'],
          };
          done(null, tlsConnect(tlsOptions));
        },
        (error: Error) => done(error),
      );
      return undefined;
    };
  }

  /**
   * Sends the request and resolves with the response head; the body is left unread (paused) for the
   * caller to stream. Rejects with a TransportError naming Chrome's net error. `pending.request` is
   * the request in flight, for destroying it when the client goes away (cheaper than an AbortSignal,
   * which costs ~4 % of a small request's CPU).
   */
  open(request: StreamingRequest, pending: { request?: http.ClientRequest } = {}): Promise<UpstreamResponse> {
    const known = this.#known(request.url);
    if (known) return Promise.reject(known);
    return new Promise<UpstreamResponse>((resolve, reject) => {
      const outgoing = this.#request(request, pending, reject, false);
      outgoing.on('response', (response) =>
        resolve({ response, request: outgoing, ip: addressOf(response.socket), http09: HTTP09.has(response.socket), ...(response.socket instanceof TLSSocket && { tls: tlsFactsReader(response.socket) }) }),
      );
      // Chrome still takes an HTTP/0.9 answer on the scheme's default port (only there). It can only
      // be a connection's first answer, so only new connections to such a port are watched.
      if (request.url.port === '') outgoing.once('socket', (socket) => socket.connecting && acceptHttp09(socket));
      const { body } = request;
      if (body === undefined || body instanceof Uint8Array) outgoing.end(body);
      else {
        body.on('error', (error) => outgoing.destroy(error));
        body.pipe(outgoing);
      }
    });
  }

  /**
   * A WebSocket handshake (or any Upgrade request) on a connection of its own: resolves with the
   * switched connection, or with the ordinary response of an origin that refused to switch.
   */
  openUpgrade(request: StreamingRequest, pending: { request?: http.ClientRequest } = {}): Promise<UpgradeResult> {
    const known = this.#known(request.url);
    if (known) return Promise.reject(known);
    return new Promise<UpgradeResult>((resolve, reject) => {
      const outgoing = this.#request(request, pending, reject, true);
      outgoing.on('upgrade', (response, socket, head) => resolve({ kind: 'upgraded', response, socket, head, ip: addressOf(socket) }));
      outgoing.on('response', (response) => resolve({ kind: 'refused', response, request: outgoing, ip: addressOf(response.socket), http09: false }));
      outgoing.end();
    });
  }

  /** The failure a request to `url` meets at once: its host:port is known not to answer (knownFailure). */
  #known(url: URL): TransportError | undefined {
    if (!this.#knownFailure) return undefined;
    const secure = url.protocol === 'https:' || url.protocol === 'wss:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const failure = this.#knownFailure(hostname, Number(url.port || (secure ? 443 : 80)));
    return failure && new TransportError(netErrorOf(failure), failure.message);
  }

  #request(request: StreamingRequest, pending: { request?: http.ClientRequest }, reject: (error: TransportError) => void, upgrade: boolean): http.ClientRequest {
    const { url } = request;
    const secure = url.protocol === 'https:' || url.protocol === 'wss:';
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = Number(url.port || (secure ? 443 : 80));
    const proxy = this.#proxy && !this.#proxy.bypass.bypasses(hostname, port) ? this.#proxy : undefined;
    // Through the proxy: plain http in absolute form to the proxy; https and every WebSocket (as
    // Chromium does) in a CONNECT tunnel to the origin. The proxy resolves names: --resolve is not used.
    const absoluteForm = proxy !== undefined && !secure && !upgrade;
    const rawHeaders = headersToRaw(request.headers);
    if (absoluteForm && proxy.authorization) rawHeaders.push('Proxy-Authorization', proxy.authorization);
    const outgoing = (secure ? https : absoluteForm && proxy.protocol === 'https:' ? https : http).request({
      // An upgraded connection leaves the pool anyway: give it its own from the start.
      agent: proxy ? this.#proxyAgent(secure, upgrade) : upgrade ? false : secure ? this.#https : this.#http,
      method: request.method,
      ...(absoluteForm
        ? { hostname: proxy.host, port: proxy.port, path: `${url.protocol}//${url.host}${url.pathname}${url.search}` }
        : { hostname, port, path: url.pathname + url.search }),
      ...(!proxy && this.#hostMap?.find(hostname, port) && { lookup: this.#hostMap.lookupFor(port, systemLookup, (name, mapping) => this.#onMapped?.(name, port, mapping)) }),
      headers: rawHeaders as unknown as http.OutgoingHttpHeaders,
      setHost: false,
      ...(secure && {
        // SNI takes names only (RFC 6066 §3).
        ...(!/^[\d.]+$|:/.test(hostname) && { servername: hostname }),
        rejectUnauthorized: !this.#insecure.has(hostname),
      }),
      timeout: this.#timeoutMs,
      // Chromium reads up to 256 KiB of response head (http_stream_parser.h, kMaxHeaderBufSize)
      // before net::ERR_RESPONSE_HEADERS_TOO_BIG; Node's default is 16 KiB, which failed pages
      // with many or long Set-Cookie or CSP headers that a browser loads.
      maxHeaderSize: MAX_RESPONSE_HEAD_BYTES,
    });
    // Node keeps a response's first 2,000 header lines and drops the rest silently; its head is bounded by maxHeaderSize.
    outgoing.maxHeadersCount = 0;
    pending.request = outgoing;
    let settled = false;
    outgoing.once('response', () => (settled = true));
    outgoing.once('upgrade', () => (settled = true));
    outgoing.on('error', (error: Error & { code?: string; syscall?: string }) => {
      if (settled) return;
      settled = true;
      // In absolute form the connection is to the proxy: failing to make it is the proxy's failure.
      if (absoluteForm && (error.syscall === 'connect' || error.syscall === 'getaddrinfo')) {
        reject(new TransportError('net::ERR_PROXY_CONNECTION_FAILED', `cannot connect to the upstream proxy ${proxy.display}: ${error.message}`));
        return;
      }
      reject(new TransportError(netErrorOf(error), error.message));
    });
    outgoing.on('socket', (socket) => this.#track(socket));
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('upstream timed out'), { code: 'ETIMEDOUT' })));
    return outgoing;
  }

  /** The agent for a request through the proxy; an upgrade gets a tunnel of its own. */
  #proxyAgent(secure: boolean, upgrade: boolean): http.Agent {
    if (upgrade) return secure ? new TunnelAgent({ keepAlive: false }, this.#tunnelConnection(true)) : new PlainTunnelAgent({ keepAlive: false }, this.#tunnelConnection(false));
    return secure ? this.#tunnelled! : this.#viaProxy!;
  }

  /** The whole exchange, body buffered: for auth retries of buffered requests and cache revalidation. */
  async send(request: OutgoingRequest, signal?: AbortSignal): Promise<TransportResponse> {
    const { discard: _unused, body, ...head } = await this.streaming.send(request, signal);
    const chunks: Uint8Array[] = [];
    for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
    return { ...head, body: Buffer.concat(chunks) };
  }

  /**
   * The exchange with the body streamed as it arrives (`send` buffers it): for an extension's own
   * requests, whose bodies may be large, so that the proxy thread never holds a whole download.
   * An abort, before or during the body, ends the request and its socket.
   */
  readonly streaming: Transport = {
    send: async (request, signal) => {
      const pending: { request?: http.ClientRequest } = {};
      const abort = () => pending.request?.destroy(Object.assign(new Error('aborted'), { code: 'ECONNABORTED' }));
      signal?.throwIfAborted();
      signal?.addEventListener('abort', abort, { once: true });
      try {
        const { response, ip } = await this.open({ url: new URL(request.url), method: request.method, headers: request.headers, ...(request.body && { body: request.body }) }, pending);
        response.once('close', () => signal?.removeEventListener('abort', abort));
        return {
          statusCode: response.statusCode ?? 0,
          statusMessage: response.statusMessage ?? '',
          httpVersion: response.httpVersion,
          headers: headersFromRaw(response.rawHeaders),
          ...(ip !== undefined && { ip }),
          body: namingFailures(response),
          discard: () => response.destroy(),
        };
      } catch (error) {
        signal?.removeEventListener('abort', abort);
        throw error instanceof TransportError ? error : new TransportError(netErrorOf(error), (error as Error).message);
      }
    },
  };

  /** Closes idle keep-alive connections (in-flight ones end with their requests). */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
    this.#viaProxy?.destroy();
    this.#tunnelled?.destroy();
  }

  #track(socket: Socket): void {
    if (this.sockets.has(socket)) return; // a reused keep-alive socket
    const add = () => {
      if (!socket.destroyed) this.sockets.add(socket);
    };
    if (socket.connecting) socket.once('connect', add);
    else add();
    socket.once('close', () => this.sockets.delete(socket));
  }
}

/** Node's Agent#createConnection in its asynchronous form: the socket is handed to `done` later. */
type TunnelConnect = (options: https.RequestOptions & { servername?: string }, done: (error: Error | null, socket?: Socket) => void) => undefined;

/** An https agent whose connections are TLS over CONNECT tunnels through the upstream proxy. */
class TunnelAgent extends https.Agent {
  constructor(options: https.AgentOptions, connectVia: TunnelConnect) {
    super(options);
    (this as unknown as { createConnection: TunnelConnect }).createConnection = connectVia;
  }
}

/** The same for a plain WebSocket (ws:), which Chromium also sends through a tunnel. */
class PlainTunnelAgent extends http.Agent {
  constructor(options: http.AgentOptions, connectVia: TunnelConnect) {
    super(options);
    (this as unknown as { createConnection: TunnelConnect }).createConnection = connectVia;
  }
}

/** The response's body, a failure in it a TransportError named as Chrome names it. */
async function* namingFailures(response: http.IncomingMessage): AsyncIterable<Uint8Array> {
  try {
    yield* response;
  } catch (error) {
    throw new TransportError(isCutShort(error) ? cutShortError(response) : netErrorOf(error), (error as Error).message);
  }
}
