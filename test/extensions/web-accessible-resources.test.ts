// A redirect to an extension's own file, as LocalCDN-style extensions (and DNR's
// redirect.extensionPath) make: the browser serves a web accessible resource itself and refuses any
// other with net::ERR_BLOCKED_BY_CLIENT. fixtures/extensions/war-redirect redirects two images to
// its files, one listed in web_accessible_resources and one not, inside a real Chromium 156 (the
// oracle) and inside wrtui with that Chromium browsing through the proxy; a second extension
// watches. The page's images and the events each extension is told must agree.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { webAccessiblePatterns, webAccessibleResource } from '../../src/engine/extensions/web-accessible-resources.js';
import type { LogEntry } from '../../src/engine/journal.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/war-redirect', import.meta.url));
const EXTENSION_ID = 'npngpgadjklogcjnddakfnmbbkeidjap';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const PAGE = `<!doctype html><title>war</title>
<img src="/remote.png" onload="window.remote='loaded'" onerror="window.remote='error'">
<img src="/hidden.png" onload="window.hidden='loaded'" onerror="window.hidden='error'">`;

// Another extension, watching every URL: an extension's own URLs are not its to see.
const WATCHER = `self.events = [];
for (const event of ['onBeforeRedirect', 'onResponseStarted', 'onCompleted', 'onErrorOccurred']) {
  chrome.webRequest[event].addListener((d) => {
    if (!/png$/.test(d.url)) return;
    self.events.push([event, d.url]);
    console.log('watcher ' + JSON.stringify([event, d.url]));
  }, { urls: ['<all_urls>'] });
}`;

let origin: Origin;
let work: string;
let watcher: string;

beforeAll(async () => {
  if (SKIP) return;
  origin = await startOrigin((req, res) => {
    if (req.url === '/page') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    res.writeHead(404).end();
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-war-'));
  watcher = path.join(work, 'watcher');
  await mkdir(watcher);
  await writeFile(path.join(watcher, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Watcher', version: '1', permissions: ['webRequest'], host_permissions: ['<all_urls>'], background: { service_worker: 'sw.js' } }));
  await writeFile(path.join(watcher, 'sw.js'), WATCHER);
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function images(context: BrowserContext): Promise<unknown> {
  const page = await context.newPage();
  await page.goto(`${origin.url}/page`, { timeout: 15_000 });
  await page.waitForFunction(() => (globalThis as { remote?: string; hidden?: string }).remote && (globalThis as { hidden?: string }).hidden, undefined, { timeout: 10_000 });
  return page.evaluate(() => [(globalThis as { remote?: string }).remote, (globalThis as { hidden?: string }).hidden]);
}

const withoutPort = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(`:${origin.port}/`, ':PORT/')) as unknown[];
const sorted = (list: unknown[]) => list.map((entry) => JSON.stringify(entry)).sort();

describe.skipIf(SKIP)("a redirect to an extension's own file: Chromium 156 and wrtui", () => {
  let oracle: { images: unknown; events: string[]; watched: string[] };

  it('in Chromium: the web accessible image loads (onResponseStarted, onCompleted at its URL), the other fails with net::ERR_BLOCKED_BY_CLIENT; the watcher sees neither', { timeout: 60_000 }, async () => {
    const context = await chromium.launchPersistentContext(path.join(work, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      ignoreDefaultArgs: ['--disable-extensions'],
      args: ['--headless=new', ...ARGS, `--disable-extensions-except=${EXTENSION},${watcher}`, `--load-extension=${EXTENSION},${watcher}`, `--allowlisted-extension-id=${EXTENSION_ID}`],
    });
    try {
      while (context.serviceWorkers().length < 2) await context.waitForEvent('serviceworker', { timeout: 15_000 });
      const workers = context.serviceWorkers();
      const ours = workers.find((worker) => worker.url().includes(EXTENSION_ID))!;
      const theirs = workers.find((worker) => !worker.url().includes(EXTENSION_ID))!;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const loaded = await images(context);
      await new Promise((resolve) => setTimeout(resolve, 500));
      oracle = { images: loaded, events: sorted(withoutPort(await ours.evaluate('self.events'))), watched: sorted(withoutPort(await theirs.evaluate('self.events'))) };
    } finally {
      await context.close();
    }
    expect(oracle.images).toEqual(['loaded', 'error']);
    expect(oracle.events).toContain(JSON.stringify(['onCompleted', `chrome-extension://${EXTENSION_ID}/images/local.png`, null, 200, null]));
    expect(oracle.events).toContain(JSON.stringify(['onErrorOccurred', `chrome-extension://${EXTENSION_ID}/secret.png`, null, null, 'net::ERR_BLOCKED_BY_CLIENT']));
    expect(oracle.watched.some((line) => line.includes('chrome-extension://'))).toBe(false);
  });

  it('in wrtui (Chromium browsing through its proxy, no extension in the browser): the same images and the same events', { timeout: 60_000 }, async () => {
    const harness = await startProxyHarness();
    harness.engine.extensionApi(createTrustedOwner('hermetic')).chrome.webRequest!.onBeforeRequest.addListener(
      (details) => (new URL(details.url).hostname === '127.0.0.1' ? undefined : { cancel: true }),
      { urls: ['<all_urls>'] },
      ['blocking'],
    );
    const host = await ExtensionHost.start(harness.engine, { extensions: [EXTENSION, watcher], watch: false, typeCheck: false, persona: 'chrome' });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, proxy: { server: harness.proxy.url, bypass: '<-loopback>' }, args: ARGS });
    const logged = (source: string, prefix: string) =>
      harness.entries.filter((e): e is LogEntry & typeof e => e.kind === 'log' && e.source === source && e.message.startsWith(prefix)).map((e) => JSON.parse(e.message.slice(prefix.length)) as unknown);
    try {
      expect(await images(await browser.newContext())).toEqual(oracle.images);
      await expect.poll(() => sorted(withoutPort(logged('WAR Redirect', 'war '))), { timeout: 5_000 }).toEqual(oracle.events);
      expect(sorted(withoutPort(logged('Watcher', 'watcher ')))).toEqual(oracle.watched);
    } finally {
      await browser.close();
      await host.close();
      await harness.close();
    }
  });
});

describe('which files a redirect may load', () => {
  it('only what web_accessible_resources lists (MV2 strings, MV3 resources; * any run of characters), and never outside the folder', async () => {
    const patterns = webAccessiblePatterns({ web_accessible_resources: [{ resources: ['images/*.png'], matches: ['<all_urls>'] }, 'legacy.js'] });
    const at = (path: string) => webAccessibleResource(EXTENSION, patterns, new URL(`chrome-extension://${EXTENSION_ID}${path}`));
    expect(await at('/images/local.png')).toMatchObject({ type: 'image/png' });
    expect((await at('/images/local.png'))!.bytes.length).toBeGreaterThan(0);
    expect(await at('/secret.png')).toBeUndefined();
    expect(await at('/images/missing.png')).toBeUndefined();
    expect(await at('/images/%2e%2e/secret.png')).toBeUndefined();
    expect(await at('/images/..%2fsecret.png')).toBeUndefined();
  });

  it('a listed name that is no regular file (a FIFO) is not served, and reading it never waits: the lookup runs on the proxy thread', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'wrtui-war-fifo-'));
    try {
      execFileSync('mkfifo', [path.join(folder, 'pipe.png')]);
      const at = webAccessibleResource(folder, webAccessiblePatterns({ web_accessible_resources: ['*.png'] }), new URL(`chrome-extension://${EXTENSION_ID}/pipe.png`));
      expect(await Promise.race([at, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2_000))])).toBeUndefined();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
