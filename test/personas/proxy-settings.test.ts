// proxy.settings as an extension's start-up code finds it (proxy switchers draw their icon from
// it): one probe (fixtures/extensions/proxy-settings-probe) reads, sets, reads, clears and reads
// it, in Chromium 156 and wrtui's chrome persona, and as a temporary add-on in Firefox ESR 153 and
// wrtui's firefox persona. Each pair must report the same answers, values, errors and onChange events.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CHROMIUM, NO_CHROMIUM, reportInChromium, reportInWrtui } from '../helpers/chromium-probe.js';
import { copyProbe, FIREFOX, NO_FIREFOX, ProbeReports, reportInWrtuiAsFirefox, requireFirefox, whileInFirefox } from '../helpers/firefox.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';
import { startOrigin, type Origin } from '../helpers/origin.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/proxy-settings-probe', import.meta.url));

let origin: Origin | undefined;
let work: string | undefined;
afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(NO_CHROMIUM)('proxy.settings in Chromium 156 and the chrome persona', () => {
  it('answer alike: {mode: "system"} by default, a set config kept with its scheme filled in, onChange for set and clear', { timeout: 90_000 }, async () => {
    const oracle = await reportInChromium(PROBE);
    const { report: ours, failures } = await reportInWrtui(PROBE);
    expect(failures).toEqual([]);
    expectAgreement(browserVersion(CHROMIUM), "the proxy.settings probe's report", ours, oracle);
  });
});

describe.skipIf(NO_FIREFOX)('proxy.settings in Firefox ESR 153 and the firefox persona', () => {
  it("answer alike: Firefox's settings shape, and set() refused for an add-on not allowed in private windows", { timeout: 90_000 }, async () => {
    requireFirefox();
    const reports = new ProbeReports();
    origin = await startOrigin((req, res, body) => {
      if (req.url === '/report') reports.deliver(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
      res.end('ok');
    });
    work = await mkdtemp(path.join(tmpdir(), 'wrtui-proxy-settings-'));
    const extension = await copyProbe(PROBE, path.join(work, 'extension'), () => ({
      manifest_version: 2,
      name: 'proxy-settings probe',
      version: '1.0.0',
      homepage_url: `${origin!.url}/report`,
      browser_specific_settings: { gecko: { id: 'proxy-settings-probe@wrtui.test' } },
      permissions: ['storage', 'proxy', 'http://127.0.0.1/*'],
      background: { scripts: ['background.js'] },
    }));
    const oracle = await whileInFirefox(extension, work, reports.next());
    const { report: ours } = await reportInWrtuiAsFirefox(extension, reports, 'firefox');
    // Firefox also lists its schema's ProxyConfig type among proxy's members; wrtui has no such object.
    const withoutTypes = (report: Record<string, unknown>) => ({ ...report, members: (report.members as string[]).filter((name) => name !== 'ProxyConfig') });
    expectAgreement(browserVersion(FIREFOX), "the proxy.settings probe's report", withoutTypes(ours), withoutTypes(oracle));
  });
});
