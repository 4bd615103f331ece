// The hostile-traffic battery: what a malicious or broken client or upstream can throw at the live
// proxy, each row checked the same way (battery rows elsewhere: malformed request heads, vanishing
// clients, 1,000 concurrent connections in test/capture/robustness.test.ts; refused, reset,
// non-HTTP, silent and untrusted upstreams in test/capture/upstream-errors.test.ts; CONNECT and TLS
// in tunnels.test.ts):
//   - the client gets a sensible answer (a 4xx for its own mistake, a 502/504 naming the upstream's,
//     or the bytes it asked for);
//   - the journal holds exactly one terminal event (onCompleted or onErrorOccurred) per request;
//   - the proxy keeps serving: a normal request right after is answered within 50 ms of the
//     normal latency measured before the battery;
//   - memory stays bounded.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

let harness: ProxyHarness;
let origin: Origin;
let baselineMs: number;
const servers: net.Server[] = [];
const MiB = 1024 * 1024;

const isWebRequest = (entry: JournalEntry): entry is JournalEntry & WebRequestEntry => entry.kind === 'webRequest';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A normal request through the proxy; resolves with its latency. */
async function normalRequest(): Promise<number> {
  const started = performance.now();
  const response = await harness.fetch(`${origin.url}/normal-${Math.random().toString(36).slice(2)}`);
  expect(await response.body.text()).toBe('normal');
  return performance.now() - started;
}

async function medianLatency(n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await normalRequest());
  return times.sort((a, b) => a - b)[n >> 1]!;
}

/** The rows' common checks: one terminal event per request, the proxy serving at normal speed. */
async function expectHealthy(): Promise<void> {
  await sleep(100);
  const ends = new Map<string, number>();
  const started = new Set<string>();
  for (const entry of harness.entries.filter(isWebRequest)) {
    started.add(entry.details.requestId);
    if (entry.event === 'onCompleted' || entry.event === 'onErrorOccurred') ends.set(entry.details.requestId, (ends.get(entry.details.requestId) ?? 0) + 1);
  }
  const unfinished = [...started].filter((id) => ends.get(id) !== 1);
  expect(unfinished, 'requests without exactly one terminal event').toEqual([]);
  expect(await medianLatency(5)).toBeLessThan(baselineMs + 50);
}

/** Writes `data` on a raw connection to the proxy; resolves with what came back once it closed. */
function raw(data: string | Buffer, deadlineMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(harness.proxy.port, '127.0.0.1', () => socket.write(data));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    setTimeout(() => socket.destroy(), deadlineMs);
  });
}

/** A TCP origin that answers each connection's first bytes with `respond`. */
async function rawOrigin(respond: (socket: net.Socket) => void): Promise<string> {
  const port = await listen(net.createServer((socket) => {
    socket.on('error', () => {});
    socket.once('data', () => respond(socket));
  }));
  return `http://127.0.0.1:${port}`;
}

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    if (req.url === '/echo-headers') return res.end(JSON.stringify(req.headers));
    res.end(req.url?.startsWith('/normal') ? 'normal' : `origin ${req.method} ${req.url}`);
  });
  harness = await startProxyHarness({ proxy: { upstreamTimeoutMs: 1000 } });
  await medianLatency(5); // warm-up
  baselineMs = await medianLatency(9);
});
afterAll(async () => {
  for (const server of servers) server.close();
  await harness?.close();
  await origin?.close();
});

describe('malformed or unusual client input', () => {
  it.each([
    ['bad chunked encoding', () => `POST ${origin.url}/chunks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhello\r\n0\r\n\r\n`, /^HTTP\/1\.1 400 /],
    // Node's parser takes a request line without a version as HTTP/0.9 and wrtui forwards it.
    ['an HTTP/0.9 request line', () => `GET ${origin.url}/ancient\r\n\r\n`, /^HTTP\/1\.1 200 OK[\s\S]*origin GET \/ancient$/],
    ['an invalid method', () => `G=T ${origin.url}/bad-method HTTP/1.1\r\nHost: x\r\n\r\n`, /^HTTP\/1\.1 400 /],
    ['absolute form (a proxy request)', () => `GET ${origin.url}/absolute HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 200 OK[\s\S]*origin GET \/absolute$/],
    ['origin form, the target in Host (a transparent client)', () => `GET /origin-form HTTP/1.1\r\nHost: ${new URL(origin.url).host}\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 200 OK[\s\S]*origin GET \/origin-form$/],
    // Node's parser knows the registered methods only: another token is a 400, not a crash.
    ['a method Node does not know', () => `FROBNICATE ${origin.url}/odd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 400 /],
    ['a registered but rare method', () => `PROPFIND ${origin.url}/dav HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, /^HTTP\/1\.1 200 OK[\s\S]*origin PROPFIND \/dav$/],
  ])('%s: a sensible answer', async (_name, request, answer) => {
    expect(await raw(request())).toMatch(answer);
    await expectHealthy();
  });

  it('no silent truncation: 3,000 request headers reach the origin whole (Node kept 2,000); a head too large for wrtui is answered 431 and journaled', async () => {
    const headers = (n: number) => Array.from({ length: n }, (_, i) => `X-Many-${i}: v`).join('\r\n');
    // An origin that takes big heads (Node's default is 16 KiB), saying how many header lines it got.
    const counting = http.createServer({ maxHeaderSize: 1 << 20 }, (req, res) => res.end(`got ${req.rawHeaders.length / 2}`));
    counting.maxHeadersCount = 0;
    const port = await listen(counting);
    const whole = await raw(`GET http://127.0.0.1:${port}/count HTTP/1.1\r\nHost: x\r\n${headers(3000)}\r\nConnection: close\r\n\r\n`);
    expect(whole).toMatch(/^HTTP\/1\.1 200 [\s\S]*got 3002$/); // with Host and Connection
    expect(await raw(`GET ${origin.url}/too-many HTTP/1.1\r\nHost: x\r\n${headers(6000)}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 /);
    await harness.waitFor((entry) => entry.kind === 'log' && entry.level === 'warn' && entry.message.startsWith('a request head too large for wrtui'));
    await expectHealthy();
  });

  it('a response with 2,500 header lines reaches the client whole', async () => {
    const many = await rawOrigin((socket) => socket.end(`HTTP/1.1 200 OK\r\n${Array.from({ length: 2500 }, (_, i) => `X-Back-${i}: v\r\n`).join('')}Content-Length: 2\r\nConnection: close\r\n\r\nok`));
    const answer = await raw(`GET ${many}/many-back HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(answer.match(/X-Back-\d+: v/g)).toHaveLength(2500);
    await expectHealthy();
  });

  it('a good request followed by garbage in the same write: the request is served (the origin gets it), then the 400', async () => {
    const before = origin.received.length;
    const answer = await raw(`GET ${origin.url}/before-garbage HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE GARBAGE GARBAGE\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*origin GET \/before-garbage(HTTP\/1\.1 400 Bad Request\r\n|$)/);
    expect(answer).toContain('HTTP/1.1 400 Bad Request');
    expect(origin.received.slice(before).map((request) => request.url)).toContain('/before-garbage');
    await expectHealthy();
  });

  it('header injection: a listener answering a value with CR/LF is a failed outcome; nothing is injected, the request goes on', async () => {
    const api = harness.api('injector');
    const listener = (details: { requestHeaders?: { name: string; value?: string }[] }) => ({
      requestHeaders: [...details.requestHeaders!, { name: 'X-Innocent', value: 'a\r\nX-Injected: yes' }],
    });
    api.chrome.webRequest!.onBeforeSendHeaders.addListener(listener, { urls: ['*://*/echo-headers'] }, ['blocking', 'requestHeaders']);
    try {
      const response = await harness.fetch(`${origin.url}/echo-headers`);
      const seen = JSON.parse(await response.body.text()) as Record<string, string>;
      expect(seen['x-injected']).toBeUndefined();
      expect(seen['x-innocent']).toBeUndefined();
      const outcome = harness.webRequestEntries((e) => e.event === 'onBeforeSendHeaders' && e.details.url.endsWith('/echo-headers'))[0]!.outcomes[0];
      expect(outcome).toMatchObject({ owner: 'injector', status: 'failed', reason: expect.stringContaining('invalid BlockingResponse') });
    } finally {
      api.dispose();
    }
    await expectHealthy();
  });
});

describe('slow and greedy clients', () => {
  it('slowloris: 300 connections trickling a header a byte at a time do not slow a normal request', { timeout: 30_000 }, async () => {
    const sockets: net.Socket[] = [];
    for (let i = 0; i < 300; i++) {
      const socket = net.connect(harness.proxy.port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`GET ${origin.url}/slow-${i} HTTP/1.1\r\nHost: x\r\n`);
      sockets.push(socket);
    }
    const trickle = setInterval(() => {
      for (const socket of sockets) if (!socket.destroyed) socket.write('X');
    }, 200);
    try {
      await sleep(500);
      const during = await medianLatency(7);
      expect(during).toBeLessThan(baselineMs + 50);
      console.log(`slowloris: a normal request took ${during.toFixed(1)} ms (median of 7) with 300 slow sockets open; ${baselineMs.toFixed(1)} ms without`);
    } finally {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    }
    await expectHealthy();
  });
});

describe('broken and hostile upstreams', () => {
  it('an invalid status line: 502 naming net::ERR_INVALID_HTTP_RESPONSE', async () => {
    const base = await rawOrigin((socket) => socket.end('HTTP/1.1 abc NOPE\r\n\r\n'));
    const response = await harness.fetch(`${base}/bad-status`);
    expect(response.statusCode).toBe(502);
    expect(await response.body.text()).toMatch(/^wrtui: net::ERR_INVALID_HTTP_RESPONSE from 127\.0\.0\.1:\d+/);
    await expectHealthy();
  });

  it('an upstream that never answers: 504 naming net::ERR_TIMED_OUT once the upstream timeout passes', async () => {
    const base = await rawOrigin(() => {});
    const started = performance.now();
    const response = await harness.fetch(`${base}/never`);
    expect(response.statusCode).toBe(504);
    expect(await response.body.text()).toMatch(/^wrtui: net::ERR_TIMED_OUT/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
    await expectHealthy();
  });

  it('a 200 MB body streams through with memory well under its size (RSS plateaus near 60 MiB: the bound leaves room for GC, not for buffering)', { timeout: 60_000 }, async () => {
    const chunk = Buffer.alloc(MiB, 'z');
    const base = await rawOrigin((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${200 * MiB}\r\n\r\n`);
      let sent = 0;
      const pump = () => {
        while (sent < 200) {
          sent++;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        socket.end();
      };
      pump();
    });
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      const response = await harness.fetch(`${base}/fifty`);
      let received = 0;
      for await (const part of response.body) received += (part as Buffer).length;
      expect(received).toBe(200 * MiB);
    } finally {
      clearInterval(sampler);
    }
    console.log(`200 MB body: RSS +${((peak - before) / MiB).toFixed(0)} MiB at its peak (client, proxy and origin in one process)`);
    expect(peak - before).toBeLessThan(80 * MiB);
    await expectHealthy();
  });

  it('a gzip bomb announced as a small body: passed through as it is (the proxy never inflates the wire), memory bounded', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * MiB, 0));
    const base = await rawOrigin((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\n\r\n`);
      socket.end(bomb);
    });
    const before = process.memoryUsage().rss;
    const response = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port: harness.proxy.port, path: `${base}/bomb`, headers: { host: new URL(base).host } }, (res) => {
        let bytes = 0;
        res.on('data', (part: Buffer) => (bytes += part.length));
        res.on('end', () => resolve({ status: res.statusCode!, bytes }));
      });
      request.on('error', reject);
    });
    expect(response).toEqual({ status: 200, bytes: bomb.length });
    expect(process.memoryUsage().rss - before).toBeLessThan(32 * MiB);
    await expectHealthy();
  });
});

describe('WebSocket', () => {
  it('garbage after the handshake: the bytes are spliced (webRequest sees no frames), the origin drops the connection, the request ended once at the 101', async () => {
    const server = http.createServer();
    const sockets = new WebSocketServer({ noServer: true });
    server.on('upgrade', (req, socket, head) => sockets.handleUpgrade(req, socket, head, (ws) => ws.on('error', () => {})));
    const port = await listen(server);
    const closed = await new Promise<boolean>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/garbage`, { createConnection: () => net.connect(harness.proxy.port, '127.0.0.1') });
      ws.on('open', () => {
        // Not a frame: an unmasked opcode 0xF with a huge length.
        (ws as unknown as { _socket: net.Socket })._socket.write(Buffer.from([0x8f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
      });
      ws.on('close', () => resolve(true));
      ws.on('error', () => {});
      setTimeout(() => resolve(false), 5000);
    });
    expect(closed).toBe(true);
    const url = `ws://127.0.0.1:${port}/garbage`;
    const events = harness.webRequestEntries((e) => e.details.url === url).map((e) => e.event);
    expect(events.at(-1)).toBe('onCompleted');
    await expectHealthy();
  });
});
