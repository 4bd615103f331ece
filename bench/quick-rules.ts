// What quick rules cost: node --import tsx bench/quick-rules.ts   (build first: node scripts/build.js)
//
// The real `wrtui headless --json` (bin/wrtui.js → dist/), started over a rules folder holding,
// side by side in one run:
//   - nothing (the baseline);
//   - 100 and 1,000 quick rules: rules/quick-rules/rules.json, one block rule per URL as `w`
//     writes them (declarativeNetRequest, no worker);
//   - 10 rule files, each one quick rule as `w` wrote it before (a TypeScript file: a worker each),
//     for comparison.
// Per configuration (QUICK_RUNS runs, the median): RSS of the wrtui process once everything has
// loaded (VmRSS from /proc, after a quiet second), the time from spawn to all loaded, then
// QUICK_REQUESTS requests one after another through the proxy to a local origin (a tenth of them
// to a URL a rule blocks): wall time per request and CPU per request of each thread of wrtui
// (utime+stime of /proc/<pid>/task/*/stat, by thread name). Goal (issue #36): 100 quick rules add
// less than 10 MB.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { formatRules, QUICK_RULES_MANIFEST } from '../src/engine/rules/quick-rules-file.js';
import { exactUrlCondition } from '../src/ui/quick-rules/quick-rule.js';
import { quickRuleCode } from '../src/ui/quick-rules/quick-rule-code.js';

const RUNS = Number(process.env.QUICK_RUNS ?? 3);
const REQUESTS = Number(process.env.QUICK_REQUESTS ?? 300);
const BIN = path.resolve('bin/wrtui.js');
const CLOCK_TICKS = 100; // USER_HZ on Linux

interface Config {
  name: string;
  quickRules: number;
  ruleFiles: number;
}
const CONFIGS: Config[] = [
  { name: 'no rules', quickRules: 0, ruleFiles: 0 },
  { name: '100 quick rules', quickRules: 100, ruleFiles: 0 },
  { name: '1,000 quick rules', quickRules: 1000, ruleFiles: 0 },
  { name: '10 rule files (w before)', quickRules: 0, ruleFiles: 10 },
];

interface Measure {
  rssMb: number;
  loadedMs: number;
  wallMsPerRequest: number;
  cpuMsPerRequest: Record<string, number>;
  blocked: number;
}

async function main(): Promise<void> {
  const origin = await startOrigin();
  const base = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  const results: { config: Config; runs: Measure[] }[] = [];
  try {
    for (const config of CONFIGS) {
      const runs: Measure[] = [];
      for (let run = 0; run < RUNS; run++) runs.push(await measure(config, base));
      results.push({ config, runs });
      process.stdout.write(`${config.name}: done\n`);
    }
  } finally {
    origin.close();
  }
  const baseline = median(results[0]!.runs.map((run) => run.rssMb));
  process.stdout.write(`\n${RUNS} runs each, medians; ${REQUESTS} requests per run, a tenth blocked by a rule\n`);
  process.stdout.write(`${'configuration'.padEnd(26)} ${'RSS'.padStart(9)} ${'added'.padStart(9)} ${'loaded'.padStart(9)} ${'wall/req'.padStart(9)}  CPU per request by thread (ms)\n`);
  for (const { config, runs } of results) {
    const rss = median(runs.map((run) => run.rssMb));
    const threads = [...new Set(runs.flatMap((run) => Object.keys(run.cpuMsPerRequest)))].sort();
    const cpu = threads
      .map((thread) => ({ thread, ms: median(runs.map((run) => run.cpuMsPerRequest[thread] ?? 0)) }))
      .filter(({ ms }) => ms >= 0.005)
      .map(({ thread, ms }) => `${thread} ${ms.toFixed(3)}`)
      .join(', ');
    process.stdout.write(
      `${config.name.padEnd(26)} ${`${rss.toFixed(1)} MB`.padStart(9)} ${`${(rss - baseline >= 0 ? '+' : '')}${(rss - baseline).toFixed(1)} MB`.padStart(9)} ${`${(median(runs.map((run) => run.loadedMs)) / 1000).toFixed(2)} s`.padStart(9)} ${`${median(runs.map((run) => run.wallMsPerRequest)).toFixed(2)} ms`.padStart(9)}  ${cpu}  (blocked ${runs[0]!.blocked})\n`,
    );
  }
}

async function measure(config: Config, base: string): Promise<Measure> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wrtui-bench-quick-'));
  const rulesDir = path.join(dir, 'rules');
  await mkdir(rulesDir);
  const blockedUrl = (n: number) => `${base}/blocked/${n}`;
  if (config.quickRules > 0) {
    await mkdir(path.join(rulesDir, 'quick-rules'));
    await writeFile(path.join(rulesDir, 'quick-rules', 'manifest.json'), JSON.stringify(QUICK_RULES_MANIFEST, null, 2));
    const rules = Array.from({ length: config.quickRules }, (_, index) => ({ id: index + 1, condition: exactUrlCondition(blockedUrl(index)), action: { type: 'block' } }));
    await writeFile(path.join(rulesDir, 'quick-rules', 'rules.json'), formatRules(rules));
  }
  for (let index = 0; index < config.ruleFiles; index++) {
    const made = await quickRuleCode({ id: index + 1, condition: exactUrlCondition(blockedUrl(index)), action: { type: 'block' } }, dir);
    if (!made.ok) throw new Error(made.error);
    await writeFile(path.join(rulesDir, `${made.code.name}-${index}.ts`), made.code.source.replace(/name: "([^"]+)"/, `name: "$1-${index}"`));
  }
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'headless', '--json', '--port', '0', '--incognito-port', '0', '--rules', rulesDir, '--state-dir', path.join(dir, 'state')], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const expectLoads = config.ruleFiles + (config.quickRules > 0 ? 1 : 0);
    const proxy = await untilLoaded(child, expectLoads);
    const loadedMs = performance.now() - started;
    await sleep(1000);
    const rssMb = await rssOf(child.pid!);
    const before = await threadTimes(child.pid!);
    const t0 = performance.now();
    let blocked = 0;
    for (let n = 0; n < REQUESTS; n++) {
      const url = n % 10 === 0 ? blockedUrl(n % Math.max(1, config.quickRules || config.ruleFiles || 1)) : `${base}/page/${n}`;
      if ((await get(proxy, url)) === 'blocked') blocked++;
    }
    const wallMsPerRequest = (performance.now() - t0) / REQUESTS;
    const after = await threadTimes(child.pid!);
    const cpuMsPerRequest: Record<string, number> = {};
    for (const [thread, ticks] of after) cpuMsPerRequest[thread] = (((ticks - (before.get(thread) ?? 0)) / CLOCK_TICKS) * 1000) / REQUESTS;
    return { rssMb, loadedMs, wallMsPerRequest, cpuMsPerRequest, blocked };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await rm(dir, { recursive: true, force: true });
  }
}

/** The proxy's URL once the journal said `loads` rules or rulesets loaded. */
function untilLoaded(child: ChildProcess, loads: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let proxy: string | undefined;
    let loaded = 0;
    const done = () => {
      if (proxy !== undefined && loaded >= loads) resolve(proxy);
    };
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as { kind: string; url?: string; action?: string; rule?: string; message?: string };
      if (entry.kind === 'listening') proxy = entry.url;
      if (entry.kind === 'rule' && entry.action === 'loaded') loaded++;
      if (entry.kind === 'rule' && entry.action === 'failed') reject(new Error(`${entry.rule} failed: ${entry.message}`));
      done();
    });
    child.once('exit', (code) => reject(new Error(`wrtui exited (${code}) before loading`)));
  });
}

function get(proxy: string, url: string): Promise<'ok' | 'blocked'> {
  const { hostname, port } = new URL(proxy);
  return new Promise((resolve) => {
    const req = httpRequest({ host: hostname, port, path: url, headers: { Host: new URL(url).host } }, (res) => {
      res.resume();
      res.once('end', () => resolve('ok'));
    });
    req.once('error', () => resolve('blocked'));
    req.end();
  });
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** utime+stime (clock ticks) per thread name (threads of one name summed: libuv's pool, V8's workers). */
async function threadTimes(pid: number): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  for (const task of await readdir(`/proc/${pid}/task`)) {
    try {
      const stat = await readFile(`/proc/${pid}/task/${task}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]);
      const key = Number(task) === pid ? 'main' : name;
      times.set(key, (times.get(key) ?? 0) + ticks);
    } catch {
      // the thread ended meanwhile
    }
  }
  return times;
}

function startOrigin(): Promise<Server> {
  const server = createServer((req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`hello ${req.url}`));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

await main();
