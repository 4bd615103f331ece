// Proxy-loop detection for wrtui's own forwarding (capture-proxy.ts, plain requests and WebSocket
// handshakes alike): before forwarding, is the client's connection one of wrtui's own upstream
// connections coming back? That happens when wrtui is asked, directly or through a chain of
// proxies, to forward to its own listening port; forwarding would then loop until sockets run out.
// CaptureProxy answers such a request 508 Loop Detected.
//
// The upstream side is UpstreamTransport's `sockets`, a plain Set of its connected sockets (added on
// connect, deleted on close). A loop is the incoming socket being the other end of one of them, and
// that takes BOTH ends to mirror: the incoming socket's remote end is the upstream socket's local end
// AND its local end is the upstream socket's remote end. Comparing one end only is not enough: Linux
// lets two auto-bound connections share a local port as long as their peers differ, so on loopback a
// client's ephemeral port can equal the local port of an upstream socket to some origin, and a
// one-end check would call that healthy request a loop.
//
// Cost: the check runs for every request, and the Set holds a socket per idle keep-alive upstream
// connection (a thousand is ordinary). So it never walks the Set: the Set gets an index by local
// address:port, kept in step by shadowing that one Set instance's add/delete/clear (own properties;
// Set.prototype is untouched), and a check is one map lookup.
//
// (mockttp's passthrough step had a check of its own that walked every upstream socket per request
// and compared one end only; wrtui no longer uses that step, so nothing here touches mockttp.)
import type { Socket } from 'node:net';

// What we know of an upstream socket, read once when it is indexed: after a socket closes Node
// may no longer be able to tell its addresses, and deleting it from the index must still work.
interface Ends {
  local: string;
  remote: string | undefined;
}

/** Upstream sockets by local "address port" (usually one socket per key; rarely two). */
type SocketIndex = Map<string, Set<Socket>>;

const ends = new WeakMap<Socket, Ends>();
const indexes = new WeakMap<Set<Socket>, SocketIndex>();

/** "address port", with IPv4-mapped IPv6 addresses (a dual-stack listener's view) unmapped. */
function endpoint(address: string | undefined, port: number | undefined): string | undefined {
  if (!address || !port) return undefined;
  return `${address.startsWith('::ffff:') ? address.slice(7) : address} ${port}`;
}

function indexSocket(set: Set<Socket>, index: SocketIndex, socket: Socket): void {
  const local = endpoint(socket.localAddress, socket.localPort);
  if (local === undefined) {
    // Not connected yet (UpstreamTransport adds on 'connect', but be safe) or already closed.
    if (socket.connecting) {
      socket.once('connect', () => {
        if (set.has(socket)) indexSocket(set, index, socket);
      });
    }
    return;
  }
  ends.set(socket, { local, remote: endpoint(socket.remoteAddress, socket.remotePort) });
  let bucket = index.get(local);
  if (!bucket) index.set(local, (bucket = new Set()));
  bucket.add(socket);
}

function unindexSocket(index: SocketIndex, socket: Socket): void {
  const known = ends.get(socket);
  if (!known) return;
  const bucket = index.get(known.local);
  if (!bucket) return;
  bucket.delete(socket);
  if (bucket.size === 0) index.delete(known.local);
}

/** The index of one Set of upstream sockets: built on first sight, then kept in step with the Set. */
function indexFor(set: Set<Socket>): SocketIndex {
  let index = indexes.get(set);
  if (index) return index;
  const built: SocketIndex = new Map();
  for (const socket of set) indexSocket(set, built, socket);
  const { add, delete: remove, clear } = Set.prototype;
  Object.defineProperties(set, {
    add: {
      configurable: true,
      writable: true,
      value(socket: Socket) {
        if (!set.has(socket)) {
          add.call(set, socket);
          indexSocket(set, built, socket);
        }
        return set;
      },
    },
    delete: {
      configurable: true,
      writable: true,
      value(socket: Socket) {
        unindexSocket(built, socket);
        return remove.call(set, socket);
      },
    },
    clear: {
      configurable: true,
      writable: true,
      value() {
        built.clear();
        clear.call(set);
      },
    },
  });
  indexes.set(set, built);
  return built;
}

/**
 * Is `incomingSocket` the other end of one of `outgoingSockets`? O(1): one map lookup by the
 * incoming socket's remote end, then a comparison of the other end. When either side cannot tell
 * the other end (an unusual socket wrapper), a match of the first end is taken as a loop, so a loop
 * is never missed for want of information.
 */
export function isSocketLoopBothEnds(outgoingSockets: Set<Socket>, incomingSocket: Socket): boolean {
  const index = indexFor(outgoingSockets);
  if (index.size === 0) return false;
  const peer = endpoint(incomingSocket.remoteAddress, incomingSocket.remotePort);
  if (peer === undefined) return false;
  const candidates = index.get(peer);
  if (!candidates) return false;
  const self = endpoint(incomingSocket.localAddress, incomingSocket.localPort);
  for (const socket of candidates) {
    const remote = ends.get(socket)?.remote;
    if (self === undefined || remote === undefined || remote === self) return true;
  }
  return false;
}
