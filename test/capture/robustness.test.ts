// The live proxy under abuse: malformed and oversized requests, clients and origins that vanish
// halfway, a thousand connections at once, a foreign client. Nothing crashes, every request that
// started ends with the right event, nothing stays tracked, memory comes back, mockttp's console
// chatter goes to the journal, and the next ordinary request is served.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureConsole } from '../../src/app/console-capture.js';
import type { JournalEntry, LogEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const SENT = ['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders'];
const STARTED = [...SENT, 'onHeadersReceived', 'onResponseStarted'];
const COMPLETE = [...STARTED, 'onCompleted'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ── helpers ───────────────────────────────────────────────────────────────────────────────────

const servers: net.Server[] = [];
const serverSockets = new Set<net.Socket>();

async function listen<T extends net.Server>(server: T, host = '127.0.0.1'): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: net.Socket) => {
    serverSockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => serverSockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

/** A TCP origin that reacts to the first bytes of each request with `respond`. */
async function rawOrigin(respond: (socket: net.Socket) => void): Promise<string> {
  const port = await listen(net.createServer((socket) => socket.once('data', () => respond(socket))));
  return `http://127.0.0.1:${port}`;
}

interface RawExchange {
  /** Everything the proxy sent back, latin1. */
  received: string;
  /** The proxy closed (or reset) the connection before our deadline. */
  closedByPeer: boolean;
  error?: string;
}

/**
 * Writes `data` to the proxy on a raw socket and collects what comes back until the proxy closes
 * it (or `deadlineMs` passes: then we close it ourselves). `destroyAfterMs` makes us vanish first.
 */
function rawExchange(port: number, data: string | Buffer, options: { host?: string; deadlineMs?: number; destroyAfterMs?: number } = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, options.host ?? '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByPeer = true;
    let error: string | undefined;
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => {
      clearTimeout(deadline);
      clearTimeout(vanish);
      resolve({ received: Buffer.concat(chunks).toString('latin1'), closedByPeer, ...(error !== undefined && { error }) });
    });
    socket.write(data);
    const vanish = options.destroyAfterMs === undefined ? undefined : setTimeout(() => ((closedByPeer = false), socket.destroy()), options.destroyAfterMs);
    const deadline = setTimeout(() => ((closedByPeer = false), socket.destroy()), options.deadlineMs ?? 3000);
  });
}

const isWebRequest = (entry: JournalEntry): entry is JournalEntry & WebRequestEntry => entry.kind === 'webRequest';
const errorOf = (entry: JournalEntry) => (entry as unknown as WebRequestEntry).details as { error?: string };

/** Every request the journal saw start has ended, exactly once, and nothing followed its end. */
function expectAllRequestsEnded(h: ProxyHarness): void {
  const byRequest = new Map<string, string[]>();
  for (const entry of h.entries.filter(isWebRequest)) {
    const events = byRequest.get(entry.details.requestId) ?? [];
    events.push(entry.event);
    byRequest.set(entry.details.requestId, events);
  }
  const unfinished = [...byRequest].filter(([, events]) => {
    const ends = events.filter((event) => event === 'onCompleted' || event === 'onErrorOccurred').length;
    const last = events.at(-1);
    return ends !== 1 || (last !== 'onCompleted' && last !== 'onErrorOccurred');
  });
  expect(unfinished, 'requests that did not end exactly once').toEqual([]);
}

function nonLoopbackIPv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;
}

/** The soft limit on open files, when the system says (Linux); undefined elsewhere. */
function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

let harness: ProxyHarness;
let origin: Origin;
let harnessClosed = false;

/** The proxy still answers an ordinary request. */
async function expectStillServing(h: ProxyHarness = harness): Promise<void> {
  const url = `${origin.url}/ordinary-${Math.random().toString(36).slice(2)}`;
  const response = await h.fetch(url);
  expect(response.statusCode).toBe(200);
  expect(await response.body.text()).toBe('fine 0');
  await finished(h, requestIdOf(h, url));
  expect(h.events(requestIdOf(h, url))).toEqual(COMPLETE);
}

beforeAll(async () => {
  origin = await startOrigin((_req, res, body) => res.end(`fine ${body.length}`));
  harness = await startProxyHarness();
});
afterEach(async () => {
  for (const socket of serverSockets) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});
afterAll(async () => {
  if (!harnessClosed) await harness?.close();
  await origin?.close();
});

// ── malformed requests ────────────────────────────────────────────────────────────────────────

describe('malformed requests: the proxy answers 400 (or 431) and closes, stays up, and journals no request', () => {
  const target = () => `${origin.url}/malformed`;
  const cases: [string, () => string | Buffer, number][] = [
    ['raw binary garbage', () => Buffer.from([0x00, 0xff, 0x13, 0x37, 0x42, 0x0d, 0x0a, 0x0d, 0x0a, 0x99, 0x00]), 400],
    ['text that is not HTTP', () => 'HELLO PROXY, HOW ARE YOU\r\n\r\n', 400],
    ['an invalid request line', () => `GET  ${target()}  HTTP/9.9 trailing\r\nHost: 127.0.0.1\r\n\r\n`, 400],
    ['a header with a NUL', () => `GET ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Nul: a\u0000b\r\n\r\n`, 400],
    ['a non-numeric Content-Length', () => `POST ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\nhello`, 400],
    ['a negative Content-Length', () => `POST ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\nhello`, 400],
    ['two different Content-Lengths', () => `POST ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!`, 400],
    ['Content-Length with Transfer-Encoding: chunked', () => `POST ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 400],
    ['a 100 KB header', () => `GET ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`, 431],
    ['10 000 small headers', () => `GET ${target()} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Array.from({ length: 10_000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`, 431],
  ];

  it.each(cases)('%s', async (_name, request, status) => {
    const before = harness.entries.length;
    const exchange = await rawExchange(harness.proxy.port, request());
    expect(exchange.closedByPeer, 'the proxy closes the connection').toBe(true);
    expect(exchange.received).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(harness.entries.slice(before).filter(isWebRequest)).toEqual([]);
    expect(origin.received.some((r) => r.url === '/malformed')).toBe(false);
    await expectStillServing();
  });
});

// ── clients that vanish ───────────────────────────────────────────────────────────────────────

describe('clients that vanish', () => {
  // mockttp hands wrtui a request (beforeRequest, with the body that onBeforeRequest's requestBody
  // needs) only once the whole body is in. An upload abandoned halfway therefore never becomes a
  // request: no onBeforeRequest, no onErrorOccurred, nothing sent upstream, nothing tracked. That is
  // also what an extension would see of a request the browser never finished issuing.
  it('an upload abandoned mid-body (Content-Length 1 MB, 10 KB sent) is no request at all, and leaves nothing behind', async () => {
    const before = harness.entries.length;
    const upload = `POST ${origin.url}/abandoned-upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: ${1024 * 1024}\r\n\r\n${'b'.repeat(10 * 1024)}`;
    const exchange = await rawExchange(harness.proxy.port, upload, { destroyAfterMs: 300 });
    expect(exchange.closedByPeer).toBe(false); // the proxy was still waiting for the body
    expect(exchange.received).toBe('');
    await sleep(300);
    expect(harness.entries.slice(before).filter(isWebRequest)).toEqual([]);
    expect(origin.received.some((r) => r.url === '/abandoned-upload')).toBe(false);
    expectAllRequestsEnded(harness);
    await expectStillServing();
  });

  it('a client that gives up while the origin is silent, or mid-response: the request ends once, never completes, the upstream connection closes', async () => {
    const upstreamClosed: Promise<void>[] = [];
    const track = (socket: net.Socket) => upstreamClosed.push(new Promise((resolve) => socket.on('close', () => resolve())));
    const silent = await rawOrigin((socket) => track(socket));
    const streaming = await rawOrigin((socket) => {
      track(socket);
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n');
      const timer = setInterval(() => socket.write('x'.repeat(512)), 20);
      socket.on('close', () => clearInterval(timer));
    });

    const waiting = await rawExchange(harness.proxy.port, `GET ${silent}/gave-up-waiting HTTP/1.1\r\nHost: x\r\n\r\n`, { destroyAfterMs: 500 });
    expect(waiting.received).toBe('');
    const reading = await rawExchange(harness.proxy.port, `GET ${streaming}/gave-up-reading HTTP/1.1\r\nHost: x\r\n\r\n`, { destroyAfterMs: 500 });
    expect(reading.received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);

    for (const [url, expected] of [[`${silent}/gave-up-waiting`, SENT], [`${streaming}/gave-up-reading`, STARTED]] as const) {
      const requestId = requestIdOf(harness, url);
      await finished(harness, requestId);
      await sleep(50);
      expect(harness.events(requestId)).toEqual([...expected, 'onErrorOccurred']);
    }
    await Promise.all(upstreamClosed);
    expect(upstreamClosed).toHaveLength(2);
    expectAllRequestsEnded(harness);
    await expectStillServing();
  });

  // mockttp aborts the upstream request when the client leaves and tags it passthrough-error:ECONNRESET;
  // the journal must still say the client gave up, as Chrome does.
  it('a client that gives up is net::ERR_ABORTED, whether it was waiting or reading', async () => {
    const silent = await rawOrigin(() => {});
    const streaming = await rawOrigin((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10000000\r\n\r\n');
      const timer = setInterval(() => socket.write('x'.repeat(512)), 20);
      socket.on('close', () => clearInterval(timer));
    });
    await rawExchange(harness.proxy.port, `GET ${silent}/aborted-waiting HTTP/1.1\r\nHost: x\r\n\r\n`, { destroyAfterMs: 300 });
    await rawExchange(harness.proxy.port, `GET ${streaming}/aborted-reading HTTP/1.1\r\nHost: x\r\n\r\n`, { destroyAfterMs: 300 });
    for (const url of [`${silent}/aborted-waiting`, `${streaming}/aborted-reading`]) {
      expect(errorOf(await finished(harness, requestIdOf(harness, url))).error).toBe('net::ERR_ABORTED');
    }
  });
});

// ── origins that vanish ───────────────────────────────────────────────────────────────────────

describe('origins that vanish', () => {
  it('50 requests at once to an origin that resets mid-response: each ends in net::ERR_CONNECTION_RESET after onResponseStarted, none completes', async () => {
    const base = await rawOrigin((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n${'y'.repeat(2048)}`);
      setTimeout(() => socket.resetAndDestroy(), 50);
    });
    const urls = Array.from({ length: 50 }, (_, i) => `${base}/reset-mid/${i}`);
    const outcomes = await Promise.all(
      urls.map(async (url) => {
        try {
          const response = await harness.fetch(url);
          await response.body.text();
          return 'complete';
        } catch {
          return 'failed';
        }
      }),
    );
    expect(outcomes.every((outcome) => outcome === 'failed')).toBe(true);
    for (const url of urls) {
      const requestId = requestIdOf(harness, url);
      expect(errorOf(await finished(harness, requestId)).error).toBe('net::ERR_CONNECTION_RESET');
    }
    await sleep(50);
    for (const url of urls) expect(harness.events(requestIdOf(harness, url))).toEqual([...STARTED, 'onErrorOccurred']);
    expectAllRequestsEnded(harness);
    await expectStillServing();
  });
});

// ── mockttp's console ─────────────────────────────────────────────────────────────────────────

describe("mockttp's console output with the app's console capture on", () => {
  it('goes to the journal as log entries from source "mockttp", not to the console', async () => {
    // The provocation: mockttp watches every WebSocket handshake's client socket and console.logs
    // "Response error: <message>" when it fails; a client that resets its connection while the
    // origin has not answered the handshake yet does that.
    const silent = await rawOrigin(() => {});
    const spies = (['log', 'info', 'debug', 'warn', 'error', 'trace'] as const).map((method) => vi.spyOn(console, method));
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    const before = harness.entries.length;
    const restore = captureConsole(harness.engine.journal);
    let logs: LogEntry[];
    let consoleCalls: number[] = [];
    let printed = '';
    try {
      const client = net.connect(harness.proxy.port, '127.0.0.1');
      client.on('error', () => {});
      await new Promise<void>((resolve) => client.once('connect', () => resolve()));
      client.write(
        `GET ${silent}/console-reset HTTP/1.1\r\nHost: ${new URL(silent).host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
      await harness.waitFor((entry) => entry.seq > before && entry.kind === 'webRequest' && (entry as WebRequestEntry).event === 'onSendHeaders');
      client.resetAndDestroy();
      const isMockttpLog = (entry: JournalEntry, level: string, text: RegExp) =>
        entry.kind === 'log' && (entry as LogEntry).source === 'mockttp' && (entry as LogEntry).level === level && text.test((entry as LogEntry).message);
      await harness.waitFor((entry) => entry.seq > before && isMockttpLog(entry, 'info', /Response error: .*ECONNRESET/));
      logs = harness.entries.slice(before).filter((entry): entry is JournalEntry & LogEntry => entry.kind === 'log');
    } finally {
      // Counted before restoring: once restored, a late message may rightly reach the console again.
      consoleCalls = spies.map((spy) => spy.mock.calls.length);
      printed = [...stdout.mock.calls, ...stderr.mock.calls].map(([chunk]) => String(chunk)).join('');
      restore();
    }
    try {
      expect(logs.filter((entry) => entry.source === 'mockttp')).toEqual(
        expect.arrayContaining([expect.objectContaining({ kind: 'log', level: 'info', source: 'mockttp', message: expect.stringContaining('Response error') })]),
      );
      expect(consoleCalls).toEqual(spies.map(() => 0));
      expect(printed).not.toContain('Response error');
    } finally {
      for (const spy of [...spies, stdout, stderr]) spy.mockRestore();
    }
  });
});

// ── a thousand connections ────────────────────────────────────────────────────────────────────

const CONNECTIONS = 1000;
// Each connection costs about four descriptors here: client, proxy side, mockttp's upstream, origin side.
const enoughFiles = (openFileLimit() ?? Infinity) >= CONNECTIONS * 4 + 500;

describe.skipIf(!enoughFiles)(`${CONNECTIONS} concurrent connections`, () => {
  it('all answered 200, exactly one full event sequence each, no crash, and memory returns near the baseline', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const settle = async () => {
      for (let i = 0; i < 4; i++) {
        gc();
        await sleep(100);
      }
      return process.memoryUsage();
    };
    const load = await startProxyHarness();
    // Its own origin, which keeps no record of what it served (startOrigin's `received` would grow).
    const loadOrigin = `http://127.0.0.1:${await listen(http.createServer((_req, res) => res.end('ok')))}`;
    try {
      /** `count` keep-alive connections opened at once, one small GET each through the proxy. */
      const burst = async (count: number, tag: string) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
        const connected = new Set<net.Socket>();
        try {
          const statuses = await Promise.all(
            Array.from({ length: count }, (_, i) =>
              new Promise<number>((resolve, reject) => {
                const request = http.request({ host: '127.0.0.1', port: load.proxy.port, path: `${loadOrigin}/${tag}/${i}`, agent, headers: { host: new URL(loadOrigin).host } }, (response) => {
                  response.resume();
                  response.on('end', () => resolve(response.statusCode ?? 0));
                  response.on('error', reject);
                });
                request.on('socket', (socket) => connected.add(socket));
                request.setTimeout(60_000, () => request.destroy(new Error(`${tag}/${i} timed out`)));
                request.on('error', reject);
                request.end();
              }),
            ),
          );
          return { statuses, connections: connected.size };
        } finally {
          agent.destroy();
        }
      };

      await burst(50, 'warm-up');
      load.entries.length = 0;
      const baseline = await settle();

      const started = Date.now();
      const { statuses, connections } = await burst(CONNECTIONS, 'burst');
      const elapsedMs = Date.now() - started;
      const peakRss = process.memoryUsage().rss;
      expect(connections).toBe(CONNECTIONS);
      expect(statuses.filter((status) => status === 200)).toHaveLength(CONNECTIONS);

      // The journal: every request went through the whole sequence once, and nothing else happened.
      const count = (event: string) => load.webRequestEntries((e) => e.event === event).length;
      for (let waited = 0; count('onCompleted') < CONNECTIONS && waited < 10_000; waited += 50) await sleep(50);
      for (const event of COMPLETE) expect(count(event), event).toBe(CONNECTIONS);
      expect(count('onErrorOccurred')).toBe(0);
      expect(new Set(load.webRequestEntries().map((e) => e.details.requestId)).size).toBe(CONNECTIONS);
      expectAllRequestsEnded(load);
      expect(load.entries.filter((e) => e.kind === 'log' && (e as LogEntry).level !== 'debug')).toEqual([]);

      load.entries.length = 0; // the harness's copy of the journal; the engine keeps none
      await sleep(500);
      const after = await settle();
      const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
      console.info(
        `${CONNECTIONS} connections in ${elapsedMs} ms; RSS baseline ${mb(baseline.rss)} MB, peak ${mb(peakRss)} MB, after GC ${mb(after.rss)} MB; ` +
          `heap used ${mb(baseline.heapUsed)} → ${mb(after.heapUsed)} MB`,
      );
      expect(after.heapUsed - baseline.heapUsed).toBeLessThan(8e6); // measured: about 1.5 MB, flat over further bursts
      expect(after.rss - baseline.rss).toBeLessThan(64e6);
      await expectStillServing(load);
    } finally {
      await load.close();
    }
  }, 180_000);
});

// ── who may connect ───────────────────────────────────────────────────────────────────────────

const external = nonLoopbackIPv4();

describe.skipIf(!external)(`who may connect (this machine's non-loopback address ${external ?? '(none)'})`, () => {
  it('by default the socket itself listens on loopback only: a connection through that address is refused by the system, and nothing reaches wrtui', async () => {
    const before = harness.entries.length;
    const exchange = await rawExchange(harness.proxy.port, `GET ${origin.url}/foreign HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, { host: external! });
    expect(exchange.error).toBe('ECONNREFUSED');
    expect(exchange.received).toBe('');
    expect(harness.entries.slice(before).filter(isWebRequest)).toEqual([]);
    expect(origin.received.some((r) => r.url === '/foreign')).toBe(false);
    await expectStillServing();
  });

  it("with host 0.0.0.0 the same client is served", async () => {
    // The origin listens on the same address: mockttp sends a remote client's "127.0.0.1" to the
    // client's own machine (its address), so a loopback origin would look refused from there.
    const port = await listen(http.createServer((_req, res) => res.end('served to a neighbour')), external!);
    const url = `http://${external}:${port}/neighbour`;
    const open = await startProxyHarness({ proxy: { host: '0.0.0.0' } });
    try {
      const exchange = await rawExchange(open.proxy.port, `GET ${url} HTTP/1.1\r\nHost: ${external}:${port}\r\nConnection: close\r\n\r\n`, { host: external! });
      expect(exchange.received).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nserved to a neighbour$/);
      await finished(open, requestIdOf(open, url));
      expect(open.events(requestIdOf(open, url))).toEqual(COMPLETE);
      expect(open.proxy.everyInterface).toBe(true);
    } finally {
      await open.close();
    }
  });
});

// ── nothing left behind ───────────────────────────────────────────────────────────────────────

describe('after all of the above', () => {
  it('every request that started has ended, and stopping the proxy finds none still in flight', async () => {
    await sleep(200);
    expectAllRequestsEnded(harness);
    // CaptureProxy#stop fails whatever it still tracks with net::ERR_ABORTED: nothing may appear.
    const before = harness.entries.length;
    harnessClosed = true;
    await harness.close();
    expect(harness.entries.slice(before).filter(isWebRequest)).toEqual([]);
  });
});
