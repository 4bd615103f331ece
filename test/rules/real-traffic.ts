// Real traffic for the example-rule tests: an origin server on 127.0.0.1, wrtui's CaptureProxy in
// front of it, and an undici client that goes through the proxy.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProxyAgent, interceptors, request, type Dispatcher } from 'undici';
import { CaptureProxy } from '../../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import type { Engine } from '../../src/engine/engine.js';

// The origin is the one every proxy test uses.
export { startOrigin, type Origin, type OriginHandler } from '../helpers/origin.js';

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
