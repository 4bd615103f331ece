// A replacement for mockttp's passthrough loop check. Tied to mockttp 4.6.x: read this before
// upgrading mockttp.
//
// Why it exists. Before forwarding a request, mockttp 4.6 asks whether the incoming socket is the
// other end of one of the rule's own upstream sockets (`isSocketLoop(this.outgoingSockets,
// clientSocket)` in dist/rules/requests/request-step-impls.js, defined in dist/util/socket-util.js).
// That check has two faults:
//  - Cost: every request copies the rule's Set of upstream sockets into an array and walks it
//    (lodash `some`, address getters and `normalizeIP` per socket). mockttp keeps a keep-alive
//    upstream agent per downstream connection, so 1,000 idle browser connections mean 1,000
//    sockets walked per request: O(open connections) on the proxy's only thread.
//  - False loops: it compares one end only (outgoing local address:port === incoming remote
//    address:port). Linux lets two auto-bound connections share a local port as long as their
//    peers differ, so on loopback a client's ephemeral port can equal the local port of an upstream
//    socket to some origin; mockttp then answers a healthy request "Passthrough loop detected".
// The fix: an index per upstream-socket Set, keyed by each socket's local address:port and kept in
// step with the Set's add/delete/clear, and a loop only when BOTH ends mirror (the incoming
// socket's remote end is an upstream socket's local end AND its local end is that socket's remote
// end): the two sockets are then the two ends of one TCP connection. A real loop (the proxy asked
// to forward to its own listening port) still matches on both ends.
//
// How it is installed. mockttp's call sites read the function through the CommonJS module object at
// call time (`(0, socket_util_1.isSocketLoop)(...)`), so replacing that export is enough and touches
// nothing else. The patch refuses to apply to another mockttp major.minor (the file layout, the
// export or its call sites may have moved) and says so in its result instead of failing silently.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';

const SUPPORTED_MOCKTTP = '4.6';
const SOCKET_UTIL = 'mockttp/dist/util/socket-util';

type LoopCheck = (outgoingSockets: Set<Socket>, incomingSocket: Socket) => boolean;
interface SocketUtilModule {
  isSocketLoop: LoopCheck;
}

export type LoopGuardStatus = { installed: true } | { installed: false; warning: string };

const require = createRequire(import.meta.url);

// What we know of an upstream socket, read once when it is indexed: after a socket closes Node
// may no longer be able to tell its addresses, and deleting from the index must still work.
interface Ends {
  local: string;
  remote: string | undefined;
}

/** One Set's upstream sockets, by local address:port (usually one socket per key, rarely two). */
interface SocketIndex {
  byLocal: Map<string, Set<Socket>>;
}

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
    // Not connected yet (mockttp adds on 'connect', but be safe) or already closed (irrelevant).
    if (socket.connecting) {
      socket.once('connect', () => {
        if (set.has(socket)) indexSocket(set, index, socket);
      });
    }
    return;
  }
  ends.set(socket, { local, remote: endpoint(socket.remoteAddress, socket.remotePort) });
  let bucket = index.byLocal.get(local);
  if (!bucket) index.byLocal.set(local, (bucket = new Set()));
  bucket.add(socket);
}

function unindexSocket(index: SocketIndex, socket: Socket): void {
  const known = ends.get(socket);
  if (!known) return;
  const bucket = index.byLocal.get(known.local);
  if (!bucket) return;
  bucket.delete(socket);
  if (bucket.size === 0) index.byLocal.delete(known.local);
}

/**
 * The index for one of mockttp's upstream-socket Sets, built on first sight and then maintained by
 * shadowing that Set instance's add/delete/clear (own properties; Set.prototype is untouched).
 */
function indexFor(set: Set<Socket>): SocketIndex {
  let index = indexes.get(set);
  if (index) return index;
  const built: SocketIndex = { byLocal: new Map() };
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
        built.byLocal.clear();
        clear.call(set);
      },
    },
  });
  indexes.set(set, built);
  return built;
}

/**
 * Is `incomingSocket` the other end of one of `outgoingSockets`? O(1): one map lookup by the
 * incoming socket's remote end, then a comparison of the other end. When the incoming socket cannot
 * tell its local end (an unusual wrapper), it falls back to mockttp's one-end comparison, so a
 * loop is never missed for want of information.
 */
export function isSocketLoopBothEnds(outgoingSockets: Set<Socket>, incomingSocket: Socket): boolean {
  const index = indexFor(outgoingSockets);
  if (index.byLocal.size === 0) return false;
  const peer = endpoint(incomingSocket.remoteAddress, incomingSocket.remotePort);
  if (peer === undefined) return false;
  const candidates = index.byLocal.get(peer);
  if (!candidates) return false;
  const self = endpoint(incomingSocket.localAddress, incomingSocket.localPort);
  for (const socket of candidates) {
    const remote = ends.get(socket)?.remote;
    if (self === undefined || remote === undefined || remote === self) return true;
  }
  return false;
}

/** The installed mockttp's version. Its package.json is not in its `exports`, so read the file. */
export function mockttpVersion(): string {
  let dir = dirname(require.resolve('mockttp'));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'mockttp' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('mockttp package.json not found');
    dir = parent;
  }
}

let mockttpCheck: LoopCheck | undefined; // mockttp's own check while ours is installed

function socketUtil(): SocketUtilModule {
  return require(SOCKET_UTIL) as SocketUtilModule;
}

/**
 * Replace mockttp's loop check with `isSocketLoopBothEnds`. Idempotent. On a mockttp other than
 * 4.6.x, or if the export is not where 4.6 has it, nothing is patched and a warning is returned
 * (mockttp's own check stays in force: correct, only slower and occasionally wrong on loopback).
 */
export function installLoopGuard(): LoopGuardStatus {
  if (mockttpCheck) return { installed: true };
  let version: string;
  let mod: SocketUtilModule;
  try {
    version = mockttpVersion();
    mod = socketUtil();
  } catch (error) {
    return { installed: false, warning: `loop guard not installed: cannot load mockttp internals (${String(error)})` };
  }
  if (version.split('.').slice(0, 2).join('.') !== SUPPORTED_MOCKTTP) {
    return {
      installed: false,
      warning:
        `loop guard not installed: written for mockttp ${SUPPORTED_MOCKTTP}.x, found ${version}. ` +
        `mockttp's own loop check is in use (O(open connections) per request, rare false "Passthrough loop detected" on loopback); ` +
        `re-check src/engine/capture/loop-guard.ts against the new version.`,
    };
  }
  const descriptor = Object.getOwnPropertyDescriptor(mod, 'isSocketLoop');
  if (typeof descriptor?.value !== 'function' || !descriptor.writable) {
    return { installed: false, warning: `loop guard not installed: ${SOCKET_UTIL}.isSocketLoop is not a writable function in mockttp ${version}` };
  }
  mockttpCheck = descriptor.value as LoopCheck;
  mod.isSocketLoop = isSocketLoopBothEnds;
  return { installed: true };
}

/** Put mockttp's own check back (for tests and the side-by-side bench). */
export function uninstallLoopGuard(): void {
  if (!mockttpCheck) return;
  socketUtil().isSocketLoop = mockttpCheck;
  mockttpCheck = undefined;
}

export function isLoopGuardInstalled(): boolean {
  return mockttpCheck !== undefined;
}
