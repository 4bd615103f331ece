// Real traffic for the example-rule tests: an origin server on 127.0.0.1, wrtui's CaptureProxy in
// front of it, and an undici client that goes through the proxy.
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProxyAgent, interceptors, request, type Dispatcher } from 'undici';
import { CaptureProxy } from '../../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import type { Engine } from '../../src/engine/engine.js';

/** What the origin received. */
export interface OriginRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface Origin {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  received: OriginRequest[];
  close(): Promise<void>;
}

export type OriginHandler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

export async function startOrigin(handler: OriginHandler = (_request, response) => response.end('origin says hi')): Promise<Origin> {
  const received: OriginRequest[] = [];
  const server = http.createServer((incoming, response) => {
    received.push({ method: incoming.method ?? 'GET', url: incoming.url ?? '/', headers: incoming.headers });
    handler(incoming, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface Proxy {
  url: string;
  /** A request through the proxy; redirects are followed when `follow` is set. */
  fetch(url: string, options?: { headers?: Record<string, string>; follow?: boolean }): Promise<ClientResponse>;
  close(): Promise<void>;
}

export interface ClientResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** wrtui's proxy over `engine`, with a CA made in a temporary folder. */
export async function startProxy(engine: Engine): Promise<Proxy> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'wrtui-rules-ca-'));
  const ca = await loadOrCreateCertificateAuthority(stateDir);
  const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0 });
  await proxy.start();
  // Plain http through the proxy, no CONNECT tunnel (FACTS.md).
  const agent = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
  const following: Dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 5 }));
  return {
    url: proxy.url,
    async fetch(url, options = {}) {
      const response = await request(url, {
        dispatcher: options.follow ? following : agent,
        headers: options.headers ?? {},
        signal: AbortSignal.timeout(5000),
      });
      return { statusCode: response.statusCode, headers: response.headers, body: await response.body.text() };
    },
    async close() {
      await agent.close();
      await proxy.stop();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}
