// Bounds on the kept-alive upstream connections no request is using. Node's agents keep every
// idle socket until its server closes it: one client visiting 1,500 hosts left ~1,000 open, and
// then every request failed for want of descriptors. So idle ones are closed after 30 s idle
// (sooner when the server's Keep-Alive says so), and at most MAX_IDLE_SOCKETS are idle in all, the
// longest idle closed first. Connections in use are never limited here: a request is never queued.
// No bound per host below that: wrtui serves many clients at once (a browser uses at most 6
// connections a host, a proxy in front of 32 clients uses 32), and an idle bound under the number
// in use closed a connection after almost every answer; 32 clients to one host then opened a new
// upstream connection every ~2 requests (bench/rule-cost.ts).
import type { Agent } from 'node:http';
import type { Socket } from 'node:net';

export const MAX_IDLE_SOCKETS = 256;
export const POOL_OPTIONS = { keepAlive: true, scheduling: 'lifo', maxFreeSockets: MAX_IDLE_SOCKETS, timeout: 30_000 } as const;

export class IdleSockets {
  /** Idle sockets, the longest idle first (a Set keeps insertion order). */
  readonly #idle = new Set<Socket>();
  /** Sockets whose 'close' is watched already (one listener a socket, however often it is reused). */
  readonly #watched = new WeakSet<Socket>();
  readonly #max: number;

  constructor(max: number, agents: readonly Agent[]) {
    this.#max = max;
    for (const agent of agents) this.#track(agent);
  }

  get size(): number {
    return this.#idle.size;
  }

  #track(agent: Agent): void {
    // Node's own 'free' listener runs first: it has kept the socket in freeSockets, or destroyed it.
    agent.on('free', (socket: Socket) => {
      if (socket.destroyed) return;
      if (!this.#watched.has(socket)) {
        this.#watched.add(socket);
        socket.once('close', () => this.#idle.delete(socket));
      }
      this.#idle.delete(socket);
      this.#idle.add(socket);
      for (const oldest of this.#idle) {
        if (this.#idle.size <= this.#max) break;
        this.#idle.delete(oldest);
        oldest.destroy();
      }
    });
    // A reused socket is busy again.
    const own = agent as unknown as { reuseSocket: (socket: Socket, request: unknown) => void };
    const reuse = own.reuseSocket.bind(agent);
    own.reuseSocket = (socket, request) => {
      this.#idle.delete(socket);
      reuse(socket, request);
    };
  }
}
