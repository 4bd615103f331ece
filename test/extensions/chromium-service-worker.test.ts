// A service worker's global scope as MV3 extensions use it at top level: `self.addEventListener`
// ('install', 'activate', events of its own), `self.oninstall = …`, registration, clients,
// skipWaiting, the order of its first run's events, and fetch of its own files. One unpacked extension
// (fixtures/extensions/service-worker-probe) reports what it finds, inside a real Chromium 156 (the
// oracle) and inside wrtui under the chrome persona; the reports must be the same. Before, wrtui's
// global had no addEventListener at all: an extension whose service worker listens for 'install'
// did not load.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NO_CHROMIUM, reportInChromium, reportInWrtui } from '../helpers/chromium-probe.js';

const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/service-worker-probe', import.meta.url));

describe.skipIf(NO_CHROMIUM)("a service worker's global scope and first run: Chromium 156 and wrtui's chrome persona", () => {
  it('answer alike: an EventTarget with on… attributes, registration and clients, and top level → install → runtime.onInstalled → activate', { timeout: 90_000 }, async () => {
    const oracle = await reportInChromium(EXTENSION);
    const ours = await reportInWrtui(EXTENSION);
    expect(ours.failures).toEqual([]);
    expect(ours.report).toEqual(oracle);
    // What the comparison holds, spelled out (so that a Chromium that changed is seen as such).
    expect(oracle.steps).toEqual([
      ['top level done'],
      ['install', 'InstallEvent', true, 'function', 'installing', null],
      ['oninstall', 'install'],
      ['runtime.onInstalled', 'install'],
      ['activate', 'ExtendableEvent', 'activating', '/background.js'],
      ['claimed when activating', 'undefined'],
    ]);
    expect(oracle.claimBeforeActivation).toBe('InvalidStateError: Only the active worker can claim clients.');
    // Its own files by a relative URL or its own origin (any method; a HEAD gets the body too), nothing outside its folder.
    expect(oracle.fetch).toMatchObject({
      relative: [200, 'application/json', '/data/sample.json', '{ "sample": true }'],
      ownUrl: [200, 'application/json', '/data/sample.json?x=1', '{ "sample": true }'],
      missing: 'TypeError: Failed to fetch',
      climbing: 'TypeError: Failed to fetch',
    });
  });
});
