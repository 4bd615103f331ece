// Paired A/B of the proxy's cost between two checkouts of wrtui (a lever's commit and its parent),
// in one run: each tree's bench runner (bench/proxy/runner.ts, bundled as bench/proxy.ts bundles it)
// in its own process, measured in interleaved rounds (order reversed every other round), 1 KiB GETs
// from 32 keep-alive clients that stay open. Prints proxy CPU per request (the runner process's, rule
// workers included) and req/s, per side, and the paired ratio (median over rounds of new ÷ base).
// Run: node --import tsx bench/proxy-ab.ts <base tree> <new tree> [kind] [listeners]
//   e.g. git worktree add --detach /tmp/base HEAD~1 && node --import tsx bench/proxy-ab.ts /tmp/base . wrtui none
// AB_ROUNDS (default 6), AB_MS (measured ms per run, default 2000).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';

const [baseTree, newTree, kind = 'wrtui', listeners = 'none'] = process.argv.slice(2);
if (!baseTree || !newTree) {
  console.error('usage: node --import tsx bench/proxy-ab.ts <base tree> <new tree> [kind] [listeners]');
  process.exit(2);
}
const ROUNDS = Number(process.env.AB_ROUNDS ?? 6);
const RUN_MS = Number(process.env.AB_MS ?? 2000);
const WARMUP_MS = 500;
const CONCURRENCY = 32;

/** Bundles a tree's runner beside its worker scripts, inside node_modules so that packages resolve. */
async function bundleRunner(tree: string, name: string): Promise<string> {
  const dir = join(resolve(tree), 'node_modules', '.cache', `wrtui-ab-${process.pid}-${name}`);
  await mkdir(dir, { recursive: true });
  const outfile = join(dir, 'runner.js');
  await build({ entryPoints: [join(resolve(tree), 'bench/proxy/runner.ts')], outfile, bundle: true, packages: 'external', platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
  const scripts = (await import(join(resolve(tree), 'src/engine/extensions/worker-script.ts'))) as {
    WORKER_SCRIPT_FILE: string;
    PAGE_DOM_SCRIPT_FILE: string;
    buildWorkerSource(dir: string): Promise<string>;
    buildPageDomSource(dir: string): Promise<string>;
  };
  const workerDir = join(resolve(tree), 'src/engine/extensions/worker');
  await writeFile(join(dir, scripts.WORKER_SCRIPT_FILE), await scripts.buildWorkerSource(workerDir));
  await writeFile(join(dir, scripts.PAGE_DOM_SCRIPT_FILE), await scripts.buildPageDomSource(workerDir));
  return outfile;
}

interface Side {
  name: string;
  proc: ChildProcess;
  port: number;
  cpuPerRequest: number[];
  rates: number[];
}

function ask<T>(proc: ChildProcess, message: object | null, type: string): Promise<T> {
  return new Promise((resolvePromise) => {
    const onMessage = (reply: { type: string }) => {
      if (reply.type !== type) return;
      proc.off('message', onMessage);
      resolvePromise(reply as T);
    };
    proc.on('message', onMessage);
    if (message) proc.send(message);
  });
}

async function start(name: string, runner: string, cwd: string): Promise<Side> {
  const proc = fork(runner, [kind, listeners], { cwd: resolve(cwd), execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ready = await ask<{ port: number }>(proc, null, 'ready');
  return { name, proc, port: ready.port, cpuPerRequest: [], rates: [] };
}

const origin = http.createServer((_req, res) => res.end('x'.repeat(1024)));
await new Promise<void>((done) => origin.listen(0, '127.0.0.1', done));
const originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/kib`;

/** 32 clients, each one keep-alive connection kept open, GETting until `ms` is over: requests answered 200. */
async function load(port: number, ms: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const until = Date.now() + ms;
  let ok = 0;
  const client = async () => {
    while (Date.now() < until) {
      const answered = await new Promise<number>((done) => {
        const request = http.get({ host: '127.0.0.1', port, path: originUrl, agent }, (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode !== 200) failures.set(`HTTP ${response.statusCode}`, (failures.get(`HTTP ${response.statusCode}`) ?? 0) + 1);
            done(response.statusCode === 200 ? 1 : 0);
          });
        });
        request.on('error', (error: NodeJS.ErrnoException) => {
          failures.set(error.code ?? error.message, (failures.get(error.code ?? error.message) ?? 0) + 1);
          done(0);
        });
      });
      ok += answered; // (not `ok += await …`: that reads ok before the wait, and 32 clients would overwrite each other)
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  agent.destroy();
  return ok;
}

/** Answers that were not a 200, and errors, by kind: a healthy run has none. */
const failures = new Map<string, number>();

const cpu = async (side: Side) => (await ask<{ cpuMicros: number }>(side.proc, { type: 'usage' }, 'usage')).cpuMicros;

async function measure(side: Side): Promise<void> {
  await load(side.port, WARMUP_MS);
  const before = await cpu(side);
  const started = performance.now();
  const ok = await load(side.port, RUN_MS);
  const seconds = (performance.now() - started) / 1000;
  side.cpuPerRequest.push(((await cpu(side)) - before) / ok);
  side.rates.push(ok / seconds);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const [baseRunner, newRunner] = await Promise.all([bundleRunner(baseTree, 'base'), bundleRunner(newTree, 'new')]);
const sides = [await start('base', baseRunner, baseTree), await start('new', newRunner, newTree)];
for (let round = 0; round < ROUNDS; round++) {
  for (const side of round % 2 === 0 ? sides : [...sides].reverse()) await measure(side);
  console.log(`round ${round + 1}: ${sides.map((s) => `${s.name} ${s.cpuPerRequest.at(-1)!.toFixed(0)} µs/req ${s.rates.at(-1)!.toFixed(0)} req/s`).join(', ')}`);
}
const [base, next] = sides as [Side, Side];
const paired = (pick: (s: Side) => number[]) => median(pick(next).map((value, i) => value / pick(base)[i]!));
console.log(
  `${kind} ${listeners}: proxy CPU/request base ${median(base.cpuPerRequest).toFixed(0)} µs, new ${median(next.cpuPerRequest).toFixed(0)} µs (paired ${(100 * (paired((s) => s.cpuPerRequest) - 1)).toFixed(1)} %); ` +
    `req/s base ${median(base.rates).toFixed(0)}, new ${median(next.rates).toFixed(0)} (paired ${(100 * (paired((s) => s.rates) - 1)).toFixed(1)} %); ${ROUNDS} rounds × ${RUN_MS} ms`,
);
if (failures.size > 0) console.log(`not answered 200: ${[...failures].map(([what, n]) => `${what} ×${n}`).join(', ')}`);
for (const side of sides) {
  await ask(side.proc, { type: 'stop' }, 'stopped');
}
origin.close();
// The bundles were this run's own.
await Promise.all([baseRunner, newRunner].map((runner) => rm(dirname(runner), { recursive: true, force: true })));
