// `wrtui browser --firefox` attached to its Firefox over WebDriver BiDi, against that Firefox's own
// webRequest. One add-on (fixtures/extensions/firefox-frame-probe) records what onBeforeRequest
// shows of each request to a *.test host: inside a real Firefox ESR 153 browsing the page directly
// (the oracle, run with web-ext, network.dns.forceResolve sending every name to 127.0.0.1) and
// inside wrtui under the firefox persona while the Firefox wrtui starts browses the same page
// through the proxy (--resolve *.test). The page is plain http on hostnames that are not
// potentially trustworthy, so Firefox sends no Sec-Fetch-*: only the browser can say what an
// iframe, a worker's fetch or a beacon is.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachOptions } from '../../src/app/browser-attach-session.js';
import { launchFirefox } from '../../src/app/firefox-launch.js';
import { HostMap, parseHostMapping, type HostMapping } from '../../src/engine/capture/host-map.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { WebRequestEntry } from '../../src/engine/journal.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';
import { endProcessGroup, FIREFOX, firefoxProfile, NO_FIREFOX, requireFirefox, WEB_EXT } from '../helpers/firefox.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/firefox-frame-probe', import.meta.url));

interface ProbeRecord {
  url: string;
  method: string;
  type: string;
  frameId: number;
  parentFrameId: number;
  tabId: number;
  originUrl?: string;
  documentUrl?: string;
  frameAncestors?: { url: string; frameId: number }[];
  thirdParty?: boolean;
}

let origin: Origin;
let work: string;
let records: ProbeRecord[] = [];
interface TabsReport {
  first: number;
  opened: number;
  left: number[];
}
let tabsReported: (report: TabsReport) => void = () => {};
interface NavigationSeen {
  seq: number;
  event: string;
  where: string;
  tabId: number;
  frameId: number;
  parentFrameId: number;
}
const navigationSeen: NavigationSeen[] = [];
/** Resolves once the page asked for /done and no record came for a while after. */
let finished: () => void = () => {};

function page(port: number): Record<string, [string, string]> {
  const at = (host: string) => `http://${host}.test:${port}`;
  return {
    // A temporary add-on is installed only after the first page starts loading: the start page
    // waits until the probe has reported it, then navigates (both runs start here, FACTS.md).
    '/start': ['text/html', `<!doctype html><script>(async () => { for (;;) {
  if ((await (await fetch('/__seen')).text()) === 'yes') { location.href = '${at('www')}/'; return; }
  await new Promise((r) => setTimeout(r, 300));
} })();</script>`],
    '/': ['text/html', `<!doctype html><title>main</title>
<link rel="stylesheet" href="${at('cdn')}/style.css">
<script src="${at('cdn')}/lib.js"></script>
<iframe src="${at('ads')}/frame"></iframe>
<script>
new Worker('/worker.js');
addEventListener('load', () => {
  document.body.append(Object.assign(new Image(), { src: '/logo.png' }));
  navigator.sendBeacon('/beacon', 'seen');
  const xhr = new XMLHttpRequest();
  xhr.open('GET', '${at('api')}/xhr');
  xhr.send();
  fetch('/api').then(() => setTimeout(() => fetch('/done'), 400));
});
</script>`],
    '/frame': ['text/html', `<!doctype html><img src="/ad.gif"><iframe src="${at('inner')}/nested"></iframe>`],
    '/nested': ['text/html', '<!doctype html><p>nested</p><script src="/nested.js"></script>'],
    '/worker.js': ['text/javascript', "fetch('/from-worker');"],
    '/second': ['text/html', '<!doctype html><title>second</title><img src="/second.png">'],
  };
}

beforeAll(async () => {
  if (NO_FIREFOX) return;
  requireFirefox();
  origin = await startOrigin((req, res, body) => {
    const pathname = new URL(req.url!, 'http://x').pathname;
    if (pathname === '/__probe') {
      records.push(JSON.parse(body.toString('utf8')) as ProbeRecord);
      return res.end('ok');
    }
    if (pathname === '/__tabs') {
      tabsReported(JSON.parse(body.toString('utf8')) as TabsReport);
      return res.end('ok');
    }
    if (pathname === '/__nav') {
      navigationSeen.push(JSON.parse(body.toString('utf8')) as NavigationSeen);
      return res.end('ok');
    }
    if (pathname === '/__seen') return res.end(records.some((record) => record.url.includes('start.test')) ? 'yes' : 'no');
    if (pathname === '/done') {
      // The last records (the beacon's, the worker's) may still be on their way: done once none came for 1.5 s.
      let seen = -1;
      const settle = () => (records.length === seen ? finished() : ((seen = records.length), setTimeout(settle, 1_500)));
      settle();
    }
    const answer = page(origin.port)[pathname];
    if (answer) return res.writeHead(200, { 'Content-Type': answer[0] }).end(answer[1]);
    if (pathname.endsWith('.css')) return res.writeHead(200, { 'Content-Type': 'text/css' }).end('p { color: red }');
    if (pathname.endsWith('.js')) return res.writeHead(200, { 'Content-Type': 'text/javascript' }).end('void 0;');
    if (pathname.endsWith('.gif') || pathname.endsWith('.png')) return res.writeHead(200, { 'Content-Type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-attach-'));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Waits for the page's end (bounded: a page that never finishes must not hang the run). */
function pageFinished(timeoutMs = 90_000): Promise<void> {
  records = [];
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    new Promise<void>((resolve) => (finished = resolve)),
    new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`the page did not finish within ${timeoutMs} ms (${records.length} records)`)), timeoutMs))),
  ]).finally(() => clearTimeout(timer));
}

async function reportInFirefox(): Promise<ProbeRecord[]> {
  const profile = await firefoxProfile(path.join(work, 'oracle'), { 'network.dns.forceResolve': '127.0.0.1' });
  const done = pageFinished();
  const child = spawn(WEB_EXT, ['run', '--source-dir', PROBE, '--firefox', FIREFOX, '--arg=--headless', '--no-input', '--no-reload', '--firefox-profile', profile, '--keep-profile-changes', '--start-url', `http://start.test:${origin.port}/start`], {
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await done;
    return records;
  } finally {
    await endProcessGroup(child, exited);
  }
}

async function reportInWrtui(): Promise<{ records: ProbeRecord[]; inferred: string[] }> {
  const harness = await startProxyHarness({ proxy: { hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) } });
  const host = await ExtensionHost.start(harness.engine, { extensions: [PROBE], watch: false, typeCheck: false, stateDir: harness.stateDir });
  const done = pageFinished();
  try {
    expect(host.rules()[0]).toMatchObject({ persona: 'firefox', state: 'active' });
    const browser = await launchFirefox({ proxyUrl: harness.proxy.url, url: `http://start.test:${origin.port}/start`, headless: true, attach: attachOptions(harness.proxy, harness.engine) });
    try {
      await done;
    } finally {
      await browser.close();
    }
    const inferred = harness
      .webRequestEntries((entry) => entry.event === 'onBeforeRequest' && entry.inferred === true)
      .map((entry) => entry.details.url)
      .filter((url) => new URL(url).hostname.endsWith('.test'));
    return { records, inferred };
  } finally {
    await host.close();
    await harness.close();
  }
}

/**
 * Each request's fields, in a stable order. Tab and subframe ids are each browser's to number: a
 * tab is named by the first page it loaded, a subframe by the document it loaded; what must agree
 * is which requests share a tab and a frame, and the frame tree.
 */
function normalize(list: ProbeRecord[], port: number): string[] {
  const tabNames = new Map<number, string>();
  const frameNames = new Map<number, string>([[0, 'top'], [-1, 'none']]);
  const short = (url: string) => url.replace(`:${port}`, '');
  for (const record of list) {
    if (record.url.includes('start.test')) continue;
    if (record.type === 'main_frame' && !tabNames.has(record.tabId)) tabNames.set(record.tabId, `tab of ${short(record.url)}`);
    if (record.type === 'sub_frame') frameNames.set(record.frameId, `frame of ${short(record.url)}`);
  }
  return list
    // The start page's requests: the oracle's add-on is installed only once it loads.
    .filter((record) => !record.url.endsWith('/favicon.ico') && !record.url.includes('start.test'))
    .map((record) => {
      const named: Record<string, unknown> = {
        ...record,
        url: short(record.url),
        tabId: record.tabId === -1 ? -1 : (tabNames.get(record.tabId) ?? 'an unnamed tab'),
        frameId: frameNames.get(record.frameId) ?? 'an unnamed frame',
        parentFrameId: frameNames.get(record.parentFrameId) ?? 'an unnamed frame',
        ...(record.originUrl !== undefined && { originUrl: short(record.originUrl) }),
        ...(record.documentUrl !== undefined && { documentUrl: short(record.documentUrl) }),
        ...(record.frameAncestors !== undefined && { frameAncestors: record.frameAncestors.map((ancestor) => `${short(ancestor.url)} in ${frameNames.get(ancestor.frameId) ?? 'an unnamed frame'}`) }),
      };
      return JSON.stringify(Object.fromEntries(Object.entries(named).sort(([a], [b]) => a.localeCompare(b))));
    })
    .sort();
}

describe.skipIf(NO_FIREFOX)('wrtui browser --firefox, attached: what an add-on sees equals what Firefox reports', () => {
  it("every request of an http page with nested iframes, a cross-site script and stylesheet, a worker, an XHR and a beacon has Firefox's type, frames, tab, originUrl and documentUrl", { timeout: 240_000 }, async () => {
    const oracle = await reportInFirefox();
    const { records: ours, inferred } = await reportInWrtui();
    expectAgreement(browserVersion(FIREFOX), 'onBeforeRequest details', normalize(ours, origin.port), normalize(oracle, origin.port));
    // Every page request was described by the browser: none fell back to inference.
    expect(inferred.filter((url) => !url.endsWith('/favicon.ico'))).toEqual([]);
  });
});

describe.skipIf(NO_FIREFOX)("wrtui browser --firefox, attached: an add-on acts on the browser's tabs", () => {
  it("tabs.create opens a tab in Firefox (its page loads through wrtui), tabs.remove closes one; tabs.query lists Firefox's tabs", { timeout: 120_000 }, async () => {
    const folder = path.join(work, 'tab-mover');
    await mkdir(folder, { recursive: true });
    await writeFile(
      path.join(folder, 'manifest.json'),
      JSON.stringify({ manifest_version: 2, name: 'Tab mover', version: '1', browser_specific_settings: { gecko: { id: 'tab-mover@wrtui.test' } }, permissions: ['tabs', '<all_urls>'], background: { scripts: ['bg.js'] } }),
    );
    // On the browser's first tab: open the second page in a new tab, close the first, list what is left.
    await writeFile(
      path.join(folder, 'bg.js'),
      `let first;
browser.tabs.onCreated.addListener(async (tab) => {
  if (first !== undefined) return;
  first = tab.id;
  const opened = await browser.tabs.create({ url: ${JSON.stringify(`http://www.test:${origin.port}/second`)} });
  await browser.tabs.remove(first);
  const left = await browser.tabs.query({});
  await fetch(${JSON.stringify(`http://127.0.0.1:${origin.port}/__tabs`)}, { method: 'POST', body: JSON.stringify({ first, opened: opened.id, left: left.map((t) => t.id) }) });
});`,
    );
    const harness = await startProxyHarness({ proxy: { hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) } });
    const host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: harness.stateDir });
    let timer: NodeJS.Timeout | undefined;
    const reported = Promise.race([
      new Promise<TabsReport>((resolve) => (tabsReported = resolve)),
      new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('the add-on never reported its tabs')), 60_000))),
    ]).finally(() => clearTimeout(timer));
    try {
      expect(host.rules()[0]).toMatchObject({ persona: 'firefox', state: 'active' });
      const browser = await launchFirefox({ proxyUrl: harness.proxy.url, headless: true, attach: attachOptions(harness.proxy, harness.engine) });
      try {
        const report = await reported;
        expect(report.left).toEqual([report.opened]);
        expect(browser.attachment!.tabs().map((tab) => tab.id)).toEqual([report.opened]);
        const secondImage = (await harness.waitFor((entry) => entry.kind === 'webRequest' && entry.event === 'onBeforeRequest' && entry.details.url.endsWith('/second.png'), 30_000)) as WebRequestEntry;
        expect(secondImage.details).toMatchObject({ type: 'image', tabId: report.opened, frameId: 0 });
        expect(secondImage.inferred).toBeUndefined();
      } finally {
        await browser.close();
      }
    } finally {
      await host.close();
      await harness.close();
    }
  });
});

describe.skipIf(NO_FIREFOX)('wrtui browser --firefox, attached: webNavigation from the browser', () => {
  it("an add-on hears each frame's onBeforeNavigate, onCommitted and onCompleted in order, in the page's tab, with the frame tree", { timeout: 120_000 }, async () => {
    const folder = path.join(work, 'navigation-watcher');
    await mkdir(folder, { recursive: true });
    await writeFile(
      path.join(folder, 'manifest.json'),
      JSON.stringify({ manifest_version: 2, name: 'Navigation watcher', version: '1', browser_specific_settings: { gecko: { id: 'navigation-watcher@wrtui.test' } }, permissions: ['webNavigation', '<all_urls>'], background: { scripts: ['bg.js'] } }),
    );
    await writeFile(
      path.join(folder, 'bg.js'),
      // Numbered: each record is its own POST, and POSTs may land out of order.
      `let seq = 0;
for (const event of ['onBeforeNavigate', 'onCommitted', 'onCompleted']) {
  browser.webNavigation[event].addListener((details) => {
    const url = new URL(details.url);
    if (!url.hostname.endsWith('.test')) return;
    fetch('http://127.0.0.1:' + url.port + '/__nav', { method: 'POST', body: JSON.stringify({ seq: seq++, event, where: url.hostname + url.pathname, tabId: details.tabId, frameId: details.frameId, parentFrameId: details.parentFrameId }) });
  });
}`,
    );
    navigationSeen.length = 0;
    const harness = await startProxyHarness({ proxy: { hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) } });
    const host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: harness.stateDir });
    try {
      const browser = await launchFirefox({ proxyUrl: harness.proxy.url, url: `http://www.test:${origin.port}/`, headless: true, attach: attachOptions(harness.proxy, harness.engine) });
      try {
        const completed = (where: string) => navigationSeen.some((item) => item.event === 'onCompleted' && item.where === where);
        await expect.poll(() => completed('www.test/') && completed('ads.test/frame') && completed('inner.test/nested'), { timeout: 30_000 }).toBe(true);
        const tab = browser.attachment!.tabs()[0]!.id;
        const of = (where: string) => navigationSeen.filter((item) => item.where === where).sort((a, b) => a.seq - b.seq);
        expect(of('www.test/').map((item) => item.event)).toEqual(['onBeforeNavigate', 'onCommitted', 'onCompleted']);
        expect(of('www.test/').every((item) => item.tabId === tab && item.frameId === 0 && item.parentFrameId === -1)).toBe(true);
        for (const where of ['ads.test/frame', 'inner.test/nested']) {
          const events = of(where);
          expect(events.map((item) => item.event)).toEqual(['onBeforeNavigate', 'onCommitted', 'onCompleted']);
          expect(new Set(events.map((item) => `${item.tabId} ${item.frameId} ${item.parentFrameId}`)).size, `${where}: one frame`).toBe(1);
          expect(events[0]!.tabId).toBe(tab);
          expect(events[0]!.frameId).toBeGreaterThan(0);
        }
        expect(of('inner.test/nested')[0]!.parentFrameId).toBe(of('ads.test/frame')[0]!.frameId);
      } finally {
        await browser.close();
      }
    } finally {
      await host.close();
      await harness.close();
    }
  });
});
