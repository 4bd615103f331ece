// `wrtui browser` attached to its Chromium: the tabs and navigation events that only a browser
// knows (tabs.onActivated; webNavigation's onHistoryStateUpdated, onReferenceFragmentUpdated,
// onErrorOccurred) reach an extension as that Chromium's own extension hears them. One extension,
// written here, records them inside a real Chromium 156 browsing the page directly (the oracle) and
// inside wrtui under the chrome persona while the Chromium wrtui starts browses the same page
// through the proxy. And the notes the extension's listeners get say these events come from the
// attached browser, not that they "never fire".
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../src/app/browser-launch.js';
import { attachOptions } from '../../src/app/browser-attach-session.js';
import { HostMap, parseHostMapping, type HostMapping } from '../../src/engine/capture/host-map.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { extensionIdFromPath } from '../../src/engine/extensions/extension-id.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import type { JournalEntry, LogEntry } from '../../src/engine/journal.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;

interface Seen {
  event: string;
  keys?: string;
  where?: string;
  tabId: number;
  top?: boolean;
  error?: string;
  transitionType?: string;
  documentId?: string;
}

let origin: Origin;
let work: string;
let extension: string;

const PAGES: Record<string, [number, string, string]> = {
  // After load: a history entry of its own, then a fragment; an iframe whose navigation gets no document (204).
  '/spa': [200, 'text/html', `<!doctype html><title>spa</title><iframe src="/no-content"></iframe>
<script>addEventListener('load', () => setTimeout(() => {
  history.pushState({}, '', '/spa/next');
  setTimeout(() => { location.hash = 'part'; setTimeout(() => fetch('/spa-done'), 300); }, 100);
}, 300));</script>`],
  '/no-content': [204, 'text/plain', ''],
  '/second': [200, 'text/html', '<!doctype html><title>second</title>'],
  '/warm': [200, 'text/html', '<!doctype html><title>warm</title>'],
};

const RECORDER = `const seen = [];
const keep = (item) => { seen.push(item); chrome.storage.local.set({ report: seen }); };
const where = (url) => { const u = new URL(url); return u.hostname.endsWith('.test') ? u.hostname + u.pathname + u.hash : undefined; };
for (const event of ['onCommitted', 'onHistoryStateUpdated', 'onReferenceFragmentUpdated', 'onErrorOccurred']) {
  chrome.webNavigation[event].addListener((details) => {
    const at = where(details.url);
    if (at === undefined) return;
    keep({ event, where: at, tabId: details.tabId, top: details.frameId === 0, ...(details.error && { error: details.error }), ...(details.transitionType && { transitionType: details.transitionType }), documentId: typeof details.documentId });
  });
}
chrome.windows.onCreated.addListener((w) => keep({ event: 'windows.onCreated', tabId: -1, type: w.type }));
chrome.windows.onFocusChanged.addListener((id) => keep({ event: 'windows.onFocusChanged', tabId: -1, focused: id !== chrome.windows.WINDOW_ID_NONE }));
chrome.tabs.onActivated.addListener(({ tabId }) => {
  keep({ event: 'tabs.onActivated', tabId });
  // The window the tab is active in, as windows.getLastFocused and getAll say.
  Promise.all([chrome.windows.getLastFocused({ populate: true }), chrome.windows.getAll()]).then(([w, all]) =>
    keep({ event: 'window', tabId, keys: Object.keys(w).sort().join(' '), focused: w.focused, type: w.type, state: w.state, incognito: w.incognito, holdsTab: w.tabs.some((t) => t.id === tabId && t.active), listed: all.some((a) => a.id === w.id) }),
    (error) => keep({ event: 'window', tabId, error: String(error) }));
});`;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  origin = await startOrigin((req, res) => {
    const answer = PAGES[new URL(req.url!, 'http://x').pathname];
    if (answer) return res.writeHead(answer[0], { 'Content-Type': answer[1] }).end(answer[2]);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-attach-surfaces-'));
  extension = path.join(work, 'recorder');
  await mkdir(extension, { recursive: true });
  await writeFile(path.join(extension, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Navigation recorder', version: '1', permissions: ['webNavigation', 'tabs', 'storage'], background: { service_worker: 'sw.js' } }));
  await writeFile(path.join(extension, 'sw.js'), RECORDER);
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Done when the page's last step, the second tab's page and that tab's window are seen. */
const complete = (seen: Seen[]) => {
  const second = seen.find((item) => item.event === 'onCommitted' && item.where === 'www.test/second');
  return seen.some((item) => item.event === 'onReferenceFragmentUpdated') && second !== undefined && seen.some((item) => item.event === 'window' && item.tabId === second.tabId);
};

async function seenInChromium(): Promise<Seen[]> {
  const context = await chromium.launchPersistentContext(path.join(work, 'oracle'), {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: ['--headless=new', ...ARGS, '--host-resolver-rules=MAP *.test 127.0.0.1', `--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
  });
  try {
    let worker = context.serviceWorkers().find((candidate) => candidate.url().endsWith('/sw.js'));
    worker ??= await context.waitForEvent('serviceworker', { timeout: 15_000 });
    const report = async () => (((await worker.evaluate('chrome.storage.local.get("report")')) as { report?: Seen[] }).report ?? []);
    // The extension's listeners are registered by the time a warm-up page has loaded under them.
    const warm = await context.newPage();
    await until('the warm-up page', async () => {
      await warm.goto(`http://warm.test:${origin.port}/warm`, { timeout: 15_000 });
      return (await report()).some((item) => item.where === 'warm.test/warm');
    }, 30_000);
    await worker.evaluate('seen.length = 0; chrome.storage.local.clear()');
    const page = await context.newPage();
    await page.goto(`http://www.test:${origin.port}/spa`, { timeout: 15_000 });
    await until('the fragment navigation', async () => (await report()).some((item) => item.event === 'onReferenceFragmentUpdated'), 15_000);
    await (await context.newPage()).goto(`http://www.test:${origin.port}/second`, { timeout: 15_000 });
    let seen: Seen[] = [];
    await until('the second tab', async () => complete((seen = await report())), 15_000);
    return seen;
  } finally {
    await context.close();
  }
}

async function seenInWrtui(): Promise<{ seen: Seen[]; notes: string[] }> {
  const harness = await startProxyHarness({ proxy: { hostMap: new HostMap([parseHostMapping('*.test:127.0.0.1') as HostMapping]) } });
  const entries: JournalEntry[] = [];
  const unsubscribe = harness.engine.journal.subscribe((entry) => void entries.push(entry));
  const host = await ExtensionHost.start(harness.engine, { extensions: [extension], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome', attachedBrowser: true });
  const browser = await launchBrowser({ proxyUrl: harness.proxy.url, spkiFingerprint: harness.ca.spkiFingerprint, url: `http://www.test:${origin.port}/spa`, headless: true, attach: attachOptions(harness.proxy, harness.engine) });
  const storage = storageFileOf(harness.stateDir, extensionIdFromPath(extension));
  const report = async () => (JSON.parse((await readFile(storage, 'utf8').catch(() => '')) || '{}') as { report?: Seen[] }).report ?? [];
  try {
    await until('the fragment navigation', async () => (await report()).some((item) => item.event === 'onReferenceFragmentUpdated'), 30_000);
    await browser.attachment!.openTab(`http://www.test:${origin.port}/second`);
    let seen: Seen[] = [];
    await until('the second tab', async () => complete((seen = await report())), 20_000);
    await browser.close();
    await host.close(); // says the notes gathered so far
    const notes = entries.filter((entry): entry is LogEntry & JournalEntry => entry.kind === 'log' && entry.source === 'Navigation recorder' && entry.message.startsWith('what ')).flatMap((entry) => entry.message.split('\n').slice(1));
    return { seen, notes };
  } finally {
    unsubscribe();
    await browser.close();
    await host.close();
    await harness.close();
  }
}

/** Waits for `test` to hold (checked every 50 ms), failing after `timeoutMs` with what was awaited. */
async function until(what: string, test: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  for (const start = Date.now(); !(await test()); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not seen within ${timeoutMs} ms`);
  }
}

/** The events in order, tab ids as the order each tab first appears (each browser numbers its own). */
function normalize(seen: Seen[]): Seen[] {
  const tabs = new Map<number, number>();
  return seen.map((item) => {
    if (!tabs.has(item.tabId)) tabs.set(item.tabId, tabs.size);
    return { ...item, tabId: tabs.get(item.tabId)! };
  });
}

let oracle: Seen[];
let ours: { seen: Seen[]; notes: string[] };

describe.skipIf(SKIP)('wrtui browser, attached: the events only a browser knows', () => {
  beforeAll(async () => {
    oracle = await seenInChromium();
    ours = await seenInWrtui();
  }, 180_000);

  it('webNavigation onHistoryStateUpdated, onReferenceFragmentUpdated and onErrorOccurred come as Chromium tells them', () => {
    const navigation = (seen: Seen[]) => normalize(seen.filter((item) => item.event.startsWith('on') && item.where !== 'www.test/second' && !item.where?.startsWith('warm.test')));
    expectAgreement(browserVersion(CHROMIUM), 'webNavigation events', navigation(ours.seen), navigation(oracle));
  });

  it('tabs.onActivated says the tab a page opened in is the active one', () => {
    for (const seen of [oracle, ours.seen]) {
      const second = seen.find((item) => item.event === 'onCommitted' && item.where === 'www.test/second')!;
      const activated = seen.filter((item) => item.event === 'tabs.onActivated');
      expect(activated.at(-1)?.tabId).toBe(second.tabId);
      expect(seen.indexOf(activated.at(-1)!)).toBeLessThan(seen.indexOf(second));
    }
  });

  it('windows.getLastFocused and getAll answer the attached browser\'s window, holding the active tab', () => {
    const lastWindow = (seen: Seen[]) => {
      const second = seen.find((item) => item.event === 'onCommitted' && item.where === 'www.test/second')!;
      const { tabId: _tabId, ...rest } = seen.filter((item) => item.event === 'window' && item.tabId === second.tabId).at(-1) ?? { tabId: -1 };
      return rest;
    };
    expectAgreement(browserVersion(CHROMIUM), 'the window of the active tab', lastWindow(ours.seen), lastWindow(oracle));
    expect(lastWindow(ours.seen)).toMatchObject({ holdsTab: true, listed: true });
  });

  it('windows.onCreated and onFocusChanged tell the attached browser\'s window, before its first tab is activated; a second tab opens no window', () => {
    const order = ours.seen.filter((item) => item.event.startsWith('windows.') || item.event === 'tabs.onActivated').map((item) => item.event);
    expect(order).toEqual(['windows.onCreated', 'tabs.onActivated', 'windows.onFocusChanged', 'tabs.onActivated']);
    // A second tab opens in the same window, in Chromium as in wrtui: no window event (the oracle's
    // window was made before the recording started).
    expect(oracle.filter((item) => item.event.startsWith('windows.'))).toEqual([]);
  });

  it('the once-per-extension notes say the attached browser tells these events, not that they never fire', () => {
    const said = (api: string) => ours.notes.find((line) => line.trimStart().startsWith(`${api}:`));
    for (const api of ['chrome.tabs.onActivated', 'chrome.webNavigation.onCommitted', 'chrome.webNavigation.onErrorOccurred', 'chrome.webNavigation.onHistoryStateUpdated']) {
      expect(said(api), api).toMatch(/it fires from the attached browser's/);
    }
    expect(ours.notes.filter((line) => line.includes('never fires'))).toEqual([]);
  });
});
