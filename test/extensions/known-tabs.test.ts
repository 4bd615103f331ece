// Tabs counted from traffic: a real Chromium browses through wrtui, and an extension written as
// many are (it ignores requests from no tab, and looks a request's tab up with tabs.get) sees the
// page's requests in one tab whose URL is the page's; curl's requests are from no tab.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { LogEntry } from '../../src/engine/journal.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const PAGE = `<!doctype html><title>tabs</title><img src="/pixel.png"><script>fetch('/data').then(() => { document.title = 'done'; });</script>`;

// Skip Redirect's and Privacy Badger's habit: requests from no tab are not theirs.
const BACKGROUND = `
chrome.webRequest.onBeforeRequest.addListener((details) => {
  if (details.tabId === -1) return console.log('no tab: ' + new URL(details.url).pathname);
  chrome.tabs.get(details.tabId, (tab) => {
    const problem = chrome.runtime.lastError;
    console.log(problem ? 'tabs.get failed: ' + problem.message : 'tab ' + tab.id + ' ' + tab.url + ' active ' + tab.active + ': ' + new URL(details.url).pathname);
  });
}, { urls: ['http://127.0.0.1/*'] });`;

let origin: Origin | undefined;
let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let work: string | undefined;
afterEach(async () => {
  await host?.close();
  await harness?.close();
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
  origin = harness = host = work = undefined;
});

describe.skipIf(SKIP)('tabs counted from traffic', () => {
  it("a page's requests are in one tab that tabs.get finds, with the page's URL; curl's are from no tab (-1)", { timeout: 60_000 }, async () => {
    origin = await startOrigin((req, res) => {
      if (req.url === '/page') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
      res.end('ok');
    });
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-known-tabs-'));
    await writeFile(path.join(work, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Tab Reader', version: '1', permissions: ['webRequest', 'tabs'], host_permissions: ['http://127.0.0.1/*'], background: { service_worker: 'sw.js' } }));
    await writeFile(path.join(work, 'sw.js'), BACKGROUND);
    harness = await startProxyHarness();
    harness.engine.extensionApi(createTrustedOwner('hermetic')).chrome.webRequest!.onBeforeRequest.addListener(
      (details) => (new URL(details.url).hostname === '127.0.0.1' ? undefined : { cancel: true }),
      { urls: ['<all_urls>'] },
      ['blocking'],
    );
    host = await ExtensionHost.start(harness.engine, { extensions: [work], watch: false, typeCheck: false, persona: 'chrome' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, proxy: { server: harness.proxy.url, bypass: '<-loopback>' }, args: ARGS });
    try {
      const page = await (await browser.newContext()).newPage();
      await page.goto(`${origin.url}/page`, { timeout: 15_000 });
      await page.waitForFunction(() => (globalThis as unknown as { document: { title: string } }).document.title === 'done', undefined, { timeout: 15_000 });
    } finally {
      await browser.close();
    }
    await harness.curl([`${origin.url}/from-curl`]);
    // (The browser's own favicon request is left out: not the page's.)
    const logs = () => harness!.entries.filter((e): e is LogEntry & typeof e => e.kind === 'log' && e.source === 'Tab Reader' && !e.message.startsWith('chrome.') && !e.message.endsWith('/favicon.ico')).map((e) => e.message);
    await expect.poll(() => logs().some((line) => line.includes('/from-curl')), { timeout: 5_000 }).toBe(true);
    const lines = logs().map((line) => line.replace(/^tab \d+ /, 'tab N '));
    // While the page itself loads, its tab is loading: url '' (a new tab), status loading.
    expect(lines.sort()).toEqual([`tab N  active true: /page`, `tab N ${origin.url}/page active true: /data`, `tab N ${origin.url}/page active true: /pixel.png`, 'no tab: /from-curl'].sort());
    // One tab for the page and its subresources, a positive id, as Chrome numbers tabs.
    const ids = new Set(logs().filter((line) => line.startsWith('tab ')).map((line) => Number(line.split(' ')[1])));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toBeGreaterThan(0);
  });
});
