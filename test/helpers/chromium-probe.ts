// A probe extension's report, written to storage.local as `report` at start-up, as a real Chromium
// 156 (the oracle) and wrtui under the chrome persona each make it. The probes in
// fixtures/extensions/ share the key of mv3-blocker, so their id is the same in both.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { expect } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { extensionIdFromPath } from '../../src/engine/extensions/extension-id.js';
import { storageFileOf } from '../../src/engine/extensions/storage-areas.js';
import { startProxyHarness } from './proxy-harness.js';

export const CHROMIUM = '/usr/lib/chromium/chromium';
/** Without Chromium the oracle tests are skipped, except in CI (.ci/run installs it). */
export const NO_CHROMIUM = !existsSync(CHROMIUM) && !process.env.CI;
export const PROBE_EXTENSION_ID = 'npngpgadjklogcjnddakfnmbbkeidjap';

export type Report = Record<string, unknown>;

export async function reportInChromium(extension: string): Promise<Report> {
  return (await reportsInChromium(extension)).report;
}

/**
 * The probe's report, and then the storage.local `report` of each extension loaded `alongside` it
 * (undefined when it has none), as Chromium runs them together.
 */
export async function reportsInChromium(extension: string, alongside: string[] = []): Promise<{ report: Report; others: (Report | undefined)[] }> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  const profile = await mkdtemp(path.join(tmpdir(), 'wrtui-chromium-probe-'));
  const all = [extension, ...alongside].join(',');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', `--disable-extensions-except=${all}`, `--load-extension=${all}`],
  });
  try {
    const workerOf = async (id: string) => {
      for (let i = 0; i < 150; i++) {
        const found = context.serviceWorkers().find((worker) => worker.url().startsWith(`chrome-extension://${id}/`));
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no service worker of ${id} in Chromium`);
    };
    const readReport = async (id: string) => ((await (await workerOf(id)).evaluate('chrome.storage.local.get("report")')) as { report?: Report }).report;
    for (let i = 0; i < 100; i++) {
      const report = await readReport(PROBE_EXTENSION_ID);
      if (report) return { report, others: await Promise.all(alongside.map((folder) => readReport(extensionIdFromPath(folder)))) };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the probe never reported in Chromium');
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

/**
 * The report of a probe whose manifest names a background `page` (MV2), as Chromium 156 makes it:
 * Chromium runs no MV2 background page, so a copy of the probe, its manifest made MV3 without a
 * background (the same key, so the same id), is loaded and that page opened in a tab, where it runs
 * as any extension page does.
 */
export async function pageReportInChromium(extension: string): Promise<Report> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  const manifest = JSON.parse(await readFile(path.join(extension, 'manifest.json'), 'utf8')) as { background: { page: string } } & Record<string, unknown>;
  const work = await mkdtemp(path.join(tmpdir(), 'wrtui-chromium-page-probe-'));
  const copy = path.join(work, 'extension');
  await cp(extension, copy, { recursive: true });
  const { background, ...rest } = manifest;
  await writeFile(path.join(copy, 'manifest.json'), JSON.stringify({ ...rest, manifest_version: 3 }));
  const context = await chromium.launchPersistentContext(path.join(work, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    ignoreDefaultArgs: ['--disable-extensions'],
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', `--disable-extensions-except=${copy}`, `--load-extension=${copy}`],
  });
  try {
    const page = await context.newPage();
    const url = `chrome-extension://${PROBE_EXTENSION_ID}/${background.page}`;
    // The extension may not be loaded yet when the browser starts: try again until its page opens.
    await expect.poll(async () => page.goto(url).then(() => page.url(), () => 'not yet'), { timeout: 15_000 }).toBe(url);
    let report: Report | undefined;
    await expect.poll(async () => (report = ((await page.evaluate('chrome.storage.local.get("report")')) as { report?: Report }).report), { timeout: 30_000 }).toBeDefined();
    return report!;
  } finally {
    await context.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** The report in wrtui, and what its journal said went wrong while the probe ran (errors, a failed load). */
export async function reportInWrtui(extension: string): Promise<{ report: Report; failures: string[] }> {
  const { report, failures } = await reportsInWrtui(extension);
  return { report, failures };
}

/** As reportsInChromium, in wrtui under the chrome persona, with its proxy running. */
export async function reportsInWrtui(extension: string, alongside: string[] = []): Promise<{ report: Report; others: (Report | undefined)[]; failures: string[] }> {
  const harness = await startProxyHarness();
  const host = await ExtensionHost.start(harness.engine, { extensions: [extension, ...alongside], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
  const stored = (id: string) => readFile(storageFileOf(harness.stateDir, id), 'utf8').catch(() => '');
  let closed = false;
  try {
    let text = '';
    await expect.poll(async () => (text = await stored(PROBE_EXTENSION_ID)), { timeout: 10_000 }).toContain('"report"');
    const failures = harness.entries.filter((e) => (e.kind === 'log' && e.level === 'error') || (e.kind === 'rule' && e.action === 'failed')).map((e) => JSON.stringify(e));
    // Closing writes every extension's storage out: the others' reports are read whole.
    await host.close();
    closed = true;
    const others = await Promise.all(alongside.map(async (folder) => (JSON.parse((await stored(extensionIdFromPath(folder))) || '{}') as { report?: Report }).report));
    return { report: (JSON.parse(text) as { report: Report }).report, others, failures };
  } finally {
    if (!closed) await host.close();
    await harness.close();
  }
}
