// What the example rules cost per request, taken apart (issue #37, lever 6): the real `wrtui
// headless` (bin/wrtui.js, so build first) in one process per variant, all started at once and
// measured in interleaved rounds (order rotated each round), 1 KiB GETs from 32 clients, with
// connections kept open and churned (a new connection every 100 requests). Per variant it prints the
// wrtui process's CPU per request from /proc, split by thread (the main thread; all others: rule
// workers, libuv's and V8's helpers), and requests/s, each the median over rounds, beside the same
// round's "no rules" variant as a ratio.
// Run: node scripts/build.js && node --import tsx bench/rule-cost.ts [variant …]
//   RC_ROUNDS (default 4), RC_MS (measured ms per run, default 2000).
// Variants (default all):
//   none          plain headless, no rules
//   json          headless --json, every entry to a file, no rules
//   dry           the 7 example rules as their manifests say (dry-run), plain headless
//   applied       the same rules with dryRun: false
//   dry-json      dry + --json to a file (the issue's third harness)
//   own           dry, every rule with ownWorker: true (a worker each: 7, as before shared workers)
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync, mkdtempSync, rmSync, openSync, closeSync, statSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROUNDS = Number(process.env.RC_ROUNDS ?? 4);
const RUN_MS = Number(process.env.RC_MS ?? 2000);
const WARMUP_MS = 400;
const CONCURRENCY = 32;
const CHURN_AFTER = 100;
const root = resolve(import.meta.dirname, '..');
const TICK_MICROS = 1_000_000 / 100; // USER_HZ on Linux

type VariantName = 'none' | 'json' | 'dry' | 'applied' | 'dry-json' | 'own';
const ALL: VariantName[] = ['none', 'json', 'dry', 'applied', 'dry-json', 'own'];
const chosen = (process.argv.slice(2) as VariantName[]).filter((name) => ALL.includes(name));
const variants = chosen.length > 0 ? (chosen.includes('none') ? chosen : ['none' as const, ...chosen]) : ALL;

const scratch = mkdtempSync(join(tmpdir(), 'wrtui-rule-cost-'));

/** A copy of examples/rules with each manifest's `dryRun: true` replaced (and ownWorker added). */
function rulesCopy(name: string, edit: (source: string) => string): string {
  const dir = join(scratch, name);
  cpSync(join(root, 'examples/rules'), dir, { recursive: true });
  for (const file of readdirSync(dir)) {
    if (!file.endsWith('.ts')) continue;
    const path = join(dir, file);
    const source = readFileSync(path, 'utf8');
    const edited = edit(source);
    if (!/manifest = \{/.test(source)) continue;
    if (edited === source) throw new Error(`${file}: the edit changed nothing`);
    writeFileSync(path, edited);
  }
  return dir;
}

function argsFor(variant: VariantName): { args: string[]; json: boolean } {
  const examples = join(root, 'examples/rules');
  switch (variant) {
    case 'none':
      return { args: ['--rules', join(scratch, 'empty')], json: false };
    case 'json':
      return { args: ['--rules', join(scratch, 'empty'), '--json'], json: true };
    case 'dry':
      return { args: ['--rules', examples], json: false };
    case 'dry-json':
      return { args: ['--rules', examples, '--json'], json: true };
    case 'applied':
      return { args: ['--rules', rulesCopy('applied', (s) => s.replace(/dryRun: true,?[^\n]*/, 'dryRun: false,'))], json: false };
    case 'own':
      return { args: ['--rules', rulesCopy('own', (s) => s.replace(/dryRun: true,?[^\n]*/, 'dryRun: true, ownWorker: true,'))], json: false };
  }
}

interface Side {
  name: VariantName;
  proc: ChildProcess;
  port: number;
  outFile: string;
  /** Per client mode: µs per request (total, main thread, other threads) and req/s, one per round. */
  results: Record<'kept' | 'churned', { total: number[]; main: number[]; other: number[]; rate: number[] }>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

async function start(name: VariantName): Promise<Side> {
  const { args } = argsFor(name);
  const port = await freePort();
  const outFile = join(scratch, `${name}.out`);
  const out = openSync(outFile, 'w');
  const proc = spawn(process.execPath, [join(root, 'bin/wrtui.js'), 'headless', '--port', String(port), '--incognito-port', '0', '--host', '127.0.0.1', '--no-watch', '--state-dir', join(scratch, `state-${name}`), ...args], {
    cwd: scratch,
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  // Listening once the output says so and the port answers.
  for (let tries = 0; ; tries++) {
    if (proc.exitCode !== null) throw new Error(`${name}: wrtui exited (${proc.exitCode})`);
    const text = readFileSync(outFile, 'utf8');
    if (/listening/.test(text)) break;
    if (tries > 1200) throw new Error(`${name}: not listening within 120 s`);
    await new Promise((done) => setTimeout(done, 100));
  }
  const empty = () => ({ total: [], main: [], other: [], rate: [] });
  return { name, proc, port, outFile, results: { kept: empty(), churned: empty() } };
}

/**
 * CPU µs of `pid`'s main thread and of all its other threads (/proc/<pid>/task/<tid>/stat). Node 20
 * names every thread "node", so rule workers cannot be told from libuv's and V8's helpers by name:
 * the "none" variant's other threads are that baseline, and the paired difference is the workers'.
 */
function threadCpu(pid: number): { main: number; other: number } {
  const sums = { main: 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended between the listing and the read
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const micros = (Number(fields[11]) + Number(fields[12])) * TICK_MICROS;
    if (Number(tid) === pid) sums.main += micros;
    else sums.other += micros;
  }
  return sums;
}

const origin = http.createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': '1024' });
  res.end('k'.repeat(1024));
});
origin.keepAliveTimeout = 120_000;
await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
const originPort = (origin.address() as AddressInfo).port;
const failures = new Map<string, number>();
const fail = (what: string) => failures.set(what, (failures.get(what) ?? 0) + 1);

/** 32 clients GETting /kib until `ms` is over, each on one connection (a new one every 100 requests when churned). */
async function load(port: number, ms: number, churned: boolean): Promise<number> {
  const until = Date.now() + ms;
  let ok = 0;
  const client = async () => {
    let agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let used = 0;
    while (Date.now() < until) {
      if (churned && used === CHURN_AFTER) {
        agent.destroy();
        agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        used = 0;
      }
      used++;
      const answered = await new Promise<number>((done) => {
        const request = http.get({ host: '127.0.0.1', port, path: `http://127.0.0.1:${originPort}/kib`, headers: { Host: `127.0.0.1:${originPort}` }, agent }, (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode !== 200) fail(`HTTP ${response.statusCode}`);
            done(response.statusCode === 200 ? 1 : 0);
          });
        });
        request.on('error', (error: NodeJS.ErrnoException) => {
          fail(error.code ?? error.message);
          done(0);
        });
      });
      ok += answered;
    }
    agent.destroy();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return ok;
}

async function measure(side: Side, mode: 'kept' | 'churned'): Promise<void> {
  await load(side.port, WARMUP_MS, mode === 'churned');
  const pid = side.proc.pid!;
  const before = threadCpu(pid);
  const started = performance.now();
  const ok = await load(side.port, RUN_MS, mode === 'churned');
  const seconds = (performance.now() - started) / 1000;
  const after = threadCpu(pid);
  const r = side.results[mode];
  r.main.push((after.main - before.main) / ok);
  r.other.push((after.other - before.other) / ok);
  r.total.push((after.main + after.other - before.main - before.other) / ok);
  r.rate.push(ok / seconds);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

mkdirSync(join(scratch, 'empty')); // a rules folder with no rule in it
const sides: Side[] = [];
try {
  for (const name of variants) sides.push(await start(name));
  for (let round = 0; round < ROUNDS; round++) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
    for (const mode of ['kept', 'churned'] as const) for (const side of order) await measure(side, mode);
    console.log(`round ${round + 1}/${ROUNDS}: ${sides.map((s) => `${s.name} ${s.results.kept.total.at(-1)!.toFixed(0)}/${s.results.churned.total.at(-1)!.toFixed(0)}`).join(', ')} µs/req (kept/churned)`);
  }
  const base = sides.find((side) => side.name === 'none')!;
  const uptime = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`\nwrtui headless CPU per request from /proc (median of ${ROUNDS} rounds × ${RUN_MS} ms, 32 clients, 1 KiB GETs; load average ${uptime})`);
  for (const mode of ['kept', 'churned'] as const) {
    console.log(`\nconnections ${mode === 'kept' ? 'kept open' : `churned (new every ${CHURN_AFTER} requests)`}:`);
    console.log('variant    total µs  main µs  other threads µs   req/s   paired vs none: total CPU/req, main, other, req/s');
    for (const side of sides) {
      const r = side.results[mode];
      const b = base.results[mode];
      const paired = (pick: (x: typeof r) => number[]) => median(pick(r).map((value, i) => value - pick(b)[i]!));
      const pairedRatio = (pick: (x: typeof r) => number[]) => median(pick(r).map((value, i) => value / pick(b)[i]!));
      console.log(
        `${side.name.padEnd(10)} ${median(r.total).toFixed(0).padStart(8)} ${median(r.main).toFixed(0).padStart(8)} ${median(r.other).toFixed(0).padStart(17)} ${median(r.rate).toFixed(0).padStart(7)}` +
          `   ${(paired((x) => x.total) >= 0 ? '+' : '') + paired((x) => x.total).toFixed(0)} µs (${pairedRatio((x) => x.total).toFixed(2)}×)  ${(paired((x) => x.main) >= 0 ? '+' : '') + paired((x) => x.main).toFixed(0)} µs  ${(paired((x) => x.other) >= 0 ? '+' : '') + paired((x) => x.other).toFixed(0)} µs  ${pairedRatio((x) => x.rate).toFixed(2)}×`,
      );
    }
  }
  for (const side of sides) console.log(`${side.name}: stdout ${(statSync(side.outFile).size / 1024 / 1024).toFixed(1)} MiB`);
  if (failures.size > 0) console.log(`not answered 200: ${[...failures].map(([what, n]) => `${what} ×${n}`).join(', ')}`);
} finally {
  for (const side of sides) side.proc.kill('SIGTERM');
  await Promise.all(sides.map((side) => (side.proc.exitCode !== null ? undefined : new Promise((done) => side.proc.once('exit', done)))));
  origin.close();
  rmSync(scratch, { recursive: true, force: true });
}
