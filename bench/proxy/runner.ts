// One proxy, alone in its process, for bench/proxy.ts: its CPU and RSS are then the proxy's own.
// Run (by the bench, over IPC, bundled first: see bench/proxy.ts): node --expose-gc runner.js <kind> [listeners]
//   kind       mockttp | wrtui | mitmdump (Debian's mitmdump -q, started and measured by this runner)
//              | node-http (the floor: a plain node:http forward proxy, keep-alive upstream, bodies piped)
//              | wrtui-node-http (an experiment: wrtui's lifecycle and upstream client behind plain node:http, no mockttp)
//   listeners  (wrtui, wrtui-node-http) none | mixed | mixed-streaming | completed | blocking-headers
//              mixed-workers: the "mixed" ten as two rule files, each in its own worker (as users run them)
//              mixed-workers-chrome / -firefox: the same under the chrome or firefox persona (--persona)
//              examples: the example rules (examples/rules), each in its own worker
//              stream-filter: a Firefox add-on (firefox persona, its worker) whose StreamFilter passes every body through
// Reports { type: 'ready', port } once listening; answers 'usage', 'stats', 'stop'. mockttp listens on
// every interface: wrtui refuses non-loopback clients itself, and the bare mockttp here is made to.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { Server, Socket } from 'node:net';
import { spawn as spawnProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PerformanceObserver } from 'node:perf_hooks';
import * as mockttp from 'mockttp';
import { CaptureProxy } from '../../src/engine/capture/capture-proxy.js';
import { headersToForward } from '../../src/engine/capture/request-intake.js';
import { UpstreamTransport } from '../../src/engine/capture/upstream-transport.js';
import { headersFromRaw, headersToRaw } from '../../src/engine/headers.js';
import { runRequest } from '../../src/engine/web-request/run-request.js';
import { loadOrCreateCertificateAuthority } from '../../src/engine/capture/certificate-authority.js';
import { Engine } from '../../src/engine/engine.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import type { HttpHeaders } from '../../src/engine/types.js';
import type { FromRunner, ListenerSet, ProxyKind, ToRunner } from './protocol.js';
import { createRequestLog, REQUEST_LOG_EVENTS } from '../../src/app/request-log.js';
import { stdoutLines } from '../../src/app/stdout-lines.js';

const kind = process.argv[2] as ProxyKind;
const listenerSet = (process.argv[3] ?? 'none') as ListenerSet;
const send = (message: FromRunner) => process.send!(message);
const calls: Record<string, number> = {};
const count = (name: string) => {
  calls[name] = (calls[name] ?? 0) + 1;
};

/** Adds one header (a small change, as a rule tagging requests or responses would make). */
const plus = (headers: HttpHeaders | undefined, name: string): HttpHeaders => [...(headers ?? []), { name, value: '1' }];

/**
 * Registers a listener set through the extension API, as rule files do (two owners, like two rules).
 *  mixed: 5 blocking — onBeforeRequest ×2 (match, return nothing), onBeforeSendHeaders (adds a
 *         request header), onHeadersReceived ×2 (one returns nothing, one adds a response header);
 *         5 non-blocking — onBeforeRequest, onSendHeaders (requestHeaders), onHeadersReceived
 *         (responseHeaders), onResponseStarted (responseHeaders), onCompleted (responseHeaders).
 *  mixed-streaming: the same ten with both onHeadersReceived listeners non-blocking, i.e. with
 *         no blocking onHeadersReceived (the first-byte test compares both).
 *  completed: one non-blocking onCompleted (responseHeaders).
 *  blocking-headers: one blocking onHeadersReceived that returns nothing.
 */
function registerListeners(engine: Engine, set: ListenerSet): void {
  if (set === 'none') return;
  const a = engine.extensionApi(createTrustedOwner('bench-rule-a')).chrome.webRequest!;
  const b = engine.extensionApi(createTrustedOwner('bench-rule-b')).chrome.webRequest!;
  const all = { urls: ['<all_urls>'] };
  const local = { urls: ['http://127.0.0.1/*'] };
  if (set === 'completed') {
    a.onCompleted.addListener(() => count('onCompleted'), all, ['responseHeaders']);
    return;
  }
  if (set === 'blocking-headers') {
    a.onHeadersReceived.addListener(
      () => {
        count('onHeadersReceived (blocking)');
      },
      all,
      ['blocking', 'responseHeaders'],
    );
    return;
  }
  const headersBlocking = set === 'mixed';
  // 5 blocking (3 when mixed-streaming)
  a.onBeforeRequest.addListener(
    (details) => {
      count('onBeforeRequest (blocking, all_urls)');
      return details.url.includes('/never-') ? { cancel: true } : undefined;
    },
    all,
    ['blocking'],
  );
  b.onBeforeRequest.addListener(
    (details) => {
      count('onBeforeRequest (blocking, 127.0.0.1)');
      return details.method === 'DELETE' ? { cancel: true } : undefined;
    },
    local,
    ['blocking'],
  );
  a.onBeforeSendHeaders.addListener(
    (details) => {
      count('onBeforeSendHeaders (blocking, +header)');
      return { requestHeaders: plus(details.requestHeaders, 'X-Wrtui-Bench') };
    },
    all,
    ['blocking', 'requestHeaders'],
  );
  b.onHeadersReceived.addListener(
    (details) => {
      count(`onHeadersReceived (${headersBlocking ? 'blocking' : 'observing'}, nothing)`);
      return details.statusCode === 599 ? { cancel: true } : undefined;
    },
    local,
    headersBlocking ? ['blocking', 'responseHeaders'] : ['responseHeaders'],
  );
  a.onHeadersReceived.addListener(
    (details) => {
      count(`onHeadersReceived (${headersBlocking ? 'blocking' : 'observing'}, +header)`);
      return { responseHeaders: plus(details.responseHeaders, 'X-Wrtui-Bench-Response') };
    },
    all,
    headersBlocking ? ['blocking', 'responseHeaders'] : ['responseHeaders'],
  );
  // 5 non-blocking
  b.onBeforeRequest.addListener(() => count('onBeforeRequest (observing)'), all);
  a.onSendHeaders.addListener(() => count('onSendHeaders (requestHeaders)'), all, ['requestHeaders']);
  b.onHeadersReceived.addListener(() => count('onHeadersReceived (observing)'), all, ['responseHeaders']);
  a.onResponseStarted.addListener(() => count('onResponseStarted (responseHeaders)'), local, ['responseHeaders']);
  b.onCompleted.addListener(() => count('onCompleted (responseHeaders)'), all, ['responseHeaders']);
}

let journalWarnings = 0;
/** wrtui's mockttp events that cost every request when subscribed (mockttp-hooks.ts): must stay empty. */
let costlySubscriptions = (): string[] => [];
let journalErrors = 0;
const firstProblems: string[] = [];
let stop: () => Promise<void>;
let port: number;

/** The "mixed" listeners as two rule files (rule-a, rule-b), the way a user would write them. */
/** The pass-through StreamFilter every Firefox filtering add-on starts from: each chunk written back as it came. */
const PASS_THROUGH_FILTER = `browser.webRequest.onBeforeRequest.addListener((details) => {
  const filter = browser.webRequest.filterResponseData(details.requestId);
  filter.ondata = (event) => filter.write(event.data);
  filter.onstop = () => filter.close();
}, { urls: ['<all_urls>'] }, ['blocking']);`;

const MIXED_RULES = {
  'rule-a.ts': `
const plus = (headers: { name: string; value?: string }[] | undefined, name: string) => [...(headers ?? []), { name, value: '1' }];
export const manifest = { name: 'bench-rule-a', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
export default function background({ chrome }: any) {
  const all = { urls: ['<all_urls>'] };
  const local = { urls: ['http://127.0.0.1/*'] };
  chrome.webRequest.onBeforeRequest.addListener((d: any) => (d.url.includes('/never-') ? { cancel: true } : undefined), all, ['blocking']);
  chrome.webRequest.onBeforeSendHeaders.addListener((d: any) => ({ requestHeaders: plus(d.requestHeaders, 'X-Wrtui-Bench') }), all, ['blocking', 'requestHeaders']);
  chrome.webRequest.onHeadersReceived.addListener((d: any) => ({ responseHeaders: plus(d.responseHeaders, 'X-Wrtui-Bench-Response') }), all, ['blocking', 'responseHeaders']);
  chrome.webRequest.onSendHeaders.addListener(() => {}, all, ['requestHeaders']);
  chrome.webRequest.onResponseStarted.addListener(() => {}, local, ['responseHeaders']);
}
`,
  'rule-b.ts': `
export const manifest = { name: 'bench-rule-b', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'] };
export default function background({ chrome }: any) {
  const all = { urls: ['<all_urls>'] };
  const local = { urls: ['http://127.0.0.1/*'] };
  chrome.webRequest.onBeforeRequest.addListener((d: any) => (d.method === 'DELETE' ? { cancel: true } : undefined), local, ['blocking']);
  chrome.webRequest.onHeadersReceived.addListener((d: any) => (d.statusCode === 599 ? { cancel: true } : undefined), local, ['blocking', 'responseHeaders']);
  chrome.webRequest.onBeforeRequest.addListener(() => {}, all);
  chrome.webRequest.onHeadersReceived.addListener(() => {}, all, ['responseHeaders']);
  chrome.webRequest.onCompleted.addListener(() => {}, all, ['responseHeaders']);
}
`,
};

/** CPU µs of one thread (/proc/self/task/<tid>/stat: utime + stime, in clock ticks of 10 ms). */
function threadCpuMicros(pid: number, tid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

let mitmPid = 0;
if (kind === 'mitmdump') {
  // Debian's mitmproxy, quiet, on loopback; no addons: the bare cost of its proxying.
  const mitmPort = 20_000 + (process.pid % 20_000);
  const mitm = spawnProcess('mitmdump', ['-q', '--listen-host', '127.0.0.1', '--listen-port', String(mitmPort), '--set', 'connection_strategy=lazy'], { stdio: ['ignore', 'ignore', 'pipe'] });
  mitm.stderr!.pipe(process.stderr);
  mitmPid = mitm.pid!;
  // However this runner ends, mitmdump ends with it (a runner that gave up once left it running);
  // a SIGTERM becomes an exit, so that this runs then too.
  process.once('exit', () => mitm.kill('SIGKILL'));
  process.once('SIGTERM', () => process.exit(143));
  let exited: string | undefined;
  mitm.once('exit', (code, signal) => (exited = `mitmdump exited (${code ?? signal})`));
  // Ready once it accepts connections.
  const { connect } = await import('node:net');
  for (let tries = 0; ; tries++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(mitmPort, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) break;
    if (exited) throw new Error(exited);
    // Python's start-up, with the other proxies starting beside it on 2 cores, once took over 10 s.
    if (tries > 600) throw new Error('mitmdump did not start listening within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  port = mitmPort;
  stop = async () => {
    mitm.kill('SIGTERM');
  };
} else if (kind === 'http-mitm-proxy') {
  // http-mitm-proxy 1.1 (npm), keep-alive upstream, no handlers: its bare forward.
  const { Proxy } = (await import('http-mitm-proxy')) as unknown as { Proxy: new () => { listen(options: object, callback: (error?: Error) => void): void; close(): void; httpPort: number } };
  const proxy = new Proxy();
  const sslCaDir = await mkdtemp(join(tmpdir(), 'wrtui-bench-mitm-ca-'));
  await new Promise<void>((resolve, reject) => proxy.listen({ host: '127.0.0.1', port: 0, keepAlive: true, sslCaDir }, (error) => (error ? reject(error) : resolve())));
  port = proxy.httpPort;
  stop = async () => {
    proxy.close();
    await rm(sslCaDir, { recursive: true, force: true });
  };
} else if (kind === 'proxy-chain') {
  // proxy-chain 3 (npm, Apify's forward proxy), no upstream proxy: its bare forward.
  const { Server } = (await import('proxy-chain')) as unknown as { Server: new (options: object) => { listen(): Promise<void>; close(closeConnections: boolean): Promise<void>; port: number } };
  const server = new Server({ port: 0, host: '127.0.0.1', verbose: false });
  await server.listen();
  port = server.port;
  stop = () => server.close(true);
} else if (kind === 'whistle') {
  // whistle 2 (npm, a debugging proxy with a web UI), in this process, its data in a temporary folder.
  const dataDir = await mkdtemp(join(tmpdir(), 'wrtui-bench-whistle-'));
  process.env.WHISTLE_PATH = dataDir;
  const whistlePort = 20_000 + ((process.pid + 7_919) % 20_000);
  const startWhistle = (await import('whistle')).default as unknown as (options: object, callback: () => void) => { close?: (callback?: () => void) => void };
  const server = await new Promise<{ close?: (callback?: () => void) => void }>((resolve) => {
    const started = startWhistle({ port: whistlePort, host: '127.0.0.1', storage: `wrtui-bench-${process.pid}` }, () => resolve(started));
  });
  port = whistlePort;
  stop = async () => {
    await new Promise<void>((resolve) => (server.close ? server.close(() => resolve()) : resolve()));
    await rm(dataDir, { recursive: true, force: true });
  };
} else if (kind === 'node-http') {
  // The node:http floor: what forwarding an absolute-form request costs Node with nothing else,
  // no parsing beyond node:http's, no events, no checks (the issue's "twice the node:http floor").
  const http = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const server = http.createServer((req, res) => {
    const target = new URL(req.url!);
    const upstream = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  stop = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    agent.destroy();
  };
} else if (kind === 'mockttp') {
  // Bare mockttp, as the brief says: no wrtui, no loop guard, one passthrough rule.
  const server = mockttp.getLocal({ recordTraffic: false });
  await server.forAnyRequest().thenPassThrough();
  await server.start(0);
  port = server.port;
  // Not an open proxy for the length of the bench (one check per connection, as CaptureProxy does).
  const listening = (server as unknown as { server?: Server }).server;
  if (!listening) throw new Error("cannot reach mockttp's listening server to restrict it to loopback");
  listening.prependListener('connection', (socket: Socket) => {
    if (!/^(127\.|::1$|::ffff:127\.)/.test(socket.remoteAddress ?? '')) socket.destroy();
  });
  stop = () => server.stop();
} else {
  const stateDir = await mkdtemp(join(tmpdir(), 'wrtui-bench-proxy-'));
  const engine = await Engine.open();
  // `wrtui headless`'s own subscriber, its request lines written to stdout (the bench's /dev/null)
  // a turn at a time as headless writes them; it also catches wrtui's own complaints. It reads
  // only the events its lines are made of, as headless declares (journal.ts).
  const out = stdoutLines();
  const requestLog = createRequestLog((line) => out.write(line));
  engine.journal.subscribe(
    (entry) => {
      requestLog(entry);
      if (entry.kind !== 'log' || (entry.level !== 'warn' && entry.level !== 'error')) return;
      if (entry.level === 'warn') journalWarnings++;
      else journalErrors++;
      if (firstProblems.length < 5) firstProblems.push(`${entry.level} ${entry.source}: ${entry.message.slice(0, 300)}`);
    },
    { webRequestEvents: REQUEST_LOG_EVENTS },
  );
  let host: ExtensionHost | undefined;
  const workers = listenerSet.startsWith('mixed-workers');
  if (workers || listenerSet === 'examples') {
    // The bench runs from the repository's root (the runner itself is bundled elsewhere).
    let rulesDir = join(process.cwd(), 'examples', 'rules');
    if (workers) {
      rulesDir = join(stateDir, 'rules');
      await mkdir(rulesDir);
      for (const [file, source] of Object.entries(MIXED_RULES)) await writeFile(join(rulesDir, file), source);
    }
    const persona = listenerSet === 'mixed-workers-chrome' ? 'chrome' : listenerSet === 'mixed-workers-firefox' ? 'firefox' : undefined;
    host = await ExtensionHost.start(engine, { rulesDir, watch: false, typeCheck: false, ...(persona && { persona }) });
    const failed = host.rules().filter((rule) => rule.state !== 'active');
    if (failed.length > 0) throw new Error(`rules failed to load: ${failed.map((rule) => `${rule.name}: ${rule.error?.message}`).join('; ')}`);
    // The examples are dry-run (a first run shows what they would do); the bench applies them.
    for (const rule of host.rules()) host.setDryRun(rule.name, false);
  } else if (listenerSet === 'stream-filter') {
    const dir = join(stateDir, 'pass-through');
    await mkdir(dir);
    await writeFile(join(dir, 'manifest.json'), JSON.stringify({ manifest_version: 2, name: 'Pass-through filter', version: '1', permissions: ['webRequest', 'webRequestBlocking', '<all_urls>'], background: { scripts: ['bg.js'] } }));
    await writeFile(join(dir, 'bg.js'), PASS_THROUGH_FILTER);
    host = await ExtensionHost.start(engine, { extensions: [dir], watch: false, typeCheck: false, persona: 'firefox' });
    if (host.rules()[0]?.state !== 'active') throw new Error(`the filter add-on failed to load: ${host.rules()[0]?.error?.message}`);
  } else registerListeners(engine, listenerSet);
  let stopFront: () => Promise<void>;
  if (kind === 'wrtui') {
    const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca: await loadOrCreateCertificateAuthority(stateDir), port: 0 });
    await proxy.start();
    port = proxy.port;
    costlySubscriptions = () => proxy.costlySubscriptions;
    stopFront = () => proxy.stop();
  } else {
    ({ port, stop: stopFront } = await lifecycleBehindNodeHttp(engine));
  }
  stop = async () => {
    await stopFront();
    await host?.close();
    await engine.close();
    await rm(stateDir, { recursive: true, force: true });
  };
}

/**
 * An experiment for the product decision #11 leaves open (bench section 5): wrtui's request
 * lifecycle and its own upstream client, as CaptureProxy runs them for each request, behind a
 * plain node:http server instead of mockttp's. Plain HTTP only, bodies whole (runRequest), no loop
 * guard: what the 1 KiB GETs need, not a proxy to ship.
 */
async function lifecycleBehindNodeHttp(engine: Engine): Promise<{ port: number; stop: () => Promise<void> }> {
  const http = await import('node:http');
  const upstream = new UpstreamTransport();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url!);
    const result = await runRequest(engine.lifecycle, {
      url: url.href,
      method: req.method!,
      requestHeaders: headersToForward(headersFromRaw(req.rawHeaders), url, false),
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      type: 'other',
    }, upstream, { maxRedirects: 0 });
    if (result.kind !== 'response') {
      res.writeHead(502).end();
      return;
    }
    const headers = result.headers.filter((header) => header.name.toLowerCase() !== 'transfer-encoding');
    if (!headers.some((header) => header.name.toLowerCase() === 'content-length')) headers.push({ name: 'Content-Length', value: String(result.body.length) });
    res.writeHead(result.statusCode, headersToRaw(headers));
    res.end(result.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

// BENCH_HEAP_PROF=<dir>: V8's sampling heap profile of this proxy's whole run, written when it stops
// (what allocates per request: the GC column's cause).
let writeHeapProfile: (() => Promise<void>) | undefined;
if (process.env.BENCH_HEAP_PROF && kind !== 'mitmdump') {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 16 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  writeHeapProfile = async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    await writeFile(join(process.env.BENCH_HEAP_PROF!, `${kind}-${listenerSet}-${process.pid}.heapprofile`), JSON.stringify(profile));
  };
}

const gc = (globalThis as { gc?: () => void }).gc;
// Time spent in garbage collection, from V8's own reports (to tell allocation cost from the rest).
let gcMicros = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMicros += entry.duration * 1000;
}).observe({ entryTypes: ['gc'] });
process.on('message', (message: ToRunner) => {
  void (async () => {
    if (message.type === 'usage') {
      const memory = process.memoryUsage();
      if (mitmPid) {
        const fields = readFileSync(`/proc/${mitmPid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        const cpuMicros = (Number(fields[11]) + Number(fields[12])) * 10_000;
        send({ type: 'usage', cpuMicros, threadCpuMicros: cpuMicros, gcMicros: 0, rss: memory.rss, heapUsed: memory.heapUsed });
      } else {
        const cpu = process.cpuUsage();
        send({ type: 'usage', cpuMicros: cpu.user + cpu.system, threadCpuMicros: threadCpuMicros(process.pid, process.pid), gcMicros, rss: memory.rss, heapUsed: memory.heapUsed });
      }
    } else if (message.type === 'stats') {
      gc?.();
      const memory = process.memoryUsage();
      send({ type: 'stats', calls, journalWarnings, journalErrors, firstProblems, heapAfterGc: memory.heapUsed, rss: memory.rss, costlySubscriptions: costlySubscriptions() });
    } else {
      await writeHeapProfile?.();
      await stop();
      send({ type: 'stopped' });
      process.disconnect();
    }
  })();
});
// The conductor went away (crash or Ctrl-C): do not outlive it.
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', port, pid: process.pid });
