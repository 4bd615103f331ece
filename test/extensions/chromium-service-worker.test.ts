// A service worker's global scope as MV3 extensions use it at top level: `self.addEventListener`
// ('install', 'activate', events of its own), `self.oninstall = …`, registration, clients,
// skipWaiting, the order of its first run's events, and fetch of its own files. One unpacked extension
// (fixtures/extensions/service-worker-probe) reports what it finds, inside a real Chromium 156 (the
// oracle) and inside wrtui under the chrome persona; the reports must be the same. Before, wrtui's
// global had no addEventListener at all: an extension whose service worker listens for 'install'
// did not load.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';

const CHROMIUM = '/usr/lib/chromium/chromium';
const SKIP = !existsSync(CHROMIUM) && !process.env.CI;
const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/service-worker-probe', import.meta.url));
const EXTENSION_ID = 'npngpgadjklogcjnddakfnmbbkeidjap';

type Report = Record<string, unknown>;

let work: string;
beforeAll(async () => {
  if (!SKIP && !existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-chromium-sw-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function inChromium(): Promise<Report> {
  const context = await chromium.launchPersistentContext(path.join(work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', `--disable-extensions-except=${EXTENSION}`, `--load-extension=${EXTENSION}`],
  });
  try {
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    for (let i = 0; i < 100; i++) {
      const { report } = (await worker.evaluate('chrome.storage.local.get("report")')) as { report?: Report };
      if (report) return report;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the probe never reported in Chromium');
  } finally {
    await context.close();
  }
}

async function inWrtui(): Promise<{ report: Report; failures: string[] }> {
  const harness = await startProxyHarness();
  const host = await ExtensionHost.start(harness.engine, { extensions: [EXTENSION], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
  try {
    let stored = '';
    await expect.poll(async () => (stored = await readFile(storageFileOf(harness.stateDir, EXTENSION_ID), 'utf8').catch(() => '')), { timeout: 10_000 }).toContain('"report"');
    const failures = harness.entries.filter((e) => (e.kind === 'log' && e.level === 'error') || (e.kind === 'rule' && e.action === 'failed')).map((e) => JSON.stringify(e));
    return { report: (JSON.parse(stored) as { report: Report }).report, failures };
  } finally {
    await host.close();
    await harness.close();
  }
}

describe.skipIf(SKIP)("a service worker's global scope and first run: Chromium 156 and wrtui's chrome persona", () => {
  it('answer alike: an EventTarget with on… attributes, registration and clients, and top level → install → runtime.onInstalled → activate', { timeout: 90_000 }, async () => {
    const oracle = await inChromium();
    const ours = await inWrtui();
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
