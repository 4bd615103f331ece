// Replay v2's fast path (predict and verify, src/engine/replay/) beside today's engine, in one run.
// Run: node --import tsx bench/replay-fast.ts (a few minutes). Not a test.
//
// 1. The bench's session (bench/replay-session.ts: 10 isolated rules, 10,000 requests) is read
//    whole and replayed through the same 10 rules by both engines, interleaved rounds. Per run:
//    wall time, and CPU per request from /proc: the replay thread's own (this process's main
//    thread) and all threads' (the rules' workers included). Reading the file is measured apart
//    (its CPU is the main thread's too) and added for "from a file".
// 2. Memory: recordings of 200 and 20,000 requests, each read and replayed by the fast path in a
//    fresh process, peak RSS sampled.
// 3. The command a user runs: `wrtui replay FILE --rules DIR` (readable output, from dist/: run
//    `node scripts/build.js` first) on the same session, with the fast path and with today's engine
//    (WRTUI_REPLAY_FAST=0), interleaved rounds. Wall time from spawn to exit; CPU from /proc: the
//    command's main thread (sampled every 20 ms while it runs, its last sample kept) and all its
//    threads (this process's cutime + cstime once the child is reaped).
// SECTIONS=3 runs only section 3 (default: 1,2,3).
// Wall time swings 3× on this shared machine; CPU per request is the steadier figure.
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openRecording } from '../src/engine/session/open-recording.js';
import { replaySession } from '../src/engine/session/session-replay.js';
import { replayPredicted } from '../src/engine/replay/predicted-replay.js';
import { generateSession, RULES, SESSION_REQUESTS } from './replay-session.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SELF = fileURLToPath(import.meta.url);
const ROOT = join(SELF, '../..');

/** CPU µs (utime + stime, 10 ms ticks) of a /proc stat file. */
function cpuOf(statFile: string): number {
  const fields = readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
const mainThreadCpu = () => cpuOf(`/proc/${process.pid}/task/${process.pid}/stat`);
const allThreadsCpu = () => cpuOf(`/proc/${process.pid}/stat`);

interface Measured {
  wallMs: number;
  mainUs: number;
  allUs: number;
}

async function measure(run: () => Promise<unknown>): Promise<Measured> {
  const main0 = mainThreadCpu();
  const all0 = allThreadsCpu();
  const t0 = performance.now();
  await run();
  return { wallMs: performance.now() - t0, mainUs: mainThreadCpu() - main0, allUs: allThreadsCpu() - all0 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function throughput(file: string, rulesDir: string): Promise<string> {
  const reads: Measured[] = [];
  const runs = { today: [] as Measured[], fast: [] as Measured[] };
  for (let round = 0; round < ROUNDS; round++) {
    let session = await openRecording(file);
    reads.push(await measure(async () => (session = await openRecording(file))));
    for (const engine of round % 2 === 0 ? (['today', 'fast'] as const) : (['fast', 'today'] as const)) {
      runs[engine].push(
        await measure(async () => {
          const result = engine === 'fast' ? await replayPredicted(session, { rulesDir, keepJournal: false }) : await replaySession(session, { rulesDir, keepJournal: false });
          if (result.summary.identical !== SESSION_REQUESTS) throw new Error(`${engine}: ${result.summary.differing} of ${result.summary.requests} differ`);
          if (engine === 'fast' && 'path' in result && result.path !== 'fast') throw new Error(`the fast path fell back: ${String((result as { fellBack?: { reason: string } }).fellBack?.reason)}`);
        }),
      );
    }
  }
  const n = SESSION_REQUESTS;
  const read = { wallMs: median(reads.map((r) => r.wallMs)), mainUs: median(reads.map((r) => r.mainUs)) };
  const row = (name: string, list: Measured[]) => {
    const wall = median(list.map((r) => r.wallMs));
    const main = median(list.map((r) => r.mainUs)) / n;
    const all = median(list.map((r) => r.allUs)) / n;
    return { name, wall, main, all, rate: (n / wall) * 1000, fromFile: (n / (wall + read.wallMs)) * 1000 };
  };
  const today = row("today's engine", runs.today);
  const fast = row('fast path (v2)', runs.fast);
  const lines = [
    `1. Full replay: ${fmt(n)} requests through ${Object.keys(RULES).length} isolated rules, read whole, ${ROUNDS} interleaved rounds, medians`,
    `   reading the file (openRecording): ${fmt(read.wallMs)} ms, ${fmt(read.mainUs / n)} µs of main-thread CPU per request`,
    '   engine           replay ms  requests/s  from file req/s  replay-thread CPU µs/req  all-thread CPU µs/req',
  ];
  for (const r of [today, fast]) {
    lines.push(`   ${r.name.padEnd(15)}  ${fmt(r.wall).padStart(9)}  ${fmt(r.rate).padStart(10)}  ${fmt(r.fromFile).padStart(15)}  ${r.main.toFixed(0).padStart(24)}  ${r.all.toFixed(0).padStart(21)}`);
  }
  lines.push(`   fast / today: ${(fast.rate / today.rate).toFixed(1)}× requests/s, ${(today.main / fast.main).toFixed(1)}× less replay-thread CPU, ${(today.all / fast.all).toFixed(1)}× less CPU over all threads`);
  lines.push(`   every run: ${runs.today.map((r) => fmt(r.wallMs)).join(' ')} ms today, ${runs.fast.map((r) => fmt(r.wallMs)).join(' ')} ms fast`);
  return lines.join('\n');
}

/** In a child of its own: reads `file`, replays it by the fast path, reports peak RSS. */
async function rssChild(file: string, rulesDir: string): Promise<void> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const session = await openRecording(file);
  const afterRead = process.memoryUsage().rss;
  const result = await replayPredicted(session, { rulesDir, keepJournal: false });
  peak = Math.max(peak, process.memoryUsage().rss);
  clearInterval(sampler);
  process.send!({ baseline, afterRead, peak, path: result.path, requests: result.summary.requests, identical: result.summary.identical });
  process.exit(0);
}

async function memory(dir: string, rulesDir: string): Promise<string> {
  const MiB = 1024 * 1024;
  const results: Record<number, { baseline: number; afterRead: number; peak: number; path: string; requests: number; identical: number }> = {};
  for (const requests of [200, 20_000]) {
    const file = join(dir, `session-${requests}.ndjson`);
    await generateSession(file, rulesDir, requests);
    const child = fork(SELF, ['rss', file, rulesDir], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    results[requests] = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the RSS child exited with ${code}`)));
    });
  }
  const small = results[200]!;
  const large = results[20_000]!;
  return [
    '2. Memory (fast path, read whole, a fresh process each): peak RSS',
    ...[200, 20_000].map((n) => {
      const r = results[n]!;
      return `   ${fmt(n).padStart(6)} requests: ${(r.peak / MiB).toFixed(0)} MB peak (${(r.afterRead / MiB).toFixed(0)} MB once read; ${r.path} path, ${r.identical}/${r.requests} identical)`;
    }),
    `   20,000 vs 200: +${((large.peak - small.peak) / MiB).toFixed(0)} MB (goal < 100 MB)`,
  ].join('\n');
}

/** CPU µs of children reaped so far (cutime + cstime of this process). */
function reapedChildrenCpu(): number {
  const fields = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10_000;
}

interface CommandRun extends Measured {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/wrtui.js …` from spawn to exit, with its main thread's CPU and all its threads'. */
async function runCommand(args: string[], env: Record<string, string>): Promise<CommandRun> {
  const children0 = reapedChildrenCpu();
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'bin/wrtui.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let mainUs = 0;
  const sample = () => {
    try {
      mainUs = cpuOf(`/proc/${child.pid}/task/${child.pid}/stat`);
    } catch {
      // gone: the last sample stands
    }
  };
  const sampler = setInterval(sample, 20);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  const wallMs = performance.now() - t0;
  clearInterval(sampler);
  return { code, stdout, stderr, wallMs, mainUs, allUs: reapedChildrenCpu() - children0 };
}

/** One table: the command with these rules, by both engines in interleaved rounds. */
async function commandTable(title: string, file: string, rulesDir: string, rounds: number, expect: { code: number; path: string }): Promise<string[]> {
  const n = SESSION_REQUESTS;
  const runs = { today: [] as CommandRun[], fast: [] as CommandRun[] };
  for (let round = 0; round < rounds; round++) {
    for (const engine of round % 2 === 0 ? (['today', 'fast'] as const) : (['fast', 'today'] as const)) {
      const run = await runCommand(['replay', file, '--rules', rulesDir, '--fail-on-diff'], engine === 'fast' ? { WRTUI_REPLAY_EXPLAIN: '1' } : { WRTUI_REPLAY_FAST: '0' });
      if (run.code !== expect.code || !run.stdout.includes(`${n} request(s) replayed`)) throw new Error(`${engine}: exit ${run.code}: ${run.stdout}${run.stderr}`);
      if (engine === 'fast' && !run.stderr.includes(`replayed by the ${expect.path} path`)) throw new Error(`the command did not take the ${expect.path} path: ${run.stderr}`);
      runs[engine].push(run);
    }
  }
  // Both engines printed the same report (timing aside).
  const report = (run: CommandRun) => run.stdout.replace(/replayed in \d+ ms \(\d+\/s\)/, '');
  if (report(runs.fast[0]!) !== report(runs.today[0]!)) throw new Error(`the reports differ:\n${runs.fast[0]!.stdout}\n---\n${runs.today[0]!.stdout}`);
  const row = (name: string, list: CommandRun[]) => {
    const wall = median(list.map((r) => r.wallMs));
    return { name, wall, main: median(list.map((r) => r.mainUs)) / n, all: median(list.map((r) => r.allUs)) / n, rate: (n / wall) * 1000 };
  };
  const today = row("today's engine", runs.today);
  const fast = row(`fast path (${expect.path})`, runs.fast);
  const lines = [`   ${title}, ${rounds} interleaved rounds, medians`, '   engine             wall ms (spawn to exit)  requests/s  main-thread CPU µs/req  all-thread CPU µs/req'];
  for (const r of [today, fast]) lines.push(`   ${r.name.padEnd(17)}  ${fmt(r.wall).padStart(23)}  ${fmt(r.rate).padStart(10)}  ${r.main.toFixed(0).padStart(22)}  ${r.all.toFixed(0).padStart(21)}`);
  lines.push(`   fast / today: ${(today.wall / fast.wall).toFixed(1)}× less wall time, ${(today.main / fast.main).toFixed(1)}× less main-thread CPU, ${(today.all / fast.all).toFixed(1)}× less CPU over all threads`);
  lines.push(`   every run: ${runs.today.map((r) => fmt(r.wallMs)).join(' ')} ms today, ${runs.fast.map((r) => fmt(r.wallMs)).join(' ')} ms fast`);
  return lines;
}

async function command(file: string, rulesDir: string, changedDir: string): Promise<string> {
  return [
    `3. The command: wrtui replay FILE --rules DIR --fail-on-diff (${fmt(SESSION_REQUESTS)} requests, ${Object.keys(RULES).length} isolated rules, readable output)`,
    ...(await commandTable('the recorded rules (every request identical)', file, rulesDir, ROUNDS, { code: 0, path: 'fast' })),
    ...(await commandTable('gpc.ts changed (Sec-GPC: 2): the first request differs, so the fast path hands over at once', file, changedDir, Math.max(1, Math.ceil(ROUNDS / 2)), { code: 1, path: 'slow' })),
  ].join('\n');
}

if (process.argv[2] === 'rss') {
  await rssChild(process.argv[3]!, process.argv[4]!);
} else {
  const dir = await mkdtemp(join(tmpdir(), 'wrtui-bench-replay-fast-'));
  const watchdog = setTimeout(() => {
    console.error('bench/replay-fast.ts: still running after 15 minutes; stopped');
    process.exit(1);
  }, 15 * 60_000);
  try {
    const rulesDir = join(dir, 'rules');
    await mkdir(rulesDir);
    for (const [name, source] of Object.entries(RULES)) await writeFile(join(rulesDir, name), source);
    const file = join(dir, 'session.ndjson');
    await generateSession(file, rulesDir, SESSION_REQUESTS);
    const sections = (process.env.SECTIONS ?? '1,2,3').split(',');
    if (sections.includes('1')) console.log(await throughput(file, rulesDir));
    if (sections.includes('2') && process.env.SKIP_RSS !== '1') console.log(await memory(dir, rulesDir));
    if (sections.includes('3')) {
      const changedDir = join(dir, 'rules-changed');
      await mkdir(changedDir);
      for (const [name, source] of Object.entries(RULES)) await writeFile(join(changedDir, name), name === 'gpc.ts' ? source.replace("value: '1'", "value: '2'") : source);
      if (!RULES['gpc.ts']!.includes("value: '1'")) throw new Error('gpc.ts no longer says Sec-GPC: 1: the changed rule is not a change');
      console.log(await command(file, rulesDir, changedDir));
    }
  } finally {
    clearTimeout(watchdog);
    await rm(dir, { recursive: true, force: true });
  }
}
