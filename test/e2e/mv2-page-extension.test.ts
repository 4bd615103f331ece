// An MV2 extension whose background is a page, written as real MV2 blockers are
// (fixtures/extensions/mv2-page-blocker: Privacy Badger's shape, not its code), loaded unchanged
// and acting on a real browser's traffic: Chromium browses through wrtui, and the extension's page
// uses what a window has at start-up (document.location, localStorage, a vendored UMD helper, a
// module, its own data file by fetch). Before this session's work it did not load at all
// ("document is not defined"). A page's script from a tracker its data lists is cancelled; the
// page's other requests go on; its settings survive in local-storage.json.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { extensionIdFromPath } from '../../src/engine/extensions/extension-id.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import type { LogEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/mv2-page-blocker', import.meta.url));

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (SKIP) return;
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  origin = await startOrigin((req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end(req.url === '/article' ? '<!doctype html><title>article</title><script src="http://tracker.test/t.js"></script><img src="http://cdn.test/photo.png">' : 'ok');
  });
  harness = await startProxyHarness();
  host = await ExtensionHost.start(harness.engine, { extensions: [EXTENSION], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
  await harness.waitFor((e) => e.kind === 'log' && e.message.startsWith('ready:'));
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, timeout: 60_000, proxy: { server: harness.proxy.url }, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'] });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await harness?.close();
  await origin?.close();
});

describe.skipIf(SKIP)('an MV2 extension with a background page, unchanged, with Chromium browsing through wrtui', () => {
  it("cancels a page's script from a tracker its own data file lists, lets the page's other requests go, and keeps its count in localStorage", { timeout: 60_000 }, async () => {
    const ready = harness!.entries.find((e): e is LogEntry & typeof e => e.kind === 'log' && e.message.startsWith('ready:'))!;
    // Its page's DOM has the page's two scripts; its data file came from its own folder.
    expect(ready.message).toBe('ready: 2 trackers, 2 scripts in the page');

    const page = await browser!.newPage();
    await page.goto(`${origin!.url}/article`, { timeout: 15_000 });
    await harness!.waitFor((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && String((e.details as { url?: string }).url).startsWith('http://tracker.test/'), 10_000);
    await harness!.waitFor((e) => e.kind === 'webRequest' && e.event === 'onErrorOccurred' && String((e.details as { url?: string }).url).startsWith('http://cdn.test/'), 10_000);
    await page.close();

    const of = (url: string, event: string) => harness!.entries.filter((e): e is WebRequestEntry & typeof e => e.kind === 'webRequest' && e.event === event && (e.details as { url: string }).url === url);
    const tracker = of('http://tracker.test/t.js', 'onBeforeRequest')[0]!;
    expect((tracker.details as { tabId: number }).tabId).toBeGreaterThan(0);
    expect(tracker.outcomes).toEqual([expect.objectContaining({ owner: 'MV2 Page Blocker', status: 'applied', response: { cancel: true } })]);
    expect(of('http://tracker.test/t.js', 'onErrorOccurred').map((e) => (e.details as { error: string }).error)).toEqual(['net::ERR_BLOCKED_BY_CLIENT']);
    // The first-party page and the other host are not its business (the other fails only because this machine has no such host).
    expect(of(`${origin!.url}/article`, 'onCompleted')).toHaveLength(1);
    expect(of('http://cdn.test/photo.png', 'onErrorOccurred').map((e) => (e.details as { error: string }).error)).not.toContain('net::ERR_BLOCKED_BY_CLIENT');
    expect(harness!.entries.some((e) => e.kind === 'log' && e.message === `blocked http://tracker.test/t.js in tab ${(tracker.details as { tabId: number }).tabId}`)).toBe(true);

    // Its settings, kept where a browser keeps a page's localStorage: they outlive wrtui.
    const file = path.join(path.dirname(storageFileOf(harness!.stateDir, extensionIdFromPath(EXTENSION))), 'local-storage.json');
    await expect.poll(async () => JSON.parse(JSON.parse(await readFile(file, 'utf8').catch(() => '{"settings":"{}"}')).settings ?? '{}').blocked, { timeout: 3000 }).toBe(1);
  });
});
