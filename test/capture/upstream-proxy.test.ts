// --upstream-proxy: behind a corporate proxy wrtui forwards through it. Checked against real
// second proxies started here: mockttp as a forwarding HTTP proxy, and an authenticating proxy
// (node:http, CONNECT tunnels and absolute-form requests) that records what it was asked.
import http from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { generateCACertificate, getLocal, type Mockttp } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';
import { WebSocket, WebSocketServer } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/engine/journal.js';
import { NoProxy, parseUpstreamProxy, proxyIsItself, redactProxyUrl, type UpstreamProxy } from '../../src/engine/capture/upstream-proxy.js';
import { PROXY_PASSWORD, PROXY_USER, startAuthProxy, type AuthProxy } from '../helpers/auth-proxy.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const USER = PROXY_USER;
const PASSWORD = PROXY_PASSWORD;

/** The net::ERR_* an onErrorOccurred entry names. */
function errorOf(entry: JournalEntry): string | undefined {
  return entry.kind === 'webRequest' && 'error' in entry.details ? entry.details.error : undefined;
}

function proxyFrom(text: string, noProxy = ''): UpstreamProxy {
  const parsed = parseUpstreamProxy(text, noProxy);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
}

describe('--upstream-proxy: the value', () => {
  it('takes http and https proxies, with credentials, the port defaulting to the scheme\'s', () => {
    const plain = proxyFrom('proxy.corp:3128');
    expect([plain.protocol, plain.host, plain.port, plain.authorization, plain.display]).toEqual(['http:', 'proxy.corp', 3128, undefined, 'http://proxy.corp:3128']);
    const secure = proxyFrom('https://bob:p%40ss@proxy.corp');
    expect([secure.protocol, secure.port, secure.display]).toEqual(['https:', 443, 'https://***@proxy.corp']);
    expect(Buffer.from(secure.authorization!.slice('Basic '.length), 'base64').toString()).toBe('bob:p@ss');
  });

  it('refuses what is not an HTTP(S) proxy, in words that never repeat the password', () => {
    expect(parseUpstreamProxy('socks5://bob:hunter2@proxy:1080', '')).toBe('must be an http:// or https:// proxy (socks5 proxies are not supported)');
    expect(parseUpstreamProxy('http://bob:hunter2@proxy:3128/pac', '')).toMatch(/without a path/);
    expect(redactProxyUrl('http://bob:hunter2@proxy:3128')).toBe('http://***@proxy:3128');
    expect(redactProxyUrl('bob:hunter2@proxy:3128')).toBe('***@proxy:3128');
    expect(redactProxyUrl('http://proxy:3128')).toBe('http://proxy:3128');
  });

  it('knows a proxy that is wrtui itself: a local address at one of its own ports', () => {
    expect(proxyIsItself(proxyFrom('http://localhost:8080'), 'localhost', [8080, 8081])).toBe(true);
    expect(proxyIsItself(proxyFrom('http://127.0.0.1:8081'), 'localhost', [8080, 8081])).toBe(true);
    expect(proxyIsItself(proxyFrom('http://[::1]:8080'), 'localhost', [8080])).toBe(true);
    expect(proxyIsItself(proxyFrom('http://10.1.2.3:8080'), '10.1.2.3', [8080])).toBe(true);
    expect(proxyIsItself(proxyFrom('http://127.0.0.1:3128'), 'localhost', [8080, 8081])).toBe(false);
    expect(proxyIsItself(proxyFrom('http://proxy.corp:8080'), 'localhost', [8080])).toBe(false);
  });

  it('NO_PROXY: names cover their subdomains, addresses and ranges match, a port narrows, * is everything', () => {
    const bypass = new NoProxy('localhost, .internal.corp,example.com:8443 10.0.0.0/8 ::1,[fd00::1]:80');
    expect(bypass.bypasses('localhost', 80)).toBe(true);
    expect(bypass.bypasses('api.internal.corp', 443)).toBe(true);
    expect(bypass.bypasses('internal.corp', 443)).toBe(true);
    expect(bypass.bypasses('notinternal.corp', 443)).toBe(false);
    expect(bypass.bypasses('example.com', 8443)).toBe(true);
    expect(bypass.bypasses('example.com', 443)).toBe(false);
    expect(bypass.bypasses('10.20.30.40', 80)).toBe(true);
    expect(bypass.bypasses('11.0.0.1', 80)).toBe(false);
    expect(bypass.bypasses('::1', 80)).toBe(true);
    expect(bypass.bypasses('fd00::1', 80)).toBe(true);
    expect(bypass.bypasses('fd00::1', 81)).toBe(false);
    expect(new NoProxy('*').bypasses('anything.example', 1)).toBe(true);
    expect(new NoProxy('').bypasses('localhost', 80)).toBe(false);
  });
});

describe('--upstream-proxy: requests go through a real second proxy', () => {
  let origin: Origin;
  let secureOrigin: Origin;
  let harness: ProxyHarness | undefined;
  let mockttpProxy: Mockttp | undefined;
  let authProxy: AuthProxy | undefined;

  beforeAll(async () => {
    origin = await startOrigin((req, res) => res.end(`origin got ${req.url}`));
    const root = await generateCACertificate({ subject: { commonName: 'upstream proxy test origin root' } });
    const leaf = await (await getCA({ cert: root.cert, key: root.key })).generateCertificate('localhost');
    secureOrigin = await startOrigin((req, res) => res.end(`secure origin got ${req.url}`), { tls: { cert: leaf.cert, key: leaf.key, hostname: 'localhost' } });
  });
  afterAll(async () => {
    await origin?.close();
    await secureOrigin?.close();
  });
  afterEach(async () => {
    await harness?.close();
    await mockttpProxy?.stop();
    await authProxy?.close();
    harness = undefined;
    mockttpProxy = undefined;
    authProxy = undefined;
  });

  it('plain http is forwarded by mockttp as an upstream proxy: it sees the request, the client gets the origin\'s answer', async () => {
    mockttpProxy = getLocal();
    await mockttpProxy.start();
    const passThrough = await mockttpProxy.forAnyRequest().thenPassThrough();
    harness = await startProxyHarness({ proxy: { upstreamProxy: proxyFrom(`http://127.0.0.1:${mockttpProxy.port}`) } });
    expect(harness.proxy.upstreamProxy).toBe(`http://127.0.0.1:${mockttpProxy.port}`);
    const url = `${origin.url}/through/mockttp?x=1`;
    const response = await harness.fetch(url);
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('origin got /through/mockttp?x=1');
    const seen = await passThrough.getSeenRequests();
    expect(seen.map((request) => request.url)).toEqual([url]);
    await finished(harness, requestIdOf(harness, url));
  });

  it('https goes through a CONNECT tunnel with the credentials, TLS is with the origin, and the password is never journaled', async () => {
    authProxy = await startAuthProxy();
    harness = await startProxyHarness({
      proxy: { upstreamProxy: proxyFrom(`http://${USER}:${PASSWORD}@127.0.0.1:${authProxy.port}`), insecureUpstreamHosts: ['localhost'] },
    });
    const url = `${secureOrigin.url}/tunnelled`;
    const response = await harness.fetch(url);
    expect(await response.body.text()).toBe('secure origin got /tunnelled');
    expect(response.statusCode).toBe(200);
    expect(authProxy.asked.map((ask) => [ask.line, ask.authorized])).toContainEqual([`CONNECT localhost:${secureOrigin.port}`, true]);
    // Plain http through the same proxy: absolute form, the credentials on the proxy hop only.
    const plainUrl = `${origin.url}/plain`;
    const plain = await harness.fetch(plainUrl);
    expect(await plain.body.text()).toBe('origin got /plain');
    expect(authProxy.asked.map((ask) => [ask.line, ask.authorized])).toContainEqual([`GET ${plainUrl}`, true]);
    await finished(harness, requestIdOf(harness, plainUrl));
    expect(origin.received.find((received) => received.url === '/plain')?.headers['proxy-authorization']).toBeUndefined();
    const journal = JSON.stringify(harness.entries);
    expect(journal).not.toContain(PASSWORD);
    expect(journal).not.toContain(Buffer.from(`${USER}:${PASSWORD}`).toString('base64'));
    expect(harness.proxy.upstreamProxy).toBe(`http://***@127.0.0.1:${authProxy.port}`);
  });

  it('refused credentials end the request with net::ERR_PROXY_AUTH_REQUESTED, naming --upstream-proxy and not the password', async () => {
    authProxy = await startAuthProxy();
    harness = await startProxyHarness({ proxy: { upstreamProxy: proxyFrom(`http://${USER}:wrong-${PASSWORD}@127.0.0.1:${authProxy.port}`), insecureUpstreamHosts: ['localhost'] } });
    const url = `${secureOrigin.url}/refused`;
    await harness.fetch(url).then((response) => response.body.dump(), () => undefined);
    const failure = await harness.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onErrorOccurred' && entry.details.url === url, 10_000);
    expect(errorOf(failure)).toBe('net::ERR_PROXY_AUTH_REQUESTED');
    expect(authProxy.asked.every((ask) => !ask.authorized)).toBe(true);
    const journal = JSON.stringify(harness.entries);
    expect(journal).not.toContain(PASSWORD);
    // Plain http: the proxy's 407 fails the request the same way, the log saying what to do.
    const plainUrl = `${origin.url}/refused-plain`;
    await harness.fetch(plainUrl).then((response) => response.body.dump(), () => undefined);
    const plainFailure = await harness.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onErrorOccurred' && entry.details.url === plainUrl, 10_000);
    expect(errorOf(plainFailure)).toBe('net::ERR_PROXY_AUTH_REQUESTED');
    const told = harness.entries.find((entry) => entry.kind === 'log' && entry.message.includes('answered 407'));
    expect(told?.kind === 'log' && told.message).toContain(`the upstream proxy http://***@127.0.0.1:${authProxy.port} answered 407`);
    expect(JSON.stringify(harness.entries)).not.toContain(PASSWORD);
  });

  it('a proxy that cannot be reached fails requests with net::ERR_PROXY_CONNECTION_FAILED; the proxy keeps serving', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    harness = await startProxyHarness({ proxy: { upstreamProxy: proxyFrom(`http://127.0.0.1:${deadPort}`, `localhost`) } });
    const url = `${origin.url}/no-proxy-there`;
    const response = await harness.fetch(url);
    await response.body.dump();
    const failure = await harness.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onErrorOccurred' && entry.details.url === url, 10_000);
    expect(errorOf(failure)).toBe('net::ERR_PROXY_CONNECTION_FAILED');
    // NO_PROXY=localhost: that host is reached directly, dead proxy or not.
    const direct = await harness.fetch(`http://localhost:${origin.port}/direct`);
    expect(await direct.body.text()).toBe('origin got /direct');
  });

  it('the origin\'s certificate is still verified inside the tunnel: an untrusted one fails as without a proxy', async () => {
    authProxy = await startAuthProxy();
    harness = await startProxyHarness({ proxy: { upstreamProxy: proxyFrom(`http://${USER}:${PASSWORD}@127.0.0.1:${authProxy.port}`) } });
    const url = `${secureOrigin.url}/untrusted`;
    await harness.fetch(url).then((response) => response.body.dump(), () => undefined);
    const failure = await harness.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onErrorOccurred' && entry.details.url === url, 10_000);
    expect(errorOf(failure)).toBe('net::ERR_CERT_AUTHORITY_INVALID');
    expect(authProxy.asked.map((ask) => ask.line)).toContain(`CONNECT localhost:${secureOrigin.port}`);
  });

  it('a WebSocket goes through a CONNECT tunnel (as Chromium sends it) and messages flow both ways', async () => {
    const wsOrigin = http.createServer();
    const sockets = new WebSocketServer({ server: wsOrigin });
    sockets.on('connection', (ws) => ws.on('message', (message) => ws.send(`echo ${String(message)}`)));
    await new Promise<void>((resolve) => wsOrigin.listen(0, '127.0.0.1', resolve));
    const wsPort = (wsOrigin.address() as AddressInfo).port;
    try {
      authProxy = await startAuthProxy();
      harness = await startProxyHarness({ proxy: { upstreamProxy: proxyFrom(`http://${USER}:${PASSWORD}@127.0.0.1:${authProxy.port}`) } });
      const proxyPort = harness.proxy.port;
      const echoed = await new Promise<string>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/chat`, { createConnection: () => connect(proxyPort, '127.0.0.1') });
        ws.on('open', () => ws.send('through the corporate proxy'));
        ws.on('message', (message) => {
          resolve(String(message));
          ws.close();
        });
        ws.on('error', reject);
      });
      expect(echoed).toBe('echo through the corporate proxy');
      expect(authProxy.asked.map((ask) => [ask.line, ask.authorized])).toEqual([[`CONNECT 127.0.0.1:${wsPort}`, true]]);
    } finally {
      for (const client of sockets.clients) client.terminate();
      wsOrigin.closeAllConnections();
      await new Promise((resolve) => wsOrigin.close(resolve));
    }
  });

  it('NO_PROXY hosts go direct: the proxy is never asked for them', async () => {
    authProxy = await startAuthProxy();
    harness = await startProxyHarness({ proxy: { upstreamProxy: proxyFrom(`http://${USER}:${PASSWORD}@127.0.0.1:${authProxy.port}`, '127.0.0.1,localhost'), insecureUpstreamHosts: ['localhost'] } });
    expect(await (await harness.fetch(`${origin.url}/direct`)).body.text()).toBe('origin got /direct');
    expect(await (await harness.fetch(`${secureOrigin.url}/direct`)).body.text()).toBe('secure origin got /direct');
    expect(authProxy.asked).toEqual([]);
  });
});
