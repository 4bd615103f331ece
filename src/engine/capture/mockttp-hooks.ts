// The places wrtui reaches into mockttp 4.6 beyond its public API. Each fails loudly if the shape
// it relies on has changed, rather than leaving wrtui silently blind (or silently open).
import { createRequire } from 'node:module';
import type * as mockttp from 'mockttp';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { headersFromRaw } from '../headers.js';
import type { HttpHeaders } from '../types.js';
import { absoluteUrl } from './request-target.js';
import { Socket as NetSocket, type Server, type Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';
import { guarded, targetProblem, type ClientFaultListener, type NodeListener } from './client-guard.js';

const requireFromHere = createRequire(import.meta.url);

/**
 * A client's request as wrtui's handlers get it: Node's request with `url` absolute. Its rawHeaders
 * are Node's flat list for an HTTP/1 request, and mockttp's pairs for an HTTP/2 one or a WebSocket
 * handshake (mockttp preprocesses those): read them with requestHeaderList.
 */
export type OngoingRequest = Omit<IncomingMessage, 'rawHeaders' | 'url' | 'method'> & {
  url: string;
  method: string;
  socket: Socket;
  httpVersion: string;
  rawHeaders: readonly string[] | readonly (readonly [string, string])[];
  stream?: import('node:http2').ServerHttp2Stream;
};
export type OngoingResponse = ServerResponse;
export type RequestHandler = (request: OngoingRequest, response: OngoingResponse) => Promise<void>;

/** A request's headers in order, as sent, whichever shape its rawHeaders have (see OngoingRequest). */
export function requestHeaderList(request: Pick<OngoingRequest, 'rawHeaders'>): HttpHeaders {
  const raw = request.rawHeaders;
  if (raw.length === 0 || typeof raw[0] === 'string') return headersFromRaw(raw as readonly string[]);
  return headersFromRaw((raw as readonly (readonly [string, string])[]).flat());
}

/** mockttp marks a request that asked `Expect: 100-continue` (its 'checkContinue' listener) instead of Node answering it. */
const Expects100Continue = (requireFromHere('mockttp/dist/util/socket-extensions') as { Expects100Continue?: symbol }).Expects100Continue;

type MockttpInternals = {
  port: number;
  eventEmitter?: unknown;
  preprocessRequest?: (request: IncomingMessage, type: 'request', emitter: unknown) => unknown;
};

/**
 * Every plain request (not WebSocket upgrades) goes to `handler`, which must end or destroy the
 * response before its promise settles. mockttp still does everything up to the request:
 * connections, CONNECT and TLS interception, HTTP/2, parsing.
 *
 * Why not a mockttp rule: its handleRequest, around any rule, wraps every response to track it
 * (trackResponse), matches rules asynchronously, adds abort/close/error listeners to each request
 * and checks for listeners to announce to, none of which wrtui reads (it journals what it needs
 * itself); and thenPassThrough blocks its hooks on a fully buffered request AND response and costs
 * ~2× what wrtui's forward does (bench/proxy). So the last entry of mockttp's connect app (its
 * handleRequest) is replaced by a dispatcher: an HTTP/1 request gets its absolute URL
 * (request-target.ts) and goes to `handler`; an HTTP/2 one gets mockttp's own preprocessing first
 * (its `url` must be redefined apart from `:path`), as before. guardClientInput calls the same
 * dispatcher, past connect.
 */
export function handleEveryRequest(server: mockttp.Mockttp, handler: RequestHandler): void {
  const stack = (appOf(server) as { stack?: { handle?: unknown }[] }).stack;
  const internals = server as unknown as MockttpInternals;
  const last = Array.isArray(stack) ? stack[stack.length - 1] : undefined;
  if (!last || typeof last.handle !== 'function' || typeof internals.preprocessRequest !== 'function' || typeof Expects100Continue !== 'symbol') {
    throw new Error("mockttp's request handling has changed (its connect app's last middleware, preprocessRequest, Expects100Continue): wrtui cannot take over request handling; see mockttp-hooks.ts");
  }
  const serverPort = () => internals.port;
  last.handle = function dispatch(request: IncomingMessage, response: ServerResponse): Promise<void> | undefined {
    if (request.httpVersionMajor === 1) request.url = absoluteUrl(request, serverPort);
    // mockttp answered the failure itself (400) when its preprocessing returns nothing.
    else if (internals.preprocessRequest!.call(server, request, 'request', internals.eventEmitter) === null) return undefined;
    if ((request as unknown as Record<symbol, unknown>)[Expects100Continue]) response.writeContinue();
    return handler(request as unknown as OngoingRequest, response);
  };
}

/** The handle of mockttp's connect app's only middleware: its handleRequest, or wrtui's dispatcher once handleEveryRequest ran. */
function requestListenerOf(server: mockttp.Mockttp): NodeListener {
  const stack = (appOf(server) as { stack?: { handle?: unknown }[] }).stack;
  const handle = Array.isArray(stack) && stack.length === 1 ? stack[0]!.handle : undefined;
  if (typeof handle !== 'function') {
    throw new Error(`mockttp's request handling has changed (its app has ${Array.isArray(stack) ? stack.length : 'no'} middleware, the last one's handle ${typeof handle}); see mockttp-hooks.ts`);
  }
  return handle as NodeListener;
}

/** Replaces the `handle` of the rule mockttp built for `endpoint`, or says plainly that it cannot. */
function takeOver(endpoint: mockttp.MockedEndpoint, what: string, handle: (...args: never[]) => Promise<void>): void {
  const rule = (endpoint as unknown as { rule?: { handle?: unknown } }).rule;
  if (!rule || typeof rule.handle !== 'function') {
    throw new Error(`mockttp's rule objects have changed (MockedEndpoint.rule.handle): wrtui cannot take over ${what}; see mockttp-hooks.ts`);
  }
  rule.handle = handle;
}

export type UpgradeHandler = (request: OngoingRequest, socket: Socket, head: Buffer) => Promise<void>;

/**
 * Every WebSocket handshake (any Upgrade request) goes to `handler` with the client's socket, as
 * Node's 'upgrade' event gives it; mockttp has parsed it (absolute ws:// or wss:// url, body reader).
 * mockttp's WebSocket passthrough re-frames every message through its own ws server and cannot
 * change a handshake's headers; wrtui forwards the handshake itself and then pipes the bytes.
 */
export async function handleEveryUpgrade(server: mockttp.Mockttp, handler: UpgradeHandler): Promise<void> {
  takeOver(await server.forAnyWebSocket().always().thenPassThrough(), 'WebSocket handshakes', handler);
}

/**
 * mockttp hooks a handshake's client socket to copy everything written to it until its own ws
 * server reports the upgrade ('ws-upgrade' with the ws connection), which never comes when wrtui
 * splices the connection itself: the copy would grow for the life of the WebSocket. Call this right
 * after writing the response head: mockttp then restores the socket's own write methods, reads the
 * head it copied, and attaches to an inert stand-in for its ws connection.
 */
export function releaseHandshakeSocket(socket: Socket): void {
  const inertWebSocket = { on: () => inertWebSocket, send: () => undefined };
  try {
    socket.emit('ws-upgrade', inertWebSocket);
  } catch {
    // Another mockttp: nothing hooked, or hooked differently. The WebSocket still works.
  }
}

/**
 * mockttp 4 has no host option: its server listens on every interface (`server.listen(port)`).
 * A man-in-the-middle holding a CA key must not be reachable from the network unless asked, so the
 * socket itself is bound: mockttp builds its server with createComboServer (its own module, called
 * through the module's exports object), whose `listen(port)` is redirected here to
 * `listen({ port, host })` for the servers registered with listenOn (found by their request
 * listener, the mockttp instance's express app).
 */
const listenHosts = new WeakMap<object, string>();
/** The servers registered with guardClientInput, by the same key: their request handler and who is told of a client's fault. */
const faultListeners = new WeakMap<object, { handleRequest: NodeListener; onFault: ClientFaultListener }>();
let comboServerPatched = false;

type ComboOptions = { requestListener: object };

/** mockttp's express app: the key its createComboServer call can be recognised by. */
function appOf(server: mockttp.Mockttp): object {
  const app = (server as unknown as { app?: object }).app;
  if (!app) throw new Error("mockttp's server construction has changed (app): wrtui cannot hook its server (see mockttp-hooks.ts)");
  return app;
}

/** Redirects mockttp's createComboServer through wrtui's hooks (once per process). */
function patchComboServer(): void {
  if (comboServerPatched) return;
  const comboModule = requireFromHere('mockttp/dist/server/http-combo-server') as { createComboServer?: (options: ComboOptions) => Promise<Server> };
  if (typeof comboModule.createComboServer !== 'function') {
    throw new Error("mockttp's server construction has changed (createComboServer): wrtui cannot bind its socket to one address or guard what clients send; refusing to start (see mockttp-hooks.ts)");
  }
  comboServerPatched = true;
  const original = comboModule.createComboServer;
  comboModule.createComboServer = async (options) => {
    const key = options.requestListener;
    const guard = faultListeners.get(key);
    // The listener also serves 'checkContinue' and 'checkExpectation' (createComboServer passes it on).
    const combo = await original(guard ? { ...options, requestListener: guarded(guard.handleRequest, guard.onFault, (request) => (request.httpVersionMajor === 1 ? targetProblem(request.method, request.url) : undefined)) } : options);
    const bound = listenHosts.get(key);
    if (bound !== undefined) {
      const listen = combo.listen.bind(combo) as (...args: unknown[]) => Server;
      (combo as unknown as { listen: (...args: unknown[]) => Server }).listen = (...args: unknown[]) =>
        typeof args[0] === 'number' && args.length === 1 ? listen({ port: args[0], host: bound }) : listen(...args);
    }
    return combo;
  };
}

export function listenOn(server: mockttp.Mockttp, host: string): void {
  listenHosts.set(appOf(server), host);
  patchComboServer();
}

/**
 * Call before start: whatever a client sends that mockttp or the libraries under it throw on (a
 * request target Node's url.parse refuses, say) is answered 400 and told to `onFault`, instead of
 * ending the process (client-guard.ts). After start, call guardUpgrades too.
 */
export function guardClientInput(server: mockttp.Mockttp, onFault: ClientFaultListener): void {
  // Requests go straight to the app's last middleware (wrtui's dispatcher, handleEveryRequest), past
  // connect, the app's only middleware (with cors: false): connect's parseurl is what threw on
  // `http://[zz/`, and its final handler answered a target it could not route (`http://%zz/`)
  // "404 Cannot GET" without a word to wrtui.
  const handleRequest = requestListenerOf(server);
  faultListeners.set(appOf(server), { handleRequest: (request, answer) => handleRequest.call(server, request, answer), onFault });
  patchComboServer();
}

/**
 * The 'upgrade' listeners mockttp added to its server (they reach Node's HTTP/1 and HTTP/2 servers
 * through httpolyglot) get the same guard as requests: mockttp's WebSocket handling is async, and a
 * rejection there would be unhandled.
 */
export function guardUpgrades(server: mockttp.Mockttp, onFault: ClientFaultListener): void {
  const combo = listeningServer(server) as unknown as { _httpServer?: Server; _http2Server?: Server };
  for (const sub of [combo._httpServer, combo._http2Server]) {
    if (!sub) throw new Error("mockttp's HTTP servers are not where wrtui expects them (httpolyglot _httpServer, _http2Server); see mockttp-hooks.ts");
    for (const listener of sub.listeners('upgrade')) {
      sub.removeListener('upgrade', listener as (...args: unknown[]) => void);
      sub.on('upgrade', guarded(listener as NodeListener, onFault, (request) => (request.httpVersionMajor === 1 ? targetProblem(request.method, request.url) : undefined)));
    }
  }
}

/**
 * mockttp reads its own port for every request (preprocessRequest → `port` → `address` →
 * server.address(), a getsockname system call): about 6 µs of a small request's proxy-thread CPU
 * here (bench/proxy.ts, profiled). The address of a listening socket does not change, so once
 * started the instance answers from a copy, until its server goes away.
 */
export function rememberListeningAddress(server: mockttp.Mockttp): void {
  const own = server as unknown as { server?: Server };
  const listening = own.server;
  if (!listening || typeof (Object.getOwnPropertyDescriptor(Object.getPrototypeOf(server), 'address') ?? {}).get !== 'function') {
    throw new Error("mockttp's address getter is not where wrtui expects it (Mockttp.address); see mockttp-hooks.ts");
  }
  const address = listening.address();
  Object.defineProperty(server, 'address', {
    configurable: true,
    get() {
      // Stopped (or restarted on another server): mockttp's own getter, which throws or reads anew.
      if (own.server !== listening) {
        delete (server as { address?: unknown }).address;
        return (server as unknown as { address: unknown }).address;
      }
      return address;
    },
  });
}

/** mockttp's listening server (its combo server), once started. */
export function listeningServer(server: mockttp.Mockttp): Server {
  const combo = (server as unknown as { server?: Server }).server;
  if (!combo) throw new Error("mockttp's listening server is not where wrtui expects it (Mockttp.server); see mockttp-hooks.ts");
  return combo;
}

/**
 * The most request head mockttp's HTTP/1 server reads from a client (Node's default is 16 KiB, a
 * 431 past it). Node reads `maxHeaderSize` off the server for each new connection, so setting it
 * on httpolyglot's HTTP/1 sub-server after start applies to every client. False when the server is
 * not shaped as expected (the default limit stays).
 */
export function setRequestHeadLimit(server: mockttp.Mockttp, bytes: number): boolean {
  const http1 = (listeningServer(server) as unknown as { _httpServer?: { maxHeaderSize?: number; maxHeadersCount?: number | null; listenerCount?: unknown } })._httpServer;
  if (!http1 || typeof http1.listenerCount !== 'function') return false;
  http1.maxHeaderSize = bytes;
  // Node keeps the first 2,000 header lines of a request and drops the rest without a word (a
  // request with 2,503 reached the origin with 1,024). The head's size is bounded above; its
  // number of headers need not be.
  http1.maxHeadersCount = 0;
  return true;
}

/** What Node keeps on a socket for the response being written to it (`_httpMessage`). */
type SocketWithResponse = Socket & { _httpMessage?: (NodeJS.EventEmitter & { writableFinished?: boolean; destroyed?: boolean; req?: { complete?: boolean } }) | null };

/** Resolves once no response is being written to `socket` (Node assigns the next queued one as each finishes). */
async function responsesFinished(socket: SocketWithResponse): Promise<void> {
  for (let message = socket._httpMessage; message && !message.writableFinished && !message.destroyed && !socket.destroyed; message = socket._httpMessage) {
    await new Promise<void>((resolve) => {
      message!.once('finish', resolve);
      message!.once('close', resolve);
    });
  }
}

/**
 * Bytes that are not HTTP after a good request on one connection (pipelined garbage) made mockttp
 * answer 400 and close at once, and the good request, still in flight, never reached the origin.
 * Its 'clientError' handler now runs once the responses in flight on that socket are written:
 * the request is served, then the 400.
 */
export function deferClientErrorsToResponses(server: mockttp.Mockttp): void {
  const http1 = (listeningServer(server) as unknown as { _httpServer?: Server })._httpServer;
  if (!http1) throw new Error("mockttp's HTTP/1 server is not where wrtui expects it (httpolyglot _httpServer); see mockttp-hooks.ts");
  for (const listener of http1.listeners('clientError') as ((error: Error, socket: Socket) => void)[]) {
    http1.removeListener('clientError', listener);
    http1.on('clientError', (error: Error, socket: SocketWithResponse) => {
      const message = socket._httpMessage;
      // Only bytes after a whole request wait: an error inside the request in flight (bad chunked
      // framing in its body) is that request's, answered at once.
      if (!message || message.writableFinished || message.req?.complete !== true) return listener.call(http1, error, socket);
      void responsesFinished(socket).then(() => listener.call(http1, error, socket));
    });
  }
}

export type ConnectHandler = (request: IncomingMessage, socket: Socket, proceed: () => void) => void;

/**
 * HTTP/1 CONNECT requests go to `handler` before mockttp sees them; `proceed()` hands one to mockttp,
 * which answers 200 and intercepts the tunnel. mockttp answers every CONNECT 200 at once, so a
 * tunnel to a closed port or a garbage authority failed later, inside the tunnel, with nothing to
 * tell the client why; the handler answers those itself. (HTTP/2 CONNECT stays mockttp's.)
 */
export function handleConnect(server: mockttp.Mockttp, handler: ConnectHandler): void {
  const combo = listeningServer(server);
  const listeners = combo.listeners('connect');
  if (listeners.length !== 1) throw new Error(`mockttp's CONNECT handling has changed (${listeners.length} 'connect' listeners); see mockttp-hooks.ts`);
  const original = listeners[0] as (request: IncomingMessage, resOrSocket: unknown) => void;
  combo.removeListener('connect', original);
  const onFault = faultListeners.get(appOf(server))?.onFault;
  const listener = (request: IncomingMessage, resOrSocket: unknown) => {
    if (!(resOrSocket instanceof NetSocket)) return original.call(combo, request, resOrSocket);
    handler(request, resOrSocket, () => original.call(combo, request, resOrSocket));
  };
  combo.on('connect', onFault ? guarded(listener as NodeListener, onFault) : listener);
}

/**
 * Replaces the certificate mockttp's TLS server presents when the client names no server (no SNI:
 * a tunnel to an IP address). The TLS server is httpolyglot's private `_tlsServer` in mockttp 4.6.
 */
export function setDefaultCertificate(server: mockttp.Mockttp, certificate: { cert: string; key: string; chain?: string }): void {
  const tlsServer = (listeningServer(server) as unknown as { _tlsServer?: TlsServer })._tlsServer;
  if (!tlsServer || typeof tlsServer.setSecureContext !== 'function') {
    throw new Error("mockttp's TLS server is not where wrtui expects it (httpolyglot _tlsServer); see mockttp-hooks.ts");
  }
  // The CA goes with the leaf, as mockttp sends it: clients that pin the CA's key (Chromium's
  // --ignore-certificate-errors-spki-list) look for it in the chain presented.
  tlsServer.setSecureContext({ cert: certificate.chain ? `${certificate.cert.trim()}\n${certificate.chain.trim()}\n` : certificate.cert, key: certificate.key });
}

/**
 * mockttp's events that cost every request when anything listens: for these it builds completed
 * request and response objects and buffers bodies (≈ 240 µs a request, bench/proxy.ts, issue #37).
 * wrtui journals what it needs itself; a feature that subscribes to one of these would make every
 * request dearer without a word, so a test and the bench check that none is subscribed.
 */
export const COSTLY_MOCKTTP_EVENTS = ['request-initiated', 'request', 'response', 'abort', 'request-body-data', 'response-body-data', 'rule-event'] as const;

/** The COSTLY_MOCKTTP_EVENTS something listens to on `server` (none, in wrtui). */
export function costlySubscriptions(server: mockttp.Mockttp): string[] {
  const emitter = (server as unknown as { eventEmitter?: { listenerCount?: (event: string) => number } }).eventEmitter;
  if (typeof emitter?.listenerCount !== 'function') throw new Error("mockttp's event emitter is not where wrtui expects it (Mockttp.eventEmitter); see mockttp-hooks.ts");
  return COSTLY_MOCKTTP_EVENTS.filter((event) => emitter.listenerCount!(event) > 0);
}
