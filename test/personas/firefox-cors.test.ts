// An add-on's fetch to an origin it has no host permission for, against Firefox ESR 153.7: the same
// add-on (fixtures/extensions/firefox-cors-probe, with cors-probe's script) fetches in Firefox (the oracle) and in wrtui's
// firefox persona with its proxy running, from an origin it may reach (127.0.0.1, host permission)
// and one it may not (127.0.0.2). The outcomes and what each origin received must agree.
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProbe, FIREFOX, NO_FIREFOX, ProbeReports, reportInWrtuiAsFirefox, requireFirefox, whileInFirefox, type ProbeReport } from '../helpers/firefox.js';
import { startCorsOrigins, type CorsOrigins } from '../helpers/cors-origins.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/firefox-cors-probe', import.meta.url));

const CHROME_PROBE = fileURLToPath(new URL('../../fixtures/extensions/cors-probe', import.meta.url));

let origins: CorsOrigins;
let work: string;
let extension: string;
const reports = new ProbeReports();

beforeAll(async () => {
  if (NO_FIREFOX) return;
  requireFirefox();
  origins = await startCorsOrigins((body) => reports.deliver(JSON.parse(body.toString('utf8')) as ProbeReport));
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-cors-'));
  extension = await copyProbe(PROBE, path.join(work, 'extension'), (manifest) => ({ ...manifest, homepage_url: `${origins.foreign.url}/?permitted=${origins.permitted.url}` }));
  // The requests are the Chrome probe's, in the same script (it posts its report under Firefox).
  await copyFile(path.join(CHROME_PROBE, 'background.js'), path.join(extension, 'background.js'));
}, 30_000);

afterAll(async () => {
  await origins?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The wire with each preflight (OPTIONS of a path) after its first left out. */
function oncePerPreflight(wire: string[]): string[] {
  const seen = new Set<string>();
  return wire.filter((line) => {
    const request = line.split(' (', 1)[0]!;
    if (!request.startsWith('foreign OPTIONS ')) return true;
    if (seen.has(request)) return false;
    seen.add(request);
    return true;
  });
}

describe.skipIf(NO_FIREFOX)("an add-on's fetch across origins: Firefox ESR 153.7 and wrtui's firefox persona", () => {
  it('answer alike: CORS applies where it has no host permission, not where it has', { timeout: 90_000 }, async () => {
    const before = origins.marks();
    const oracle = await whileInFirefox(extension, work, reports.next());
    const oracleWire = origins.receivedSince(before);
    const middle = origins.marks();
    const { report: ours } = await reportInWrtuiAsFirefox(extension, reports);
    const ourWire = origins.receivedSince(middle);
    expectAgreement(browserVersion(FIREFOX), "the add-on's report", ours, oracle);
    // Firefox preflights an add-on's repeated request again in most runs, and in some reuses the first
    // answer (its cache is filled as the preflight ends, which the next request may beat); wrtui
    // always asks again. The wires are compared with a repeated preflight counted once.
    expectAgreement(browserVersion(FIREFOX), 'what the origins received', oncePerPreflight(ourWire), oncePerPreflight(oracleWire));

    // Spelled out, so that a Firefox that changed is seen as such.
    const refused = ['TypeError', 'NetworkError when attempting to fetch resource.'];
    expect(oracle).toMatchObject({
      permitted: { type: 'basic', body: 'secret' },
      none: refused,
      star: { type: 'cors', headers: ['cache-control', 'content-type'] },
      starWithCredentials: refused,
      // A cookie without SameSite goes across sites in Firefox (its laxByDefault is off).
      echoAgain: { body: 'echo f10=1' },
      preflightRefused: refused,
      noCors: { type: 'opaque', status: 0 },
      noCorsPut: ['TypeError', 'Window.fetch: Invalid request method PUT.'],
      sameOrigin: refused,
      redirected: refused,
    });
    // A preflight's answer is not reliably reused, even with Access-Control-Max-Age.
    expect(oracleWire.filter((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok-aged ')).length).toBeGreaterThanOrEqual(1);
    expect(ourWire.filter((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok-aged '))).toHaveLength(2);
    // Redirected across origins, the request is preflighted there: the preflight still says the
    // add-on's origin, the request itself "null" (Chromium says "null" in both).
    expect(oracleWire.find((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok-redirected '))).toContain('origin: moz-extension://<uuid>');
    expect(oracleWire.find((request) => request.startsWith('foreign POST /cors/preflight-ok-redirected '))).toContain('origin: null');
    // Across sites with credentials it says there is no storage access.
    expect(oracleWire.find((request) => request.startsWith('foreign GET /cors/echo '))).toContain('origin: moz-extension://<uuid> | sec-fetch-storage-access: none');
  });
});
