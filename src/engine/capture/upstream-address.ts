// The IP address mockttp actually connected to for a WebSocket handshake (webRequest's `ip`): plain
// requests are forwarded by wrtui itself, which reads the address off its own socket, but handshakes
// still go through mockttp's passthrough, and mockttp 4.6 has no upstream address in its API, so we
// watch Node's own HTTP client.
//
// How. `http.client.request.start` (node:diagnostics_channel) is published for every
// http/https ClientRequest from `ClientRequest#_finish`, by which point the request has its socket:
// for a new connection the socket is still connecting (we read its remote address on 'connect'),
// for a reused keep-alive socket it is connected already (we read it at once). `net.client.socket`
// would miss reused sockets (it fires only in net.connect) and tls.connect never publishes it.
// Which request is it? An AsyncLocalStorage holding mockttp's request id, entered in the handshake's
// matcher (or a rule's `beforeRequest` hook); the channel is published synchronously in the upstream
// request's async chain. (Entering turns on Node 20's promise hooks for the process: ~5-15 % of a
// small request's CPU. Plain requests no longer pay it unless a WebSocket handshake came by.)
//
// Entering: `AsyncLocalStorage#run` inside beforeRequest does NOT reach the upstream request.
// mockttp does `await this.beforeRequest(...)` and then creates the upstream request in its own
// continuation, whose context is mockttp's, not the callback's (the store `run` set is already
// restored when the callback returns). `enterWith`, called synchronously in the hook (before any
// await in it), sets the store on mockttp's current execution context, which its continuation after
// the await inherits (verified on Node 20 with mockttp 4.6; see the test). So `run` below enters with
// `enterWith`: the key stays entered for the rest of the caller's async chain, not just `fn`.
//
// Limits: no address when mockttp speaks HTTP/2 upstream (HTTP/2 client + https target, via
// http2-wrapper: no ClientRequest, no channel), nor when the connection fails before 'connect'.
// An upstream request queued in an agent behind others would see the context of the request that
// freed its socket; mockttp's agents are per downstream connection and unlimited, so none queue.
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';

const REQUEST_START = 'http.client.request.start';

export interface UpstreamAddressTrackerOptions {
  /** At most this many addresses are kept; the oldest go first (for keys never forgotten). */
  maxEntries?: number;
}

export class UpstreamAddressTracker {
  readonly #storage = new AsyncLocalStorage<string>();
  readonly #addresses = new Map<string, string>();
  readonly #maxEntries: number;
  #subscribed = true;

  readonly #onRequestStart = (message: unknown): void => {
    const key = this.#storage.getStore();
    if (key === undefined) return; // not a request we were asked to follow
    const request = (message as { request: ClientRequest }).request;
    const record = (socket: Socket) => {
      if (socket.connecting) socket.once('connect', () => this.#record(key, socket.remoteAddress));
      else this.#record(key, socket.remoteAddress);
    };
    if (request.socket) record(request.socket);
    else request.once('socket', record);
  };

  constructor(options: UpstreamAddressTrackerOptions = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    diagnosticsChannel.subscribe(REQUEST_START, this.#onRequestStart);
  }

  /**
   * Enter `key` (mockttp's request id) for the caller's async chain, then call `fn`. Call it
   * synchronously at the top of `beforeRequest`: `beforeRequest: (req) => tracker.run(req.id, () => …)`.
   */
  run<T>(key: string, fn: () => T): T {
    this.#storage.enterWith(key);
    return fn();
  }

  /** The remote IP of the upstream socket used for `key`, once it is connected. */
  addressOf(key: string): string | undefined {
    return this.#addresses.get(key);
  }

  forget(key: string): void {
    this.#addresses.delete(key);
  }

  /** Stop listening to Node's HTTP client. */
  dispose(): void {
    if (!this.#subscribed) return;
    this.#subscribed = false;
    diagnosticsChannel.unsubscribe(REQUEST_START, this.#onRequestStart);
  }

  #record(key: string, address: string | undefined): void {
    if (address === undefined) return;
    this.#addresses.delete(key); // re-inserted last: Map order is the eviction order
    this.#addresses.set(key, address.startsWith('::ffff:') ? address.slice(7) : address);
    if (this.#addresses.size > this.#maxEntries) {
      this.#addresses.delete(this.#addresses.keys().next().value!);
    }
  }
}
