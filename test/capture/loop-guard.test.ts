// The loop guard against a real mockttp 4.6 on 127.0.0.1: real loops still refused, a coincidence
// of ports no longer refused, and the check no longer walks every open upstream socket.
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import * as mockttp from 'mockttp';
import { ProxyAgent, request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  installLoopGuard,
  isLoopGuardInstalled,
  isSocketLoopBothEnds,
  mockttpVersion,
  uninstallLoopGuard,
} from '../../src/engine/capture/loop-guard.js';

type LoopCheck = (outgoing: Set<net.Socket>, incoming: net.Socket) => boolean;
const socketUtil = createRequire(import.meta.url)('mockttp/dist/util/socket-util') as { isSocketLoop: LoopCheck };

let mockttpCheck: LoopCheck;
let origin: http.Server;
let originPort: number;
const originSawPorts: number[] = [];
const proxies: mockttp.Mockttp[] = [];

beforeAll(async () => {
  uninstallLoopGuard();
  mockttpCheck = socketUtil.isSocketLoop;
  origin = http.createServer((req, res) => {
    originSawPorts.push(req.socket.remotePort!);
    res.end('hello');
  });
  origin.keepAliveTimeout = 60_000; // upstream sockets must outlive the test's idle phase
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originPort = (origin.address() as net.AddressInfo).port;
});

afterAll(async () => {
  uninstallLoopGuard();
  origin.closeAllConnections();
  await new Promise((resolve) => origin.close(resolve));
});

beforeEach(() => {
  // mockttp logs every refused request with console.error; keep the test output readable.
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()));
});

async function passthroughProxy(options: Parameters<mockttp.RequestRuleBuilder['thenPassThrough']>[0] = {}) {
  const proxy = mockttp.getLocal({ recordTraffic: false, https: await caOnce() });
  proxies.push(proxy);
  await proxy.start();
  await proxy.forAnyRequest().always().thenPassThrough(options);
  return proxy;
}

let ca: Promise<{ key: string; cert: string }> | undefined;
function caOnce() {
  return (ca ??= mockttp.generateCACertificate());
}

interface Reply {
  status: number;
  body: string;
}

/** A GET in proxy form (absolute URL in the request line) through the proxy. */
function getVia(proxyPort: number, url: string, extra: http.RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: proxyPort, path: url, agent: false, ...extra }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.setTimeout(20_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

async function freeLoopbackPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('installLoopGuard', () => {
  it('replaces the export mockttp 4.6 calls, once, and can be undone', () => {
    expect(mockttpVersion()).toMatch(/^4\.6\./);
    expect(installLoopGuard()).toEqual({ installed: true });
    expect(installLoopGuard()).toEqual({ installed: true });
    expect(socketUtil.isSocketLoop).toBe(isSocketLoopBothEnds);
    uninstallLoopGuard();
    expect(isLoopGuardInstalled()).toBe(false);
    expect(socketUtil.isSocketLoop).toBe(mockttpCheck);
  });
});

describe('isSocketLoopBothEnds', () => {
  // Plain objects with a socket's four address fields: enough for the check.
  const sock = (local: string, localPort: number, remote: string, remotePort: number) =>
    ({ localAddress: local, localPort, remoteAddress: remote, remotePort, connecting: false }) as unknown as net.Socket;

  it('calls a loop only when both ends mirror, and follows the Set as it changes', () => {
    const upstream = sock('127.0.0.1', 40000, '127.0.0.1', 8000); // proxy → its own port 8000
    const toOrigin = sock('127.0.0.1', 40002, '127.0.0.1', 9000); // proxy → an origin on 9000
    const outgoing = new Set([upstream]);
    expect(isSocketLoopBothEnds(outgoing, sock('::ffff:127.0.0.1', 8000, '::ffff:127.0.0.1', 40000))).toBe(true);
    outgoing.add(toOrigin); // added after the index was built
    // A client whose ephemeral port is 40002 talking to the proxy on 8000: same port, other peer.
    expect(isSocketLoopBothEnds(outgoing, sock('127.0.0.1', 8000, '127.0.0.1', 40002))).toBe(false);
    expect(mockttpCheck(outgoing, sock('127.0.0.1', 8000, '127.0.0.1', 40002))).toBe(true); // mockttp's verdict
    outgoing.delete(upstream);
    expect(isSocketLoopBothEnds(outgoing, sock('127.0.0.1', 8000, '127.0.0.1', 40000))).toBe(false);
    outgoing.clear();
    expect(isSocketLoopBothEnds(outgoing, sock('127.0.0.1', 9000, '127.0.0.1', 40002))).toBe(false);
  });

  it("falls back to mockttp's one-end comparison when the incoming socket has no local end", () => {
    const outgoing = new Set([sock('127.0.0.1', 40000, '127.0.0.1', 9000)]);
    const wrapped = { remoteAddress: '127.0.0.1', remotePort: 40000 } as unknown as net.Socket;
    expect(isSocketLoopBothEnds(outgoing, wrapped)).toBe(true);
  });
});

describe('a real loop is still refused', () => {
  beforeAll(() => {
    expect(installLoopGuard()).toEqual({ installed: true });
  });
  afterAll(() => uninstallLoopGuard());

  it('plain HTTP: a request for the proxy itself gets the loop error, not a hang', async () => {
    const proxy = await passthroughProxy();
    const reply = await getVia(proxy.port, `http://127.0.0.1:${proxy.port}/`);
    expect(reply.status).toBe(500);
    expect(reply.body).toContain('Passthrough loop detected');
  });

  it('HTTPS through CONNECT: the TLS loop back to the proxy is refused too', async () => {
    const proxy = await passthroughProxy({ ignoreHostHttpsErrors: true });
    const dispatcher = new ProxyAgent({ uri: `http://127.0.0.1:${proxy.port}`, requestTls: { rejectUnauthorized: false } });
    try {
      const res = await undiciRequest(`https://127.0.0.1:${proxy.port}/`, { dispatcher, headersTimeout: 5_000, bodyTimeout: 5_000 });
      expect(res.statusCode).toBe(500);
      expect(await res.body.text()).toContain('Passthrough loop detected');
    } finally {
      await dispatcher.close();
    }
  });
});

describe('a coincidence of local ports is not a loop', () => {
  // The coincidence happens by chance between auto-bound ports. To build it on purpose, the test
  // binds both sockets to port Y (node binds with SO_REUSEADDR; two sockets may then share a local
  // port as long as their peers differ): mockttp's upstream socket to the origin (one-shot hook on
  // http.Agent's createConnection) and then a client socket to the proxy.
  async function coincidence(): Promise<Reply> {
    const proxy = await passthroughProxy();
    const port = await freeLoopbackPort();
    const agentProto = http.Agent.prototype as unknown as { createConnection: (options: net.NetConnectOpts, cb?: unknown) => net.Socket };
    const createConnection = agentProto.createConnection;
    agentProto.createConnection = function (this: http.Agent, options, cb) {
      if (Number((options as net.TcpNetConnectOpts).port) !== originPort) return createConnection.call(this, options, cb);
      agentProto.createConnection = createConnection; // one-shot: only mockttp's first upstream socket
      return createConnection.call(this, { ...options, localAddress: '127.0.0.1', localPort: port } as net.NetConnectOpts, cb);
    };
    const keepAlive = new http.Agent({ keepAlive: true });
    try {
      const first = await getVia(proxy.port, `http://127.0.0.1:${originPort}/first`, { agent: keepAlive });
      expect(first.status).toBe(200);
      expect(originSawPorts.at(-1)).toBe(port); // mockttp's upstream socket really is on port Y
      // Now a client on 127.0.0.1:Y → proxy: its remote end equals that upstream socket's local end.
      return await getVia(proxy.port, `http://127.0.0.1:${originPort}/second`, { localAddress: '127.0.0.1', localPort: port });
    } finally {
      agentProto.createConnection = createConnection;
      keepAlive.destroy();
    }
  }

  it("mockttp's own check refuses the healthy request", async () => {
    uninstallLoopGuard();
    const reply = await coincidence();
    expect(reply.status).toBe(500);
    expect(reply.body).toContain('Passthrough loop detected');
  });

  it('with the guard it is served', async () => {
    installLoopGuard();
    try {
      expect(await coincidence()).toEqual({ status: 200, body: 'hello' });
    } finally {
      uninstallLoopGuard();
    }
  });
});

describe('many idle keep-alive connections', () => {
  // Enough sockets that a per-request walk over them is unmistakable, few enough to open well
  // within mockttp's 5 s keep-alive window on a loaded 2-core machine.
  const IDLE = 500;

  async function load(proxyPort: number, total: number, concurrency: number) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
    let next = 0;
    let ok = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          next++;
          const reply = await getVia(proxyPort, `http://127.0.0.1:${originPort}/load`, { agent });
          if (reply.status === 200) ok++;
        }
      }),
    );
    agent.destroy();
    return { ok, ms: performance.now() - started };
  }

  it('keep the check O(1) and the proxy serving', async () => {
    installLoopGuard();
    const idleAgent = new http.Agent({ keepAlive: true, maxFreeSockets: IDLE }); // default keeps 256
    try {
      const quiet = await passthroughProxy(); // no idle connections
      const busy = await passthroughProxy(); // IDLE idle connections
      await Promise.all([load(quiet.port, 100, 8), load(busy.port, 100, 8)]); // warm up

      // Each idle connection did one request, so mockttp holds an upstream socket for each. mockttp
      // closes idle client connections after Node's 5 s keep-alive timeout: measure within that.
      const idleReplies = await Promise.all(
        Array.from({ length: IDLE }, () => getVia(busy.port, `http://127.0.0.1:${originPort}/idle`, { agent: idleAgent })),
      );
      expect(idleReplies.every((reply) => reply.status === 200)).toBe(true);

      // Interleaved, so that noise from other processes hits both alike.
      const totals = { quiet: { ok: 0, ms: 0 }, busy: { ok: 0, ms: 0 } };
      for (let round = 0; round < 3; round++) {
        for (const [name, proxy] of [['quiet', quiet], ['busy', busy]] as const) {
          const { ok, ms } = await load(proxy.port, 100, 16);
          totals[name].ok += ok;
          totals[name].ms += ms;
        }
      }
      expect(totals.quiet.ok).toBe(300);
      expect(totals.busy.ok).toBe(300);

      // The check itself over a Set of IDLE real connected sockets (built here, so mockttp's
      // keep-alive timeout on a loaded machine cannot shrink it), against an incoming socket.
      const listener = net.createServer((socket) => socket.on('error', () => {})).listen(0, '127.0.0.1');
      await new Promise((resolve) => listener.once('listening', resolve));
      const listenPort = (listener.address() as net.AddressInfo).port;
      const outgoing = new Set<net.Socket>();
      await Promise.all(
        Array.from({ length: IDLE }, () => new Promise<void>((resolve) => {
          const socket = net.connect(listenPort, '127.0.0.1', () => resolve());
          socket.on('error', () => {});
          outgoing.add(socket);
        })),
      );
      // The incoming side comes from another listener, so it is no end of those connections.
      const other = net.createServer().listen(0, '127.0.0.1');
      await new Promise((resolve) => other.once('listening', resolve));
      const client = net.connect((other.address() as net.AddressInfo).port, '127.0.0.1');
      client.on('error', () => {});
      const incoming = await new Promise<net.Socket>((resolve) => other.once('connection', resolve));
      incoming.on('error', () => {});
      try {
        const perCall = (check: LoopCheck, calls: number) => {
          const started = performance.now();
          for (let i = 0; i < calls; i++) check(outgoing, incoming);
          return (performance.now() - started) / calls;
        };
        expect(isSocketLoopBothEnds(outgoing, incoming)).toBe(false);
        const ours = perCall(isSocketLoopBothEnds, 20_000);
        const theirs = perCall(mockttpCheck, 500);
        console.log(`loop check over ${outgoing.size} sockets: mockttp ${(theirs * 1000).toFixed(1)} µs, guard ${(ours * 1000).toFixed(2)} µs`);
        // A CPU-only comparison with a wide margin (measured 100–800×); throughput is bench/loop-check.ts's job.
        expect(theirs / ours).toBeGreaterThan(10);
      } finally {
        for (const socket of outgoing) socket.destroy();
        incoming.destroy();
        client.destroy();
        listener.close();
        other.close();
      }
    } finally {
      idleAgent.destroy();
      socketUtil.isSocketLoop = isSocketLoopBothEnds;
      uninstallLoopGuard();
    }
  });
});
