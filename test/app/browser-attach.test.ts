// `wrtui browser` attached to its Chromium over the DevTools pipe, against that Chromium's own
// webRequest. One extension (fixtures/extensions/frame-probe) records what onBeforeRequest shows of
// each request to a *.test host: inside a real Chromium 156 browsing the page directly (the oracle,
// --host-resolver-rules sending *.test to 127.0.0.1) and inside wrtui under the chrome persona while
// the Chromium wrtui starts browses the same page through the proxy (--resolve *.test). The page is
// plain http on hostnames that are not potentially trustworthy, so Chromium sends no Sec-Fetch-*
// and the headers say nothing of an iframe, a worker or a beacon: only the browser can.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/app/browser-launch.js';
import { attachOptions } from '../../src/app/browser-attach-session.js';
import { HostMap, parseHostMapping, type HostMapping } from '../../src/engine/capture/host-map.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { extensionIdFromPath } from '../../src/engine/extensions/extension-id.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const PROBE = fileURLToPath(new URL('../../fixtures/extensions/frame-probe', import.meta.url));

interface ProbeRecord {
  url: string;
  method: string;
  type: string;
  frameId: number;
  parentFrameId: number;
  tabId: number;
  frameType?: string;
  documentLifecycle?: string;
  initiator?: string;
  documentId: string;
  parentDocumentId: string;
}

interface Report {
  requests: ProbeRecord[];
  tabEvents: { event: string; tabId: number }[];
}

let origin: Origin;
let work: string;
/** Resolves when the origin has received each path named. */
const arrived = new Map<string, () => void>();
const waitForPath = (path: string) => new Promise<void>((resolve) => arrived.set(path, resolve));

function page(port: number): Record<string, [string, string]> {
  const at = (host: string) => `http://${host}.test:${port}`;
  return {
    '/': ['text/html', `<!doctype html><title>main</title>
<script src="${at('cdn')}/lib.js"></script>
<iframe src="${at('ads')}/frame"></iframe>
<script>
new Worker('/worker.js');
addEventListener('load', () => {
  // Not a parser <img>: the preload scanner may ask for one before the document commits, and
  // Chromium then reports it with a frame id of no frame and an empty documentLifecycle, by timing.
  document.body.append(Object.assign(new Image(), { src: '/logo.png' }));
  navigator.sendBeacon('/beacon', 'seen');
  fetch('/api').then(() => setTimeout(() => fetch('/done'), 400));
});
</script>`],
    '/frame': ['text/html', `<!doctype html><img src="/ad.gif"><iframe src="${at('inner')}/nested"></iframe>`],
    '/nested': ['text/html', '<!doctype html><p>nested</p><script src="/nested.js"></script>'],
    '/worker.js': ['text/javascript', "fetch('/from-worker');"],
    '/second': ['text/html', '<!doctype html><title>second</title><script>addEventListener("load", () => document.body.append(Object.assign(new Image(), { src: "/second.png" })))</script>'],
    '/warm': ['text/html', '<!doctype html><title>warm</title>'],
  };
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  origin = await startOrigin((req, res) => {
    const pathname = new URL(req.url!, 'http://x').pathname;
    arrived.get(pathname)?.();
    const answer = page(origin.port)[pathname];
    if (answer) return res.writeHead(200, { 'Content-Type': answer[0] }).end(answer[1]);
    if (pathname.endsWith('.js')) return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end('void 0;');
    if (pathname.endsWith('.gif') || pathname.endsWith('.png')) return res.writeHead(200, { 'Content-Type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-browser-attach-'));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

async function reportInChromium(): Promise<Report> {
  const context = await chromium.launchPersistentContext(path.join(work, 'oracle'), {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: ['--headless=new', ...ARGS, '--host-resolver-rules=MAP *.test 127.0.0.1', `--disable-extensions-except=${PROBE}`, `--load-extension=${PROBE}`],
  });
  try {
    let worker = context.serviceWorkers().find((candidate) => candidate.url().endsWith('/background.js'));
    worker ??= await context.waitForEvent('serviceworker', { timeout: 15_000 });
    // The extension's listener may be registered a moment after its worker starts: a page first,
    // until the extension has seen one, so that none of the measured page's requests comes before it.
    const warm = await context.newPage();
    await expect
      .poll(async () => {
        await warm.goto(`http://warm.test:${origin.port}/warm`, { timeout: 15_000 });
        const report = ((await worker.evaluate('chrome.storage.local.get("report")')) as { report?: Report }).report;
        return report?.requests.some((request) => request.url.startsWith('warm.test/')) ?? false;
      }, { timeout: 30_000 })
      .toBe(true);
    await warm.close();
    const done = waitForPath('/done');
    const tab = await context.newPage();
    await tab.goto(`http://www.test:${origin.port}/`, { timeout: 15_000 });
    await done;
    const second = waitForPath('/second.png');
    await (await context.newPage()).goto(`http://www.test:${origin.port}/second`, { timeout: 15_000 });
    await second;
    await tab.close();
    let report: Report | undefined;
    await expect
      .poll(async () => {
        report = ((await worker.evaluate('chrome.storage.local.get("report")')) as { report?: Report }).report;
        return report && report.tabEvents.some((event) => event.event === 'removed') && report.requests.some((request) => request.url.endsWith('/second.png'));
      }, { timeout: 15_000 })
      .toBe(true);
    return report!;
  } finally {
    await context.close();
  }
}

async function reportInWrtui(): Promise<{ report: Report; inferred: string[] }> {
  const mappings = [parseHostMapping('*.test:127.0.0.1') as HostMapping];
  const harness = await startProxyHarness({ proxy: { hostMap: new HostMap(mappings) } });
  const host = await ExtensionHost.start(harness.engine, { extensions: [PROBE], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
  const done = waitForPath('/done');
  const browser = await launchBrowser({
    proxyUrl: harness.proxy.url,
    spkiFingerprint: harness.ca.spkiFingerprint,
    url: `http://www.test:${origin.port}/`,
    headless: true,
    attach: attachOptions(harness.proxy, harness.engine),
  });
  try {
    await done;
    const second = waitForPath('/second.png');
    await browser.attachment!.openTab(`http://www.test:${origin.port}/second`);
    await second;
    await browser.attachment!.closeTab(browser.attachment!.tabs()[0]!.id);
    const storage = storageFileOf(harness.stateDir, extensionIdFromPath(PROBE));
    let report: Report | undefined;
    await expect
      .poll(async () => {
        report = (JSON.parse((await readFile(storage, 'utf8').catch(() => '')) || '{}') as { report?: Report }).report;
        return report && report.tabEvents.some((event) => event.event === 'removed') && report.requests.some((request) => request.url.endsWith('/second.png'));
      }, { timeout: 15_000 })
      .toBe(true);
    const inferred = harness
      .webRequestEntries((entry) => entry.event === 'onBeforeRequest' && entry.inferred === true)
      .map((entry) => entry.details.url)
      .filter((url) => new URL(url).hostname.endsWith('.test'));
    return { report: report!, inferred };
  } finally {
    await browser.close();
    await host.close();
    await harness.close();
  }
}

/**
 * Each request's fields, in a stable order. Tab and subframe ids are each browser's to number:
 * a tab is named by the first page it loaded, a subframe by the document it loaded; what must agree
 * is which requests share a tab and a frame, and the frame tree.
 */
function normalize(report: Report): string[] {
  const tabNames = new Map<number, string>();
  const frameNames = new Map<number, string>([[0, 'top'], [-1, 'none']]);
  for (const request of report.requests) {
    if (request.type === 'main_frame' && !tabNames.has(request.tabId)) tabNames.set(request.tabId, `tab of ${request.url}`);
    if (request.type === 'sub_frame') frameNames.set(request.frameId, `frame of ${request.url}`);
  }
  return report.requests
    .filter((request) => !request.url.endsWith('/favicon.ico') && !request.url.startsWith('warm.test/'))
    .map((request) => {
      const named: Record<string, unknown> = {
        ...request,
        tabId: request.tabId === -1 ? -1 : (tabNames.get(request.tabId) ?? 'an unnamed tab'),
        frameId: frameNames.get(request.frameId) ?? 'an unnamed frame',
        parentFrameId: frameNames.get(request.parentFrameId) ?? 'an unnamed frame',
        initiator: request.initiator?.replace(/:\d+$/, ':PORT'),
      };
      return JSON.stringify(Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b))));
    })
    .sort();
}

describe.skipIf(SKIP)('wrtui browser, attached: what an extension sees equals what Chromium reports', () => {
  it('every request of an http page with iframes, a worker, a beacon and a second tab has Chromium\'s type, frames, tab and initiator', { timeout: 180_000 }, async () => {
    const oracle = await reportInChromium();
    const { report: ours, inferred } = await reportInWrtui();
    expectAgreement(browserVersion(CHROMIUM), 'onBeforeRequest details', normalize(ours), normalize(oracle));
    // Two tabs opened and the first closed, in both.
    expect(ours.tabEvents.map((event) => event.event)).toEqual(expect.arrayContaining(['created', 'removed']));
    expect(new Set(ours.requests.map((request) => request.tabId).filter((tabId) => tabId !== -1)).size).toBe(2);
    // Every page request was described by the browser: none fell back to inference.
    expect(inferred.filter((url) => !url.endsWith('/favicon.ico'))).toEqual([]);
  });
});

describe.skipIf(SKIP)('wrtui browser, attached: an extension acts on the browser\'s tabs', () => {
  it('tabs.create opens a tab in the browser (its page loads through wrtui), tabs.remove closes one; tabs.query lists the browser\'s tabs', { timeout: 120_000 }, async () => {
    const folder = path.join(work, 'tab-mover');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Tab mover', version: '1', permissions: ['tabs', 'storage'], background: { service_worker: 'sw.js' } }));
    // On the browser's first tab: open the second page in a new tab, close the first, list what is left.
    await writeFile(
      path.join(folder, 'sw.js'),
      `let first;
chrome.tabs.onCreated.addListener(async (tab) => {
  if (first !== undefined) return;
  first = tab.id;
  const opened = await chrome.tabs.create({ url: ${JSON.stringify(`http://www.test:${origin.port}/second`)} });
  await chrome.tabs.remove(first);
  const left = await chrome.tabs.query({});
  await chrome.storage.local.set({ report: { first, opened: opened.id, left: left.map((t) => t.id) } });
});`,
    );
    const harness = await startProxyHarness({ proxy: { hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) } });
    const host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
    const second = waitForPath('/second.png');
    const browser = await launchBrowser({ proxyUrl: harness.proxy.url, spkiFingerprint: harness.ca.spkiFingerprint, headless: true, attach: attachOptions(harness.proxy, harness.engine) });
    try {
      await Promise.race([second, new Promise((_resolve, reject) => setTimeout(() => reject(new Error('the page the extension opened never loaded')), 30_000))]);
      const storage = storageFileOf(harness.stateDir, extensionIdFromPath(folder));
      let report: { first: number; opened: number; left: number[] } | undefined;
      await expect.poll(async () => (report = (JSON.parse((await readFile(storage, 'utf8').catch(() => '')) || '{}') as { report?: typeof report }).report), { timeout: 20_000 }).toBeDefined();
      expect(report!.left).toEqual([report!.opened]);
      expect(browser.attachment!.tabs().map((tab) => tab.id)).toEqual([report!.opened]);
      const secondPage = harness.webRequestEntries((entry) => entry.event === 'onBeforeRequest' && entry.details.url.endsWith('/second'))[0]!;
      expect(secondPage.details).toMatchObject({ type: 'main_frame', tabId: report!.opened, frameId: 0 });
    } finally {
      await browser.close();
      await host.close();
      await harness.close();
    }
  });
});

describe.skipIf(SKIP)('wrtui browser, attached: webNavigation from the browser', () => {
  it('an extension hears each frame\'s onBeforeNavigate, onCommitted and onCompleted in order, in the page\'s tab, with the frame tree', { timeout: 120_000 }, async () => {
    const folder = path.join(work, 'navigation-watcher');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Navigation watcher', version: '1', permissions: ['webNavigation', 'storage'], background: { service_worker: 'sw.js' } }));
    await writeFile(
      path.join(folder, 'sw.js'),
      `const seen = [];
for (const event of ['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted']) {
  chrome.webNavigation[event].addListener((details) => {
    const url = new URL(details.url);
    if (!url.hostname.endsWith('.test')) return;
    seen.push({ event, where: url.hostname + url.pathname, tabId: details.tabId, frameId: details.frameId, parentFrameId: details.parentFrameId, documentId: typeof details.documentId });
    chrome.storage.local.set({ report: seen });
  });
}`,
    );
    const harness = await startProxyHarness({ proxy: { hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) } });
    const host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
    const browser = await launchBrowser({ proxyUrl: harness.proxy.url, spkiFingerprint: harness.ca.spkiFingerprint, url: `http://www.test:${origin.port}/`, headless: true, attach: attachOptions(harness.proxy, harness.engine) });
    try {
      const storage = storageFileOf(harness.stateDir, extensionIdFromPath(folder));
      type Seen = { event: string; where: string; tabId: number; frameId: number; parentFrameId: number; documentId: string };
      let seen: Seen[] = [];
      const completed = (where: string) => seen.some((item) => item.event === 'onCompleted' && item.where === where);
      await expect
        .poll(async () => {
          seen = (JSON.parse((await readFile(storage, 'utf8').catch(() => '')) || '{}') as { report?: Seen[] }).report ?? [];
          return completed('www.test/') && completed('ads.test/frame') && completed('inner.test/nested');
        }, { timeout: 30_000 })
        .toBe(true);
      const tab = browser.attachment!.tabs()[0]!.id;
      const of = (where: string) => seen.filter((item) => item.where === where);
      expect(of('www.test/').map((item) => item.event)).toEqual(['onBeforeNavigate', 'onCommitted', 'onDOMContentLoaded', 'onCompleted']);
      expect(of('www.test/').every((item) => item.tabId === tab && item.frameId === 0 && item.parentFrameId === -1)).toBe(true);
      for (const where of ['ads.test/frame', 'inner.test/nested']) {
        const events = of(where);
        expect(events.map((item) => item.event).filter((event) => event !== 'onDOMContentLoaded')).toEqual(['onBeforeNavigate', 'onCommitted', 'onCompleted']);
        expect(new Set(events.map((item) => `${item.tabId} ${item.frameId} ${item.parentFrameId}`)).size, `${where}: one frame`).toBe(1);
        expect(events[0]!.tabId).toBe(tab);
        expect(events[0]!.frameId).toBeGreaterThan(0);
      }
      expect(of('inner.test/nested')[0]!.parentFrameId).toBe(of('ads.test/frame')[0]!.frameId);
      expect(of('www.test/').find((item) => item.event === 'onCommitted')!.documentId).toBe('string');
    } finally {
      await browser.close();
      await host.close();
      await harness.close();
    }
  });
});
