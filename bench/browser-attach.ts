// What attaching to the browser costs the proxy (`wrtui browser`, docs/browser-attach.md): a page
// of 200 resources (images and scripts on two hostnames sent to loopback by --resolve), loaded by
// the Chromium wrtui starts, attached over its DevTools pipe or not, rounds alternating.
//
//   node --import tsx bench/browser-attach.ts [rounds] [--firefox]
//
// --firefox: the Firefox `wrtui browser --firefox` starts, attached over WebDriver BiDi or not
// (plain: its remote agent runs too, with no session, so both modes have the agent's quieter
// preferences; both open the page from a loopback page that waits 3 s, the same stretch of start).
//
// Printed per mode, side by side: the proxy thread's CPU per request (this process's main thread,
// which runs the proxy and, attached, reads the DevTools pipe: /proc/self/task/<pid>/stat, 10 ms
// ticks, summed over the rounds), the page's load time (its request to its last resource, median),
// and, attached, how many requests found the browser's report already there, how many waited for
// it, the longest wait, and how many were inferred. The origin runs in a child process.
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attachOptions } from '../src/app/browser-attach-session.js';
import { launchBrowser } from '../src/app/browser-launch.js';
import { launchFirefox } from '../src/app/firefox-launch.js';
import { BrowserToldRequests } from '../src/engine/capture/browser-told.js';
import { CaptureProxy } from '../src/engine/capture/capture-proxy.js';
import { loadOrCreateCertificateAuthority } from '../src/engine/capture/certificate-authority.js';
import { HostMap, parseHostMapping, type HostMapping } from '../src/engine/capture/host-map.js';
import { Engine } from '../src/engine/engine.js';

const FIREFOX = process.argv.includes('--firefox');
const ROUNDS = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 6);
const RESOURCES = 200;

const ORIGIN = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/page') {
    const r = url.searchParams.get('r');
    const port = server.address().port;
    const tags = [];
    for (let i = 0; i < ${RESOURCES}; i++) tags.push(i % 4 === 0 ? '<script src="http://cdn.test:' + port + '/s' + i + '.js?r=' + r + '"></script>' : '<img src="http://img.test:' + port + '/i' + i + '.gif?r=' + r + '">');
    return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>' + tags.join('') + '<script>addEventListener("load", () => fetch("/done?r=' + r + '"))</script>');
  }
  // Firefox: both modes open the page from here after 3 s, so that both measure the same stretch of Firefox's start.
  if (url.pathname === '/hold') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<script>setTimeout(() => { location.href = ' + JSON.stringify(url.searchParams.get('to')) + ' }, 3000)</script>');
  if (url.pathname === '/done') process.send({ done: url.searchParams.get('r') });
  if (url.pathname.endsWith('.js')) return res.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' }).end('void 0;');
  res.writeHead(200, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

const origin = fork('-e', [ORIGIN], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const doneWaiters = new Map<string, () => void>();
const port = await new Promise<number>((resolve) =>
  origin.on('message', (message: { port?: number; done?: string }) => {
    if (message.port !== undefined) resolve(message.port);
    if (message.done !== undefined) doneWaiters.get(message.done)?.();
  }),
);

const stateDir = await mkdtemp(path.join(tmpdir(), 'wrtui-bench-attach-'));
const engine = await Engine.open({});
const ca = await loadOrCreateCertificateAuthority(stateDir);
const proxy = new CaptureProxy({ lifecycle: engine.lifecycle, ca, port: 0, hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) });
await proxy.start();
let pageRequests = 0;
engine.journal.subscribe((entry) => {
  if (entry.kind === 'webRequest' && entry.event === 'onBeforeRequest' && new URL(entry.details.url).hostname.endsWith('.test')) pageRequests++;
});

/** This thread's CPU time in ms (user + system), from /proc: 10 ms ticks. */
function threadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Totals {
  cpuMs: number;
  requests: number;
  loadMs: number[];
}
const totals: Record<'plain' | 'attached', Totals> = { plain: { cpuMs: 0, requests: 0, loadMs: [] }, attached: { cpuMs: 0, requests: 0, loadMs: [] } };
const told = new BrowserToldRequests();

async function round(mode: 'plain' | 'attached', n: number): Promise<void> {
  const r = `${mode}-${n}`;
  const done = new Promise<void>((resolve) => doneWaiters.set(r, resolve));
  // Blank first, so that starting the browser is not measured.
  proxy.browserTold = mode === 'attached' ? told : undefined;
  const attach = mode === 'attached' ? { attach: { ...attachOptions(proxy, engine), tell: (request: Parameters<BrowserToldRequests['told']>[0]) => told.told(request) } } : {};
  const pageUrl = `http://www.test:${port}/page?r=${r}`;
  const firstUrl = FIREFOX ? `http://127.0.0.1:${port}/hold?to=${encodeURIComponent(pageUrl)}` : pageUrl;
  const plainUrl = mode === 'plain' ? { url: firstUrl } : {};
  const browser = FIREFOX
    ? await launchFirefox({ proxyUrl: proxy.url, headless: true, remoteAgent: true, ...attach, ...plainUrl })
    : await launchBrowser({ proxyUrl: proxy.url, spkiFingerprint: ca.spkiFingerprint, headless: true, ...attach, ...plainUrl });
  try {
    const requestsBefore = pageRequests;
    const cpuBefore = threadCpuMs();
    const started = performance.now();
    if (mode === 'attached') await browser.attachment!.navigate(browser.attachment!.tabs()[0]!.id, firstUrl);
    await done;
    totals[mode].loadMs.push(performance.now() - started);
    totals[mode].cpuMs += threadCpuMs() - cpuBefore;
    totals[mode].requests += pageRequests - requestsBefore;
  } finally {
    await browser.close();
  }
}

for (let n = 0; n < ROUNDS; n++) {
  for (const mode of n % 2 === 0 ? (['plain', 'attached'] as const) : (['attached', 'plain'] as const)) await round(mode, n);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const perRequest = (mode: 'plain' | 'attached') => totals[mode].cpuMs / Math.max(1, totals[mode].requests);
console.log(`${FIREFOX ? 'Firefox (WebDriver BiDi)' : 'Chromium (DevTools pipe)'}: ${ROUNDS} rounds of a page of ${RESOURCES} resources (+ the page and its /done), plain vs attached, alternating`);
console.log('mode       requests  proxy-thread CPU/request  page load (median)');
for (const mode of ['plain', 'attached'] as const) console.log(`${mode.padEnd(10)} ${String(totals[mode].requests).padStart(8)}  ${perRequest(mode).toFixed(3).padStart(20)} ms  ${median(totals[mode].loadMs).toFixed(0).padStart(12)} ms`);
console.log(`attached / plain CPU per request: ${(perRequest('attached') / perRequest('plain')).toFixed(3)}`);
console.log(`attached matching: ${JSON.stringify(told.stats)}`);

await proxy.stop();
origin.kill();
await rm(stateDir, { recursive: true, force: true });
process.exit(0);
