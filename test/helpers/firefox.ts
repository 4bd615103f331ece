// Firefox ESR as an oracle (FACTS.md): a quiet profile, and a run that ends with its whole process
// group (web-ext's Firefox outlives web-ext itself, and each left behind kept ~350 MB and its share
// of the CPU).
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { startProxyHarness } from './proxy-harness.js';

export const FIREFOX = '/usr/bin/firefox-esr';
export const WEB_EXT = fileURLToPath(new URL('../../node_modules/.bin/web-ext', import.meta.url));

/** Without Firefox (or web-ext) the oracle tests are skipped, except in CI: .ci/run installs firefox-esr. */
export const NO_FIREFOX = !(existsSync(FIREFOX) && existsSync(WEB_EXT)) && !process.env.CI;

/** Fails a CI run that lacks Firefox, where skipping would pass silently. */
export function requireFirefox(): void {
  if (!existsSync(FIREFOX)) throw new Error(`${FIREFOX} is missing and CI is set (.ci/run installs firefox-esr)`);
}

export type ProbeReport = Record<string, unknown>;

/** What probe add-ons post to the test's origin, awaited one at a time. */
export class ProbeReports {
  #deliver: (report: ProbeReport) => void = () => {};

  /** The next report to arrive. */
  next(): Promise<ProbeReport> {
    return new Promise((resolve) => (this.#deliver = resolve));
  }

  /** For the origin's handler: a report arrived. */
  deliver(report: ProbeReport): void {
    this.#deliver(report);
  }
}

/**
 * The probe add-on at `folder` run in wrtui, its proxy running, until it posts its next report;
 * it must load under the firefox persona (its manifest's choice, or `persona` as --persona).
 */
export async function reportInWrtuiAsFirefox(folder: string, reports: ProbeReports, persona?: 'firefox'): Promise<{ report: ProbeReport; extensionId: string | undefined }> {
  const report = reports.next();
  const harness = await startProxyHarness();
  const host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: harness.stateDir, ...(persona && { persona }) });
  try {
    expect(host.rules()[0]).toMatchObject({ persona: 'firefox', state: 'active' });
    return { report: await report, extensionId: host.rules()[0]!.extensionId };
  } finally {
    await host.close();
    await harness.close();
  }
}

/**
 * A copy of the probe add-on `fixture` at `folder`, its manifest as `edit` makes it (the probe
 * posts its report to the manifest's homepage_url, which the test sets there).
 */
export async function copyProbe(fixture: string, folder: string, edit: (manifest: Record<string, unknown>) => Record<string, unknown>): Promise<string> {
  await cp(fixture, folder, { recursive: true });
  const file = path.join(folder, 'manifest.json');
  await writeFile(file, JSON.stringify(edit(JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>)));
  return folder;
}

/** Preferences of a quiet Firefox: no updates, telemetry, remote settings or captive-portal checks (FACTS.md). */
const QUIET: Record<string, unknown> = {
  'app.update.enabled': false,
  'app.normandy.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'toolkit.telemetry.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'network.prefetch-next': false,
  'network.dns.disablePrefetch': true,
  'browser.startup.homepage_override.mstone': 'ignore',
  'services.settings.server': 'http://127.0.0.1:1/',
};

/**
 * The preferences web-ext gives the Firefox it runs an add-on in (its own module, read from the
 * installed web-ext). Every profile gets them, so that the oracle (web-ext's Firefox) and a Firefox
 * browsing through wrtui (launched plainly) run with the same effective preferences. The one that
 * matters most: `extensions.enabledScopes` 5 loads add-ons from the profile and the application
 * only. A plainly launched Firefox also loads the system's add-ons (Debian's webext-* packages put
 * Privacy Badger, uBlock Origin and Lightbeam in /usr/share/mozilla/extensions), and Privacy Badger
 * then adds `DNT: 1` and `Sec-GPC: 1` to every request once it has started (docs/personas.md, firefox persona).
 */
async function webExtPreferences(): Promise<Record<string, unknown>> {
  const module = (await import(new URL('../../node_modules/web-ext/lib/firefox/preferences.js', import.meta.url).href)) as { getPrefs(app: string): Record<string, unknown> };
  return module.getPrefs('firefox');
}

/** A profile folder `dir` with web-ext's preferences, the quiet ones and `prefs`. */
export async function firefoxProfile(dir: string, prefs: Record<string, unknown> = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const all = { ...(await webExtPreferences()), ...QUIET, ...prefs };
  await writeFile(path.join(dir, 'user.js'), Object.entries(all).map(([key, value]) => `user_pref(${JSON.stringify(key)}, ${JSON.stringify(value)});`).join('\n'));
  return dir;
}

/** Ends `child`'s process group (it must have been spawned `detached`): SIGTERM, then SIGKILL. */
export async function endProcessGroup(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  signalGroup('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  await new Promise((resolve) => setTimeout(resolve, 500));
  signalGroup('SIGKILL');
}

/**
 * Runs `extension` as a temporary add-on in a headless Firefox (profile under `work`) until
 * `report` settles (the add-on posts what it found to the test's origin), then ends Firefox.
 */
export async function whileInFirefox<T>(extension: string, work: string, report: Promise<T>, timeoutMs = 60_000): Promise<T> {
  const { spawn } = await import('node:child_process');
  // --keep-profile-changes: Firefox runs in the profile under `work` itself. Without it web-ext
  // runs a copy in /tmp, which it cannot remove when its process group is ended (15 MB a run).
  const profile = await firefoxProfile(path.join(work, 'profile'));
  const child = spawn(WEB_EXT, ['run', '--source-dir', extension, '--firefox', FIREFOX, '--arg=--headless', '--no-input', '--no-reload', '--firefox-profile', profile, '--keep-profile-changes', '--start-url', 'about:blank'], {
    stdio: 'ignore',
    detached: true,
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let timer: NodeJS.Timeout | undefined;
  try {
    // Bounded: an add-on that never reports must not leave Firefox running past the test.
    return await Promise.race([report, new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`the add-on in Firefox did not report within ${timeoutMs} ms`)), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
    await endProcessGroup(child, exited);
  }
}
