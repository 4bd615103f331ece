// What Firefox calls an add-on and where its files live, against Firefox ESR 153.7: the same add-on
// (fixtures/extensions/identity-probe) as shipped (a gecko id), without a gecko id (Firefox names a
// temporary add-on itself), and as Manifest V3, run as a temporary add-on in Firefox (the oracle)
// and in wrtui's firefox persona; both post their report to the test's origin. Firefox draws its
// moz-extension:// UUID at random per profile, and a temporary add-on's id per browser session;
// wrtui derives both from the folder (docs/personas.md, firefox persona). So the reports are compared with
// those two values named by their form, and wrtui's must be the same on every run.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import type { JournalEntry, RuleEntry } from '../../src/engine/journal.js';
import { copyProbe, NO_FIREFOX, ProbeReports, reportInWrtuiAsFirefox, requireFirefox, whileInFirefox, type ProbeReport } from '../helpers/firefox.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/identity-probe', import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TEMPORARY_ID = /^[0-9a-f]{40}@temporary-addon$/;

type Report = ProbeReport;
type Variant = 'as shipped' | 'without a gecko id' | 'Manifest V3';

let origin: Origin;
let work: string;
const reports = new ProbeReports();

beforeAll(async () => {
  if (NO_FIREFOX) return;
  requireFirefox();
  origin = await startOrigin((req, res, body) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.url === '/report') reports.deliver(JSON.parse(body.toString('utf8')) as Report);
    res.end('ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-identity-'));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The probe as `variant` has it, in its own folder under the test's. */
function probe(variant: Variant): Promise<string> {
  return copyProbe(PROBE, path.join(work, variant.replace(/ /g, '-')), ({ browser_specific_settings: gecko, ...manifest }) => ({
    ...manifest,
    homepage_url: `${origin.url}/report`,
    ...(variant === 'as shipped' && { browser_specific_settings: gecko }),
    ...(variant === 'Manifest V3' && {
      manifest_version: 3,
      permissions: ['webRequest', 'webRequestBlocking'],
      host_permissions: ['http://127.0.0.1/*'],
      web_accessible_resources: [{ resources: ['images/*.png'], matches: ['<all_urls>'] }],
    }),
  }));
}

/** The report with its UUID and a temporary add-on's id named by their form (each checked first). */
function named(report: Report): Report {
  const uuid = report.baseHost as string;
  expect(uuid).toMatch(UUID);
  const text = JSON.stringify(report).replaceAll(uuid, '<uuid>');
  return JSON.parse(TEMPORARY_ID.test(report.id as string) ? text.replaceAll(report.id as string, '<sha1>@temporary-addon') : text) as Report;
}

describe.skipIf(NO_FIREFOX)("an add-on's id and origin: Firefox ESR 153.7 and wrtui's firefox persona", () => {
  it('answer alike: the gecko id, else "<sha1>@temporary-addon"; moz-extension://<uuid>/ for getURL, location and origin; @@extension_id is the UUID', { timeout: 180_000 }, async () => {
    for (const variant of ['as shipped', 'without a gecko id', 'Manifest V3'] as const) {
      const folder = await probe(variant);
      const oracle = await whileInFirefox(folder, path.join(work, `profile-${variant.length}`), reports.next());
      // Without a gecko id the persona is chosen by --persona, as a Chrome-first add-on is tried in Firefox.
      const ours = await reportInWrtuiAsFirefox(folder, reports, variant === 'as shipped' ? undefined : 'firefox');
      expect({ variant, ...named(ours.report) }).toEqual({ variant, ...named(oracle) });
      // Spelled out: Firefox answers a missing file of its own with 200 and a body that fails.
      expect(oracle.missing).toEqual(['answered', 200, 'body', 'AbortError', 'The operation was aborted. ']);
      expect(ours.extensionId).toBe(ours.report.id); // the rules view shows runtime.id as the extension sees it
      const again = await reportInWrtuiAsFirefox(folder, reports, variant === 'as shipped' ? undefined : 'firefox');
      expect(again.report).toEqual(ours.report); // derived, not drawn: the same on every run
    }
  });
});

describe("an add-on's identity in wrtui's firefox persona", () => {
  it('a gecko id Firefox refuses fails the load with Firefox\'s message', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'wrtui-gecko-id-'));
    try {
      await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ manifest_version: 2, name: 'bad id', version: '1', browser_specific_settings: { gecko: { id: 'not a valid id' } }, background: { scripts: ['b.js'] } }));
      await writeFile(path.join(folder, 'b.js'), '');
      const harness = await startProxyHarness();
      const host = await ExtensionHost.start(harness.engine, { extensions: [folder], watch: false, typeCheck: false, stateDir: harness.stateDir });
      try {
        expect(host.rules()[0]).toMatchObject({ state: 'failed' });
        const failure = harness.entries.find((entry): entry is JournalEntry & RuleEntry => entry.kind === 'rule' && entry.action === 'failed');
        // Firefox ESR 153.7's words for the same manifest (web-ext run: "Extension is invalid").
        expect(failure?.message).toBe(
          'Error processing browser_specific_settings.gecko.id: Value "not a valid id" must either: match the pattern /^\\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\}$/i, or match the pattern /^[a-z0-9-._]*@[a-z0-9-._]+$/i',
        );
        expect(failure?.location).toBe(path.join(folder, 'manifest.json'));
      } finally {
        await host.close();
        await harness.close();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("a page's request redirected to the add-on's moz-extension:// web accessible resource is served its file", async () => {
    const harness = await startProxyHarness();
    const host = await ExtensionHost.start(harness.engine, { extensions: [PROBE], watch: false, typeCheck: false, stateDir: harness.stateDir });
    const page = await startOrigin((_req, res) => res.writeHead(404).end());
    try {
      const response = await harness.fetch(`${page.url}/remote.png`);
      expect(response.statusCode).toBe(200);
      expect(Buffer.from(await response.body.arrayBuffer()).toString('latin1')).toBe('\x89PNG\r\n\x1a\nidentity-probe');
      expect(page.received).toHaveLength(0);
      const redirect = harness.webRequestEntries((entry) => entry.event === 'onBeforeRedirect')[0];
      expect((redirect?.details as { redirectUrl?: string } | undefined)?.redirectUrl).toMatch(/^moz-extension:\/\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\/images\/local\.png$/);
    } finally {
      await host.close();
      await page.close();
      await harness.close();
    }
  });
});
