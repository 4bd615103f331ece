// The capture proxy's cost, side by side in one run. Run: node --import tsx bench/proxy.ts
// (not a test: it prints a table and says which targets held; about 3 minutes on 2 cores).
//
// Processes: every proxy runs alone in its
// own process (bench/proxy/runner.ts), so its CPU and RSS are its own; the origin and all clients
// run in another (bench/proxy/load.ts); this process only conducts and samples. Loopback only.
// The runner is bundled first with the settings scripts/build.js ships wrtui with (esbuild, ESM,
// no keepNames) and runs on plain node: tsx's on-the-fly transform keeps function names and costs
// wrtui's code ~1.4× (bench/lifecycle.ts), which bare mockttp, plain JS, would not pay.
//
// 1. Small GETs at concurrency 32 (32 keep-alive connections, each retired after 100 requests as a
//    browser's would be; node:http agents, see load.ts), in interleaved rounds — every variant once
//    per round, in an order reversed every other round, so machine noise (2 cores, other people's
//    tests) hits all of them alike:
//      (a) direct to the origin
//      (b) bare mockttp 4.6 passthrough (getLocal({ recordTraffic: false }), forAnyRequest().thenPassThrough())
//      (c) wrtui (CaptureProxy), no listeners
//      (d) wrtui with 5 blocking + 5 non-blocking listeners (runner.ts, set "mixed"; two of the
//          blocking ones are onHeadersReceived), registered in-process (wrtui's own listeners, such
//          as the TUI's breakpoints, run there)
//      (w) the same 10 listeners as two rule files, each in its own worker, as users' rules run
//    Besides the process's CPU per request, the proxy THREAD's own (from /proc, workers excluded):
//    what isolating the listeners costs the thread every request passes through, (w) − (c) paired
//    (the median over rounds of the difference within a round).
//    Ratios are to (b); the verdicts use the paired ratio (median over rounds of the ratio within a
//    round). Beside req/s and latency, the proxy's CPU time per request (its own process.cpuUsage
//    over the measured window, and the part spent in GC): on its own core that is what limits a
//    proxy, and it is less sensitive than req/s to whatever else runs on the machine.
// 2. The same with 1,000 idle keep-alive client connections open through the proxy under test:
//    each made one request (so mockttp also holds an upstream socket for it), then sits idle. They
//    are opened right before each such run and closed after it. Node's http server (so mockttp)
//    closes a client connection 5 s after its last answer (keepAliveTimeout), so every run is
//    measured inside that window: the origin holds the 1,000 opening requests until all have
//    arrived and answers them together (their idle time starts at once), then 0.4 s warm-up + 1.5 s
//    measured. The bench counts idle connections closed before the window ended ("lost"; must be 0).
//    Keeping them alive instead with periodic requests would add ~250 requests/s to the load.
//    Every non-2xx answer and every error is counted, per variant (a healthy request must never be
//    refused; bare mockttp's own loop check refuses some on loopback, see ../shared/design/FACTS.md).
// 3. First byte of a slow stream (origin: head + first chunk at once, the rest 2 s later): each
//    variant on a keep-alive connection warmed by one small GET, one variant after the other.
// 4. 1 GiB download (generated on the fly, discarded by the client), each proxy in a fresh process:
//    RSS from /proc/<pid>/status every 100 ms (baseline after a warm-up, peak, kernel's VmHWM), MB/s.
//    Also through wrtui with a blocking onHeadersReceived listener: wrtui holds the response head
//    for it, never the body, so that streams too; and through a Firefox add-on whose StreamFilter
//    (filterResponseData) writes every chunk back as it came: the body then crosses to the add-on's
//    worker and back, flow-controlled, and must stream in flat memory as well.
// 5. The peers users compare wrtui with: http-mitm-proxy, proxy-chain and whistle (npm devDependencies,
//    each in its runner, bare forward), and Debian's mitmdump (-q, no addons; skipped with a line
//    saying so where it is not installed), beside wrtui headless and wrtui running the
//    example rules (examples/rules, each in its worker, dry-run off), 1 KiB GETs, same origin and
//    clients as 1, interleaved rounds; and the node:http floor (a plain node:http forward proxy,
//    runner.ts): the CPU goal is twice that floor measured in the same run. Bare mockttp and wrtui
//    without listeners run beside them, so the run says how much of wrtui's ratio is mockttp's own;
//    and, as an experiment for the decision that goal needs, wrtui's lifecycle and upstream client
//    behind a plain node:http server (no mockttp), without and with the example rules.
// BENCH_SECTIONS=1,5 runs only some sections (default: all); BENCH_ROUNDS=n (default 8);
// BENCH_CPU_PROF=<dir> writes each proxy's CPU profile there.
import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { PAGE_DOM_SCRIPT_FILE, WORKER_SCRIPT_FILE, buildPageDomSource, buildWorkerSource } from '../src/engine/extensions/worker-script.js';
import type { FirstByteResult, FromLoad, FromRunner, ListenerSet, ProxyKind, RunResult, ToLoad, ToRunner, Via } from './proxy/protocol.js';
import { ask } from './proxy/protocol.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const WARMUP_MS = 400;
const RUN_MS = 1_500;
const CONCURRENCY = 32;
const REQUESTS_PER_CONNECTION = 100;
const IDLE = 1_000;
const FIRST_BYTE_ROUNDS = 5;
/** "As fast as without wrtui": the proxy hop may add this much, the 2 s of the stream none of it. */
const FIRST_BYTE_SLACK_MS = 20;
const DOWNLOAD_BYTES = 1024 ** 3;
const RSS_SAMPLE_MS = 100;
const WATCHDOG_MS = 10 * 60_000;
const SECTIONS = new Set((process.env.BENCH_SECTIONS ?? '1,2,3,4,5').split(',').map((s) => s.trim()));

// The runner as shipped code: bundled like dist/ (scripts/build.js), dependencies left as imports,
// written inside node_modules so that they resolve.
const RUNNER = fileURLToPath(new URL('../node_modules/.cache/wrtui-bench/runner.js', import.meta.url));
await build({
  entryPoints: [fileURLToPath(new URL('./proxy/runner.ts', import.meta.url))],
  outfile: RUNNER,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
// …and the scripts of the rule workers beside it, as dist/ ships them (a background page's DOM too:
// the firefox persona's add-on in section 4 runs in one).
const WORKER_DIR = fileURLToPath(new URL('../src/engine/extensions/worker', import.meta.url));
await writeFile(join(dirname(RUNNER), WORKER_SCRIPT_FILE), await buildWorkerSource(WORKER_DIR));
await writeFile(join(dirname(RUNNER), PAGE_DOM_SCRIPT_FILE), await buildPageDomSource(WORKER_DIR));

/** How long a proxy may take to start (mitmdump's own budget, in its runner, is 60 s). */
const READY_TIMEOUT_MS = 90_000;
const children = new Set<ChildProcess>();
function spawn(script: string, args: string[], execArgv: string[], stderr: 'inherit' | 'pipe' = 'inherit'): ChildProcess {
  const child = fork(script.startsWith('/') ? script : fileURLToPath(new URL(script, import.meta.url)), args, { execArgv, stdio: ['ignore', 'ignore', stderr, 'ipc'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
/** Proxies that are not the runner's own process (mitmdump, which its runner starts): killed with the runners. */
const grandchildren = new Set<number>();
function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
  for (const pid of grandchildren) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
process.on('exit', killChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killChildren();
    process.exit(130);
  });
}
const watchdog = setTimeout(() => {
  console.error(`bench/proxy.ts: still running after ${WATCHDOG_MS / 1000} s, giving up`);
  killChildren();
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

// ── children ────────────────────────────────────────────────────────────────
interface Runner {
  proc: ChildProcess;
  port: number;
  pid: number;
  /** What the proxy wrote to stderr (mockttp logs every request it fails): line count and the first few. */
  stderrLines: number;
  stderrFirst: string[];
}

async function startRunner(kind: ProxyKind, set: ListenerSet = 'none'): Promise<Runner> {
  // mockttp writes to the console by itself: the runner's stdout is dropped, its stderr counted.
  // BENCH_CPU_PROF=<dir>: each proxy writes a V8 CPU profile of its main thread there when it stops.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${kind}-${set}.cpuprofile`] : [];
  const proc = spawn(RUNNER, [kind, set], ['--expose-gc', ...profile], 'pipe');
  const runner: Runner = { proc, port: 0, pid: 0, stderrLines: 0, stderrFirst: [] };
  let partial = '';
  proc.stderr!.setEncoding('utf8').on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.trim()) continue;
      runner.stderrLines++;
      if (runner.stderrFirst.length < 2 && !runner.stderrFirst.includes(line)) runner.stderrFirst.push(line.slice(0, 200));
    }
  });
  let ready: Extract<FromRunner, { type: 'ready' }>;
  let timer: NodeJS.Timeout | undefined;
  try {
    // A runner that neither becomes ready nor exits is named, not left to the watchdog.
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS)));
    ready = await Promise.race([ask<FromRunner, 'ready'>(proc, null, 'ready'), late]);
  } catch (error) {
    clearTimeout(timer);
    // SIGTERM: the runner then ends what it started (mitmdump) on its way out.
    proc.kill('SIGTERM');
    // Say why: the runner's own words are on its stderr (let what is still in the pipe arrive).
    await new Promise((resolve) => setTimeout(resolve, 200));
    throw new Error(`the ${kind} runner (${set}) did not start: ${(error as Error).message}; its stderr: ${[...runner.stderrFirst, partial].filter(Boolean).join(' / ') || '(nothing)'}`);
  }
  clearTimeout(timer);
  runner.port = ready.port;
  runner.pid = ready.pid;
  if (ready.pid !== proc.pid) grandchildren.add(ready.pid);
  return runner;
}

async function stopRunner(runner: Runner): Promise<void> {
  const exited = new Promise((resolve) => runner.proc.once('exit', resolve));
  await ask<FromRunner, 'stopped'>(runner.proc, { type: 'stop' } satisfies ToRunner, 'stopped');
  await exited;
}

const runnerUsage = (runner: Runner) => ask<FromRunner, 'usage'>(runner.proc, { type: 'usage' } satisfies ToRunner, 'usage');
const runnerStats = (runner: Runner) => ask<FromRunner, 'stats'>(runner.proc, { type: 'stats' } satisfies ToRunner, 'stats');

const load = spawn('./proxy/load.ts', [], process.execArgv);
const toLoad = <T extends FromLoad['type']>(message: ToLoad | null, type: T) => ask<FromLoad, T>(load, message, type);

/** /proc/<pid>/status fields in bytes. */
function procStatus(pid: number): { rss: number; hwm: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

// ── formatting ──────────────────────────────────────────────────────────────
const MiB = 1024 ** 2;
const fixed = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
function table(header: string[], rows: string[][], leftColumns = 1): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (i < leftColumns ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

// ── 1 + 2: small GETs ───────────────────────────────────────────────────────
interface Variant {
  key: string;
  label: string;
  runner: Runner | undefined;
  idle: number;
  ok: number;
  nonOk: number;
  refusals: number;
  errors: number;
  ms: number;
  perRound: number[];
  cpuPerRound: number[];
  threadCpuMicros: number;
  /** The proxy thread's CPU per request, each round. */
  threadCpuPerRound: number[];
  path: string;
  /** Requests each client connection makes before it is retired (REQUESTS_PER_CONNECTION unless set: OPEN keeps it). */
  requestsPerConnection?: number;
  latencies: number[][];
  proxyCpuMicros: number;
  proxyGcMicros: number;
  loadCpuMicros: number;
  idleOpenProblems: number;
  idleLost: number;
  modifiedResponses: number;
  modifiedRequests: number;
  originRequests: number;
  firstErrors: string[];
}

async function measureOnce(variant: Variant): Promise<void> {
  const via: Via = variant.runner?.port ?? null;
  if (variant.idle) {
    const opened = await toLoad({ type: 'open-idle', via, count: variant.idle }, 'idle-open');
    variant.idleOpenProblems += opened.refusals + opened.failed;
    if (opened.firstError && variant.firstErrors.length < 3) variant.firstErrors.push(`opening idle: ${opened.firstError}`);
  }
  const measuring = toLoad(null, 'measuring');
  const measured = toLoad(null, 'measured');
  const ran = toLoad({ type: 'run', via, warmupMs: WARMUP_MS, ms: RUN_MS, concurrency: CONCURRENCY, requestsPerConnection: variant.requestsPerConnection ?? REQUESTS_PER_CONNECTION, path: variant.path }, 'ran');
  await measuring;
  const before = variant.runner && (await runnerUsage(variant.runner));
  await measured;
  const after = variant.runner && (await runnerUsage(variant.runner));
  const result: RunResult = await ran;
  if (variant.idle) await toLoad({ type: 'close-idle' }, 'idle-closed');

  variant.ok += result.ok;
  variant.nonOk += result.refusals + result.other;
  variant.refusals += result.refusals;
  variant.errors += result.errors;
  variant.ms += result.ms;
  variant.perRound.push(result.ok / (result.ms / 1000));
  variant.latencies.push(result.latencies);
  const cpu = before && after ? after.cpuMicros - before.cpuMicros : 0;
  variant.proxyCpuMicros += cpu;
  variant.proxyGcMicros += before && after ? after.gcMicros - before.gcMicros : 0;
  const threadCpu = before && after ? after.threadCpuMicros - before.threadCpuMicros : 0;
  variant.threadCpuMicros += threadCpu;
  variant.threadCpuPerRound.push(variant.runner ? threadCpu / (result.ok + result.refusals + result.other) : NaN);
  variant.cpuPerRound.push(variant.runner ? cpu / (result.ok + result.refusals + result.other) : NaN);
  variant.loadCpuMicros += result.loadCpuMicros;
  variant.idleLost += result.idleClosed;
  variant.modifiedResponses += result.modifiedResponses;
  variant.modifiedRequests += result.modifiedRequests;
  variant.originRequests += result.originRequests;
  if (result.firstError && variant.firstErrors.length < 3) variant.firstErrors.push(result.firstError);
}

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;
const { originPort } = await toLoad(null, 'ready');
const [bare, wrtui, wrtuiMixed, wrtuiMixedStreaming, wrtuiWorkers, wrtuiChrome, wrtuiFirefox] = await Promise.all([
  startRunner('mockttp'),
  startRunner('wrtui', 'none'),
  startRunner('wrtui', 'mixed'),
  startRunner('wrtui', 'mixed-streaming'),
  startRunner('wrtui', 'mixed-workers'),
  startRunner('wrtui', 'mixed-workers-chrome'),
  startRunner('wrtui', 'mixed-workers-firefox'),
]);
console.log(`origin 127.0.0.1:${originPort}; proxies (pid:port): bare mockttp ${bare.pid}:${bare.port}, wrtui ${wrtui.pid}:${wrtui.port}, ` +
  `wrtui+10 ${wrtuiMixed.pid}:${wrtuiMixed.port}, wrtui+10 streaming ${wrtuiMixedStreaming.pid}:${wrtuiMixedStreaming.port}`);

/** Client connections that stay open for the whole run (a browser's to a busy site; the issue's harness). */
const OPEN = 1_000_000_000;
const makeVariant = (key: string, label: string, runner: Runner | undefined, idle: number, path = '/small', requestsPerConnection?: number): Variant => ({
  key, label, runner, idle, path, ...(requestsPerConnection !== undefined && { requestsPerConnection }), ok: 0, nonOk: 0, refusals: 0, errors: 0, ms: 0, perRound: [], cpuPerRound: [], threadCpuMicros: 0, threadCpuPerRound: [], latencies: [], proxyCpuMicros: 0, proxyGcMicros: 0,
  loadCpuMicros: 0, idleOpenProblems: 0, idleLost: 0, modifiedResponses: 0, modifiedRequests: 0, originRequests: 0, firstErrors: [],
});
const variants = [
  makeVariant('a', '(a) direct', undefined, 0),
  makeVariant('b', '(b) bare mockttp', bare, 0),
  makeVariant('c', '(c) wrtui, no listeners', wrtui, 0),
  makeVariant('d', '(d) wrtui, 5 blocking + 5 observing', wrtuiMixed, 0),
  makeVariant('w', '(w) as (d), listeners in 2 workers', wrtuiWorkers, 0),
  makeVariant('wc', '(wc) as (w), chrome persona', wrtuiChrome, 0, '/small-browser'),
  makeVariant('wf', '(wf) as (w), firefox persona', wrtuiFirefox, 0, '/small-browser'),
  makeVariant('ws', '(ws) as (w), spec, browser-like headers', wrtuiWorkers, 0, '/small-browser'),
  makeVariant('b*', '(b*) bare mockttp + 1,000 idle', bare, IDLE),
  makeVariant('c*', '(c*) wrtui + 1,000 idle', wrtui, IDLE),
  makeVariant('d*', '(d*) wrtui+10 + 1,000 idle', wrtuiMixed, IDLE),
].filter((v) => SECTIONS.has('2') || !v.key.endsWith('*'));
const byKey = (key: string) => variants.find((v) => v.key === key)!;

// Warm every path's JIT before anything is measured (not counted).
for (const via of [null, bare.port, wrtui.port, wrtuiMixed.port, wrtuiMixedStreaming.port, wrtuiWorkers.port, wrtuiChrome.port, wrtuiFirefox.port]) {
  await toLoad({ type: 'run', via, warmupMs: 0, ms: 800, concurrency: CONCURRENCY, requestsPerConnection: REQUESTS_PER_CONNECTION }, 'ran');
}
const heapBefore = new Map<Runner, number>();
for (const runner of [bare, wrtui, wrtuiMixed]) heapBefore.set(runner, (await runnerStats(runner)).heapAfterGc);

// Run order a b c d d* c* b*, reversed every other round (A B … B A): a steady drift in the
// machine's load then biases a pair's ratio one way in one round and the other way in the next,
// and the pairs compared are close together (d next to d*; b, c, d side by side).
const runOrder = ['a', 'b', 'c', 'd', 'w', 'ws', 'wc', 'wf', 'd*', 'c*', 'b*'].filter((key) => variants.some((v) => v.key === key)).map(byKey);
console.log(
  `\n[1+2] small GETs, c=${CONCURRENCY}: ${ROUNDS} rounds × ${variants.length} variants × (${WARMUP_MS} ms warm-up + ${RUN_MS} ms measured), ` +
    `order ${runOrder.map((v) => v.key).join(' ')}, reversed every other round`,
);
for (let round = 0; round < ROUNDS; round++) {
  const order: string[] = [];
  for (const variant of round % 2 === 0 ? runOrder : [...runOrder].reverse()) {
    await measureOnce(variant);
    order.push(`${variant.key} ${fixed(variant.perRound.at(-1)!)}`);
  }
  console.log(`  round ${round + 1} (${elapsed()}): ${order.join(', ')} req/s`);
}

const rate = (v: Variant) => v.ok / (v.ms / 1000);
const cpuPerRequest = (v: Variant) => (v.runner ? v.proxyCpuMicros / (v.ok + v.nonOk) : NaN);
const threadCpuPerRequest = (v: Variant) => (v.runner ? v.threadCpuMicros / (v.ok + v.nonOk) : NaN);
/** Median over rounds of the ratio measured within one round: robust to a noisy round. */
const pairedRatio = (a: Variant, b: Variant) => median(a.perRound.map((r, i) => r / b.perRound[i]!));
const b0 = byKey('b');
const rows = variants.map((v) => {
  const sorted = Float64Array.from(v.latencies.flat()).sort();
  return [
    v.label,
    fixed(rate(v)),
    v.perRound.map((r) => fixed(r)).join(' '),
    fixed(percentile(sorted, 50), 2),
    fixed(percentile(sorted, 99), 2),
    `${fixed(rate(v) / rate(b0), 2)}×`,
    `${fixed(pairedRatio(v, b0), 2)}×`,
    fixed(cpuPerRequest(v)),
    fixed(threadCpuPerRequest(v)),
    v.runner ? fixed(v.proxyGcMicros / (v.ok + v.nonOk)) : '-',
    v.runner ? `${fixed((100 * v.proxyCpuMicros) / (v.ms * 1000))}%` : '-',
    `${fixed((100 * v.loadCpuMicros) / (v.ms * 1000))}%`,
    String(v.nonOk),
    String(v.refusals),
    String(v.errors),
    v.idle ? `${v.idleOpenProblems}/${v.idleLost}` : '-',
  ];
});
console.log();
console.log(
  table(
    ['variant', 'req/s', 'per round', 'p50 ms', 'p99 ms', '÷(b)', 'paired', 'proxy µs/req', 'thread µs/req', 'GC µs/req', 'proxy CPU', 'load CPU', 'non-2xx', 'loop-refused', 'errors', 'idle fail/lost'],
    rows,
    1,
  ),
);
console.log(`  proxy µs/req per round: ${variants.filter((v) => v.runner).map((v) => `${v.key} ${v.cpuPerRound.map((x) => fixed(x)).join('/')}`).join(', ')}`);
console.log(`  req/s = 2xx answers per second over all rounds; ÷(b) = ratio of those; paired = median over rounds of the`);
console.log(`  ratio within a round; proxy µs/req = the proxy process's CPU (user+sys) per answered request (workers included),`);
console.log(`  thread µs/req = its main thread's alone (the thread every request passes through; /proc, 10 ms ticks), GC µs/req the part`);
console.log(`  of it V8 spent collecting garbage (wall time of GC pauses); CPU % of one core.`);
console.log(`  non-2xx includes loop-refused ("Passthrough loop detected"); errors = no answer (socket error or 10 s time-out);`);
console.log(`  idle fail/lost = idle connections whose opening request failed / that the proxy closed before the window ended.`);
for (const v of variants) for (const error of new Set(v.firstErrors)) console.log(`  ${v.key}: e.g. ${error.slice(0, 160)}`);

// What the listeners saw, and whether the proxies hold on to memory.
console.log();
/** wrtui runners with a subscription to a mockttp event that costs every request (≈ 240 µs each, issue #37). */
const costlySubscribed: string[] = [];
for (const [name, runner] of [['bare mockttp', bare], ['wrtui', wrtui], ['wrtui+10', wrtuiMixed]] as const) {
  const stats = await runnerStats(runner);
  const served = variants.filter((v) => v.runner === runner).reduce((sum, v) => sum + v.ok + v.nonOk, 0);
  console.log(
    `${name}: heap after GC ${fixed(heapBefore.get(runner)! / MiB, 1)} MiB before the rounds, ${fixed(stats.heapAfterGc / MiB, 1)} MiB after ` +
      `(${served} requests measured, more in warm-ups and idle openings); RSS ${fixed(stats.rss / MiB)} MiB; ` +
      `journal warnings ${stats.journalWarnings}, errors ${stats.journalErrors}`,
  );
  for (const problem of stats.firstProblems) console.log(`    ${problem}`);
  if (runner.stderrLines) console.log(`    stderr: ${runner.stderrLines} lines, e.g. ${runner.stderrFirst.join(' / ')}`);
  if (stats.costlySubscriptions.length > 0) costlySubscribed.push(`${name}: ${stats.costlySubscriptions.join(', ')}`);
  const counts = Object.entries(stats.calls);
  if (counts.length) console.log(`    listener calls: ${counts.map(([event, n]) => `${event} ${n}`).join('; ')}`);
}
for (const key of ['d', 'w', 'd*'].filter((key) => variants.some((v) => v.key === key && v.ok > 0))) {
  const v = byKey(key);
  console.log(
    `(${key}) ${v.modifiedResponses}/${v.ok} responses carried the onHeadersReceived header; ` +
      `${v.modifiedRequests}/${v.originRequests} requests reached the origin with the onBeforeSendHeaders header`,
  );
}

// ── 3: first byte of a slow stream ──────────────────────────────────────────
console.log(
  `\n[3] slow stream (head + first chunk at once, the rest after 2 s), ${FIRST_BYTE_ROUNDS} rounds; each variant on a keep-alive ` +
    `connection warmed by a small GET, one after the other (rotating order), the 2 s tails overlapping (${elapsed()})`,
);
const streamVariants: { label: string; via: Via }[] = [
  { label: 'direct', via: null },
  { label: 'bare mockttp', via: bare.port },
  { label: 'wrtui, no listeners', via: wrtui.port },
  { label: 'wrtui, 10 listeners, onHeadersReceived observing', via: wrtuiMixedStreaming.port },
  { label: 'wrtui, 10 listeners as (d), onHeadersReceived blocking', via: wrtuiMixed.port },
];
const streamResults: FirstByteResult[][] = streamVariants.map(() => []);
for (let round = 0; round < (SECTIONS.has('3') ? FIRST_BYTE_ROUNDS : 0); round++) {
  const order = streamVariants.map((_, i) => (i + round) % streamVariants.length);
  const { results } = await toLoad({ type: 'first-byte', via: order.map((i) => streamVariants[i]!.via) }, 'first-byte');
  results.forEach((result, k) => streamResults[order[k]!]!.push(result));
}
console.log(
  table(
    ['variant', 'head ms', 'first byte ms (median)', 'first byte min–max', 'end ms', 'status', 'problems'],
    streamVariants.map((v, i) => {
      const rs = streamResults[i]!;
      const firstBytes = rs.map((r) => r.firstByteMs);
      return [
        v.label,
        fixed(median(rs.map((r) => r.headersMs)), 1),
        fixed(median(firstBytes), 1),
        `${fixed(Math.min(...firstBytes), 1)}–${fixed(Math.max(...firstBytes), 1)}`,
        fixed(median(rs.map((r) => r.totalMs))),
        [...new Set(rs.map((r) => r.status))].join(','),
        rs.filter((r) => r.error).map((r) => r.error).slice(0, 1).join('') || '-',
      ];
    }),
  ),
);

// Done with the long-lived proxies.
await Promise.all([bare, wrtui, wrtuiMixed, wrtuiMixedStreaming, wrtuiWorkers, wrtuiChrome, wrtuiFirefox].map(stopRunner));

// ── 4: 1 GiB download, RSS of the proxy process ─────────────────────────────
console.log(`\n[4] download (generated on the fly, discarded by the client); proxy RSS sampled every ${RSS_SAMPLE_MS} ms from /proc; each proxy a fresh process (${elapsed()})`);
interface DownloadRow {
  label: string;
  bytes: number;
  status: number;
  received: number;
  mbps: number;
  baseline?: number;
  peak?: number;
  hwm?: number;
  end?: number;
  firstHalfPeak?: number;
  secondHalfPeak?: number;
  calls?: string;
  error?: string;
}
async function downloadThrough(label: string, kind: ProxyKind | null, set: ListenerSet, bytes: number): Promise<DownloadRow> {
  const runner = kind ? await startRunner(kind, set) : undefined;
  const via = runner?.port ?? null;
  // Warm-up (small GETs), then let it settle: the baseline is the proxy ready for work.
  await toLoad({ type: 'run', via, warmupMs: 0, ms: 500, concurrency: 4, requestsPerConnection: REQUESTS_PER_CONNECTION }, 'ran');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const samples: { t: number; rss: number }[] = [];
  const baseline = runner ? procStatus(runner.pid).rss : undefined;
  const t0 = performance.now();
  const sampler = runner && setInterval(() => samples.push({ t: performance.now() - t0, rss: procStatus(runner.pid).rss }), RSS_SAMPLE_MS);
  const done = await toLoad({ type: 'download', via, bytes }, 'downloaded');
  if (sampler) clearInterval(sampler);
  const row: DownloadRow = { label, bytes, status: done.status, received: done.bytes, mbps: done.bytes / MiB / (done.ms / 1000), ...(done.error && { error: done.error }) };
  if (runner) {
    const status = procStatus(runner.pid);
    samples.push({ t: performance.now() - t0, rss: status.rss });
    const half = samples.at(-1)!.t / 2;
    row.baseline = baseline;
    row.peak = Math.max(...samples.map((s) => s.rss));
    row.hwm = status.hwm;
    row.end = status.rss;
    row.firstHalfPeak = Math.max(...samples.filter((s) => s.t <= half).map((s) => s.rss));
    row.secondHalfPeak = Math.max(...samples.filter((s) => s.t > half).map((s) => s.rss));
    const stats = await runnerStats(runner);
    row.calls = Object.entries(stats.calls).map(([event, n]) => `${event} ×${n}`).join(', ');
    if (stats.journalErrors + stats.journalWarnings) row.calls += `; journal: ${stats.firstProblems.join(' | ')}`;
    if (runner.stderrLines) row.calls += `; stderr ${runner.stderrLines} lines: ${runner.stderrFirst.join(' / ')}`;
    await stopRunner(runner);
  }
  return row;
}
const downloads: DownloadRow[] = [];
if (SECTIONS.has('4')) {
  downloads.push(await downloadThrough('direct', null, 'none', DOWNLOAD_BYTES));
  downloads.push(await downloadThrough('bare mockttp', 'mockttp', 'none', DOWNLOAD_BYTES));
  downloads.push(await downloadThrough('wrtui, no listeners', 'wrtui', 'none', DOWNLOAD_BYTES));
  downloads.push(await downloadThrough('wrtui, onCompleted (observing)', 'wrtui', 'completed', DOWNLOAD_BYTES));
  downloads.push(await downloadThrough('wrtui, blocking onHeadersReceived', 'wrtui', 'blocking-headers', DOWNLOAD_BYTES));
  downloads.push(await downloadThrough('wrtui, pass-through StreamFilter (firefox)', 'wrtui', 'stream-filter', DOWNLOAD_BYTES));
}
const mib = (n: number | undefined) => (n === undefined ? '-' : fixed(n / MiB));
console.log(
  table(
    ['variant', 'body', 'MB/s', 'RSS baseline', 'peak', 'VmHWM', 'end', 'peak 1st half / 2nd half', 'peak − baseline', 'status', 'listener calls'],
    downloads.map((d) => [
      d.label,
      d.bytes === DOWNLOAD_BYTES ? '1 GiB' : `${d.bytes / MiB} MiB`,
      fixed(d.mbps),
      mib(d.baseline),
      mib(d.peak),
      mib(d.hwm),
      mib(d.end),
      d.firstHalfPeak === undefined ? '-' : `${mib(d.firstHalfPeak)} / ${mib(d.secondHalfPeak)}`,
      d.peak === undefined ? '-' : mib(d.peak - d.baseline!),
      `${d.status}${d.received === d.bytes ? '' : ` (got ${d.received} B)`}${d.error ? ` ${d.error}` : ''}`,
      d.calls || '-',
    ]),
  ),
);
console.log(`  RSS in MiB (1 MiB = 2^20 B); MB/s = MiB/s of body received by the client. Bare mockttp keeps every response`);
console.log(`  body it forwards until the response ends (it copies each into a tracking stream that only a 'response' listener`);
console.log(`  drains); wrtui gives each response Node's own write methods back (src/engine/capture/mockttp-hooks.ts).`);

// ── 5: against mitmdump ─────────────────────────────────────────────────────
const peers: Variant[] = [];
if (SECTIONS.has('5')) {
  console.log(`\n[5] 1 KiB GETs, c=${CONCURRENCY}: direct, Debian's mitmdump -q, wrtui with the example rules (each in its worker), the node:http floor, and what the floor is to mockttp itself; ${ROUNDS} rounds (${elapsed()})`);
  // mitmdump is Debian's (apt install mitmproxy); where it is not installed, its variant and verdict are skipped, said plainly.
  const mitmInstalled = spawnSync('mitmdump', ['--version'], { stdio: 'ignore' }).error === undefined;
  if (!mitmInstalled) console.log("  mitmdump is not installed on this machine (Debian: apt install mitmproxy): its variant and the ≥ 4× mitmdump verdict are skipped");
  const [mitmProxy, proxyChain, whistle] = await Promise.all([startRunner('http-mitm-proxy'), startRunner('proxy-chain'), startRunner('whistle')]);
  const [mitm, examples, floor, bareMockttp, plainWrtui, frontless, frontlessExamples] = await Promise.all([
    mitmInstalled ? startRunner('mitmdump') : undefined,
    startRunner('wrtui', 'examples'),
    startRunner('node-http'),
    startRunner('mockttp'),
    startRunner('wrtui', 'none'),
    startRunner('wrtui-node-http', 'none'),
    startRunner('wrtui-node-http', 'examples'),
  ]);
  peers.push(
    makeVariant('a1k', 'direct, 1 KiB', undefined, 0, '/kib'),
    ...(mitm ? [makeVariant('m', "(m) mitmdump -q", mitm, 0, '/kib')] : []),
    makeVariant('e', '(e) wrtui + example rules (workers)', examples, 0, '/kib'),
    makeVariant('n', '(n) node:http forward proxy (floor)', floor, 0, '/kib'),
    // wrtui is built on mockttp (the product's choice): how far above the floor mockttp itself is sets what the goal can reach.
    makeVariant('b1k', '(b) bare mockttp passthrough', bareMockttp, 0, '/kib'),
    makeVariant('c1k', '(c) wrtui headless, no listeners', plainWrtui, 0, '/kib'),
    // An experiment for the decision the CPU goal needs: the same lifecycle behind plain node:http (runner.ts).
    makeVariant('l', "(l) wrtui's lifecycle on node:http, no mockttp", frontless, 0, '/kib'),
    makeVariant('le', '(le) as (l) + example rules (workers)', frontlessExamples, 0, '/kib'),
    // The same with client connections that stay open (the issue's figures), beside the churned ones above.
    makeVariant('n~', '(n~) floor, connections kept open', floor, 0, '/kib', OPEN),
    makeVariant('c~', '(c~) wrtui headless, connections kept open', plainWrtui, 0, '/kib', OPEN),
    makeVariant('e~', '(e~) wrtui + example rules, connections kept open', examples, 0, '/kib', OPEN),
    ...(mitm ? [makeVariant('m~', '(m~) mitmdump -q, connections kept open', mitm, 0, '/kib', OPEN)] : []),
    // The other proxies users compare wrtui with (npm devDependencies of this bench), both ways.
    makeVariant('hm', '(hm) http-mitm-proxy', mitmProxy, 0, '/kib'),
    makeVariant('pc', '(pc) proxy-chain', proxyChain, 0, '/kib'),
    makeVariant('wh', '(wh) whistle', whistle, 0, '/kib'),
    makeVariant('hm~', '(hm~) http-mitm-proxy, connections kept open', mitmProxy, 0, '/kib', OPEN),
    makeVariant('pc~', '(pc~) proxy-chain, connections kept open', proxyChain, 0, '/kib', OPEN),
    makeVariant('wh~', '(wh~) whistle, connections kept open', whistle, 0, '/kib', OPEN),
  );
  for (const via of [null, ...[mitm, examples, floor, bareMockttp, plainWrtui, frontless, frontlessExamples, mitmProxy, proxyChain, whistle].filter((runner) => runner !== undefined).map((runner) => runner.port)]) {
    await toLoad({ type: 'run', via, warmupMs: 0, ms: 800, concurrency: CONCURRENCY, requestsPerConnection: REQUESTS_PER_CONNECTION, path: '/kib' }, 'ran');
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order: string[] = [];
    for (const variant of round % 2 === 0 ? peers : [...peers].reverse()) {
      await measureOnce(variant);
      order.push(`${variant.key} ${fixed(variant.perRound.at(-1)!)}`);
    }
    console.log(`  round ${round + 1} (${elapsed()}): ${order.join(', ')} req/s`);
  }
  console.log(
    table(
      ['variant', 'req/s', 'p50 ms', 'p99 ms', 'proxy µs/req', '÷ floor', 'thread µs/req', 'non-2xx', 'errors'],
      peers.map((v) => {
        const sorted = Float64Array.from(v.latencies.flat()).sort();
        // CPU per request as a ratio to the node:http floor's in the same round (churned or kept open alike), median over rounds.
        const floorOf = peers.find((p) => p.key === (v.requestsPerConnection === OPEN ? 'n~' : 'n'))!;
        const toFloor = v.runner ? fixed(median(v.cpuPerRound.map((cpu, i) => cpu / floorOf.cpuPerRound[i]!)), 2) + '×' : '-';
        return [v.label, fixed(rate(v)), fixed(percentile(sorted, 50), 2), fixed(percentile(sorted, 99), 2), fixed(cpuPerRequest(v)), toFloor, fixed(threadCpuPerRequest(v)), String(v.nonOk), String(v.errors)];
      }),
    ),
  );
  console.log(`  mitmdump's CPU is its own process's (Python, one thread does the proxying); wrtui's "proxy µs/req" includes its rule workers.`);
  await Promise.all([mitm, examples, floor, bareMockttp, plainWrtui, frontless, frontlessExamples, mitmProxy, proxyChain, whistle].filter((runner) => runner !== undefined).map(stopRunner));
}

// ── verdicts ────────────────────────────────────────────────────────────────
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
const c0 = byKey('c');
const d0 = byKey('d');
const w0 = byKey('w');
const stream = (i: number) => median(streamResults[i]!.map((r) => r.firstByteMs));
const isFiltered = (d: DownloadRow) => d.label.includes('StreamFilter');
const wrtuiDownloads = downloads.filter((d) => d.label.startsWith('wrtui') && d.bytes === DOWNLOAD_BYTES && !isFiltered(d));
console.log(`\nTargets (${elapsed()} in all):`);
// Verdicts on the paired ratio (the median over rounds of the ratio within a round): a busy moment
// on the machine hits both sides of a pair, where it skews the totals of whichever ran then.
const ratios = (a: Variant, b: Variant) =>
  `paired ${fixed(100 * pairedRatio(a, b))} % (totals ${fixed((100 * rate(a)) / rate(b))} %, by proxy CPU/request ${fixed((100 * cpuPerRequest(b)) / cpuPerRequest(a))} %)`;
console.log(`  (d) ≥ 80 % of (b) req/s:            ${ratios(d0, b0)}  ${verdict(pairedRatio(d0, b0) >= 0.8)}`);
console.log(`  (w) ≥ 80 % of (b) req/s (workers):  ${ratios(w0, b0)}  ${verdict(pairedRatio(w0, b0) >= 0.8)}`);
// Paired as the throughput is: the median over rounds of the difference within a round. Totals
// let one slow stretch of the machine, landing on (w) or (c), move the difference by tens of µs.
const pairedThreadCpu = (a: Variant, b: Variant) => median(a.threadCpuPerRound.map((cpu, i) => cpu - b.threadCpuPerRound[i]!));
const isolation = pairedThreadCpu(w0, c0);
console.log(
  `  isolation's cost on the proxy thread ≤ 60 µs/req: paired (w) − (c) ${fixed(isolation)} µs, per round ${w0.threadCpuPerRound.map((cpu, i) => fixed(cpu - c0.threadCpuPerRound[i]!)).join(' ')} ` +
    `(totals ${fixed(threadCpuPerRequest(w0))} − ${fixed(threadCpuPerRequest(c0))} = ${fixed(threadCpuPerRequest(w0) - threadCpuPerRequest(c0))}; in-process (d): paired ${fixed(pairedThreadCpu(d0, c0))} µs)  ${verdict(isolation <= 60)}`,
);
console.log(`  (c) for reference:                  ${ratios(c0, b0)}`);
// A mockttp 'request'/'response'/'abort'/'request-initiated' listener makes mockttp build and buffer
// what it announces for every request; a UI feature could add one without noticing (mockttp-hooks.ts).
console.log(`  no costly mockttp subscription:     ${costlySubscribed.length === 0 ? 'none' : costlySubscribed.join('; ')}  ${verdict(costlySubscribed.length === 0)}`);
// Personas: the same listeners and browser-like requests (Sec-Fetch-*, Referer, Cookie) under spec, chrome, firefox.
const [ws0, wc0, wf0] = (['ws', 'wc', 'wf'] as const).map(byKey) as [Variant, Variant, Variant];
for (const [label, v] of [['chrome', wc0], ['firefox', wf0]] as const) {
  console.log(
    `  ${label} persona vs spec (same listeners, browser-like requests): ${ratios(v, ws0)}; proxy thread ${fixed(threadCpuPerRequest(v))} vs ${fixed(threadCpuPerRequest(ws0))} µs/req (+${fixed(threadCpuPerRequest(v) - threadCpuPerRequest(ws0))})`,
  );
}
if (SECTIONS.has('2')) {
  const [bIdle, cIdle, dIdle] = (['b*', 'c*', 'd*'] as const).map(byKey) as [Variant, Variant, Variant];
  for (const [idle, base] of [[cIdle, c0], [dIdle, d0]] as const) {
    console.log(`  (${idle.key}) ≥ 90 % of (${base.key}) (1,000 idle):   ${ratios(idle, base)}  ${verdict(pairedRatio(idle, base) >= 0.9)}`);
  }
  console.log(`  (b*) bare mockttp, for reference:   ${ratios(bIdle, b0)} of (b); ${bIdle.nonOk + bIdle.idleOpenProblems} healthy requests refused`);
}
const wrtuiVariants = variants.filter((v) => v.runner && v.runner !== bare);
const wrtuiRefusals = wrtuiVariants.reduce((sum, v) => sum + v.nonOk + v.errors + v.idleOpenProblems, 0);
const idleLost = wrtuiVariants.reduce((sum, v) => sum + v.idleLost, 0);
console.log(`  wrtui never refuses a healthy request: ${wrtuiRefusals} non-2xx/errors; idle connections lost mid-window: ${idleLost}  ${verdict(wrtuiRefusals === 0 && idleLost === 0)}`);
if (SECTIONS.has('3')) {
  console.log(
    `  first byte through wrtui ≤ direct + ${FIRST_BYTE_SLACK_MS} ms (no blocking onHeadersReceived): ${fixed(stream(2), 1)} ms (no listeners), ` +
      `${fixed(stream(3), 1)} ms (10 listeners) vs direct ${fixed(stream(0), 1)} ms, bare mockttp ${fixed(stream(1), 1)} ms  ` +
      verdict(Math.max(stream(2), stream(3)) <= stream(0) + FIRST_BYTE_SLACK_MS),
  );
  console.log(
    `  first byte with a blocking onHeadersReceived, as in (d), ≤ direct + ${FIRST_BYTE_SLACK_MS} ms (wrtui holds the head, not the body): ` +
      `${fixed(stream(4), 1)} ms  ${verdict(stream(4) <= stream(0) + FIRST_BYTE_SLACK_MS)}`,
  );
}
if (SECTIONS.has('4')) {
  const flat = wrtuiDownloads.every((d) => d.peak! - d.baseline! < 64 * MiB && d.status === 200 && d.received === d.bytes);
  console.log(`  1 GiB through wrtui, RSS flat (peak − baseline < 64 MiB): ${wrtuiDownloads.map((d) => `${mib(d.peak! - d.baseline!)} MiB`).join(', ')}  ${verdict(flat)}`);
  // The filter's path keeps a young generation busy in two isolates (the proxy's and the add-on's
  // worker): a higher plateau, but a plateau: the second half must peak no higher than the first.
  const filtered = downloads.find(isFiltered);
  const plain = downloads.find((d) => d.label === 'wrtui, no listeners');
  if (filtered && plain) {
    const level = filtered.secondHalfPeak! <= filtered.firstHalfPeak! + 8 * MiB && filtered.status === 200 && filtered.received === filtered.bytes;
    console.log(
      `  1 GiB through a pass-through StreamFilter: ${fixed(filtered.mbps)} MB/s (${fixed((100 * filtered.mbps) / plain.mbps)} % of wrtui without), RSS peak − baseline ${mib(filtered.peak! - filtered.baseline!)} MiB, peak 1st/2nd half ${mib(filtered.firstHalfPeak)} / ${mib(filtered.secondHalfPeak)} MiB: level  ${verdict(level)}`,
    );
  }
}
if (SECTIONS.has('5')) {
  const peer = (key: string) => peers.find((v) => v.key === key);
  const [m0, e0, n0, b0, c0, l0, le0] = [peer('m'), peer('e')!, peer('n')!, peer('b1k')!, peer('c1k')!, peer('l')!, peer('le')!];
  if (m0) console.log(`  (e) ≥ 4× mitmdump's req/s: paired ${fixed(pairedRatio(e0, m0), 2)}× (totals ${fixed(rate(e0) / rate(m0), 2)}×)  ${verdict(pairedRatio(e0, m0) >= 4)}`);
  else console.log("  (e) ≥ 4× mitmdump's req/s: skipped, mitmdump is not installed here");
  // The issue's "≤ 160 µs (twice the node:http floor)" was 2 × 80 µs on the machine of the day, when
  // mitmdump took 610 µs; absolute µs are not comparable across runs here, so the floor is measured
  // in this run and the goal is twice it. The absolute figure is shown beside it.
  const floorCpu = cpuPerRequest(n0);
  // The issue's goals (#37), as ratios to the floor in this run, for churned and for open connections.
  for (const [label, floor, plain, rules] of [['churned', n0, c0, e0], ['kept open', peer('n~')!, peer('c~')!, peer('e~')!]] as const) {
    const ratio = (v: Variant) => cpuPerRequest(v) / cpuPerRequest(floor);
    console.log(
      `  ${label} connections: wrtui headless ${fixed(ratio(plain), 2)}× the floor's CPU/request (≤ 2.2×: ${verdict(ratio(plain) <= 2.2)}); ` +
        `with the example rules ${fixed(ratio(rules), 2)}× (≤ 2.6×: ${verdict(ratio(rules) <= 2.6)}); floor ${fixed(cpuPerRequest(floor))} µs`,
    );
  }
  // Ahead of the other proxies by how much (requests/s, connections kept open, paired): the goal is ≥ 4× the full debugging proxies.
  const e1 = peer('e~')!;
  console.log(`  (e~) req/s ÷ each peer's, connections kept open: ${(['hm~', 'pc~', 'wh~', 'm~'] as const).filter((key) => peer(key)).map((key) => `${key} ${fixed(pairedRatio(e1, peer(key)!), 2)}×`).join(', ')} (whistle, a full debugging proxy: ≥ 4× ${verdict(pairedRatio(e1, peer('wh~')!) >= 4)})`);
  const m1 = peer('m~');
  if (m1) console.log(`  (e~) ≥ 4× mitmdump's req/s, connections kept open: paired ${fixed(pairedRatio(peer('e~')!, m1), 2)}×  ${verdict(pairedRatio(peer('e~')!, m1) >= 4)}`);
  console.log(
    `  (e) proxy CPU ≤ 2 × the node:http floor: ${fixed(cpuPerRequest(e0))} µs (thread ${fixed(threadCpuPerRequest(e0))} µs) vs floor ${fixed(floorCpu)} µs = ` +
      `${fixed(cpuPerRequest(e0) / floorCpu, 2)}× (${m0 ? `mitmdump ${fixed(cpuPerRequest(m0))} µs = ${fixed(cpuPerRequest(m0) / floorCpu, 2)}×` : 'mitmdump not installed'}; ≤ 160 µs absolute: ${verdict(cpuPerRequest(e0) <= 160)})  ${verdict(cpuPerRequest(e0) <= 2 * floorCpu)}`,
  );
  console.log(
    `      where it goes: bare mockttp ${fixed(cpuPerRequest(b0))} µs = ${fixed(cpuPerRequest(b0) / floorCpu, 2)}× the floor; wrtui without listeners ${fixed(cpuPerRequest(c0))} µs = ${fixed(cpuPerRequest(c0) / floorCpu, 2)}× ` +
      `(${fixed(cpuPerRequest(c0) - cpuPerRequest(b0))} µs over mockttp); the example rules ${fixed(cpuPerRequest(e0) - cpuPerRequest(c0))} µs more`,
  );
  console.log(
    `      without mockttp (experiment): wrtui's lifecycle behind plain node:http ${fixed(cpuPerRequest(l0))} µs = ${fixed(cpuPerRequest(l0) / floorCpu, 2)}× the floor, ` +
      `with the example rules ${fixed(cpuPerRequest(le0))} µs = ${fixed(cpuPerRequest(le0) / floorCpu, 2)}×`,
  );
}

clearTimeout(watchdog);
load.disconnect();
