// The origin and every client of bench/proxy.ts, in one child process (the proxy under test runs in
// another, so client work never eats the proxy's thread). Driven over IPC; see protocol.ts.
//
// Origin (node:http on 127.0.0.1, keep-alive 120 s so the proxy's upstream sockets never expire mid-run):
//   /small       200, "ok" (Content-Length 2)
//   /small-browser  the same, asked for with the headers Chromium sends for an <img> (Sec-Fetch-*,
//                Referer, Accept-Language, Cookie): what the personas work from
//   /kib         200, 1 KiB of text (the comparison with mitmdump)
//   /hold        200, "ok", but only once openIdle releases all of them together
//   /slow        200, chunked: the head and a first chunk at once, the rest 2 s later
//   /big?bytes=N 200, N bytes generated on the fly (one 64 KiB buffer written again and again,
//                honouring back-pressure), with Content-Length
//
// Clients: node:http with keep-alive agents. For the small GETs each of the `concurrency` workers
// owns an http.Agent with maxSockets 1 (one connection per worker, so concurrency = connections)
// and retires it after `requestsPerConnection` requests, as browsers open new connections too (and
// only new connections can draw an ephemeral port that collides with one of the proxy's upstream
// sockets, which is what made mockttp refuse healthy requests). node:http rather than undici: the
// clients need absolute-form request targets to a plain-HTTP proxy, which node:http sends as given
// (undici's ProxyAgent would tunnel through CONNECT unless proxyTunnel: false), and the cost of the
// client is the same for every variant; it runs on the other core and is not the limit (the bench
// prints this process's CPU use beside each result).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FirstByteResult, FromLoad, RunResult, ToLoad, Via } from './protocol.js';

const send = (message: FromLoad) => process.send!(message);
const SLOW_DELAY_MS = 2_000;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
const KIB = Buffer.alloc(1024, 'k');

// ── origin ──────────────────────────────────────────────────────────────────
let originRequests = 0;
let originModifiedRequests = 0;
let held: http.ServerResponse[] = [];
function releaseHeld(): void {
  for (const res of held) {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
    res.end('ok');
  }
  held = [];
}
const origin = http.createServer((req, res) => {
  const path = req.url ?? '/';
  if (path === '/kib') {
    originRequests++;
    if (req.headers['x-wrtui-bench'] !== undefined) originModifiedRequests++;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': String(KIB.length) });
    res.end(KIB);
  } else if (path === '/small' || path === '/small-browser') {
    originRequests++;
    if (req.headers['x-wrtui-bench'] !== undefined) originModifiedRequests++;
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '2' });
    res.end('ok');
  } else if (path === '/hold') {
    // An idle connection's opening request: answered when all of them have arrived (openIdle).
    held.push(res);
  } else if (path === '/slow') {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-store' });
    res.write('first chunk\n');
    const timer = setTimeout(() => res.end('the rest, 2 s later\n'), SLOW_DELAY_MS);
    res.on('close', () => clearTimeout(timer));
  } else if (path.startsWith('/big?bytes=')) {
    let left = Number(path.slice('/big?bytes='.length));
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(left) });
    const pump = () => {
      while (left > 0) {
        const piece = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => {
      left = 0;
    });
    pump();
  } else {
    res.writeHead(404).end();
  }
});
origin.keepAliveTimeout = 120_000;
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const originPort = (origin.address() as AddressInfo).port;

// ── clients ─────────────────────────────────────────────────────────────────
/**
 * Request options for `path` on the origin, straight or through the proxy on port `via`. Through a
 * proxy: absolute-form target and the origin's Host, as browsers and curl send (node:http would
 * otherwise put the proxy's own address in Host).
 */
function target(via: Via, path: string): http.RequestOptions {
  return via === null
    ? { host: '127.0.0.1', port: originPort, path }
    : { host: '127.0.0.1', port: via, path: `http://127.0.0.1:${originPort}${path}`, headers: { Host: `127.0.0.1:${originPort}` } };
}

interface Reply {
  status: number;
  body: string;
  modified: boolean;
}

const BROWSER_HEADERS = {
  'User-Agent': 'Mozilla/5.0 Chrome/156.0.0.0',
  Accept: 'image/avif,image/webp,image/apng,*/*;q=0.8',
  'Sec-Fetch-Site': 'same-origin',
  'Sec-Fetch-Mode': 'no-cors',
  'Sec-Fetch-Dest': 'image',
  Referer: 'http://127.0.0.1/page',
  'Accept-Encoding': 'gzip, deflate',
  'Accept-Language': 'en-US,en;q=0.9',
  Cookie: 'session=abc; theme=dark',
};

function get(via: Via, agent: http.Agent, path = '/small'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const options = target(via, path);
    if (path === '/small-browser') options.headers = { ...options.headers, ...BROWSER_HEADERS };
    const req = http.get({ ...options, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, modified: res.headers['x-wrtui-bench-response'] !== undefined }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('timed out after 10 s')));
    req.on('error', reject);
  });
}

const cpuMicros = () => {
  const cpu = process.cpuUsage();
  return cpu.user + cpu.system;
};

let idleAgent: http.Agent | undefined;
let idleClosed = 0;

async function run(message: Extract<ToLoad, { type: 'run' }>): Promise<RunResult> {
  const { via, warmupMs, ms, concurrency, requestsPerConnection, path = '/small' } = message;
  const result: RunResult = {
    ok: 0,
    refusals: 0,
    other: 0,
    errors: 0,
    modifiedResponses: 0,
    modifiedRequests: 0,
    originRequests: 0,
    ms: 0,
    latencies: [],
    firstError: undefined,
    idleClosed: 0,
    loadCpuMicros: 0,
  };
  const started = performance.now();
  const countFrom = started + warmupMs;
  const end = countFrom + ms;
  let cpuAtStart = 0;
  let originAtStart = 0;
  let modifiedAtStart = 0;
  let idleClosedAtStart = 0;
  const startWindow = setTimeout(() => {
    cpuAtStart = cpuMicros();
    originAtStart = originRequests;
    modifiedAtStart = originModifiedRequests;
    idleClosedAtStart = idleClosed;
    send({ type: 'measuring' });
  }, warmupMs);
  let cpuAtEnd = 0;
  let originAtEnd = 0;
  let modifiedAtEnd = 0;
  const endWindow = setTimeout(() => {
    cpuAtEnd = cpuMicros();
    originAtEnd = originRequests;
    modifiedAtEnd = originModifiedRequests;
    result.idleClosed = idleClosed - idleClosedAtStart;
    send({ type: 'measured' });
  }, warmupMs + ms);

  const worker = async () => {
    let agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let used = 0;
    while (performance.now() < end) {
      if (used === requestsPerConnection) {
        agent.destroy();
        agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        used = 0;
      }
      used++;
      const sent = performance.now();
      // Requests answered inside the window count (throughput = completions per second).
      const counted = () => {
        const now = performance.now();
        return now >= countFrom && now <= end;
      };
      try {
        const reply = await get(via, agent, path);
        if (!counted()) continue;
        result.latencies.push(Math.round((performance.now() - sent) * 100) / 100);
        if (reply.status >= 200 && reply.status < 300) {
          result.ok++;
          if (reply.modified) result.modifiedResponses++;
        } else if (reply.body.includes('Passthrough loop detected')) {
          result.refusals++;
          result.firstError ??= `${reply.status} ${reply.body.slice(0, 200)}`;
        } else {
          result.other++;
          result.firstError ??= `${reply.status} ${reply.body.slice(0, 200)}`;
        }
      } catch (error) {
        if (!counted()) continue;
        result.errors++;
        result.firstError ??= String(error);
      }
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  clearTimeout(startWindow);
  clearTimeout(endWindow);
  result.ms = ms;
  result.loadCpuMicros = cpuAtEnd - cpuAtStart;
  result.originRequests = originAtEnd - originAtStart;
  result.modifiedRequests = modifiedAtEnd - modifiedAtStart;
  return result;
}

/**
 * `count` connections through `via`, each made one request and now sits idle in a keep-alive pool
 * (maxFreeSockets raised: the default keeps only 256). The origin holds those requests until all
 * have arrived and then answers them together, so every connection's idle time starts at the same
 * moment (the proxy closes a connection 5 s after its last answer; opening 1,000 takes a second or
 * more under load). Their closes are counted: the far end dropping them would make the "1,000 idle"
 * measurement a lie.
 */
async function openIdle(via: Via, count: number) {
  const agent = new http.Agent({ keepAlive: true, maxFreeSockets: count });
  idleAgent = agent;
  let ok = 0;
  let refusals = 0;
  let failed = 0;
  let answeredEarly = 0; // not held by the origin: refused or failed by the proxy
  let firstError: string | undefined;
  let released = false;
  const releaser = setInterval(() => {
    if (held.length + answeredEarly >= count) release();
  }, 10);
  const giveUp = setTimeout(() => release(), 20_000);
  const release = () => {
    released = true;
    clearInterval(releaser);
    clearTimeout(giveUp);
    releaseHeld();
  };
  await Promise.all(
    Array.from({ length: count }, async () => {
      try {
        const reply = await get(via, agent, '/hold');
        if (!released) answeredEarly++;
        if (reply.status === 200) ok++;
        else if (reply.body.includes('Passthrough loop detected')) refusals++;
        else failed++;
        if (reply.status !== 200) firstError ??= `${reply.status} ${reply.body.slice(0, 200)}`;
      } catch (error) {
        if (!released) answeredEarly++;
        failed++;
        firstError ??= String(error);
      }
    }),
  );
  release();
  await new Promise((resolve) => setImmediate(resolve)); // let the last sockets return to the pool
  for (const sockets of Object.values(agent.freeSockets)) {
    for (const socket of (sockets ?? []) as Socket[]) {
      socket.once('close', () => {
        if (idleAgent === agent) idleClosed++;
      });
    }
  }
  return { ok, refusals, failed, firstError };
}

/**
 * Head, first byte and end of /slow through each of `vias` in turn, each on a keep-alive connection
 * warmed by a small GET just before (so connection set-up is not part of it). The next variant
 * starts when the previous one's first byte arrived; the 2 s tails overlap (they cost no CPU).
 */
async function firstBytes(vias: Via[]): Promise<FirstByteResult[]> {
  const tails: Promise<FirstByteResult>[] = [];
  for (const via of vias) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const warmed = await get(via, agent).then(
      () => undefined,
      (error: unknown) => String(error),
    );
    let onFirstByte!: () => void;
    const firstByteSeen = new Promise<void>((resolve) => (onFirstByte = resolve));
    const sent = performance.now();
    const tail = new Promise<FirstByteResult>((resolve) => {
      const result: FirstByteResult = { via, status: 0, headersMs: NaN, firstByteMs: NaN, totalMs: NaN, bytes: 0, ...(warmed && { error: warmed }) };
      const finish = (error?: unknown) => {
        onFirstByte();
        agent.destroy();
        resolve(error === undefined ? result : { ...result, error: String(error) });
      };
      const req = http.get({ ...target(via, '/slow'), agent }, (res) => {
        result.status = res.statusCode!;
        result.headersMs = performance.now() - sent;
        res.on('data', (chunk: Buffer) => {
          if (result.bytes === 0) {
            result.firstByteMs = performance.now() - sent;
            onFirstByte();
          }
          result.bytes += chunk.length;
        });
        res.on('end', () => {
          result.totalMs = performance.now() - sent;
          finish();
        });
        res.on('error', finish);
      });
      req.setTimeout(10_000, () => req.destroy(new Error('timed out after 10 s')));
      req.on('error', finish);
    });
    tails.push(tail);
    await firstByteSeen;
  }
  return Promise.all(tails);
}

function download(via: Via, bytes: number): Promise<Extract<FromLoad, { type: 'downloaded' }>> {
  return new Promise((resolve) => {
    const sent = performance.now();
    let received = 0;
    let status = 0;
    const done = (error?: unknown) =>
      resolve({ type: 'downloaded', status, bytes: received, ms: performance.now() - sent, ...(error !== undefined && { error: String(error) }) });
    const req = http.get({ ...target(via, `/big?bytes=${bytes}`), agent: false }, (res) => {
      status = res.statusCode!;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length; // discarded
      });
      res.on('end', () => done());
      res.on('error', done);
    });
    req.setTimeout(60_000, () => req.destroy(new Error('stalled for 60 s')));
    req.on('error', done);
  });
}

process.on('message', (message: ToLoad) => {
  void (async () => {
    switch (message.type) {
      case 'run':
        send({ type: 'ran', ...(await run(message)) });
        break;
      case 'open-idle':
        send({ type: 'idle-open', ...(await openIdle(message.via, message.count)) });
        break;
      case 'close-idle':
        idleAgent?.destroy();
        idleAgent = undefined;
        await new Promise((resolve) => setTimeout(resolve, 300)); // let the proxy see the closes
        send({ type: 'idle-closed' });
        break;
      case 'first-byte':
        send({ type: 'first-byte', results: await firstBytes(message.via) });
        break;
      case 'download':
        send(await download(message.via, message.bytes));
        break;
      case 'usage':
        send({ type: 'usage', cpuMicros: cpuMicros() });
        break;
    }
  })();
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', originPort });
