// The same unpacked MV3 extension, unchanged, in two places: inside a real Chromium (the oracle:
// Chromium 156 runs blocking webRequest for an allowlisted id, FACTS.md) and inside wrtui with that
// Chromium browsing through wrtui's proxy. The page shows what the extension did to it: an image it
// cancels, a request header it adds that the origin echoes back. Both runs must agree.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { extensionIdFromPath } from '../../src/engine/extensions/extension-id.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/mv3-blocker', import.meta.url));
const EXTENSION_ID = 'npngpgadjklogcjnddakfnmbbkeidjap';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** What the page reports about itself once loaded. */
interface PageReport {
  image: string;
  fetched: string;
}

const PAGE = `<!doctype html><title>extension effects</title>
<img id="img" src="/blocked/pixel.png" onload="window.imageState='loaded'" onerror="window.imageState='error'">
<script>fetch('/page/data').then((r) => r.text()).then((t) => { window.fetched = t; }, (e) => { window.fetched = 'failed: ' + e; });</script>`;

let origin: Origin;
let work: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  origin = await startOrigin((req, res) => {
    if (req.url === '/page') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(PAGE);
    if (req.url === '/page/data') return res.end(`x-mv3-blocker: ${req.headers['x-mv3-blocker'] ?? '(none)'}`);
    if (req.url?.startsWith('/blocked/')) return res.writeHead(200, { 'Content-Type': 'image/png' }).end(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'));
    res.writeHead(404).end();
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-chromium-extension-'));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function report(context: BrowserContext): Promise<PageReport> {
  const page = await context.newPage();
  await page.goto(`${origin.url}/page`, { timeout: 15_000 });
  await page.waitForFunction(() => (globalThis as { imageState?: string; fetched?: string }).imageState && (globalThis as { fetched?: string }).fetched, undefined, { timeout: 10_000 });
  return page.evaluate(() => ({ image: (globalThis as { imageState?: string }).imageState!, fetched: (globalThis as { fetched?: string }).fetched! }));
}

describe.skipIf(SKIP)('one MV3 extension, unchanged: in Chromium and in wrtui', () => {
  let inChromium: PageReport;
  let inWrtui: PageReport;
  let harness: ProxyHarness | undefined;
  let host: ExtensionHost | undefined;

  it('in Chromium (the oracle): the image is cancelled and the fetch carries the header', { timeout: 60_000 }, async () => {
    const context = await chromium.launchPersistentContext(path.join(work, 'profile-oracle'), {
      executablePath: CHROMIUM,
      headless: true,
      ignoreDefaultArgs: ['--disable-extensions'],
      args: ['--headless=new', ...ARGS, `--disable-extensions-except=${EXTENSION}`, `--load-extension=${EXTENSION}`, `--allowlisted-extension-id=${EXTENSION_ID}`],
    });
    try {
      const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
      expect(worker.url()).toBe(`chrome-extension://${EXTENSION_ID}/background.js`);
      // The listeners register at the worker's top level; give it a moment (FACTS.md).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      inChromium = await report(context);
    } finally {
      await context.close();
    }
    expect(inChromium).toEqual({ image: 'error', fetched: `x-mv3-blocker: ${EXTENSION_ID}` });
  });

  it('in wrtui (Chromium browsing through its proxy, no extension in the browser): the same effects', { timeout: 60_000 }, async () => {
    harness = await startProxyHarness();
    // Keep Chromium's own background traffic off the internet.
    harness.engine.extensionApi(createTrustedOwner('hermetic')).chrome.webRequest!.onBeforeRequest.addListener(
      (details) => (new URL(details.url).hostname === '127.0.0.1' ? undefined : { cancel: true }),
      { urls: ['<all_urls>'] },
      ['blocking'],
    );
    host = await ExtensionHost.start(harness.engine, { extensions: [EXTENSION], watch: false, typeCheck: false });
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, proxy: { server: harness.proxy.url }, args: ARGS });
    try {
      inWrtui = await report(await browser.newContext());
    } finally {
      await browser.close();
      await host.close();
      await harness.close();
    }
    expect(inWrtui).toEqual(inChromium);
    // And the origin never saw the cancelled image, in either run.
    expect(origin.received.filter((r) => r.url.startsWith('/blocked/'))).toEqual([]);
  });

  it('without a key, an unpacked extension gets the id Chromium gives its folder', { timeout: 60_000 }, async () => {
    const folder = path.join(work, 'no-key');
    await mkdir(folder);
    await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'no key', version: '1', background: { service_worker: 'sw.js' } }));
    await writeFile(path.join(folder, 'sw.js'), '');
    const context = await chromium.launchPersistentContext(path.join(work, 'profile-no-key'), {
      executablePath: CHROMIUM,
      headless: true,
      ignoreDefaultArgs: ['--disable-extensions'],
      args: ['--headless=new', ...ARGS, `--disable-extensions-except=${folder}`, `--load-extension=${folder}`],
    });
    try {
      const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
      expect(worker.url()).toBe(`chrome-extension://${extensionIdFromPath(folder)}/sw.js`);
    } finally {
      await context.close();
    }
  });
});
