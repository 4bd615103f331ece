// wrtui's own upstream forwarding (capture-proxy.ts #handle/#exchange/#relay), on the wire: a real
// origin on 127.0.0.1, the real CaptureProxy in front of it, node:http, undici (HTTP/1.1 and HTTP/2)
// and curl as clients. Each test is named after the rule it checks: a blocking onHeadersReceived
// holds the head and never the body; a request body over the cap streams through whole; a proxy loop
// is answered 508 and logged; an HTTP/2 client's request goes out as a proper HTTP/1.1 request;
// response heads reach the client exactly as the origin (or a listener) wrote them; bodiless
// responses end cleanly and leave the connection reusable; trailers go through.
import { randomBytes } from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import http from 'node:http';
import net from 'node:net';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { TLSSocket } from 'node:tls';
import { generateCACertificate } from 'mockttp';
import { getCA } from 'mockttp/dist/util/certificates';
import { ProxyAgent, request as undiciRequest } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEntry, LogEntry, WebRequestEntry } from '../../src/engine/journal.js';
import type { HttpHeaders, OnBeforeRequestDetails, OnCompletedDetails, OnSendHeadersDetails } from '../../src/engine/types.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { finished, requestIdOf, startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const ONE_HOP = ['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onResponseStarted', 'onCompleted'];
const ALL_URLS = { urls: ['<all_urls>'] };

/** The response heads /exact-head answers with, byte for byte (no Date: the origin sends none). */
const EXACT_HEAD: string[] = [
  'X-First', 'one',
  'set-cookie', 'a=1; Path=/',
  'Content-Type', 'text/plain',
  'SET-COOKIE', 'b=2; Path=/',
  'X-Repeated', 'first',
  'x-mixed-CASE', 'value',
  'X-Repeated', 'second',
  'Set-Cookie', 'c=3; HttpOnly',
  'Content-Length', '5',
];

let origin: Origin;
let h: ProxyHarness;

beforeAll(async () => {
  origin = await startOrigin((req, res) => {
    const url = new URL(req.url!, 'http://origin');
    switch (url.pathname) {
      case '/slow':
        // The head and a first chunk now, the rest 1.5 s later.
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Origin': 'yes' });
        res.write('first');
        setTimeout(() => res.end('last'), 1500);
        return;
      case '/big': {
        // `bytes` bytes made on the fly, written as fast as the proxy takes them.
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let left = Number(url.searchParams.get('bytes'));
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(left) });
        const pump = () => {
          while (left > 0) {
            const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
            left -= piece.length;
            if (!res.write(piece)) return void res.once('drain', pump);
          }
          res.end();
        };
        return pump();
      }
      case '/echo':
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ ok: true }));
      case '/exact-head':
        res.sendDate = false;
        res.writeHead(200, 'OK', EXACT_HEAD);
        return res.end('exact');
      case '/status': {
        const code = Number(url.searchParams.get('code'));
        // A body the proxy must not pass on (Node drops it itself for 204/304 and HEAD).
        if (code !== 200) {
          res.writeHead(code, { 'X-Status': String(code), ETag: '"v1"' });
          return res.end();
        }
        res.writeHead(code, { 'X-Status': String(code), ETag: '"v1"', 'Content-Length': '10' });
        return res.end(req.method === 'HEAD' ? undefined : 'has a body');
      }
      case '/two-chunks':
        // No Content-Length: Node frames this chunked for an HTTP/1.1 request (the proxy's upstream one).
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('a');
        return res.end('b');
      case '/trailer':
        res.writeHead(200, { 'Content-Type': 'text/plain', Trailer: 'X-Checksum' });
        res.write('part one, ');
        res.addTrailers({ 'X-Checksum': 'sha1-abc123' });
        return res.end('part two');
      default:
        res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Origin': 'yes' });
        return res.end(`hello ${req.method} ${url.pathname}`);
    }
  });
  h = await startProxyHarness();
});
afterAll(async () => {
  await h.close();
  await origin.close();
});
afterEach(() => {
  for (const listener of h.engine.registry.describe()) h.engine.registry.removeOwner({ id: listener.owner } as never);
});

// ── Clients ────────────────────────────────────────────────────────────────────────────────────

interface Reply {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  body: Buffer;
  rawTrailers: string[];
  /** The client's local port: the same port twice means the connection was reused. */
  localPort: number | undefined;
}

/**
 * node:http through the proxy (absolute-form request line, plain HTTP/1.1), or straight to the
 * origin when `direct`. `chunks` are written one by one (no Content-Length: chunked framing).
 */
function viaNodeHttp(
  url: string,
  options: { method?: string; headers?: http.OutgoingHttpHeaders; agent?: http.Agent; chunks?: Buffer[]; direct?: boolean; port?: number } = {},
): Promise<Reply> {
  return new Promise<Reply>((resolve, reject) => {
    const target = new URL(url);
    const req = http.request({
      ...(options.direct
        ? { host: target.hostname, port: target.port, path: target.pathname + target.search }
        : { host: '127.0.0.1', port: options.port ?? h.proxy.port, path: url }),
      method: options.method ?? 'GET',
      headers: options.headers ?? {},
      agent: options.agent ?? new http.Agent({ keepAlive: false }),
      timeout: 8_000,
    });
    let localPort: number | undefined;
    req.on('socket', (socket) => {
      if (socket.localPort) localPort = socket.localPort;
      else socket.once('connect', () => (localPort = socket.localPort));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer for ${url} within 8 s`)));
    req.on('error', reject);
    req.on('response', (res) => {
      const body: Buffer[] = [];
      res.on('data', (chunk: Buffer) => body.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, statusMessage: res.statusMessage ?? '', rawHeaders: res.rawHeaders, body: Buffer.concat(body), rawTrailers: res.rawTrailers, localPort }),
      );
    });
    const writeNext = (chunks: Buffer[]) => {
      const [chunk, ...rest] = chunks;
      if (!chunk) return void req.end();
      req.write(chunk);
      setTimeout(() => writeNext(rest), 20); // separate chunks on the wire
    };
    if (options.chunks) writeNext(options.chunks);
    else req.end();
  });
}

function pairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
}

function asRaw(headers: HttpHeaders): string[] {
  return headers.flatMap((header) => [header.name, header.value ?? '']);
}

function logs(entries: JournalEntry[]): LogEntry[] {
  return entries.filter((entry): entry is LogEntry & JournalEntry => entry.kind === 'log');
}

function entryOf<T>(harness: ProxyHarness, id: string, event: string): T {
  const entry = harness.webRequestEntries((e) => e.details.requestId === id && e.event === event)[0];
  if (!entry) throw new Error(`request ${id} has no ${event}: ${harness.events(id).join(', ')}`);
  return entry.details as T;
}

/** The value of the one header called `name` (case-insensitive) among raw pairs; fails on zero or several. */
function single(raw: readonly string[], name: string): string {
  const found = pairs(raw).filter(([n]) => n.toLowerCase() === name);
  expect(found, `exactly one ${name} header in ${JSON.stringify(raw)}`).toHaveLength(1);
  return found[0]![1];
}

// ── 1. A blocking onHeadersReceived holds the head, never the body ─────────────────────────────

describe('a blocking onHeadersReceived listener holds the head, not the body', () => {
  const variants = [
    { name: 'returning nothing', path: '/slow?quiet', added: undefined },
    { name: 'adding a response header', path: '/slow?adds', added: 'by listener' },
  ];
  for (const variant of variants) {
    it(`with a listener ${variant.name}: the first chunk reaches the client long before the rest, and onCompleted waits for the body's end`, async () => {
      const url = `${origin.url}${variant.path}`;
      let seen = 0;
      h.api('holder').chrome.webRequest!.onHeadersReceived.addListener(
        (d) => {
          if (d.url !== url) return undefined;
          seen++;
          return variant.added === undefined ? undefined : { responseHeaders: [...d.responseHeaders!, { name: 'X-Added', value: variant.added }] };
        },
        ALL_URLS,
        ['blocking', 'responseHeaders'],
      );
      const started = Date.now();
      const response = await h.fetch(url);
      const headMs = Date.now() - started;
      const reader = response.body[Symbol.asyncIterator]();
      const first = await reader.next();
      const firstChunkMs = Date.now() - started;
      expect(Buffer.from(first.value as Buffer).toString()).toBe('first');
      expect(headMs).toBeLessThan(1000);
      expect(firstChunkMs).toBeLessThan(1000);
      expect(response.headers['x-origin']).toBe('yes');
      expect(response.headers['x-added']).toBe(variant.added);
      let rest = '';
      for (let next = await reader.next(); !next.done; next = await reader.next()) rest += Buffer.from(next.value as Buffer).toString();
      expect(rest).toBe('last');
      expect(Date.now() - started).toBeGreaterThan(1200);
      expect(seen).toBe(1);

      const id = requestIdOf(h, url);
      await finished(h, id);
      expect(h.events(id)).toEqual(ONE_HOP);
      const responseStarted = entryOf<{ timeStamp: number }>(h, id, 'onResponseStarted');
      const completed = entryOf<OnCompletedDetails>(h, id, 'onCompleted');
      // onResponseStarted with the head, onCompleted only once the body ended 1.5 s later.
      expect(responseStarted.timeStamp - started).toBeLessThan(1000);
      expect(completed.timeStamp - responseStarted.timeStamp).toBeGreaterThan(1000);
      if (variant.added !== undefined) expect(completed.responseHeaders).toContainEqual({ name: 'X-Added', value: variant.added });
    });
  }
});

// ── 2. A chunked request body over the cap ─────────────────────────────────────────────────────

describe('a large download', () => {
  // 128 MiB through two sockets takes 2-19 s here depending on the machine's load: bounded at 90 s.
  it('streams with flat memory: 128 MiB through the proxy never holds more than 32 MiB of live buffers above the baseline', { timeout: 90_000 }, async () => {
    const bytes = 128 * 1024 * 1024;
    const url = `${origin.url}/big?bytes=${bytes}`;
    // Live buffers only: collected first, so the garbage of a fast stream does not count.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const buffers = () => (gc(), process.memoryUsage().arrayBuffers);
    const baseline = buffers();
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, buffers())), 25);
    let received = 0;
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: h.proxy.port, path: url, agent: new http.Agent({ keepAlive: false }) }, (res) => {
          res.on('data', (chunk: Buffer) => (received += chunk.length));
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(200);
    } finally {
      clearInterval(sampler);
    }
    expect(received).toBe(bytes);
    expect((peak - baseline) / 2 ** 20).toBeLessThan(32);
    const id = requestIdOf(h, url);
    await finished(h, id);
    expect(h.events(id)).toEqual(ONE_HOP);
  });
});

describe('a chunked request body over --max-body-size', () => {
  it('reaches the origin byte for byte, and requestBody says `error`', async () => {
    const small = await startProxyHarness({ proxy: { maxBodySize: 1024 } });
    try {
      let requestBody: OnBeforeRequestDetails['requestBody'];
      small.api('big').chrome.webRequest!.onBeforeRequest.addListener(
        (d) => void (d.url.endsWith('/upload') && (requestBody = d.requestBody)),
        ALL_URLS,
        ['requestBody'],
      );
      // Random bytes (not text, not all one letter): 5 × 10 KiB, each written on its own.
      const chunks = Array.from({ length: 5 }, () => randomBytes(10 * 1024));
      const whole = Buffer.concat(chunks);
      const url = `${origin.url}/upload`;
      const reply = await viaNodeHttp(url, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, chunks, port: small.proxy.port });
      expect(reply.status).toBe(200);
      const got = origin.received.filter((r) => r.url === '/upload').at(-1)!;
      expect(got.headers['content-length']).toBeUndefined();
      expect(got.headers['transfer-encoding']).toBe('chunked');
      expect(got.body.length).toBe(whole.length);
      expect(got.body.equals(whole)).toBe(true);
      expect(requestBody).toEqual({ error: expect.stringContaining('larger than') });

      const id = requestIdOf(small, url);
      await finished(small, id);
      expect(small.events(id)).toEqual(ONE_HOP);
      // What onSendHeaders reports as the framing is what went out.
      const sent = entryOf<OnSendHeadersDetails>(small, id, 'onSendHeaders');
      expect(sent.requestHeaders!.filter((x) => /^(content-length|transfer-encoding)$/i.test(x.name)).map((x) => `${x.name.toLowerCase()}: ${x.value}`)).toEqual(['transfer-encoding: chunked']);
    } finally {
      await small.close();
    }
  });
});

// ── 3. A proxy loop ────────────────────────────────────────────────────────────────────────────

describe('a request for the proxy itself', () => {
  it('is answered 508 naming the loop, logged as a capture warning, and the proxy keeps serving', async () => {
    const loopUrl = `http://127.0.0.1:${h.proxy.port}/x`;
    const reply = await viaNodeHttp(loopUrl);
    expect(reply.status).toBe(508);
    expect(reply.body.toString()).toMatch(/proxy loop/);
    expect(reply.body.toString()).toContain(loopUrl);
    const warning = logs(h.entries).find((e) => e.source === 'capture' && e.level === 'warn' && /loop/.test(e.message));
    expect(warning, JSON.stringify(logs(h.entries))).toBeDefined();
    expect(warning!.message).toContain(loopUrl);

    // The client's request is one web request whose response (the 508) completed; the proxy's own
    // forward of it was refused before it became a second one.
    const looped = h.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === loopUrl);
    expect(looped).toHaveLength(1);
    const id = looped[0]!.details.requestId;
    await finished(h, id);
    expect(h.events(id)).toEqual(ONE_HOP);
    expect(entryOf<OnCompletedDetails>(h, id, 'onCompleted').statusCode).toBe(508);

    const after = await h.fetch(`${origin.url}/after-loop`);
    expect(after.statusCode).toBe(200);
    expect(await after.body.text()).toBe('hello GET /after-loop');
  });
});

// ── 4. An HTTP/2 client ────────────────────────────────────────────────────────────────────────

describe('an HTTP/2 client through CONNECT', () => {
  it('POSTing JSON: the origin gets exactly the body, the target\'s Host, one Cookie header, and onSendHeaders shows what went out', async () => {
    const root = await generateCACertificate({ subject: { commonName: 'forwarding test origin root' } });
    const leaf = await (await getCA({ cert: root.cert, key: root.key })).generateCertificate('localhost');
    const secure = await startOrigin((_req, res) => res.end('h2 ok'), { tls: { cert: leaf.cert, key: leaf.key, hostname: 'localhost' } });
    const hh = await startProxyHarness({ proxy: { insecureUpstreamHosts: ['localhost'] } });
    // allowH2 must be in requestTls too: ProxyAgent builds the tunnel's TLS connector from it alone
    // (without it ALPN offers http/1.1 only and this test would silently run over HTTP/1.1).
    const dispatcher = new ProxyAgent({ uri: hh.proxy.url, allowH2: true, requestTls: { ca: hh.ca.cert, allowH2: true } });
    const protocols: string[] = [];
    const onConnected = (message: unknown) => {
      const socket = (message as { socket?: TLSSocket }).socket;
      if (socket && 'alpnProtocol' in socket) protocols.push(String(socket.alpnProtocol));
    };
    diagnosticsChannel.subscribe('undici:client:connected', onConnected);
    try {
      const url = `${secure.url}/api/items?x=1`;
      const json = JSON.stringify({ name: 'café ☕', list: [1, 2, 3], nested: { ok: true } });
      const response = await undiciRequest(url, {
        dispatcher,
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: ['a=1', 'b=2'] },
        body: json,
      });
      expect(response.statusCode).toBe(200);
      expect(await response.body.text()).toBe('h2 ok');
      // The client really spoke HTTP/2 to the proxy (ALPN inside the tunnel).
      expect(protocols).toContain('h2');

      const got = secure.received.at(-1)!;
      expect(got.method).toBe('POST');
      expect(got.url).toBe('/api/items?x=1');
      expect(got.body.toString('utf8')).toBe(json);
      expect(single(got.rawHeaders, 'host')).toBe(new URL(secure.url).host);
      expect(single(got.rawHeaders, 'cookie')).toBe('a=1; b=2');
      expect(single(got.rawHeaders, 'content-length')).toBe(String(Buffer.byteLength(json)));
      expect(got.rawHeaders.some((name) => name.startsWith(':'))).toBe(false);

      const id = requestIdOf(hh, url);
      await finished(hh, id);
      expect(hh.events(id)).toEqual(ONE_HOP);
      const sent = entryOf<OnSendHeadersDetails>(hh, id, 'onSendHeaders');
      const sentRaw = asRaw(sent.requestHeaders!);
      expect(single(sentRaw, 'host')).toBe(single(got.rawHeaders, 'host'));
      expect(single(sentRaw, 'content-length')).toBe(single(got.rawHeaders, 'content-length'));
      expect(single(sentRaw, 'cookie')).toBe('a=1; b=2');
      // Header for header, what onSendHeaders reports is what the origin got (Node's client adds Connection).
      expect(pairs(sentRaw).map(([n]) => n.toLowerCase())).toEqual(pairs(got.rawHeaders).map(([n]) => n.toLowerCase()).filter((n) => n !== 'connection'));
    } finally {
      diagnosticsChannel.unsubscribe('undici:client:connected', onConnected);
      await dispatcher.close();
      await hh.close();
      await secure.close();
    }
  });
});

// ── 5. Response heads as written ───────────────────────────────────────────────────────────────

describe('response headers reach an HTTP/1.1 client as written', () => {
  it('exactly as the origin sent them: order, case, repeated Set-Cookie and custom headers, no Date added', async () => {
    const agent = () => new http.Agent({ keepAlive: true });
    const direct = await viaNodeHttp(`${origin.url}/exact-head`, { direct: true, agent: agent() });
    const proxied = await viaNodeHttp(`${origin.url}/exact-head`, { agent: agent() });
    expect(proxied.status).toBe(200);
    expect(proxied.statusMessage).toBe('OK');
    expect(proxied.body.toString()).toBe('exact');
    // The origin's own head starts with EXACT_HEAD (Node appends only Connection / Keep-Alive).
    expect(direct.rawHeaders.slice(0, EXACT_HEAD.length)).toEqual(EXACT_HEAD);
    expect(proxied.rawHeaders).toEqual(direct.rawHeaders);
    expect(proxied.rawHeaders.some((name, i) => i % 2 === 0 && name.toLowerCase() === 'date')).toBe(false);

    const id = requestIdOf(h, `${origin.url}/exact-head`);
    await finished(h, id);
    expect(h.events(id)).toEqual(ONE_HOP);
  });

  it('exactly as a listener replaced them', async () => {
    const replaced: HttpHeaders = [
      { name: 'x-from-listener', value: 'yes' },
      { name: 'Set-Cookie', value: 'z=26' },
      { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
      { name: 'set-cookie', value: 'y=25' },
      { name: 'Content-Length', value: '5' },
      { name: 'X-Repeated', value: 'only once now' },
    ];
    h.api('rewriter').chrome.webRequest!.onHeadersReceived.addListener(
      (d) => (d.url.endsWith('/exact-head?rewritten') ? { responseHeaders: replaced } : undefined),
      ALL_URLS,
      ['blocking', 'responseHeaders'],
    );
    const proxied = await viaNodeHttp(`${origin.url}/exact-head?rewritten`, { agent: new http.Agent({ keepAlive: true }) });
    expect(proxied.status).toBe(200);
    expect(proxied.body.toString()).toBe('exact');
    // Connection and Keep-Alive belong to the client's own connection (hop by hop); everything else is the listener's.
    const endToEnd = pairs(proxied.rawHeaders).filter(([name]) => !/^(connection|keep-alive)$/i.test(name));
    expect(endToEnd).toEqual(pairs(asRaw(replaced)));
  });
});

// ── 6. Bodiless responses ──────────────────────────────────────────────────────────────────────

describe('responses without a body (HEAD, 204, 304)', () => {
  it('complete with onCompleted, give the client no body, and leave the keep-alive connection reusable', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const cases = [
        { method: 'HEAD', url: `${origin.url}/status?code=200&head`, status: 200 },
        { method: 'GET', url: `${origin.url}/status?code=204`, status: 204 },
        { method: 'GET', url: `${origin.url}/status?code=304`, status: 304, headers: { 'If-None-Match': '"v1"' } },
        { method: 'HEAD', url: `${origin.url}/status?code=204&head`, status: 204 },
        { method: 'GET', url: `${origin.url}/after-bodiless`, status: 200 },
      ];
      const ports: (number | undefined)[] = [];
      for (const c of cases) {
        const reply = await viaNodeHttp(c.url, { method: c.method, agent, ...(c.headers && { headers: c.headers }) });
        expect(reply.status, `${c.method} ${c.url}`).toBe(c.status);
        if (c.status !== 200 || c.method === 'HEAD') {
          expect(reply.body.length, `${c.method} ${c.url}`).toBe(0);
          expect(single(reply.rawHeaders, 'x-status')).toBe(String(c.status));
        } else expect(reply.body.toString()).toBe('hello GET /after-bodiless');
        ports.push(reply.localPort);
        const id = h.webRequestEntries((e) => e.event === 'onBeforeRequest' && e.details.url === c.url && e.details.method === c.method).at(-1)!.details.requestId;
        await finished(h, id);
        expect(h.events(id), `${c.method} ${c.url}`).toEqual(ONE_HOP);
        expect(entryOf<OnCompletedDetails>(h, id, 'onCompleted').statusCode).toBe(c.status);
      }
      // One connection served them all: each bodiless response ended cleanly on a reusable connection.
      expect(new Set(ports).size).toBe(1);
      expect(ports[0]).toBeDefined();
    } finally {
      agent.destroy();
    }
  });

  it('a HEAD answer keeps the origin\'s Content-Length and sends no bytes after the head (curl)', async () => {
    const { stdout, code } = await h.curl(['-sS', '-I', '-w', '%{size_download}', `${origin.url}/status?code=200&curl-head`]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(stdout).toMatch(/\r\nContent-Length: 10\r\n/i);
    expect(stdout.endsWith('\r\n\r\n0')).toBe(true);
  });
});

// ── 7. Trailers ────────────────────────────────────────────────────────────────────────────────

describe('an origin answering 407 Proxy Authentication Required', () => {
  it('is not passed on as wrtui\'s own demand: the client sees a network failure, onErrorOccurred net::ERR_UNEXPECTED_PROXY_AUTH', async () => {
    const url = `${origin.url}/status?code=407`;
    await expect(viaNodeHttp(url)).rejects.toThrow();
    const id = requestIdOf(h, url);
    const last = await finished(h, id);
    expect(h.events(id)).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onSendHeaders', 'onHeadersReceived', 'onErrorOccurred']);
    expect((last as WebRequestEntry).details).toMatchObject({ error: 'net::ERR_UNEXPECTED_PROXY_AUTH' });
  });
});

describe('trailers', () => {
  it('a chunked response\'s trailer reaches the HTTP/1.1 client', async () => {
    const url = `${origin.url}/trailer`;
    const reply = await viaNodeHttp(url);
    expect(reply.status).toBe(200);
    expect(reply.body.toString()).toBe('part one, part two');
    expect(single(reply.rawHeaders, 'trailer')).toBe('X-Checksum');
    expect(reply.rawTrailers).toEqual(['X-Checksum', 'sha1-abc123']);
    const id = requestIdOf(h, url);
    await finished(h, id);
    expect(h.events(id)).toEqual(ONE_HOP);
  });
});

// ── An HTTP/1.0 client ─────────────────────────────────────────────────────────────────────────

describe('an HTTP/1.0 client', () => {
  // RFC 9112 §6.1: a server MUST NOT send Transfer-Encoding in a response to an HTTP/1.0 request;
  // the origin's chunked framing and keep-alive are for the proxy's connection, not this client's.
  it('gets the body as the origin meant it, never chunked framing (RFC 9112 §6.1), and the connection closes after it', async () => {
    const socket = net.connect(h.proxy.port, '127.0.0.1');
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('latin1')));
    socket.write(`GET ${origin.url}/two-chunks HTTP/1.0\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`);
    // An HTTP/1.0 body without Content-Length ends when the connection does.
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 2000);
      socket.once('close', () => (clearTimeout(timer), resolve(true)));
    });
    socket.destroy();
    expect(closed, 'the proxy closed the connection to end the body').toBe(true);
    const [head = '', body] = raw.split('\r\n\r\n', 2) as [string?, string?];
    expect(head).toMatch(/^HTTP\/1\.[01] 200 /);
    expect(head).not.toMatch(/\r\nTransfer-Encoding:/i);
    expect(body).toBe('ab');
  });
});
