// What a browser does with an extension busy in its background (docs/extensions-and-host.md, "Extension host": what the
// browsers do with a busy extension). Not a benchmark: a probe run by hand, minutes long.
//
//   node --import tsx bench/busy-background.ts firefox|chromium <top-level busy ms> <task busy ms> [seconds to run]
//
// The extension busy-loops at its top level, then registers a blocking onBeforeRequest listener
// that cancels /probe requests, then busy-loops in a task 3 s later; it reports each step to a
// local origin. A page on that origin requests /probe every 500 ms and reports how long each took
// and whether it went through. Firefox ESR runs it as an MV2 add-on through web-ext (the test
// helpers' quiet profile), Chromium 156 as an MV3 service worker whose id is allowlisted for
// blocking webRequest (the key of fixtures/extensions/mv3-blocker). Printed: what the origin saw,
// in seconds since the start (DEBUG_PROBE=1: every request it got). In some runs Chromium never
// loaded the page when the service worker's top level started busy first; run it again then.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { endProcessGroup, FIREFOX, firefoxProfile, WEB_EXT } from '../test/helpers/firefox.js';
import { CHROMIUM, PROBE_EXTENSION_ID } from '../test/helpers/chromium-probe.js';

const [browser, topLevelMs, taskMs, seconds] = [process.argv[2], Number(process.argv[3] ?? 15_000), Number(process.argv[4] ?? 40_000), Number(process.argv[5] ?? 90)];
if (browser !== 'firefox' && browser !== 'chromium') throw new Error('usage: busy-background.ts firefox|chromium <top-level busy ms> <task busy ms> [seconds]');

const started = Date.now();
const say = (...words: unknown[]) => console.log(((Date.now() - started) / 1000).toFixed(2).padStart(7), ...words);

const PAGE = `<!doctype html><script>
let n = 0;
setInterval(async () => {
  const i = n++, at = Date.now();
  let result;
  try { result = 'ok ' + (await fetch('/probe?n=' + i, { cache: 'no-store' })).status; } catch { result = 'failed'; }
  fetch('/page-report?n=' + i + '&took=' + (Date.now() - at) + '&result=' + encodeURIComponent(result));
}, 500);
</script>`;

const origin = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://origin');
  const q = (name: string) => url.searchParams.get(name);
  if (process.env.DEBUG_PROBE) say('origin:', req.url);
  if (url.pathname === '/page') return res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' }).end(PAGE);
  if (url.pathname === '/probe') say(`origin got probe ${q('n')} (not blocked)`);
  else if (url.pathname === '/page-report') say(`page: probe ${q('n')} took ${q('took')} ms: ${q('result')}`);
  else if (url.pathname === '/report') say(`extension: ${q('what')} at ${q('t')} ms of its own clock`);
  res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }).end();
});
await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
const ORIGIN = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;

const dir = await mkdtemp(path.join(tmpdir(), 'wrtui-busy-background-'));
// Firefox's match patterns take no port: the listener filters by path itself.
await writeFile(
  path.join(dir, 'background.js'),
  `const ORIGIN = ${JSON.stringify(ORIGIN)};
const t0 = Date.now();
const api = typeof browser !== 'undefined' ? browser : chrome;
const report = (what) => fetch(ORIGIN + '/report?what=' + encodeURIComponent(what) + '&t=' + (Date.now() - t0)).catch(() => {});
report('top level starts');
for (const end = Date.now() + ${topLevelMs}; Date.now() < end; );
api.webRequest.onBeforeRequest.addListener((d) => {
  if (!d.url.includes('/probe')) return;
  report('saw ' + d.url.split('?')[1]);
  return { cancel: true };
}, { urls: ['<all_urls>'] }, ['blocking']);
report('listener added');
setTimeout(() => report('task starts').then(() => {
  for (const end = Date.now() + ${taskMs}; Date.now() < end; );
  report('task ends');
}), 3000);
`,
);
const key = (JSON.parse(await readFile(fileURLToPath(new URL('../fixtures/extensions/mv3-blocker/manifest.json', import.meta.url)), 'utf8')) as { key: string }).key;
const manifest =
  browser === 'firefox'
    ? { manifest_version: 2, name: 'busy background', version: '1', permissions: ['webRequest', 'webRequestBlocking', '<all_urls>'], background: { scripts: ['background.js'] }, browser_specific_settings: { gecko: { id: 'busy-background@wrtui.test' } } }
    : { manifest_version: 3, name: 'busy background', version: '1', key, permissions: ['webRequest', 'webRequestBlocking'], host_permissions: ['<all_urls>'], background: { service_worker: 'background.js' } };
await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));

const child =
  browser === 'firefox'
    ? spawn(WEB_EXT, ['run', '--source-dir', dir, '--firefox', FIREFOX, '--arg=--headless', '--no-input', '--no-reload', '--firefox-profile', await firefoxProfile(path.join(dir, 'profile')), '--keep-profile-changes', '--start-url', `${ORIGIN}/page`], { stdio: 'ignore', detached: true })
    : spawn(CHROMIUM, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${path.join(dir, 'profile')}`, `--disable-extensions-except=${dir}`, `--load-extension=${dir}`, `--allowlisted-extension-id=${PROBE_EXTENSION_ID}`, `${ORIGIN}/page`], { stdio: 'ignore', detached: true });
const exited = new Promise((resolve) => child.once('exit', resolve));
// The browser must not outlive the probe, however the probe ends (a closed pipe, ^C).
process.once('exit', () => {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
say(`${browser}: top level busy ${topLevelMs} ms, then a task busy ${taskMs} ms; running ${seconds} s`);
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
await endProcessGroup(child, exited);
origin.close();
await rm(dir, { recursive: true, force: true });
