// The two places wrtui reaches into mockttp 4.6 beyond its public API. Both fail loudly if the
// shape they rely on has changed, rather than leaving wrtui silently blind.
import type * as mockttp from 'mockttp';

/** A request as mockttp hands it to a rule: Node's request, preprocessed (absolute url, id, body reader). */
export type OngoingRequest = mockttp.OngoingRequest & {
  socket: import('node:net').Socket;
  httpVersion: string;
  stream?: import('node:http2').ServerHttp2Stream;
};
export type OngoingResponse = mockttp.OngoingResponse;
export type RequestHandler = (request: OngoingRequest, response: OngoingResponse) => Promise<void>;

/**
 * Every plain request (not WebSocket upgrades) goes to `handler`, which must end or destroy the
 * response before its promise settles. mockttp still does everything up to the rule: connections,
 * CONNECT and TLS interception, HTTP/2, parsing, the absolute URL, the body reader.
 *
 * Why not thenPassThrough: its hooks block only on a fully buffered request AND response (a blocking
 * onHeadersReceived would stall every stream), and its step costs ~2× what wrtui's forward does
 * (bench/proxy). mockttp has no public custom step for local servers, so the rule's `handle` is
 * replaced on the rule object mockttp built (a public field of its MockedEndpoint in 4.6).
 */
export async function handleEveryRequest(server: mockttp.Mockttp, handler: RequestHandler): Promise<void> {
  const endpoint = await server.forAnyRequest().always().thenPassThrough();
  const rule = (endpoint as unknown as { rule?: { handle?: unknown; requestCount?: number } }).rule;
  if (!rule || typeof rule.handle !== 'function') {
    throw new Error("mockttp's rule objects have changed (MockedEndpoint.rule.handle): wrtui cannot take over request handling; see mockttp-hooks.ts");
  }
  rule.handle = (request: OngoingRequest, response: OngoingResponse) => {
    untrack(response);
    return handler(request, response);
  };
}

/**
 * mockttp copies every byte written to a response into a tracking stream that only its 'response'
 * event reads; with no 'response' listener nothing drains it, and a 1 GiB download keeps 1 GiB
 * (bench/proxy). Its wrappers are own properties over Node's methods: removing them restores
 * Node's own write/end/writeHead (and saves their bookkeeping). wrtui journals what it needs itself.
 */
function untrack(response: OngoingResponse): void {
  const own = response as unknown as Record<string, unknown>;
  const node = Object.getPrototypeOf(response) as Record<string, unknown>;
  // Assigned, not deleted: deleting would drop the response object into V8's slow dictionary mode.
  for (const method of ['write', 'end', 'writeHead'] as const) {
    if (Object.hasOwn(own, method) && typeof node[method] === 'function') own[method] = node[method];
  }
}

/**
 * A listener for one mockttp event that is attached only while `wanted` says so. mockttp buffers
 * every response body for as long as anyone listens to 'response'; wrtui needs that event only
 * for WebSocket handshakes an origin refuses, so it listens only while a handshake is pending.
 */
interface Emitter<T> {
  on(event: string, fn: (value: T) => void): unknown;
  off(event: string, fn: (value: T) => void): unknown;
}

export class OccasionalListener<T> {
  readonly #emitter: Emitter<T> | undefined;
  readonly #event: string;
  readonly #listener: (value: T) => void;
  #users = 0;

  constructor(server: mockttp.Mockttp, event: string, listener: (value: T) => void) {
    const emitter = (server as unknown as { eventEmitter?: unknown }).eventEmitter as Emitter<T> | undefined;
    this.#event = event;
    this.#listener = listener;
    if (emitter && typeof emitter.on === 'function' && typeof emitter.off === 'function') this.#emitter = emitter;
    // Without the emitter (another mockttp), listen always: slower, never blind.
    else void server.on(event as 'response', listener as unknown as (response: mockttp.CompletedResponse) => void);
  }

  acquire(): void {
    if (this.#users++ === 0) this.#emitter?.on(this.#event, this.#listener);
  }

  release(): void {
    if (this.#users === 0) return;
    if (--this.#users === 0) this.#emitter?.off(this.#event, this.#listener);
  }
}
