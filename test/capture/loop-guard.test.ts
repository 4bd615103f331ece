// Proxy-loop detection (loop-guard.ts) through the real CaptureProxy on 127.0.0.1: a request that
// leads back to wrtui itself is answered 508 (plain HTTP, and HTTPS through CONNECT), a client whose
// port merely coincides with an upstream socket's local port is served, and the both-ends rule
// itself, O(1) per check, over upstream sockets that come and go.
import http from 'node:http';
import net from 'node:net';
import { ProxyAgent, request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/engine/journal.js';
import { UpstreamSockets } from '../../src/engine/capture/loop-guard.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

// Every request below must be answered quickly; a loop that is not detected must fail, not hang.
const ANSWER_MS = 5_000;

let origin: Origin;
/** The client port of every request the origin received (the proxy's upstream sockets). */
const originSawPorts: number[] = [];

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    originSawPorts.push(req.socket.remotePort!);
    res.end('hello');
  });
});

afterAll(async () => {
  await origin.close();
});

let h: ProxyHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Reply {
  status: number;
  body: string;
}

/** A GET in proxy form (absolute URL in the request line) through the proxy, on a connection of its own unless `extra.agent`. */
function getVia(proxyPort: number, url: string, extra: http.RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: proxyPort, path: url, agent: false, ...extra }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.setTimeout(ANSWER_MS, () => req.destroy(new Error(`no answer for ${url} within ${ANSWER_MS} ms`)));
    req.on('error', reject);
  });
}

function loopWarnings(entries: JournalEntry[]): string[] {
  return entries.flatMap((e) => (e.kind === 'log' && e.source === 'capture' && e.level === 'warn' && /proxy loop/.test(e.message) ? [e.message] : []));
}

async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a real loop is refused', () => {
  it('plain HTTP: a request for the proxy itself is answered 508, not a hang', async () => {
    h = await startProxyHarness();
    const url = `http://127.0.0.1:${h.proxy.port}/`;
    const reply = await getVia(h.proxy.port, url);
    expect(reply.status).toBe(508);
    expect(reply.body).toContain('proxy loop');
    // Refused at the second hop, once: wrtui's own forward came back and went no further.
    expect(loopWarnings(h.entries)).toEqual([expect.stringContaining(url)]);
  });

  it('HTTPS through CONNECT to the proxy\'s own port: the 508 comes back through the TLS tunnel', async () => {
    // wrtui's upstream client must accept the certificate its own port presents (signed by wrtui's
    // CA, which Node does not trust), or the loop would end as a certificate error before the
    // second hop ever sees a request.
    h = await startProxyHarness({ proxy: { insecureUpstreamHosts: ['127.0.0.1'] } });
    const url = `https://127.0.0.1:${h.proxy.port}/`;
    // The client does not verify the certificate either: mockttp names an IP host in a dNSName only.
    const dispatcher = new ProxyAgent({ uri: h.proxy.url, requestTls: { rejectUnauthorized: false } });
    try {
      const res = await undiciRequest(url, { dispatcher, headersTimeout: ANSWER_MS, bodyTimeout: ANSWER_MS });
      expect(res.statusCode).toBe(508);
      expect(await res.body.text()).toContain('proxy loop');
    } finally {
      await dispatcher.close();
    }
    expect(loopWarnings(h.entries)).toEqual([expect.stringContaining(url)]);
  });
});

describe('a coincidence of local ports is not a loop', () => {
  // The coincidence happens by chance between auto-bound ports. To build it on purpose, the test
  // binds both sockets to port Y (Node binds with SO_REUSEADDR; two sockets may then share a local
  // port as long as their peers differ): wrtui's upstream socket to the origin (a one-shot hook on
  // http.Agent's createConnection, which UpstreamTransport's agent inherits) and then a client
  // socket to the proxy. The client's remote end then equals that upstream socket's local end; only
  // the other ends tell them apart.
  it('the healthy request from 127.0.0.1:Y is served', async () => {
    h = await startProxyHarness();
    const port = await freeLoopbackPort();
    const agentProto = http.Agent.prototype as unknown as { createConnection: (options: net.NetConnectOpts, cb?: unknown) => net.Socket };
    const createConnection = agentProto.createConnection;
    agentProto.createConnection = function (this: http.Agent, options, cb) {
      if (Number((options as net.TcpNetConnectOpts).port) !== origin.port) return createConnection.call(this, options, cb);
      agentProto.createConnection = createConnection; // one-shot: only wrtui's first upstream socket
      return createConnection.call(this, { ...options, localAddress: '127.0.0.1', localPort: port } as net.NetConnectOpts, cb);
    };
    // A keep-alive client: wrtui forwards the client's Connection header, and a `close` there would
    // make the origin close the upstream socket on port Y after the first answer.
    const keepAlive = new http.Agent({ keepAlive: true });
    try {
      const first = await getVia(h.proxy.port, `${origin.url}/first`, { agent: keepAlive });
      expect(first).toEqual({ status: 200, body: 'hello' });
      expect(originSawPorts.at(-1)).toBe(port); // wrtui's upstream socket really is on port Y
    } finally {
      agentProto.createConnection = createConnection;
      keepAlive.destroy();
    }
    // That upstream socket is still open (keep-alive); now a client on 127.0.0.1:Y → proxy.
    const second = await getVia(h.proxy.port, `${origin.url}/second`, { localAddress: '127.0.0.1', localPort: port });
    expect(second).toEqual({ status: 200, body: 'hello' });
    expect(originSawPorts.at(-1)).toBe(port); // forwarded over that same upstream socket
    expect(loopWarnings(h.entries)).toEqual([]);
  });
});

describe('UpstreamSockets.leadBack', () => {
  // Plain objects with a socket's four address fields: enough for the check.
  const sock = (local: string, localPort: number, remote: string, remotePort: number) =>
    ({ localAddress: local, localPort, remoteAddress: remote, remotePort, connecting: false }) as unknown as net.Socket;

  it('calls a loop only when both ends mirror, and follows the sockets as they come and go', () => {
    const upstream = sock('127.0.0.1', 40000, '127.0.0.1', 8000); // proxy → its own port 8000
    const toOrigin = sock('127.0.0.1', 40002, '127.0.0.1', 9000); // proxy → an origin on 9000
    const outgoing = new UpstreamSockets([upstream]);
    // The other end of `upstream`, as a dual-stack listener sees it.
    expect(outgoing.leadBack(sock('::ffff:127.0.0.1', 8000, '::ffff:127.0.0.1', 40000))).toBe(true);
    outgoing.add(toOrigin); // added after a check
    // A client whose ephemeral port is 40002 talking to the proxy on 8000: same port, other peer
    // (a one-end comparison would call this a loop).
    expect(outgoing.leadBack(sock('127.0.0.1', 8000, '127.0.0.1', 40002))).toBe(false);
    expect(outgoing.leadBack(sock('127.0.0.1', 9000, '127.0.0.1', 40002))).toBe(true); // toOrigin's other end
    outgoing.delete(upstream);
    expect(outgoing.leadBack(sock('127.0.0.1', 8000, '127.0.0.1', 40000))).toBe(false);
    outgoing.clear();
    expect(outgoing.leadBack(sock('127.0.0.1', 9000, '127.0.0.1', 40002))).toBe(false);
    outgoing.add(upstream); // the index is still kept after clear()
    expect(outgoing.leadBack(sock('127.0.0.1', 8000, '127.0.0.1', 40000))).toBe(true);
  });

  it('takes a one-end match as a loop when the incoming socket cannot tell its local end', () => {
    const outgoing = new UpstreamSockets([sock('127.0.0.1', 40000, '127.0.0.1', 9000)]);
    const wrapped = { remoteAddress: '127.0.0.1', remotePort: 40000 } as unknown as net.Socket;
    expect(outgoing.leadBack(wrapped)).toBe(true);
  });

  it('real sockets: the accepted end of an upstream connection is a loop until that socket is deleted', async () => {
    const accepted: net.Socket[] = [];
    const listener = net.createServer((socket) => accepted.push(socket.on('error', () => {}))).listen(0, '::');
    await new Promise((resolve) => listener.once('listening', resolve));
    const port = (listener.address() as net.AddressInfo).port;
    const connect = () =>
      new Promise<net.Socket>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        socket.on('error', () => {});
      });
    const outgoing = new UpstreamSockets();
    try {
      const upstream = await connect();
      const stranger = await connect(); // a client of the same listener, not in the Set
      outgoing.add(upstream);
      await expect.poll(() => accepted.length).toBe(2);
      const [ofUpstream, ofStranger] = accepted[0]!.remotePort === upstream.localPort ? accepted : [accepted[1]!, accepted[0]!];
      expect(ofUpstream!.remoteAddress).toBe('::ffff:127.0.0.1'); // the dual-stack view
      expect(outgoing.leadBack(ofUpstream!)).toBe(true);
      expect(outgoing.leadBack(ofStranger!)).toBe(false);
      expect(outgoing.leadBack(upstream)).toBe(false); // a socket is not its own other end
      // As UpstreamTransport does: deleted on close (when Node may no longer know its addresses).
      const closed = new Promise((resolve) => upstream.once('close', resolve));
      upstream.destroy();
      await closed;
      outgoing.delete(upstream);
      expect(outgoing.leadBack(ofUpstream!)).toBe(false);
    } finally {
      for (const socket of [...outgoing, ...accepted]) socket.destroy();
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('is O(1) per check: a check reads no upstream socket', () => {
    let reads = 0;
    const counted = (port: number) => {
      const fields = { localAddress: '127.0.0.1', localPort: port, remoteAddress: '127.0.0.1', remotePort: 9000, connecting: false };
      return Object.fromEntries(
        Object.entries(fields).map(([key, value]) => [key, { get: () => (reads++, value), enumerable: true }] as const),
      ) as PropertyDescriptorMap;
    };
    const fake = (port: number) => Object.defineProperties({}, counted(port)) as net.Socket;
    const outgoing = new UpstreamSockets(Array.from({ length: 1_000 }, (_, i) => fake(30_000 + i))); // reads each socket once
    const miss = sock('127.0.0.1', 8000, '127.0.0.1', 50_000);
    const hit = sock('127.0.0.1', 9000, '127.0.0.1', 30_500);
    expect(outgoing.leadBack(miss)).toBe(false);
    reads = 0;
    for (let i = 0; i < 100; i++) {
      expect(outgoing.leadBack(miss)).toBe(false);
      expect(outgoing.leadBack(hit)).toBe(true);
    }
    expect(reads).toBe(0);
    outgoing.add(fake(31_000)); // indexing a new socket reads that socket only
    expect(reads).toBeLessThanOrEqual(5);
    expect(outgoing.leadBack(sock('127.0.0.1', 9000, '127.0.0.1', 31_000))).toBe(true);
  });
});
