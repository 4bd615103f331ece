// CONNECT tunnels and the TLS handshakes inside them: a tunnel is checked before it is granted
// (tunnel-check.ts), an IP target gets a certificate naming it, and a target that cannot be reached
// or a client's failed handshake leaves a failed request in the journal.
import type * as mockttp from 'mockttp';
import { isIP, type Socket } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { headersFromRaw } from '../headers.js';
import type { Journal } from '../journal.js';
import type { NetError } from '../types.js';
import type { RequestLifecycle } from '../web-request/lifecycle.js';
import { TransportError } from '../web-request/transport.js';
import { rawResponse } from './client-response.js';
import { issueCertificate } from './ip-certificate.js';
import { setDefaultCertificate } from './mockttp-hooks.js';
import { netErrorOf } from './net-error.js';
import { authorityText, parseAuthority, type Authority, type TunnelCheck } from './tunnel-check.js';

export interface ConnectTunnelsOptions {
  lifecycle: RequestLifecycle;
  journal: Journal;
  storeId: string;
  /** The server whose default certificate IP targets are added to. */
  server: mockttp.Mockttp;
  ca: { cert: string; key: string };
  tunnels: TunnelCheck;
}

export class ConnectTunnels {
  readonly #options: ConnectTunnelsOptions;
  readonly #journal: Journal;
  /** The target of each open tunnel, by its client's address and port. */
  readonly #tunnelTargets = new Map<string, Authority>();
  /** Tunnels to a target that could not be reached, by client address, until a request comes through one. */
  readonly #unreachableTunnels = new Map<string, () => void>();
  /** IP targets the certificate for clients without SNI names (beside localhost and loopback), as they came. */
  #coveredAddresses = new Set<string>();
  #certificateIssued: Promise<void> = Promise.resolve();

  constructor(options: ConnectTunnelsOptions) {
    this.#options = options;
    this.#journal = options.journal;
  }

  /** A request came from `client` (address:port): a tunnel it came through was reachable after all. */
  requestCameThrough(client: string): void {
    if (this.#unreachableTunnels.size > 0) this.#unreachableTunnels.delete(client);
  }

  /** A tunnel is checked before it is granted (tunnel-check.ts); an IP target gets a certificate naming it. */
  async handleConnect(request: IncomingMessage, socket: Socket, proceed: () => void): Promise<void> {
    socket.on('error', () => socket.destroy());
    const authority = parseAuthority(request.url);
    if (!authority) {
      this.#journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `CONNECT to ${JSON.stringify(request.url ?? '')}, which is not a host:port: answered 400` });
      socket.end(rawResponse(400, 'Bad Request', `wrtui: cannot open a tunnel to ${JSON.stringify(request.url ?? '')}: a CONNECT names host:port`));
      return;
    }
    try {
      await this.#options.tunnels.reach(authority);
    } catch (error) {
      // Chromium (without a proxy) shows the request itself (BR, BSH, SH) ending with the connection
      // error. So the tunnel is granted: the request inside it is learnt and fails at once with this
      // error (UpstreamTransport's knownFailure). A client that sends none (a TLS client that does
      // not trust wrtui, a non-HTTP tunnel) leaves the origin's failure in the journal when it closes.
      const client = `${socket.remoteAddress}:${socket.remotePort}`;
      this.#unreachableTunnels.set(client, () => void this.#tunnelFailed(request, authority, error));
      socket.once('close', () => {
        this.#unreachableTunnels.get(client)?.();
        this.#unreachableTunnels.delete(client);
      });
    }
    if (isIP(authority.host) !== 0) {
      try {
        await this.#coverAddress(authority.host);
      } catch (error) {
        this.#journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `no certificate for ${authority.host}: ${(error as Error).message}; the client will see mockttp's default one` });
      }
    }
    if (socket.destroyed) return;
    // What a TLS failure inside the tunnel was for (mockttp's event names only the client's address).
    const client = `${socket.remoteAddress}:${socket.remotePort}`;
    this.#tunnelTargets.set(client, authority);
    socket.once('close', () => this.#tunnelTargets.delete(client));
    proceed();
  }

  /** No request came through a tunnel to a target that cannot be reached: the journal names the origin and why. */
  async #tunnelFailed(request: IncomingMessage, authority: Authority, error: unknown): Promise<void> {
    const netError = error instanceof TransportError ? error.netError : netErrorOf(error);
    const target = authorityText(authority);
    // What the client meant to fetch is inside the tunnel, never sent: the journal names the origin.
    const url = authority.port === 80 ? `http://${target}/` : `https://${authority.port === 443 ? target.replace(/:443$/, '') : target}/`;
    try {
      const flight = this.#options.lifecycle.start({ url, method: 'GET', requestHeaders: headersFromRaw(request.rawHeaders), type: 'other', storeId: this.#options.storeId });
      await flight.beforeRequest();
      flight.fail(netError);
    } catch (failure) {
      this.#journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `CONNECT ${target}: ${netError} (${(failure as Error).message})` });
    }
  }

  /**
   * A client's TLS handshake with wrtui failed (it refused wrtui's certificate, offered nothing
   * wrtui speaks, sent garbage, stalled): a row with the reason, as the request the client meant
   * failed. A client that merely closed an unused connection (browsers open spare ones) is not news.
   */
  async tlsFailed(failure: mockttp.TlsHandshakeFailure): Promise<void> {
    const netError = TLS_FAILURES[failure.failureCause];
    const tunnel = this.#tunnelTargets.get(`${failure.remoteIpAddress}:${failure.remotePort}`);
    const host = failure.tlsMetadata?.sniHostname ?? tunnel?.host ?? failure.destination?.hostname;
    if (netError === undefined || host === undefined) {
      this.#journal.append({ kind: 'log', level: 'debug', source: 'capture', message: `TLS handshake with a client ended: ${failure.failureCause}${host ? ` (${host})` : ''}` });
      return;
    }
    const port = tunnel?.port ?? failure.destination?.port;
    const target = port === undefined || port === 443 ? authorityText({ host, port: 443 }).replace(/:443$/, '') : authorityText({ host, port });
    if (failure.failureCause === 'cert-rejected') {
      this.#journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `a client refused wrtui's certificate for ${target}: it does not trust wrtui's CA yet (wrtui ca says how)` });
    }
    try {
      const flight = this.#options.lifecycle.start({ url: `https://${target}/`, method: 'GET', requestHeaders: [], type: 'other', storeId: this.#options.storeId });
      await flight.beforeRequest();
      flight.fail(netError);
    } catch (error) {
      this.#journal.append({ kind: 'log', level: 'warn', source: 'capture', message: `TLS handshake with a client for ${target} failed (${failure.failureCause}): ${(error as Error).message}` });
    }
  }

  /** Makes the certificate for clients that send no server name (IP targets) name `address` too. */
  #coverAddress(address: string): Promise<void> {
    if (this.#coveredAddresses.has(address)) return this.#certificateIssued;
    if (this.#coveredAddresses.size >= 256) this.#coveredAddresses = new Set();
    this.#coveredAddresses.add(address);
    const names = ['localhost', '127.0.0.1', '::1', ...this.#coveredAddresses].filter((name, index, all) => all.indexOf(name) === index);
    this.#certificateIssued = this.#certificateIssued
      .catch(() => {})
      .then(async () => setDefaultCertificate(this.#options.server, { ...(await issueCertificate(this.#options.ca, names)), chain: this.#options.ca.cert }));
    return this.#certificateIssued;
  }
}

/** A client's failed TLS handshake, as the net::ERR_* its request ended with (undefined: not worth a row). */
const TLS_FAILURES: Readonly<Record<mockttp.TlsHandshakeFailure['failureCause'], NetError | undefined>> = {
  'cert-rejected': 'net::ERR_CERT_AUTHORITY_INVALID',
  'no-shared-cipher': 'net::ERR_SSL_VERSION_OR_CIPHER_MISMATCH',
  'handshake-timeout': 'net::ERR_TIMED_OUT',
  unknown: 'net::ERR_SSL_PROTOCOL_ERROR',
  closed: undefined,
  reset: undefined,
};
