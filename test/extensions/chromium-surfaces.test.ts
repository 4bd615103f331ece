// The browser's own surfaces (tabs, windows, the toolbar button, context menus, webNavigation,
// i18n, permissions, runtime's start-up calls) as an extension's start-up code finds them: one
// unpacked MV3 extension (fixtures/extensions/surfaces-probe) reports what each answers, inside a
// real Chromium 156 (the oracle) and inside wrtui under the chrome persona. wrtui has no tabs,
// windows or toolbar, so it must answer as a Chromium with none of them open would, with the
// members and enums Chromium has. What only a browser with a window can answer (tabs.query's
// count) is not in the report.
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
const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/surfaces-probe', import.meta.url));
const EXTENSION_ID = 'npngpgadjklogcjnddakfnmbbkeidjap';

type Report = Record<string, unknown> & { userAgent: string; runtimeMembers: string[] };

let work: string;
beforeAll(async () => {
  if (!SKIP && !existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing and CI is set (.ci/run installs chromium)`);
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-chromium-surfaces-'));
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

async function inWrtui(): Promise<Report> {
  const harness = await startProxyHarness();
  const host = await ExtensionHost.start(harness.engine, { extensions: [EXTENSION], watch: false, typeCheck: false, stateDir: harness.stateDir, persona: 'chrome' });
  try {
    let stored = '';
    await expect.poll(async () => (stored = await readFile(storageFileOf(harness.stateDir, EXTENSION_ID), 'utf8').catch(() => '')), { timeout: 10_000 }).toContain('"report"');
    return (JSON.parse(stored) as { report: Report }).report;
  } finally {
    await host.close();
    await harness.close();
  }
}

describe.skipIf(SKIP)("the browser's own surfaces, as an extension's start-up code finds them: Chromium 156 and wrtui's chrome persona", () => {
  it('answer alike: members and enums, "No tab with id: 987654.", the port that disconnects, i18n with placeholders, permissions, the badge kept', { timeout: 90_000 }, async () => {
    const oracle = await inChromium();
    expect(oracle).not.toHaveProperty('failed');
    const ours = await inWrtui();
    expect(ours).not.toHaveProperty('failed');

    // Headless Chromium names itself HeadlessChrome; the persona is the browser a user runs.
    expect(ours.userAgent).toBe(oracle.userAgent.replace('HeadlessChrome/', 'Chrome/'));
    // runtime: wrtui has fewer members (no user scripts, no ChromeOS restart), never one Chromium lacks.
    expect(oracle.runtimeMembers).toEqual(expect.arrayContaining(ours.runtimeMembers));
    expect(ours.runtimeMembers).toEqual(expect.arrayContaining(['connect', 'getContexts', 'getPlatformInfo', 'openOptionsPage', 'reload', 'requestUpdateCheck', 'setUninstallURL', 'OnInstalledReason']));
    const rest = (report: Report) => {
      const { userAgent: _ua, runtimeMembers: _members, ...others } = report;
      return others;
    };
    expect(rest(ours)).toEqual(rest(oracle));
  });
});
