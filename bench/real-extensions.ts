// Real extensions, as Debian ships them (issue #34's benchmark): for each one installed, wrtui with
// it loaded unchanged under its build's persona, beside the same proxy with no extension.
//
//   node --import tsx bench/real-extensions.ts            (REAL_EXT_REQUESTS=400 for more samples)
//
// Per extension: the time from start to its first blocking verdict (a tracker request through the
// proxy cancelled; "—" for one that blocks nothing), the RSS it adds to the process (its worker's
// heap and code; workers share the process), and what it adds to a first-party page request: wall
// latency p50/p99 and CPU per request per thread (/proc/self/task: the proxy's thread, the others
// together), each also as a ratio to no extension. Requests are sequential, keep-alive, to a local
// origin (hostnames sent there by --resolve), with a browser's headers (Referer, Sec-Fetch-*).
import { readdir, readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProxyAgent, request } from 'undici';
import { CaptureProxy } from '../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../src/engine/capture/certificate-authority.js';
import { HostMap, parseHostMapping, type HostMapping } from '../src/engine/capture/host-map.js';
import { Engine } from '../src/engine/engine.js';
import { ExtensionHost } from '../src/engine/extensions/extension-host.js';
import type { PersonaName } from '../src/engine/personas/index.js';
import { INSTALLED, type CorpusPackage } from '../test/helpers/real-extensions.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';

const REQUESTS = Number(process.env.REAL_EXT_REQUESTS ?? 200);
const CORPUS: { pkg: CorpusPackage; persona: PersonaName; blocks: boolean }[] = [
  { pkg: 'webext-ublock-origin-chromium', persona: 'chrome', blocks: true },
  { pkg: 'webext-ublock-origin-firefox', persona: 'firefox', blocks: true },
  { pkg: 'webext-privacy-badger', persona: 'firefox', blocks: true },
  { pkg: 'webext-lightbeam', persona: 'firefox', blocks: false },
  { pkg: 'webext-bulk-media-downloader', persona: 'firefox', blocks: false },
  { pkg: 'webext-foxyproxy', persona: 'firefox', blocks: false },
  { pkg: 'webext-proxy-switcher', persona: 'firefox', blocks: false },
  { pkg: 'webext-keepassxc-browser', persona: 'firefox', blocks: false },
  { pkg: 'webext-browserpass', persona: 'firefox', blocks: false },
];

const CLOCK_TICK_MS = 10; // USER_HZ 100 on Linux

/** CPU ms of the process's threads: the main (proxy) thread, and all the others. */
async function threadCpu(): Promise<{ main: number; others: number }> {
  let main = 0;
  let others = 0;
  for (const tid of await readdir('/proc/self/task')) {
    const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ms = (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
    if (Number(tid) === process.pid) main += ms;
    else others += ms;
  }
  return { main, others };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

interface Row {
  name: string;
  firstVerdictMs: number | undefined;
  rssMiB: number;
  p50: number;
  p99: number;
  mainUs: number;
  othersUs: number;
}

async function measure(entry: (typeof CORPUS)[number] | undefined, origin: http.Server): Promise<Row> {
  const port = (origin.address() as AddressInfo).port;
  const stateDir = await mkdtemp(path.join(tmpdir(), 'wrtui-bench-ext-'));
  const engine = await Engine.open({ stateDir });
  const ca = await loadOrCreateCertificateAuthority(stateDir);
  const mappings = ['*.test', 'stats.g.doubleclick.net', 'www.google-analytics.com'].map((host) => parseHostMapping(`${host}:127.0.0.1`) as HostMapping);
  const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0, hostMap: new HostMap(mappings) });
  await proxy.start();
  const agent = new ProxyAgent({ uri: proxy.url, proxyTunnel: false });
  const page = `http://www.news.test:${port}/`;
  const get = async (url: string, document = false) => {
    const headers = document
      ? { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate', 'sec-fetch-site': 'none', accept: 'text/html' }
      : { referer: page, 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors', 'sec-fetch-site': url.includes('news.test') ? 'same-origin' : 'cross-site', accept: 'image/*' };
    const response = await request(url, { dispatcher: agent, headers });
    await response.body.text();
    return response.statusCode;
  };
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const host = entry ? await ExtensionHost.start(engine, { extensions: [INSTALLED[entry.pkg]], watch: false, typeCheck: false, stateDir, persona: entry.persona }) : undefined;
  let firstVerdictMs: number | undefined;
  if (entry?.blocks) {
    for (let i = 0; performance.now() - started < 180_000; i++) {
      // A page (a tab, for extensions that judge third parties by their tab), then a tracker it pulls.
      await get(page, true);
      const blocked = await get(`http://stats.g.doubleclick.net:${port}/probe-${i}.gif`).then(() => false, () => true);
      if (blocked) {
        firstVerdictMs = performance.now() - started;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  // Warm up, then settle memory.
  for (let i = 0; i < 20; i++) await get(`http://www.news.test:${port}/warm-${i}.png`);
  global.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const rssMiB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const times: number[] = [];
  const cpuBefore = await threadCpu();
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    await get(`http://www.news.test:${port}/img-${i}.png`);
    times.push(performance.now() - t);
  }
  const cpuAfter = await threadCpu();
  times.sort((a, b) => a - b);
  await host?.close();
  await agent.close();
  await proxy.stop();
  await engine.close();
  await rm(stateDir, { recursive: true, force: true });
  return {
    name: entry ? entry.pkg.replace('webext-', '') : '(no extension)',
    firstVerdictMs,
    rssMiB,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    mainUs: ((cpuAfter.main - cpuBefore.main) * 1000) / REQUESTS,
    othersUs: ((cpuAfter.others - cpuBefore.others) * 1000) / REQUESTS,
  };
}

const origin = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64')));
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
await measure(undefined, origin); // warms the process up: the first measure pays for it
const rows: Row[] = [await measure(undefined, origin)];
for (const entry of CORPUS) {
  if (!existsSync(`${INSTALLED[entry.pkg]}/manifest.json`)) {
    console.log(`${entry.pkg}: not installed (apt-get install -y ${entry.pkg}), skipped`);
    continue;
  }
  try {
    rows.push(await measure(entry, origin));
  } catch (error) {
    console.log(`${entry.pkg}: failed: ${(error as Error).message}`);
  }
}
origin.close();
const base = rows[0]!;
const ratio = (value: number, of: number) => (of > 0 ? `${(value / of).toFixed(2)}×` : '—');
console.log(`\n${REQUESTS} sequential first-party requests each; CPU per request from /proc/self/task (10 ms ticks: small figures are coarse)\n`);
console.log('| extension | first blocking verdict | RSS added | p50 | p99 | proxy thread CPU/request | other threads CPU/request |');
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) {
  console.log(
    `| ${row.name} | ${row.firstVerdictMs === undefined ? '—' : `${(row.firstVerdictMs / 1000).toFixed(1)} s`} | ${row.rssMiB.toFixed(0)} MiB | ${row.p50.toFixed(2)} ms (${ratio(row.p50, base.p50)}) | ${row.p99.toFixed(2)} ms (${ratio(row.p99, base.p99)}) | ${row.mainUs.toFixed(0)} µs (${ratio(row.mainUs, base.mainUs)}) | ${row.othersUs.toFixed(0)} µs |`,
  );
}
