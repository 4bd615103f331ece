// A probe extension's report, written to storage.local as `report` at start-up, as a real Chromium
// 156 (the oracle) and wrtui under the chrome persona each make it. The probes in
// fixtures/extensions/ share the key of mv3-blocker, so their id is the same in both.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { expect } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import { startProxyHarness } from './proxy-harness.js';

export const CHROMIUM = '/usr/lib/chromium/chromium';
/** Without Chromium the oracle tests are skipped, except in CI (.ci/run installs it). */
export const NO_CHROMIUM = !existsSync(CHROMIUM) && !process.env.CI;
export const PROBE_EXTENSION_ID = 'npngpgadjklogcjnddakfnmbbkeidjap';

export type Report = Record<string, unknown>;

export async function reportInChromium(extension: string): Promise<Report> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  const profile = await mkdtemp(path.join(tmpdir(), 'wrtui-chromium-probe-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', `--disable-extensions-except=${extension}`, `--load-extension=${extension}`],
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
    await rm(profile, { recursive: true, force: true });
  }
}

/** The report in wrtui, and what its journal said went wrong while the probe ran (errors, a failed load). */
export async function reportInWrtui(extension: string): Promise<{ report: Report; failures: string[] }> {
  const harness = await startProxyHarness();
  const host = await ExtensionHost.start(harness.engine, { extensions: [extension], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
  try {
    let stored = '';
    await expect.poll(async () => (stored = await readFile(storageFileOf(harness.stateDir, PROBE_EXTENSION_ID), 'utf8').catch(() => '')), { timeout: 10_000 }).toContain('"report"');
    const failures = harness.entries.filter((e) => (e.kind === 'log' && e.level === 'error') || (e.kind === 'rule' && e.action === 'failed')).map((e) => JSON.stringify(e));
    return { report: (JSON.parse(stored) as { report: Report }).report, failures };
  } finally {
    await host.close();
    await harness.close();
  }
}
