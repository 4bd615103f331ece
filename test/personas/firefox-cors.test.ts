// An add-on's fetch to an origin it has no host permission for, against Firefox ESR 153.7: the same
// add-on (fixtures/extensions/firefox-cors-probe) fetches in Firefox (the oracle) and in wrtui's
// firefox persona with its proxy running, from an origin it may reach (127.0.0.1, host permission)
// and one it may not (127.0.0.2). The outcomes and what each origin received must agree.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProbe, NO_FIREFOX, ProbeReports, reportInWrtuiAsFirefox, requireFirefox, whileInFirefox, type ProbeReport } from '../helpers/firefox.js';
import { startOrigin, type Origin } from '../helpers/origin.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/firefox-cors-probe', import.meta.url));

let permitted: Origin;
let foreign: Origin;
let work: string;
let extension: string;
const reports = new ProbeReports();

beforeAll(async () => {
  if (NO_FIREFOX) return;
  requireFirefox();
  permitted = await startOrigin((req, res, body) => {
    if (req.url === '/report') {
      reports.deliver(JSON.parse(body.toString('utf8')) as ProbeReport);
      return res.end();
    }
    if (req.url === '/cors/to-foreign') return res.writeHead(302, { Location: `${foreign.url}/cors/none-redirected` }).end();
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Custom': '1' }).end('secret');
  });
  foreign = await startOrigin(
    (req, res) => {
      const url = req.url ?? '';
      if (req.method === 'OPTIONS') {
        if (url.startsWith('/cors/preflight-ok')) {
          return res.writeHead(204, { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'POST, PUT', 'Access-Control-Allow-Headers': 'content-type, x-probe', ...(url.endsWith('aged') && { 'Access-Control-Max-Age': '60' }) }).end();
        }
        return res.writeHead(204).end();
      }
      if (url === '/cors/star-exposed') return res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': '*', 'X-Custom': '1', 'Set-Cookie': 'hidden=1' }).end('star');
      if (url.startsWith('/cors/star')) return res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'X-Custom': '1', 'Cache-Control': 'no-store' }).end('star');
      if (url === '/cors/exposed') return res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'X-Custom', 'X-Custom': '1', 'X-Other': '2' }).end('exposed');
      if (url.startsWith('/cors/echo')) {
        return res
          .writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': req.headers.origin ?? 'null', 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin', 'Set-Cookie': `f${url.length}=1; Path=/` })
          .end(`echo ${req.headers.cookie ?? 'no cookie'}`);
      }
      if (url.startsWith('/cors/preflight-ok')) return res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' }).end('done');
      res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Custom': '1' }).end('secret');
    },
    { address: '127.0.0.2' },
  );
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-cors-'));
  extension = await copyProbe(PROBE, path.join(work, 'extension'), (manifest) => ({ ...manifest, homepage_url: `${foreign.url}/?permitted=${permitted.url}` }));
}, 30_000);

afterAll(async () => {
  await permitted?.close();
  await foreign?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** What both origins received since `since` (the report left out), as method, path and header lines in order, with what differs by run named. */
function receivedSince(since: [number, number]): string[] {
  const lines: string[] = [];
  for (const [name, origin, start] of [['permitted', permitted, since[0]], ['foreign', foreign, since[1]]] as const) {
    for (const request of origin.received.slice(start)) {
      if (request.url === '/report') continue;
      const headers: string[] = [];
      let cookie = 'no cookie';
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        // The jar's Cookie: which, not where (wrtui adds it last, Firefox after Connection; README).
        if (request.rawHeaders[i]!.toLowerCase() === 'cookie') cookie = `cookie ${request.rawHeaders[i + 1]}`;
        else headers.push(`${request.rawHeaders[i]!.toLowerCase()}: ${request.rawHeaders[i + 1]}`);
      }
      lines.push(`${name} ${request.method} ${request.url} (${cookie}) | ${headers.join(' | ')}`);
    }
  }
  return lines.map((line) =>
    line
      .replaceAll(String(permitted.port), 'PERMITTED_PORT')
      .replaceAll(String(foreign.port), 'FOREIGN_PORT')
      .replace(/moz-extension:\/\/[0-9a-f-]{36}/g, 'moz-extension://<uuid>')
      .replaceAll('gzip, deflate, br, zstd', 'gzip, deflate, br'),
  );
}

const marks = (): [number, number] => [permitted.received.length, foreign.received.length];

describe.skipIf(NO_FIREFOX)("an add-on's fetch across origins: Firefox ESR 153.7 and wrtui's firefox persona", () => {
  it('answer alike: CORS applies where it has no host permission, not where it has', { timeout: 90_000 }, async () => {
    const before = marks();
    const oracle = await whileInFirefox(extension, work, reports.next());
    const oracleWire = receivedSince(before);
    const middle = marks();
    const { report: ours } = await reportInWrtuiAsFirefox(extension, reports);
    const ourWire = receivedSince(middle);
    expect(ours).toEqual(oracle);
    expect(ourWire).toEqual(oracleWire);

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
    // Firefox preflights an add-on's every such request, even with Access-Control-Max-Age.
    expect(oracleWire.filter((request) => request.startsWith('foreign OPTIONS /cors/preflight-ok-aged '))).toHaveLength(2);
    // Across sites with credentials it says there is no storage access.
    expect(oracleWire.find((request) => request.startsWith('foreign GET /cors/echo '))).toContain('origin: moz-extension://<uuid> | sec-fetch-storage-access: none');
  });
});
