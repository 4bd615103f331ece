// Privacy Badger (Debian's webext-privacy-badger, unchanged) under `wrtui browser`: the Chromium
// wrtui starts is attached over its DevTools pipe, so the news page's requests reach the extension
// with the browser's tab ids (a page request with tabId -1 is "not from a tab" to Privacy Badger,
// which then leaves it alone). It must block every tracker its bundled data pre-blocks, each
// request seen in the page's tab, and let the first party through.
import { afterEach, describe, expect, it } from 'vitest';
import { attachOptions } from '../../src/app/browser-attach-session.js';
import { launchBrowser, type LaunchedBrowser } from '../../src/app/browser-launch.js';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { FIRST_PARTY, missing, startCorpusRig, TRACKERS, type CorpusRig } from '../helpers/real-extensions.js';

let rig: CorpusRig | undefined;
let browser: LaunchedBrowser | undefined;
afterEach(async () => {
  await browser?.close();
  await rig?.close();
  rig = browser = undefined;
});

describe('Privacy Badger 2020.10.7 under wrtui browser (attached Chromium)', () => {
  it.skipIf(missing('webext-privacy-badger'))('sees the page tab\'s real id on every request and blocks each pre-blocked tracker', { timeout: 150_000 }, async () => {
    rig = await startCorpusRig('webext-privacy-badger', 'chrome');
    const { harness } = rig;
    await harness.waitFor((e) => e.kind === 'log' && e.source === 'Privacy Badger' && e.message === 'Privacy Badger is ready to rock!', 60_000);
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
    const befores = harness.entries.filter((e): e is WebRequestEntry & JournalEntry => e.kind === 'webRequest' && e.event === 'onBeforeRequest');
    const pageHosts = new Set<string>([FIRST_PARTY, ...TRACKERS.map((tracker) => tracker.host)]);
    // (Privacy Badger's own fetches, of a tracker's dnt-policy.txt, are in no tab, as in Chromium.)
    const pageRequests = befores.filter((e) => pageHosts.has(new URL(e.details.url).hostname) && !e.madeBy && !e.details.url.endsWith('/favicon.ico'));
    // Every request of the page is in its tab. The trackers' requests are all described by the
    // browser; a first-party image the preload scanner asks for before the document commits may be
    // missing from Chromium's DevTools events (it then keeps the inference, whose Referer finds the
    // same tab).
    expect(pageRequests.map((e) => [e.details.url, e.details.tabId])).toEqual(pageRequests.map((e) => [e.details.url, tab]));
    expect(pageRequests.filter((e) => e.inferred && new URL(e.details.url).hostname !== FIRST_PARTY).map((e) => e.details.url)).toEqual([]);

    for (const tracker of TRACKERS) {
      const seen = pageRequests.filter((e) => new URL(e.details.url).hostname === tracker.host);
      expect(seen.length, `${tracker.host} was asked for`).toBeGreaterThan(0);
      // Blocked: cancelled, or a script replaced by Privacy Badger's surrogate (it has one for
      // google-analytics.com's and scorecardresearch.com's, given only when the type is script).
      const blocked = tracker.tag === 'script' ? { redirectUrl: expect.stringMatching(/^data:application\/javascript;base64,/) } : { cancel: true };
      for (const entry of seen) expect(entry.outcomes, entry.details.url).toEqual([expect.objectContaining({ owner: 'Privacy Badger', response: blocked })]);
      expect(received().filter((where) => where.startsWith(tracker.host)), `${tracker.host} never reached`).toEqual([]);
    }
    expect(received()).toEqual(expect.arrayContaining([`${FIRST_PARTY}/`, `${FIRST_PARTY}/own/logo.png`, `${FIRST_PARTY}/own/app.js`]));
    expect(rig.problems().filter((problem) => !/eff\.org|Failed to fetch remote/.test(problem))).toEqual([]);
  });
});
