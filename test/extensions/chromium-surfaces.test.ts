// The browser's own surfaces (tabs, windows, the toolbar button, context menus, webNavigation,
// i18n, permissions, runtime's start-up calls) as an extension's start-up code finds them: one
// unpacked MV3 extension (fixtures/extensions/surfaces-probe) reports what each answers, inside a
// real Chromium 156 (the oracle) and inside wrtui under the chrome persona. wrtui has no tabs,
// windows or toolbar, so it must answer as a Chromium with none of them open would, with the
// members and enums Chromium has. What only a browser with a window can answer (tabs.query's
// count) is not in the report.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NO_CHROMIUM, reportInChromium, reportInWrtui } from '../helpers/chromium-probe.js';

const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/surfaces-probe', import.meta.url));

type Report = Record<string, unknown> & { userAgent: string; runtimeMembers: string[] };

describe.skipIf(NO_CHROMIUM)("the browser's own surfaces, as an extension's start-up code finds them: Chromium 156 and wrtui's chrome persona", () => {
  it('answer alike: members and enums, "No tab with id: 987654.", the port that disconnects, i18n with placeholders, permissions, the badge kept', { timeout: 90_000 }, async () => {
    const oracle = (await reportInChromium(EXTENSION)) as Report;
    expect(oracle).not.toHaveProperty('failed');
    const ours = (await reportInWrtui(EXTENSION)).report as Report;
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
