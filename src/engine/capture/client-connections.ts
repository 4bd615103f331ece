// The client connections wrtui holds: counted (for the descriptor watch), and one that sends
// nothing at all is closed after FIRST_BYTE_TIMEOUT_MS, as nginx's client_header_timeout (60 s)
// closes it. Once a client has sent bytes, Node's HTTP server times it out: 60 s to finish a
// request head (headersTimeout), 5 s idle between requests on a kept-alive connection
// (keepAliveTimeout), and a request in flight is never cut for being slow.
import type { Server, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

export const FIRST_BYTE_TIMEOUT_MS = 60_000;

export class ClientConnections {
  #open = 0;
  /** Connections closed for saying nothing. */
  closedSilent = 0;
  readonly #seen = new WeakSet<Socket>();
  readonly #firstByteMs: number;

  constructor(firstByteMs = FIRST_BYTE_TIMEOUT_MS) {
    this.#firstByteMs = firstByteMs;
  }

  get open(): number {
    return this.#open;
  }

  /**
   * Watches every connection `server` accepts. mockttp's server hands the same socket on to its
   * HTTP servers (and a CONNECT's to itself again), and a TLS connection's inner socket shares the
   * outer one's descriptor: each descriptor is counted once.
   */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      if (socket instanceof TLSSocket || this.#seen.has(socket)) return;
      this.#seen.add(socket);
      this.#open++;
      const timer = setTimeout(() => {
        if (socket.bytesRead > 0 || socket.destroyed) return;
        this.closedSilent++;
        socket.destroy();
      }, this.#firstByteMs).unref();
      socket.once('close', () => {
        clearTimeout(timer);
        this.#open--;
      });
    });
  }
}
