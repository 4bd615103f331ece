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
import { answerTabs } from '../../src/engine/extensions/known-tabs.js';
import type { LogEntry } from '../../src/engine/journal.js';
import { createOwner, createTrustedOwner } from '../../src/engine/owner.js';
import { personaNamed } from '../../src/engine/personas/index.js';
import { CHROME_SURFACES, FIREFOX_SURFACES } from '../../src/engine/personas/surface-dialects.js';
import { DocumentTracker } from '../../src/engine/personas/request-context.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const PAGE = `<!doctype html><title>tabs</title><img src="/pixel.png"><script>fetch('/data').then(() => { document.title = 'done'; });</script>`;

// Skip Redirect's and Privacy Badger's habit: requests from no tab are not theirs. Decentraleyes'
// too: it keeps its own table of tabs from tabs.onCreated and looks a request's tab up there.
const BACKGROUND = `
const created = {};
chrome.tabs.onCreated.addListener((tab) => { created[tab.id] = tab; console.log('created tab ' + tab.id + ' pending ' + tab.pendingUrl); });
chrome.webRequest.onBeforeRequest.addListener((details) => {
  if (details.tabId === -1) return console.log('no tab: ' + new URL(details.url).pathname);
  if (!created[details.tabId]) console.log('never told of tab ' + details.tabId);
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
  it("a page's requests are in one tab, announced by tabs.onCreated before its first request, that tabs.get finds with the page's URL; curl's are from no tab (-1)", { timeout: 60_000 }, async () => {
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
    const all = () => harness!.entries.filter((e): e is LogEntry & typeof e => e.kind === 'log' && e.source === 'Tab Reader' && e.level !== 'debug').map((e) => e.message);
    const logs = () => all().filter((message) => !message.endsWith('/favicon.ico') && !message.startsWith('created tab'));
    await expect.poll(() => logs().some((line) => line.includes('/from-curl')), { timeout: 5_000 }).toBe(true);
    const lines = logs().map((line) => line.replace(/^tab \d+ /, 'tab N '));
    // The page's own tabs.get may answer while the page still loads (a new tab: url '') or after it
    // (the listener does not hold the request); its image's and fetch's see the page.
    const pageLine = lines.find((line) => line.endsWith(': /page'));
    expect([`tab N  active true: /page`, `tab N ${origin.url}/page active true: /page`]).toContain(pageLine);
    expect(lines.filter((line) => line !== pageLine).sort()).toEqual([`tab N ${origin.url}/page active true: /data`, `tab N ${origin.url}/page active true: /pixel.png`, 'no tab: /from-curl'].sort());
    // It heard of the tab (tabs.onCreated, loading the page) before the page's first request.
    expect(all().filter((message) => message.startsWith('created tab') || message.startsWith('never told'))).toEqual([expect.stringMatching(new RegExp(`^created tab \\d+ pending ${origin.url}/page$`))]);
    // One tab for the page and its subresources, a positive id, as Chrome numbers tabs.
    const ids = new Set(logs().filter((line) => line.startsWith('tab ')).map((line) => Number(line.split(' ')[1])));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toBeGreaterThan(0);
  });
});

describe('tabs.get and tabs.query over the tabs counted from traffic', () => {
  /** Two tabs on the normal port (the second newer), one on the incognito port, one still loading its first page. */
  function tracker(): DocumentTracker {
    const documents = new DocumentTracker();
    const frame = { frameType: 'outermost_frame' as const, frameId: 0, parentFrameId: -1 };
    documents.loaded('https://a.test/page', { ...frame, tabId: documents.newTab(), storeId: '0' });
    documents.loaded('https://b.test/page', { ...frame, tabId: documents.newTab(), storeId: '0' });
    documents.loaded('https://private.test/', { ...frame, tabId: documents.newTab(), storeId: '1' });
    documents.navigating(documents.newTab(), 'https://c.test/loading', '0');
    return documents;
  }
  const reader = createOwner({ name: 'reader', permissions: ['tabs'] });
  const blind = createOwner({ name: 'blind', host_permissions: ['https://a.test/*'] });

  it('url and title only with the "tabs" permission or a host permission for the tab\'s URL, as in Chrome', () => {
    const documents = tracker();
    expect(answerTabs(documents, reader, CHROME_SURFACES, 'get', [2])).toMatchObject({ id: 2, url: 'https://b.test/page', title: 'https://b.test/page', status: 'complete', windowId: 1 });
    expect(answerTabs(documents, blind, CHROME_SURFACES, 'get', [1])).toMatchObject({ id: 1, url: 'https://a.test/page' });
    expect(answerTabs(documents, blind, CHROME_SURFACES, 'get', [2])).not.toHaveProperty('url');
    // A URL pattern finds only what the extension may read.
    expect((answerTabs(documents, blind, CHROME_SURFACES, 'query', [{ url: 'https://*/*' }]) as { id: number }[]).map((tab) => tab.id)).toEqual([1]);
  });

  it('the newest tab of each window is active; the incognito port is window 2; a navigation not yet answered is loading, with pendingUrl', () => {
    const documents = tracker();
    const tabs = answerTabs(documents, reader, CHROME_SURFACES, 'query', [{}]) as Record<string, unknown>[];
    expect(tabs.map((tab) => [tab.id, tab.windowId, tab.active, tab.status, tab.url, tab.pendingUrl])).toEqual([
      [1, 1, false, 'complete', 'https://a.test/page', undefined],
      [2, 1, false, 'complete', 'https://b.test/page', undefined],
      [3, 2, true, 'complete', 'https://private.test/', undefined],
      [4, 1, true, 'loading', '', 'https://c.test/loading'],
    ]);
    expect((answerTabs(documents, reader, CHROME_SURFACES, 'query', [{ active: true, currentWindow: true }]) as { id: number }[]).map((tab) => tab.id)).toEqual([4]);
  });

  it('a tab wrtui never saw is not there, in the persona\'s words', () => {
    expect(() => answerTabs(tracker(), reader, CHROME_SURFACES, 'get', [99])).toThrow('No tab with id: 99.');
    expect(() => answerTabs(tracker(), reader, FIREFOX_SURFACES, 'get', [99])).toThrow('Invalid tab ID: 99');
  });

  it("under the firefox persona a tab names Firefox's cookie store (firefox-default; firefox-private on the incognito port), as Lightbeam requires of the tabs it records", () => {
    const addOn = createOwner({ name: 'add-on', permissions: ['tabs'], persona: personaNamed('firefox') });
    const tabs = answerTabs(tracker(), addOn, FIREFOX_SURFACES, 'query', [{}]) as Record<string, unknown>[];
    expect(tabs.map((tab) => [tab.id, tab.cookieStoreId])).toEqual([
      [1, 'firefox-default'],
      [2, 'firefox-default'],
      [3, 'firefox-private'],
      [4, 'firefox-default'],
    ]);
    // Chrome's Tab has no such field.
    expect(answerTabs(tracker(), reader, CHROME_SURFACES, 'get', [1])).not.toHaveProperty('cookieStoreId');
  });
});
