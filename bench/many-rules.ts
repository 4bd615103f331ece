// Many small rule files: 1, 10 and 100 rule files of one blocking listener each, side by side, in
// shared workers (rule-workers.ts: the default) and with a worker each (`ownWorker: true` in every
// manifest: how every rule file ran before issue 36). Each configuration runs in a fresh process
// (its RSS is its own): RSS after load, time to all loaded (ExtensionHost.start with every rule
// active), then requests/s through the real proxy with every rule listening, and CPU per request
// from /proc: the proxy thread's, and the other threads' (workers) together.
//
//   node --import tsx bench/many-rules.ts
//   MANY_RULES_COUNTS=1,10,100 MANY_RULES_REQUESTS=400 MANY_RULES_LAYOUTS=shared,own node --import tsx bench/many-rules.ts
//
// Goals (issue 36, on the 2-core machine): 100 rule files load in < 3 s and hold < 300 MB RSS;
// requests/s with 100 rules >= 0.7x that with 10.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const COUNTS = (process.env.MANY_RULES_COUNTS ?? '1,10,100').split(',').map(Number);
const LAYOUTS = (process.env.MANY_RULES_LAYOUTS ?? 'shared,own').split(',') as Layout[];
const REQUESTS = Number(process.env.MANY_RULES_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.MANY_RULES_CONCURRENCY ?? 8);
type Layout = 'shared' | 'own';

interface Figures {
  layout: Layout;
  rules: number;
  workers: number;
  loadMs: number;
  /** CPU time of the whole process (every thread) while loading: what the load costs, whatever the machine's load. */
  loadCpuS: number;
  rssMb: number;
  requestsPerSecond: number;
  proxyCpuMsPerRequest: number;
  workerCpuMsPerRequest: number;
}

const rule = (n: number, layout: Layout) => `export const manifest = { name: 'rule-${n}', permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>']${layout === 'own' ? ', ownWorker: true' : ''} };
export default function background({ chrome }: any) {
  chrome.webRequest.onBeforeRequest.addListener((details: { url: string }) => (details.url.includes('/never-${n}') ? { cancel: true } : undefined), { urls: ['<all_urls>'] }, ['blocking']);
}
`;

/** CPU time (ms) of each thread of this process, by thread id, from /proc. */
function threadCpuMs(): Map<number, number> {
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  const times = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      times.set(Number(tid), (Number(fields[11]) + Number(fields[12])) / ticksPerMs);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return times;
}

async function child(count: number, layout: Layout, originUrl: string): Promise<Figures> {
  const { Engine } = await import('../src/engine/engine.js');
  const { ExtensionHost } = await import('../src/engine/extensions/extension-host.js');
  const { CaptureProxy } = await import('../src/engine/capture/capture-proxy.js');
  const { loadOrCreateCertificateAuthority } = await import('../src/engine/capture/certificate-authority.js');
  const { ProxyAgent, request } = await import('undici');
  const dir = await mkdtemp(path.join(tmpdir(), 'wrtui-many-rules-'));
  const stateDir = await mkdtemp(path.join(tmpdir(), 'wrtui-many-rules-state-'));
  for (let n = 0; n < count; n++) await writeFile(path.join(dir, `rule-${String(n).padStart(3, '0')}.ts`), rule(n, layout));
  const engine = await Engine.open();
  const ca = await loadOrCreateCertificateAuthority(stateDir);
  const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0 });
  await proxy.start();

  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const host = await ExtensionHost.start(engine, { rulesDir: dir, watch: false, typeCheck: false });
  const loadMs = performance.now() - started;
  const loadCpu = process.cpuUsage(cpuAtStart);
  const loadCpuS = (loadCpu.user + loadCpu.system) / 1e6;
  const active = host.rules().filter((status) => status.state === 'active').length;
  if (active !== count) throw new Error(`${active} of ${count} rules loaded: ${JSON.stringify(host.rules().find((s) => s.state !== 'active')?.error)}`);
  // Rules in shared workers count as the shared workers there are (one per core, at most 4, at most one per rule).
  const sharedRules = host.rules().filter((status) => status.runtime.shared).length;
  const workers = host.rules().length - sharedRules + Math.min(sharedRules, (await import('../src/engine/extensions/rule-workers.js')).sharedRuleWorkerCount());
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssMb = process.memoryUsage().rss / 2 ** 20;

  const agent = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
  const once = async (i: number) => {
    const response = await request(`${originUrl}/r${i}`, { dispatcher: agent });
    await response.body.text();
  };
  for (let i = 0; i < 40; i++) await once(i); // warm-up
  const cpuBefore = threadCpuMs();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < REQUESTS) await once(next++);
  }));
  const seconds = (performance.now() - t0) / 1000;
  const cpuAfter = threadCpuMs();
  let proxyCpu = 0;
  let workerCpu = 0;
  for (const [tid, after] of cpuAfter) {
    const spent = after - (cpuBefore.get(tid) ?? 0);
    if (tid === process.pid) proxyCpu += spent;
    else workerCpu += spent;
  }
  await agent.close();
  await host.close();
  await proxy.stop();
  await engine.close();
  await rm(dir, { recursive: true, force: true });
  await rm(stateDir, { recursive: true, force: true });
  return { layout, rules: count, workers, loadMs, loadCpuS, rssMb, requestsPerSecond: REQUESTS / seconds, proxyCpuMsPerRequest: proxyCpu / REQUESTS, workerCpuMsPerRequest: workerCpu / REQUESTS };
}

async function main(): Promise<void> {
  const [, , role, count, layout, originUrl] = process.argv;
  if (role === 'child') {
    const figures = await child(Number(count), layout as Layout, originUrl!);
    process.stdout.write(`${JSON.stringify(figures)}\n`);
    process.exit(0);
  }
  // The origin lives in this process: its CPU is not the measured process's.
  const origin = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  const originUrl_ = `http://127.0.0.1:${(origin.address() as { port: number }).port}`;
  const run = promisify(execFile);
  const self = fileURLToPath(import.meta.url);
  const rows: Figures[] = [];
  for (const layoutName of LAYOUTS) {
    for (const n of COUNTS) {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', self, 'child', String(n), layoutName, originUrl_], { maxBuffer: 1 << 24 });
      const figures = JSON.parse(stdout.trim().split('\n').at(-1)!) as Figures;
      rows.push(figures);
      console.error(`${layoutName} ${n}: done`);
    }
  }
  origin.close();
  console.log(`load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)} (wall times swing with it; CPU figures do not)`);
  console.log('layout  rules  workers  load s  load CPU s  RSS MB  req/s   proxy CPU ms/req  worker CPU ms/req');
  for (const r of rows) {
    console.log(
      `${r.layout.padEnd(7)} ${String(r.rules).padStart(5)}  ${String(r.workers).padStart(7)}  ${(r.loadMs / 1000).toFixed(2).padStart(6)}  ${r.loadCpuS.toFixed(2).padStart(10)}  ${r.rssMb.toFixed(0).padStart(6)}  ${r.requestsPerSecond.toFixed(0).padStart(5)}  ${r.proxyCpuMsPerRequest.toFixed(2).padStart(16)}  ${r.workerCpuMsPerRequest.toFixed(2).padStart(17)}`,
    );
  }
  for (const layoutName of LAYOUTS) {
    const ten = rows.find((r) => r.layout === layoutName && r.rules === 10);
    const hundred = rows.find((r) => r.layout === layoutName && r.rules === 100);
    if (ten && hundred) {
      const cpu = (r: Figures) => r.proxyCpuMsPerRequest + r.workerCpuMsPerRequest;
      console.log(
        `${layoutName}: 100 rules load in ${(hundred.loadMs / 1000).toFixed(2)} s (goal < 3 s; ${hundred.loadCpuS.toFixed(2)} CPU s), hold ${hundred.rssMb.toFixed(0)} MB RSS (goal < 300 MB), ` +
          `req/s 100 vs 10 rules ${(hundred.requestsPerSecond / ten.requestsPerSecond).toFixed(2)}x (goal >= 0.7x; in CPU per request ${(cpu(ten) / cpu(hundred)).toFixed(2)}x)`,
      );
    }
  }
}

await main();
