// uBlock Origin 1.67.0 (Debian's webext-ublock-origin-chromium, unchanged, chrome persona) under
// `wrtui browser`: the Chromium wrtui starts is attached over its DevTools pipe, so uBO binds the
// news page's requests to the browser's tab and keeps its per-tab count of what it blocked, which
// it shows the way it does in a browser: browserAction.setBadgeText({ tabId, text }). That badge
// is kept for the tab (it used to fail "No tab with id"), the Rules view's status has it, and the
// request detail's Rules tab shows it for a request of that tab. Its counters say what the journal
// says: the badge counts the page's requests uBO blocked.
import { afterEach, describe, expect, it } from 'vitest';
import { attachOptions } from '../../src/app/browser-attach-session.js';
import { launchBrowser, type LaunchedBrowser } from '../../src/app/browser-launch.js';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { badgeLines } from '../../src/ui/detail/badge-lines.js';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { createRecord } from '../../src/ui/store/request-record.js';
import { FIRST_PARTY, missing, startCorpusRig, TRACKERS, type CorpusRig } from '../helpers/real-extensions.js';

let rig: CorpusRig | undefined;
let browser: LaunchedBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  await rig?.close();
  rig = browser = undefined;
});

/** Resolves once uBO has compiled its lists: a tracker request through the proxy is blocked. */
async function listsLoaded(current: CorpusRig, deadlineMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    const blocked = await current.harness
      .fetch(`http://stats.g.doubleclick.net:${current.origin.port}/ready-${Date.now()}.gif`)
      .then(async (response) => (await response.body.text(), false))
      .catch(() => true);
    if (blocked) return;
    if (Date.now() - started > deadlineMs) throw new Error(`uBlock Origin blocked nothing within ${deadlineMs} ms; problems: ${JSON.stringify(current.problems())}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('uBlock Origin 1.67.0 (Chromium build) under wrtui browser (attached Chromium)', () => {
  it.skipIf(missing('webext-ublock-origin-chromium'))('keeps its per-tab badge for the page\'s tab, counting the requests it blocked there, and the Rules tab shows it', { timeout: 240_000 }, async () => {
    rig = await startCorpusRig('webext-ublock-origin-chromium', 'chrome');
    const { harness } = rig;
    await listsLoaded(rig, 150_000);
    browser = await launchBrowser({
      proxyUrl: harness.proxy.url,
      spkiFingerprint: harness.ca.spkiFingerprint,
      url: `http://${FIRST_PARTY}:${rig.origin.port}/`,
      headless: true,
      attach: attachOptions(harness.proxy, harness.engine),
    });
    const received = rig.received;
    await expect.poll(() => received().includes(`${FIRST_PARTY}/own/done`), { timeout: 60_000 }).toBe(true);
    const tab = browser.attachment!.tabs()[0]!.id;

    // What uBO blocked in the tab, by the journal: each request of the tab it cancelled or redirected.
    const inTab = harness.entries.filter((e): e is WebRequestEntry & JournalEntry => e.kind === 'webRequest' && e.event === 'onBeforeRequest' && e.details.tabId === tab && !e.madeBy);
    const blocked = inTab.filter((e) => e.outcomes.some((outcome) => outcome.owner === 'uBlock Origin' && outcome.response !== undefined && ('cancel' in outcome.response || 'redirectUrl' in outcome.response)));
    for (const tracker of TRACKERS) expect(blocked.some((e) => new URL(e.details.url).hostname === tracker.host), `${tracker.host} blocked in tab ${tab}`).toBe(true);

    // Its badge for that tab says as much (uBO updates it on a timer: wait for it to settle there).
    const status = () => rig!.host.rules().find((rule) => rule.name === 'uBlock Origin');
    await expect.poll(() => status()?.badge?.byTab[tab], { timeout: 20_000 }).toBe(String(blocked.length));
    expect(status()!.badge!.text).toBe('');

    // The request detail's Rules tab shows it for a request of that tab.
    const record = createRecord(1, blocked[0]!);
    const lines = badgeLines(record, rig.host.rules()).map(lineText);
    expect(lines).toContain(`Toolbar badges in tab ${tab}`);
    expect(lines.some((text) => text.includes('uBlock Origin') && text.includes(` ${blocked.length} `))).toBe(true);
    expect(rig.problems()).toEqual([]);
  });
});
