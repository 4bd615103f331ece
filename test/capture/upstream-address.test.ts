// UpstreamAddressTracker against a real mockttp passthrough to local origins (http, https, IPv6).
import { AsyncLocalStorage } from 'node:async_hooks';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import * as mockttp from 'mockttp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamAddressTracker } from '../../src/engine/capture/upstream-address.js';

const ipv6 = Object.values(os.networkInterfaces()).some((addresses) => addresses?.some((a) => a.address === '::1'));

let ca: { key: string; cert: string };
const servers: net.Server[] = [];
const proxies: mockttp.Mockttp[] = [];
const trackers: UpstreamAddressTracker[] = [];

beforeAll(async () => {
  ca = await mockttp.generateCACertificate();
});

afterEach(async () => {
  trackers.splice(0).forEach((tracker) => tracker.dispose());
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
});

afterAll(async () => {
  for (const server of servers) (server as http.Server).closeAllConnections?.();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** An origin that counts its TCP connections, so a test can tell a reused socket from a new one. */
async function origin(kind: 'http' | 'https', host: string) {
  const handler = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end('hello');
  // The CA certificate doubles as a self-signed server certificate; mockttp is told to ignore errors.
  const server = kind === 'http' ? http.createServer(handler) : https.createServer({ key: ca.key, cert: ca.cert }, handler);
  server.keepAliveTimeout = 30_000;
  const stats = { connections: 0 };
  server.on(kind === 'http' ? 'connection' : 'secureConnection', () => stats.connections++);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `${kind}://${host.includes(':') ? `[${host}]` : host}:${port}/`, stats };
}

/** A passthrough proxy whose beforeRequest enters the request id, as the app does. */
async function trackedProxy(tracker: UpstreamAddressTracker, ids: string[]) {
  const proxy = mockttp.getLocal({ recordTraffic: false, https: ca });
  proxies.push(proxy);
  await proxy.start();
  await proxy.forAnyRequest().always().thenPassThrough({
    ignoreHostHttpsErrors: true,
    beforeRequest: (req) =>
      tracker.run(req.id, () => {
        ids.push(req.id);
        return undefined;
      }),
  });
  return proxy;
}

function newTracker(options?: ConstructorParameters<typeof UpstreamAddressTracker>[0]) {
  const tracker = new UpstreamAddressTracker(options);
  trackers.push(tracker);
  return tracker;
}

/**
 * A keep-alive agent whose connections are CONNECT tunnels through the proxy (undici's ProxyAgent
 * opened a new tunnel per request here, which would defeat the reuse the tests want to see).
 */
function tunnellingAgent(proxyPort: number): http.Agent {
  const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
  type Connect = (options: { host?: string; port?: number | string }, done: (error: Error | null, socket?: net.Socket) => void) => undefined;
  (agent as unknown as { createConnection: Connect }).createConnection = (options, done) => {
    const connect = http.request({ host: '127.0.0.1', port: proxyPort, method: 'CONNECT', path: `${options.host}:${options.port}` });
    connect.on('connect', (_res, socket) => done(null, tls.connect({ socket, rejectUnauthorized: false })));
    connect.on('error', done);
    connect.end();
    return undefined;
  };
  return agent;
}

/**
 * Two requests through the proxy on one keep-alive client connection, so that mockttp (which keeps
 * an upstream agent per client connection) reuses its upstream socket for the second. Plain http
 * goes in proxy form (absolute URL), https through a CONNECT tunnel.
 */
async function twoRequests(proxyPort: number, url: string): Promise<void> {
  const secure = url.startsWith('https:');
  const agent = secure ? tunnellingAgent(proxyPort) : new http.Agent({ keepAlive: true });
  const target = new URL(url);
  try {
    for (let i = 0; i < 2; i++) {
      const body = await new Promise<string>((resolve, reject) => {
        const options = secure
          ? { host: target.hostname, port: target.port, path: '/', agent }
          : { host: '127.0.0.1', port: proxyPort, path: url, agent };
        const req = (secure ? https : http).get(options, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        });
        req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
        req.on('error', reject);
      });
      expect(body).toBe('hello');
    }
  } finally {
    agent.destroy();
  }
}

describe('UpstreamAddressTracker with mockttp passthrough', () => {
  const cases = [
    { name: 'http origin on 127.0.0.1', kind: 'http', host: '127.0.0.1', skip: false },
    { name: 'https origin on 127.0.0.1', kind: 'https', host: '127.0.0.1', skip: false },
    { name: 'http origin on [::1]', kind: 'http', host: '::1', skip: !ipv6 },
  ] as const;

  for (const c of cases) {
    it.skipIf(c.skip)(`${c.name}: the address of a new and of a reused upstream socket`, async () => {
      const tracker = newTracker();
      const ids: string[] = [];
      const proxy = await trackedProxy(tracker, ids);
      const target = await origin(c.kind, c.host);
      await twoRequests(proxy.port, target.url);
      expect(ids).toHaveLength(2);
      expect(target.stats.connections).toBe(1); // the second request reused the upstream socket
      expect(ids.map((id) => tracker.addressOf(id))).toEqual([c.host, c.host]);
    });
  }

  it('why run() uses enterWith: a scoped AsyncLocalStorage.run in beforeRequest does not reach the upstream request', async () => {
    const storage = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const subscriber = (message: unknown) => {
      // Only mockttp's upstream requests (the test's own client requests go to the proxy's port).
      if ((message as { request: http.ClientRequest }).request.path === '/') seen.push(storage.getStore());
    };
    const target = await origin('http', '127.0.0.1');
    const proxy = mockttp.getLocal({ recordTraffic: false });
    proxies.push(proxy);
    await proxy.start();
    await proxy.forAnyRequest().always().thenPassThrough({
      beforeRequest: (req) => storage.run(req.id, () => undefined),
    });
    const { subscribe, unsubscribe } = await import('node:diagnostics_channel');
    subscribe('http.client.request.start', subscriber);
    try {
      await twoRequests(proxy.port, target.url);
    } finally {
      unsubscribe('http.client.request.start', subscriber);
    }
    expect(seen).toEqual([undefined, undefined]);
  });
});

describe('UpstreamAddressTracker bookkeeping', () => {
  async function getInContext(tracker: UpstreamAddressTracker, key: string, url: string) {
    // setImmediate gives each key its own async context, so enterWith does not leak between them.
    await new Promise<void>((resolve, reject) =>
      setImmediate(() =>
        tracker.run(key, () =>
          http.get(url, { agent: false }, (res) => res.resume().on('end', resolve)).on('error', reject),
        ),
      ),
    );
  }

  it('ignores requests made outside run(), forgets on request, and bounds what it keeps', async () => {
    const tracker = newTracker({ maxEntries: 2 });
    const target = await origin('http', '127.0.0.1');
    await new Promise<void>((resolve) => http.get(target.url, { agent: false }, (res) => res.resume().on('end', resolve)));
    for (const key of ['a', 'b', 'c']) await getInContext(tracker, key, target.url);
    expect([tracker.addressOf('a'), tracker.addressOf('b'), tracker.addressOf('c')]).toEqual([undefined, '127.0.0.1', '127.0.0.1']);
    tracker.forget('b');
    expect(tracker.addressOf('b')).toBeUndefined();
    tracker.dispose();
    await getInContext(tracker, 'd', target.url);
    expect(tracker.addressOf('d')).toBeUndefined();
  });
});
