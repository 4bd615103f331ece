// A Transport over node:http(s) for the requests wrtui sends upstream itself: auth retries (mockttp
// has none) and cache revalidation. TLS is verified as Node does (default roots plus
// NODE_EXTRA_CA_CERTS) unless the host is one the user named as insecure.
import http from 'node:http';
import https from 'node:https';
import { headersFromRaw, headersToRaw } from '../headers.js';
import type { OutgoingRequest, Transport, TransportResponse } from '../web-request/transport.js';
import { TransportError } from '../web-request/transport.js';
import { netErrorOf } from './net-error.js';

export interface UpstreamTransportOptions {
  /** Hosts whose certificates are not verified (--insecure-upstream). */
  insecureHosts?: readonly string[];
  timeoutMs?: number;
}

export class UpstreamTransport implements Transport {
  readonly #insecure: ReadonlySet<string>;
  readonly #timeoutMs: number;

  constructor(options: UpstreamTransportOptions = {}) {
    this.#insecure = new Set(options.insecureHosts ?? []);
    this.#timeoutMs = options.timeoutMs ?? 60_000;
  }

  send(request: OutgoingRequest, signal?: AbortSignal): Promise<TransportResponse> {
    const url = new URL(request.url);
    const secure = url.protocol === 'https:' || url.protocol === 'wss:';
    const client = secure ? https : http;
    return new Promise<TransportResponse>((resolve, reject) => {
      const outgoing = client.request(
        {
          method: request.method,
          hostname: url.hostname.replace(/^\[|\]$/g, ''),
          port: url.port || (secure ? 443 : 80),
          path: url.pathname + url.search,
          // Flat raw headers keep order, case and duplicates, exactly as the listeners left them.
          headers: headersToRaw(request.headers) as unknown as http.OutgoingHttpHeaders,
          setHost: !request.headers.some((h) => h.name.toLowerCase() === 'host'),
          ...(secure && { servername: url.hostname, rejectUnauthorized: !this.#insecure.has(url.hostname) }),
          ...(signal && { signal }),
          timeout: this.#timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => reject(new TransportError(netErrorOf(error), error.message)));
          response.on('end', () =>
            resolve({
              statusCode: response.statusCode ?? 0,
              statusMessage: response.statusMessage ?? '',
              httpVersion: response.httpVersion,
              headers: headersFromRaw(response.rawHeaders),
              ...(response.socket?.remoteAddress && { ip: response.socket.remoteAddress }),
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('upstream timed out'), { code: 'ETIMEDOUT' })));
      outgoing.on('error', (error) => reject(new TransportError(netErrorOf(error), error.message)));
      outgoing.end(request.body);
    });
  }
}
