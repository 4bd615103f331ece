// The toolbar button's values per tab (worker/toolbar-button.ts): a badge set for a tab wrtui knows
// (here one counted from traffic: a navigation from no document opens one) is that tab's, the
// button's own stays as it was, the Rules view's status carries both, and a tab nobody knows still
// fails with Chromium's words.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const BACKGROUND = `
chrome.webRequest.onBeforeRequest.addListener((details) => {
  if (details.tabId < 0) return;
  (async () => {
    await chrome.action.setBadgeText({ tabId: details.tabId, text: '7' });
    await chrome.action.setBadgeText({ text: 'all' });
    const mine = await chrome.action.getBadgeText({ tabId: details.tabId });
    const button = await chrome.action.getBadgeText({});
    const unknown = await chrome.action.setBadgeText({ tabId: 999, text: 'x' }).then(() => 'kept', (error) => error.message);
    console.log('badges: tab ' + mine + ', button ' + button + ', tab 999: ' + unknown);
  })();
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

describe('the toolbar badge per tab', () => {
  it("setBadgeText({ tabId }) is that tab's badge, the button's own stays, the status has both; an unknown tab fails", { timeout: 60_000 }, async () => {
    origin = await startOrigin((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>page</p>'));
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-badge-'));
    await writeFile(path.join(work, 'manifest.json'), JSON.stringify({ manifest_version: 3, name: 'Badger', version: '1', action: {}, permissions: ['webRequest'], host_permissions: ['http://127.0.0.1/*'], background: { service_worker: 'sw.js' } }));
    await writeFile(path.join(work, 'sw.js'), BACKGROUND);
    harness = await startProxyHarness();
    host = await ExtensionHost.start(harness.engine, { extensions: [work], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
    // A top-level navigation from no document: a tab of its own.
    const response = await harness.fetch(`${origin.url}/page`, { headers: { 'Sec-Fetch-Dest': 'document', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Site': 'none', Accept: 'text/html' } });
    await response.body.text();
    const tabId = harness.webRequestEntries((entry) => entry.event === 'onBeforeRequest')[0]!.details.tabId;
    expect(tabId).toBeGreaterThanOrEqual(0);
    const said = await harness.waitFor((entry) => entry.kind === 'log' && entry.source === 'Badger' && entry.message.startsWith('badges:'), 20_000);
    expect((said as { message: string }).message).toBe('badges: tab 7, button all, tab 999: No tab with id: 999.');
    expect(host.rules().find((rule) => rule.name === 'Badger')!.badge).toEqual({ text: 'all', byTab: { [tabId]: '7' } });
  });
});
