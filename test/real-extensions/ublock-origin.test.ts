// uBlock Origin 1.67.0 as Debian ships it (webext-ublock-origin-chromium and -firefox), loaded
// unchanged under the persona of its build, while Chromium browses a news page through wrtui: the
// trackers its bundled lists block (Google Analytics, DoubleClick, Scorecard Research, AppNexus)
// are blocked and never reach the origin; the first party's own resources pass; it logs no error
// at start. (The Chromium build is MV2, which Chromium 156 no longer runs: its oracle is what its
// lists say, not a browser.)
import { afterEach, describe, expect, it } from 'vitest';
import { endings, FIRST_PARTY, missing, startCorpusRig, TRACKERS, type CorpusPackage, type CorpusRig } from '../helpers/real-extensions.js';
import type { PersonaName } from '../../src/engine/personas/index.js';

let rig: CorpusRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** Resolves once uBO has compiled its lists: a tracker request through the proxy is blocked. */
async function listsLoaded(current: CorpusRig, deadlineMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const blocked = await current.harness
      .fetch(`http://stats.g.doubleclick.net:${current.origin.port}/ready-${Date.now()}.gif`)
      .then(async (response) => (await response.body.text(), false))
      .catch(() => true);
    if (blocked) return Date.now() - started;
    if (Date.now() - started > deadlineMs) throw new Error(`uBlock Origin blocked nothing within ${deadlineMs} ms; problems: ${JSON.stringify(current.problems())}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The request to `url` was redirected to an extension's own resource (uBO's neutered scripts). */
function redirectedToExtension(current: CorpusRig, url: string): boolean {
  return current.harness.entries.some((entry) => entry.kind === 'webRequest' && entry.event === 'onBeforeRedirect' && entry.details.url === url && /^(chrome|moz)-extension:|^data:/.test((entry.details as { redirectUrl?: string }).redirectUrl ?? ''));
}

const BUILDS: [CorpusPackage, PersonaName][] = [
  ['webext-ublock-origin-chromium', 'chrome'],
  ['webext-ublock-origin-firefox', 'firefox'],
];

describe.each(BUILDS)('%s under the %s persona', (pkg, persona) => {
  it.skipIf(missing(pkg))('blocks what its bundled lists block on a news page Chromium loads through wrtui, lets the first party through, and logs no error', { timeout: 240_000 }, async () => {
    rig = await startCorpusRig(pkg, persona);
    const readyMs = await listsLoaded(rig, 150_000);
    console.log(`${pkg}: lists compiled, first block ${readyMs} ms after start`);
    await rig.browse();
    const received = rig.received();
    for (const tracker of TRACKERS) {
      expect(received.filter((where) => where.startsWith(`${tracker.host}${tracker.path}`)), `${tracker.host}${tracker.path} reached the origin; the journal: ${JSON.stringify(endings(rig.harness.entries, tracker.host))}`).toEqual([]);
      const ends = endings(rig.harness.entries, tracker.host).filter((end) => new URL(end.url).pathname === tracker.path);
      expect(ends.length, `${tracker.host}${tracker.path} was never requested`).toBeGreaterThan(0);
      // Blocked, or (a script its lists neuter, analytics.js) redirected to its own harmless stand-in.
      expect(ends.every((end) => end.error === 'net::ERR_BLOCKED_BY_CLIENT' || redirectedToExtension(rig!, end.url)), JSON.stringify(ends)).toBe(true);
    }
    expect(received).toEqual(expect.arrayContaining([`${FIRST_PARTY}/`, `${FIRST_PARTY}/own/logo.png`, `${FIRST_PARTY}/own/app.js`]));
    expect(rig.problems()).toEqual([]);
  });
});
