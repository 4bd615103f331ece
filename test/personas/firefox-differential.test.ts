// The firefox persona against the browser it claims to be. One unpacked MV2 extension
// (fixtures/extensions/firefox-probe) records what every event shows a listener; it runs inside a
// real Firefox ESR (the oracle: web-ext installs it as a temporary add-on, the page loaded
// directly) and inside wrtui under the firefox persona (Firefox without the add-on, browsing the
// same page through wrtui's proxy). Both post their records to the page's origin. Event by event,
// request by request, the two must agree on what a proxy can know: types, methods, frames and
// their ancestors, originUrl/documentUrl, thirdParty, cookieStoreId, statuses and which headers
// were shown, and a redirect the page does not follow (Firefox ends it with onCompleted and the
// 3xx), and a body its StreamFilter rewrites (filterResponseData on a gzip response: the page
// reports the text it got). One difference is known and documented in docs/personas.md (firefox persona): a cross-origin
// request's originUrl (a proxy sees only the Referer's origin).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { createTrustedOwner } from '../../src/engine/owner.js';
import { startOrigin, type Origin } from '../helpers/origin.js';
import { answerProbe, probePage } from '../helpers/probe-site.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';
import { endProcessGroup, FIREFOX, firefoxProfile, WEB_EXT } from '../helpers/firefox.js';
import { startProxyHarness } from '../helpers/proxy-harness.js';

const SKIP = !(existsSync(FIREFOX) && existsSync(WEB_EXT)) && !process.env.CI;
const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/firefox-probe', import.meta.url));

interface ProbeRecord {
  event: string;
  path: string;
  thirdParty?: boolean;
  [field: string]: unknown;
}

let origin: Origin;
let work: string;
let records: ProbeRecord[] = [];
let done: () => void = () => {};

// The start page: a temporary add-on is installed only after the first page starts loading, so it
// asks for /probe/ping until the probe has reported one, then navigates to the page (FACTS.md).
// Both runs start here, so that both navigate to the page the same way.
const START = `<!doctype html><script>(async () => { for (;;) {
  await fetch('/probe/ping?' + Date.now()).catch(() => {});
  if ((await (await fetch('/__seen')).text()) === 'yes') { location.href = '/probe/page'; return; }
  await new Promise((r) => setTimeout(r, 300));
} })();</script>`;

// The page's last steps: fetch the body the add-on's StreamFilter rewrites and report the text it
// got, then say it is done once its last request had time to finish.
const FINISH = `await fetch('/probe/cancel').catch(() => {});
  await fetch('/probe/br-redirect').then((r) => r.text()).catch(() => {});
  await fetch('/probe/hr-redirect').then((r) => r.text()).catch(() => {});
  const filtered = await (await fetch('/probe/filtered')).text();
  await fetch('/__probe', { method: 'POST', body: JSON.stringify({ event: 'page', path: '/probe/filtered', body: filtered }) });
  await fetch('/probe/auth').then((r) => r.text()).catch(() => {});
  await new Promise((r) => setTimeout(r, 500)); await fetch('/__done');`;

beforeAll(async () => {
  if (SKIP) return;
  if (!existsSync(FIREFOX)) throw new Error(`${FIREFOX} is missing and CI is set (.ci/run installs firefox-esr)`);
  origin = await startOrigin((req, res, body) => {
    const url = req.url ?? '';
    if (url === '/__probe') {
      records.push(JSON.parse(body.toString('utf8')) as ProbeRecord);
      return res.end('ok');
    }
    if (url === '/__seen') return res.end(records.some((record) => record.path === '/probe/ping') ? 'yes' : 'no');
    if (url === '/__done') {
      // The last events (the beacon's onCompleted) may still be on their way: done once none came for 2 s.
      let seen = -1;
      const settle = () => (records.length === seen ? done() : ((seen = records.length), setTimeout(settle, 2_000)));
      settle();
      return res.end('ok');
    }
    if (url === '/start') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(START);
    if (url === '/probe/br-landed' || url === '/probe/hr-landed' || url === '/probe/hr-redirect' || url === '/probe/cancel') return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('landed');
    if (url === '/probe/auth') {
      if (req.headers.authorization === `Basic ${Buffer.from('probe:secret').toString('base64')}`) return res.writeHead(200, { 'Content-Type': 'text/plain' }).end('welcome');
      return res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="probe"', 'Content-Type': 'text/plain' }).end('who are you?');
    }
    if (url === '/probe/filtered') return res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip' }).end(gzipSync('filtered by the add-on'));
    // The page ends by asking for /__done, once its last request had time to finish.
    if (answerProbe(req, res, probePage(origin.port, FINISH))) return;
    res.end('ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-differential-'));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** Runs `browser` until the page asked for /__done; resolves with the records of the page's requests. */
async function collect(browser: () => ChildProcess): Promise<ProbeRecord[]> {
  records = [];
  const finished = new Promise<void>((resolve) => (done = resolve));
  const child = browser();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await finished;
  } finally {
    await endProcessGroup(child, exited);
  }
  return records.filter((record) => record.path !== '/probe/ping');
}

async function profile(name: string, prefs: Record<string, unknown>): Promise<string> {
  return firefoxProfile(path.join(work, name), prefs);
}

/**
 * One line per event and request, in a stable order. What a proxy cannot know is left out: a
 * cross-origin request's originUrl and documentUrl (the Referer carries only the origin).
 */
function normalize(list: ProbeRecord[]): string[] {
  return list
    .map((record) => JSON.stringify(record.thirdParty ? { ...record, originPath: 'cross-origin', documentPath: 'cross-origin' } : record, Object.keys(record).sort()))
    .sort();
}

describe.skipIf(SKIP)('the firefox persona agrees with Firefox ESR, event by event', () => {
  let oracle: ProbeRecord[];

  it('in Firefox (the oracle)', { timeout: 90_000 }, async () => {
    const dir = await profile('oracle', {});
    oracle = await collect(() =>
      spawn(WEB_EXT, ['run', '--source-dir', EXTENSION, '--firefox', FIREFOX, '--arg=--headless', '--no-input', '--no-reload', '--firefox-profile', dir, '--keep-profile-changes', '--start-url', `${origin.url}/start`], {
        stdio: 'ignore',
        detached: true,
      }),
    );
    const lines = normalize(oracle);
    // The oracle shows what the persona must: a beacon is a beacon, a sub-frame has its ancestors, the preflight is shown.
    expect(lines.some((line) => line.includes('"path":"/probe/beacon"') && line.includes('"type":"beacon"'))).toBe(true);
    expect(lines.some((line) => line.includes('"path":"/probe/inframe.png"') && line.includes('"frameAncestors":["/probe/page"]'))).toBe(true);
    expect(lines.some((line) => line.includes('"method":"OPTIONS"') && line.includes('"path":"/probe/cors"'))).toBe(true);
    // Firefox ends a redirect the page does not follow with onCompleted and the 3xx, no onBeforeRedirect.
    // (Records reach the collector in whatever order their fetches land: compared as a set.)
    // Its StreamFilter got the decoded gzip body, and the page got what the filter wrote.
    expect(oracle).toContainEqual({ event: 'page', path: '/probe/filtered', body: 'FILTERED BY THE ADD-ON' });
    expect(oracle.filter((record) => record.path === '/probe/manual').map((record) => record.event).sort()).toEqual(['onBeforeRequest', 'onBeforeSendHeaders', 'onCompleted', 'onHeadersReceived', 'onSendHeaders'].sort());
  });

  it('in wrtui under the firefox persona, with Firefox browsing through the proxy: the same records', { timeout: 90_000 }, async () => {
    const harness = await startProxyHarness({ proxy: { followUpTimeoutMs: 2_000 } });
    // Nothing but the test's own origin goes anywhere.
    harness.engine.extensionApi(createTrustedOwner('hermetic')).chrome.webRequest!.onBeforeRequest.addListener(
      (details) => (['127.0.0.1', 'localhost'].includes(new URL(details.url).hostname) ? undefined : { cancel: true }),
      { urls: ['<all_urls>'] },
      ['blocking'],
    );
    const host = await ExtensionHost.start(harness.engine, { extensions: [EXTENSION], watch: false, typeCheck: false, persona: 'firefox' });
    try {
      expect(host.rules()[0]).toMatchObject({ persona: 'firefox', state: 'active' });
      const dir = await profile('through-wrtui', {
        'network.proxy.type': 1,
        'network.proxy.http': '127.0.0.1',
        'network.proxy.http_port': harness.proxy.port,
        'network.proxy.allow_hijacking_localhost': true,
        'network.proxy.no_proxies_on': '',
      });
      const seen = await collect(() => spawn(FIREFOX, ['-headless', '-no-remote', '-profile', dir, `${origin.url}/start`], { stdio: 'ignore', detached: true }));
      expectAgreement(browserVersion(FIREFOX), 'the probe\'s records', normalize(seen), normalize(oracle));
    } finally {
      await host.close();
      await harness.close();
    }
  });
});
