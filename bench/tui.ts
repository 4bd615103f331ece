// What the TUI costs under load: wrtui in a real terminal (tmux) with ~1000 requests/s through
// the proxy for 30 s, from a load generator in another process (bench/tui/load.ts), measured
// inside wrtui (WRTUI_PERF_LOG: event-loop lag, frames drawn, RSS, once a second); then the same
// with `wrtui headless` (plain output) for comparison.
//
//   node --import tsx bench/tui.ts [--rate 1000] [--seconds 30] [--max-requests 3000] [--rules DIR]
//
// Targets: event-loop lag p99 under 50 ms, RSS flat once the --max-requests cap is reached.
// Needs tmux. Everything runs on 127.0.0.1 and stops by itself.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import type { PerfSample } from '../src/ui/perf-probe.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '30' },
    'max-requests': { type: 'string', default: '3000' },
    rules: { type: 'string' },
    connections: { type: 'string', default: '32' },
  },
});
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const MAX_REQUESTS = Number(values['max-requests']);
const WARM_UP_SECONDS = 2;
const ROOT = process.cwd();
const BIN = join(ROOT, 'bin/wrtui.js');

interface LoadResult {
  sent: number;
  ok: number;
  failed: number;
  skipped: number;
  achievedPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

interface ModeResult {
  mode: string;
  load: LoadResult;
  samples: PerfSample[];
}

async function main(): Promise<void> {
  execFileSync('tmux', ['-V'], { stdio: 'ignore' });
  execFileSync(process.execPath, ['scripts/build.js'], { stdio: 'inherit' });
  const workDir = await mkdtemp(join(tmpdir(), 'wrtui-bench-tui-'));
  const rulesDir = values.rules ?? join(workDir, 'no-rules');
  await mkdir(rulesDir, { recursive: true });
  try {
    process.stdout.write(`wrtui TUI bench: ${RATE} req/s for ${SECONDS} s, --max-requests ${MAX_REQUESTS}, rules ${values.rules ?? '(none)'}\n`);
    const tui = await benchTui(workDir, rulesDir);
    const headless = await benchHeadless(workDir, rulesDir);
    report([tui, headless]);
  } finally {
    await run('tmux', ['-S', join(workDir, 'tmux.sock'), 'kill-server']).catch(() => {});
    await rm(workDir, { recursive: true, force: true });
  }
}

async function benchTui(workDir: string, rulesDir: string): Promise<ModeResult> {
  const perfFile = join(workDir, 'tui.ndjson');
  const command = [
    `env -u CI -u CONTINUOUS_INTEGRATION WRTUI_PERF_LOG=${JSON.stringify(perfFile)}`,
    JSON.stringify(process.execPath),
    JSON.stringify(BIN),
    `--port 0 --incognito-port 0 --max-requests ${MAX_REQUESTS}`,
    `--rules ${JSON.stringify(rulesDir)} --state-dir ${JSON.stringify(join(workDir, 'state-tui'))}`,
    '; sleep 30',
  ].join(' ');
  const tmux = (...args: string[]) => run('tmux', ['-S', join(workDir, 'tmux.sock'), '-f', '/dev/null', ...args]);
  await tmux('new-session', '-d', '-s', 'tui', '-x', '120', '-y', '40', '-c', workDir, command);
  const screen = await poll(async () => {
    const { stdout } = await tmux('capture-pane', '-p', '-t', 'tui');
    return /proxy 127\.0\.0\.1:\d+/.test(stdout) ? stdout : undefined;
  }, 20_000, 'the TUI to start');
  const port = /proxy 127\.0\.0\.1:(\d+)/.exec(screen)![1]!;
  const load = await runLoad(`http://127.0.0.1:${port}`);
  // A look at the screen at the end, to show it kept up.
  const { stdout: last } = await tmux('capture-pane', '-p', '-t', 'tui');
  process.stdout.write(`  TUI status bar at the end: ${last.split('\n')[0]?.trim()}\n`);
  await tmux('send-keys', '-t', 'tui', 'q');
  await poll(async () => {
    const { stdout } = await tmux('capture-pane', '-p', '-t', 'tui');
    return stdout.includes('wrtui stopped') ? stdout : undefined;
  }, 20_000, 'the TUI to quit');
  await tmux('kill-session', '-t', 'tui').catch(() => {});
  return { mode: 'tui', load, samples: await readSamples(perfFile) };
}

async function benchHeadless(workDir: string, rulesDir: string): Promise<ModeResult> {
  const perfFile = join(workDir, 'headless.ndjson');
  const child = spawn(
    process.execPath,
    // tsx by its full URL: the child runs in a temporary folder, where a bare "tsx" would not resolve.
    ['--import', import.meta.resolve('tsx'), '--import', join(ROOT, 'bench/tui/perf-preload.ts'), BIN, 'headless', '--port', '0', '--incognito-port', '0', '--rules', rulesDir, '--state-dir', join(workDir, 'state-headless')],
    { cwd: workDir, env: { ...process.env, WRTUI_PERF_LOG: perfFile }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  let lines = 0;
  // Drained like a terminal would: plain headless prints a line per request.
  child.stdout.on('data', (chunk: Buffer) => {
    if (output.length < 4096) output += chunk.toString();
    for (const byte of chunk) if (byte === 10) lines++;
  });
  const url = await poll(async () => /wrtui listening on (http:\/\/\S+)/.exec(output)?.[1], 20_000, 'headless to listen');
  const load = await runLoad(url);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  process.stdout.write(`  headless printed ${lines} lines\n`);
  return { mode: 'headless (plain)', load, samples: await readSamples(perfFile) };
}

async function runLoad(proxyUrl: string): Promise<LoadResult> {
  const { stdout } = await run(process.execPath, ['--import', import.meta.resolve('tsx'), join(ROOT, 'bench/tui/load.ts'), proxyUrl, String(RATE), String(SECONDS), values.connections!], {
    timeout: (SECONDS + 60) * 1000,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as LoadResult;
}

async function readSamples(file: string): Promise<PerfSample[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PerfSample);
}

async function poll<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The median of the TUI's own frame-cost average over the loaded seconds (React render + Ink drawing). */
function frameCost(samples: readonly PerfSample[]): string {
  const costs = samples.map((sample) => Number((sample as PerfSample & { frameCostMs?: number }).frameCostMs)).filter(Number.isFinite).sort((a, b) => a - b);
  return costs.length === 0 ? '?' : `${costs[Math.floor(costs.length / 2)]!.toFixed(1)} ms`;
}

function report(results: ModeResult[]): void {
  const rows: string[][] = [['mode', 'req/s done', 'failed', 'not sent', 'CPU', 'CPU/request', 'lag p99 (median s)', 'lag p99 (worst s)', 'lag max', 'renders/s', 'frame ms (median)', 'RSS after cap', 'RSS end', 'RSS growth', 'live heap after cap', 'live heap end']];
  for (const { mode, load, samples } of results) {
    // The seconds under load, after a warm-up.
    const loaded = samples.slice(WARM_UP_SECONDS, WARM_UP_SECONDS + SECONDS - WARM_UP_SECONDS);
    if (loaded.length === 0) {
      rows.push([mode, 'no samples']);
      continue;
    }
    const p99s = loaded.map((sample) => sample.lagP99Ms).sort((a, b) => a - b);
    const median = p99s[Math.floor(p99s.length / 2)]!;
    const worst = p99s.at(-1)!;
    const lagMax = Math.max(...loaded.map((sample) => sample.lagMaxMs));
    const renders = loaded.reduce((sum, sample) => sum + sample.renders, 0) / loaded.length;
    // CPU: the share of one core, and per request done (what a request costs with this mode).
    const cpuPerSecond = loaded.reduce((sum, sample) => sum + sample.cpuMs / (sample.intervalMs / 1000), 0) / loaded.length;
    // RSS once the cap is reached (TUI) or after the warm-up, against the end.
    const capReached = loaded.findIndex((sample) => typeof sample.dropped === 'number' && sample.dropped > 0);
    const from = loaded[Math.max(0, capReached === -1 ? Math.floor(loaded.length / 3) : capReached + 3)] ?? loaded[0]!;
    const end = loaded.at(-1)!;
    rows.push([
      mode,
      load.achievedPerSecond.toFixed(0),
      // Failed: an error or a non-200. Not sent: slots skipped while too many were in flight (a shortfall, not an error).
      String(load.failed),
      String(load.skipped),
      `${(cpuPerSecond / 10).toFixed(0)} %`,
      `${((cpuPerSecond / Math.max(1, load.achievedPerSecond)) * 1000).toFixed(0)} µs`,
      `${median.toFixed(1)} ms`,
      `${worst.toFixed(1)} ms`,
      `${lagMax.toFixed(1)} ms`,
      mode === 'tui' ? renders.toFixed(1) : '-',
      mode === 'tui' ? frameCost(loaded) : '-',
      mb(from.rssBytes),
      mb(end.rssBytes),
      `${((end.rssBytes - from.rssBytes) / 1024 / 1024).toFixed(1)} MB`,
      mb(liveHeap(loaded, loaded.indexOf(from))),
      mb(liveHeap(loaded, loaded.length - 5)),
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  for (const row of rows) process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}\n`);
  const tui = results[0]!;
  const tuiLoaded = tui.samples.slice(WARM_UP_SECONDS);
  process.stdout.write(`\nTUI per second (lag p99 ms / renders / RSS MB / heap MB / flush interval ms / dropped):\n`);
  process.stdout.write(
    `${tuiLoaded.map((sample) => `${sample.lagP99Ms.toFixed(0)}/${sample.renders}/${(sample.rssBytes / 1024 / 1024).toFixed(0)}/${(sample.heapUsedBytes / 1024 / 1024).toFixed(0)}/${String(sample.flushIntervalMs)}/${String(sample.dropped)}`).join('  ')}\n`,
  );
  process.stdout.write(`load: ${results.map(({ mode, load }) => `${mode}: latency p50 ${load.latencyP50Ms.toFixed(1)} ms, p99 ${load.latencyP99Ms.toFixed(1)} ms`).join('; ')}\n`);
}

/**
 * The heap's low point over 5 s from `start`: what survives collection, as the heap rises and
 * falls between collections (a sawtooth); comparing low points shows whether memory is kept.
 */
function liveHeap(samples: PerfSample[], start: number): number {
  const window = samples.slice(Math.max(0, start), Math.max(0, start) + 5);
  return Math.min(...window.map((sample) => sample.heapUsedBytes));
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

await main();
