// Debian's real extensions, unchanged (issue #34): each loads with no uncaught error at start and
// blocks a tracker's request through wrtui's proxy. Hostnames need no DNS: a blocked request never
// reaches one. Privacy Badger 2020.10.7 (webext-privacy-badger) did not load: its global
// `function require` broke wrtui's DOM. uBlock Origin 1.67.0's Chromium build
// (webext-ublock-origin-chromium) did not compile its lists: it had no `Worker`.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness, type ProxyHarness } from '../helpers/proxy-harness.js';

const PRIVACY_BADGER = '/usr/share/webext/privacy-badger';
const UBLOCK_ORIGIN = '/usr/share/chromium/extensions/ublock-origin';

let harness: ProxyHarness | undefined;
let host: ExtensionHost | undefined;
let origin: Origin | undefined;
afterEach(async () => {
  await host?.close();
  await harness?.close();
  await origin?.close();
  host = harness = origin = undefined;
});

async function load(folder: string): Promise<void> {
  origin = await startOrigin((_req, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><title>an article</title>');
  });
  harness = await startProxyHarness();
  host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
}

/** A page opened in a tab, then a script of `url` it loads, as a browser sends them; the script request's last event. */
async function scriptInPage(url: string): Promise<{ entry: WebRequestEntry | undefined; status: string }> {
  await harness!.curl(['-o', '/dev/null', '-H', 'Sec-Fetch-Dest: document', '-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Site: none', `${origin!.url}/article`]);
  const mark = harness!.entries.length;
  const script = await harness!.curl(['-o', '/dev/null', '-w', '%{http_code}', '-H', 'Sec-Fetch-Dest: script', '-H', 'Sec-Fetch-Mode: no-cors', '-H', 'Sec-Fetch-Site: cross-site', '-H', `Referer: ${origin!.url}/article`, url]);
  const entries = harness!.entries.slice(mark).filter((e): e is WebRequestEntry & JournalEntry => e.kind === 'webRequest' && e.details.url === url);
  return { entry: entries.find((e) => e.event === 'onBeforeRequest'), status: script.stdout };
}

const errorOf = (url: string) => (harness!.webRequestEntries((e) => e.event === 'onErrorOccurred' && e.details.url === url).at(-1)?.details as { error?: string } | undefined)?.error;

/** What went wrong at start: error entries (but those `allowed`), failed loads, restarts after a fault. */
const failures = (allowed: RegExp = /$^/) =>
  harness!.entries
    .filter((e) => (e.kind === 'log' && e.level === 'error' && !allowed.test(e.message)) || (e.kind === 'rule' && e.action === 'failed') || (e.kind === 'runtime' && e.state === 'restarting'))
    .map((e) => JSON.stringify(e));

describe.skipIf(!existsSync(PRIVACY_BADGER) && !process.env.CI)('Privacy Badger 2020.10.7, unchanged', () => {
  it('loads with no uncaught error and blocks a tracker its data lists, in a tab', { timeout: 60_000 }, async () => {
    await load(PRIVACY_BADGER);
    await harness!.waitFor((e) => e.kind === 'log' && e.source === 'Privacy Badger' && e.message === 'Privacy Badger is ready to rock!', 30_000);
    const tracker = 'http://ad.doubleclick.net/ddm/adj/x';
    const { entry } = await scriptInPage(tracker);
    expect(entry?.outcomes).toEqual([expect.objectContaining({ owner: 'Privacy Badger', status: 'applied', response: { cancel: true } })]);
    expect(errorOf(tracker)).toBe('net::ERR_BLOCKED_BY_CLIENT');
    // Its own reports of a machine without internet (it updates its lists from eff.org) are its console's, not uncaught errors.
    expect(failures(/^(Problem fetching .* at https:\/\/www\.eff\.org\/|Error: Failed to fetch remote )/)).toEqual([]);
  });
});

describe.skipIf(!existsSync(UBLOCK_ORIGIN) && !process.env.CI)("uBlock Origin 1.67.0's Chromium build, unchanged, under the chrome persona", () => {
  it('loads with no uncaught error, compiles its bundled lists in its Workers, blocks a tracker and neuters analytics.js', { timeout: 150_000 }, async () => {
    await load(UBLOCK_ORIGIN);
    const tracker = 'http://stats.g.doubleclick.net/r/collect';
    // Its lists are compiled once it starts filtering: until then the request goes out (and finds no DNS).
    await expect.poll(async () => (await scriptInPage(tracker)).entry?.outcomes.map((outcome) => outcome.response), { timeout: 120_000, interval: 1000 }).toEqual([{ cancel: true }]);
    expect(errorOf(tracker)).toBe('net::ERR_BLOCKED_BY_CLIENT');
    // A redirect filter of its own lists: Google Analytics' script is replaced by its neutered surrogate.
    const analytics = await scriptInPage('http://www.google-analytics.com/analytics.js');
    expect(analytics.entry?.outcomes).toEqual([
      expect.objectContaining({ owner: 'uBlock Origin', response: { redirectUrl: expect.stringMatching(/^chrome-extension:\/\/[a-p]{32}\/web_accessible_resources\/google-analytics_analytics\.js\?secret=\w+$/) } }),
    ]);
    expect(analytics.status).toBe('200');
    expect(failures()).toEqual([]);
  });
});
