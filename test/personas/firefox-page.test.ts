// A background page's window against Firefox ESR 153.7, which still runs MV2 background pages: one
// add-on (fixtures/extensions/page-probe) reports its document (read while the page loads, then at
// DOMContentLoaded and load), localStorage and XMLHttpRequest, run as a temporary add-on in Firefox
// (the oracle) and in wrtui's firefox persona; both post their report to the test's origin, and
// the reports must be the same. Left out, as docs/extensions-and-host.md says: a synchronous XMLHttpRequest (Firefox
// has one, wrtui refuses it) is not in the probe.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProbe, NO_FIREFOX, ProbeReports, reportInWrtuiAsFirefox, requireFirefox, whileInFirefox, type ProbeReport } from '../helpers/firefox.js';
import { startOrigin, type Origin } from '../helpers/origin.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/page-probe', import.meta.url));

let origin: Origin;
let work: string;
let extension: string;
const reports = new ProbeReports();

beforeAll(async () => {
  if (NO_FIREFOX) return;
  requireFirefox();
  origin = await startOrigin((req, res, body) => {
    if (req.url === '/slow') return; // never answers: the probe's timeout and abort end it
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.url === '/report') reports.deliver(JSON.parse(body.toString('utf8')) as ProbeReport);
    res.setHeader('Content-Type', 'text/plain');
    res.end(req.url === '/echo' ? `echo x-token=${req.headers['x-token'] ?? ''}` : 'ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-page-'));
  extension = await copyProbe(PROBE, path.join(work, 'extension'), (manifest) => ({ ...manifest, homepage_url: `${origin.url}/report` }));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(NO_FIREFOX)("a background page's window: Firefox ESR 153.7 and wrtui's firefox persona", () => {
  it('answer alike: the document while loading and after, anchors, DOMParser, localStorage, XMLHttpRequest states and events', { timeout: 90_000 }, async () => {
    const oracle = await whileInFirefox(extension, work, reports.next());
    expect(oracle).not.toHaveProperty('failed');

    const { report: ours } = await reportInWrtuiAsFirefox(extension, reports);
    expect(ours).toEqual(oracle);
    // What the comparison holds, spelled out (so that a Firefox that changed is seen as such).
    expect(oracle).toMatchObject({
      order: ['DOMContentLoaded interactive', 'load complete'],
      document: {
        readyState: 'loading',
        location: 'EXT/background.html',
        sameAsLocation: true,
        defaultView: true,
        scripts: ['first.js', 'background.js'],
        title: 'probe',
        firstRan: true,
        currentScript: ['EXT/first.js', 'EXT/background.js'],
        classes: [true, true],
      },
      currentScriptLater: null,
      idle: ['number', false],
      relativeAnchor: 'EXT/options.html?tab=2',
      localStorage: { count: ['3', 'string'], keys: ['count', 'theme'], kind: ['[object Storage]', true], afterRemoval: 0 },
      xhrOwn: [200, { list: [1, 2] }, 'EXT/data.json', ['state 1', 'loadstart', 'state 2', 'state 3', 'progress', 'state 4', 'load']],
      xhrTimeout: [0, ['state 1', 'loadstart', 'state 4', 'timeout']],
      xhrAbort: [0, ['state 1', 'loadstart', 'state 4', 'abort']],
    });
  });
});
