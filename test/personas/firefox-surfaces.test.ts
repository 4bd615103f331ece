// The browser's own surfaces under the firefox persona against Firefox ESR 153.7: the probe of
// test/extensions/chromium-surfaces.test.ts (fixtures/extensions/surfaces-probe), as a Firefox
// add-on would ship it (Manifest V2, background.scripts, browserAction), run as a temporary add-on
// in Firefox (the oracle) and in wrtui. Both post their report to the test. They must agree on
// what an add-on's start-up code acts on: the words of the errors ("Invalid tab ID: 987654"), the
// port's `error`, getAll's shape, the badge's default colour, the missing requestUpdateCheck.
// Members and enums are Chromium's (checked there); Firefox has more (executeScript, types).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProbe, NO_FIREFOX, ProbeReports, reportInWrtuiAsFirefox, requireFirefox, whileInFirefox, type ProbeReport } from '../helpers/firefox.js';
import { startOrigin, type Origin } from '../helpers/origin.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/surfaces-probe', import.meta.url));

type Report = ProbeReport;

let origin: Origin;
let work: string;
let extension: string;
const reports = new ProbeReports();

beforeAll(async () => {
  if (NO_FIREFOX) return;
  requireFirefox();
  origin = await startOrigin((req, res, body) => {
    if (req.url === '/report') reports.deliver(JSON.parse(body.toString('utf8')) as Report);
    res.end('ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-surfaces-'));
  // The probe as a Firefox add-on: its background script and messages, an MV2 manifest whose
  // homepage_url tells the probe where to post its report.
  extension = await copyProbe(PROBE, path.join(work, 'extension'), () => ({
    manifest_version: 2,
    name: '__MSG_extensionName__',
    version: '1.0.0',
    default_locale: 'en',
    homepage_url: `${origin.url}/report`,
    browser_specific_settings: { gecko: { id: 'surfaces-probe@wrtui.test' } },
    permissions: ['storage', 'contextMenus', 'webNavigation', 'notifications', 'http://127.0.0.1/*'],
    browser_action: { default_title: 'Surfaces probe' },
    commands: { 'probe-command': { description: '__MSG_extensionName__' } },
    background: { scripts: ['background.js'] },
  }));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * What an add-on acts on. Members, enums, constants and management (Chrome's shape) are compared
 * with Chromium only; and
 * @@extension_id is the moz-extension:// host: a random UUID in Firefox, one derived from the id in
 * wrtui (docs/personas.md, firefox persona; test/personas/firefox-identity.test.ts checks its form).
 */
function behaviour(report: Report): Report {
  const { members: _members, runtimeMembers: _runtimeMembers, enums: _enums, constants: _constants, managementMembers: _management, self: _self, ...rest } = report;
  const messages = [...(report.messages as string[])];
  messages[3] = '(the id)';
  return { ...rest, messages };
}

describe.skipIf(NO_FIREFOX)("the browser's own surfaces: Firefox ESR 153.7 and wrtui's firefox persona", () => {
  it('answer alike: "Invalid tab ID", port.error, no requestUpdateCheck, getAll with data_collection, the badge kept', { timeout: 90_000 }, async () => {
    const oracle = await whileInFirefox(extension, work, reports.next());
    expect(oracle).not.toHaveProperty('failed');
    expect(oracle).toMatchObject({ window: 'object', tabGet: { error: 'Invalid tab ID: 987654' }, updateCheck: { error: expect.stringContaining('is not a function') } });

    const { report: ours } = await reportInWrtuiAsFirefox(extension, reports);
    expect(behaviour(ours)).toEqual(behaviour(oracle));
  });
});
