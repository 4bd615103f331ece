// Proxy-loop detection for wrtui's own forwarding (capture-proxy.ts, plain requests and WebSocket
// handshakes alike): before forwarding, is the client's connection one of wrtui's own upstream
// connections coming back? That happens when wrtui is asked, directly or through a chain of
// proxies, to forward to its own listening port; forwarding would then loop until sockets run out.
// CaptureProxy answers such a request 508 Loop Detected.
//
// The upstream side is UpstreamTransport's `sockets`, an UpstreamSockets of its connected sockets
// (added on connect, deleted on close). A loop is the incoming socket being the other end of one of them, and
// that takes BOTH ends to mirror: the incoming socket's remote end is the upstream socket's local end
// AND its local end is the upstream socket's remote end. Comparing one end only is not enough: Linux
// lets two auto-bound connections share a local port as long as their peers differ, so on loopback a
// client's ephemeral port can equal the local port of an upstream socket to some origin, and a
// one-end check would call that healthy request a loop.
//
// Cost: the check runs for every request, and there is a socket per idle keep-alive upstream
// connection (a thousand is ordinary). So it never walks them: sockets are kept by local
// address:port, and a check is one map lookup.
//
// (mockttp's passthrough step had a check of its own that walked every upstream socket per request
// and compared one end only; wrtui no longer uses that step, so nothing here touches mockttp.)
import type { Socket } from 'node:net';

/** "address port", with IPv4-mapped IPv6 addresses (a dual-stack listener's view) unmapped. */
function endpoint(address: string | undefined, port: number | undefined): string | undefined {
  if (!address || !port) return undefined;
  return `${address.startsWith('::ffff:') ? address.slice(7) : address} ${port}`;
}

/** The connected upstream sockets, by local "address port" (usually one per key; rarely two). */
export class UpstreamSockets {
  // Each socket's remote end, read when it is added: after a socket closes Node may no longer be
  // able to tell its addresses, and deleting it must still work.
  readonly #byLocal = new Map<string, Map<Socket, string | undefined>>();
  readonly #localOf = new Map<Socket, string>();

  constructor(sockets: Iterable<Socket> = []) {
    for (const socket of sockets) this.add(socket);
  }

  get size(): number {
    return this.#localOf.size;
  }

  has(socket: Socket): boolean {
    return this.#localOf.has(socket);
  }

  /** A connected socket (one without a local end yet is not kept: it cannot be looped to). */
  add(socket: Socket): this {
    const local = endpoint(socket.localAddress, socket.localPort);
    if (local === undefined || this.#localOf.has(socket)) return this;
    this.#localOf.set(socket, local);
    let bucket = this.#byLocal.get(local);
    if (!bucket) this.#byLocal.set(local, (bucket = new Map()));
    bucket.set(socket, endpoint(socket.remoteAddress, socket.remotePort));
    return this;
  }

  delete(socket: Socket): boolean {
    const local = this.#localOf.get(socket);
    if (local === undefined) return false;
    this.#localOf.delete(socket);
    const bucket = this.#byLocal.get(local)!;
    bucket.delete(socket);
    if (bucket.size === 0) this.#byLocal.delete(local);
    return true;
  }

  clear(): void {
    this.#byLocal.clear();
    this.#localOf.clear();
  }

  [Symbol.iterator](): IterableIterator<Socket> {
    return this.#localOf.keys();
  }

  /**
   * Is `incoming` the other end of one of these sockets? O(1): one map lookup by the incoming
   * socket's remote end, then a comparison of the other end. When either side cannot tell the other
   * end (an unusual socket wrapper), a match of the first end is taken as a loop, so a loop is never
   * missed for want of information.
   */
  leadBack(incoming: Socket): boolean {
    if (this.#byLocal.size === 0) return false;
    const peer = endpoint(incoming.remoteAddress, incoming.remotePort);
    if (peer === undefined) return false;
    const candidates = this.#byLocal.get(peer);
    if (!candidates) return false;
    const self = endpoint(incoming.localAddress, incoming.localPort);
    for (const remote of candidates.values()) {
      if (self === undefined || remote === undefined || remote === self) return true;
    }
    return false;
  }
}
