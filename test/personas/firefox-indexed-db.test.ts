// IndexedDB against Firefox ESR 153.8: one add-on (fixtures/extensions/indexeddb-probe) reports
// what IndexedDB answers in its background page (globals, an upgrade and the order of its events,
// records and their keys, indexes, cursors, key ranges, errors by name, a version change another
// connection hears, values as they come back, deletion), run as a temporary add-on in Firefox (the
// oracle) and in wrtui's firefox persona; both post their report to the test's origin, and the
// reports must be the same. Errors are compared by name: their messages are each engine's words.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyProbe, NO_FIREFOX, ProbeReports, reportInWrtuiAsFirefox, requireFirefox, whileInFirefox, type ProbeReport } from '../helpers/firefox.js';
import { startOrigin, type Origin } from '../helpers/origin.js';

const PROBE = fileURLToPath(new URL('../../fixtures/extensions/indexeddb-probe', import.meta.url));

let origin: Origin;
let work: string;
let extension: string;
const reports = new ProbeReports();

beforeAll(async () => {
  if (NO_FIREFOX) return;
  requireFirefox();
  origin = await startOrigin((req, res, body) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.url === '/report') reports.deliver(JSON.parse(body.toString('utf8')) as ProbeReport);
    res.end('ok');
  });
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-firefox-idb-'));
  extension = await copyProbe(PROBE, path.join(work, 'extension'), (manifest) => ({ ...manifest, homepage_url: `${origin.url}/report` }));
}, 30_000);

afterAll(async () => {
  await origin?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(NO_FIREFOX)("IndexedDB: Firefox ESR 153.8 and wrtui's firefox persona", () => {
  it('answer alike: an upgrade and its events, records, indexes, cursors, key ranges, errors, a version change, deletion', { timeout: 90_000 }, async () => {
    const oracle = await whileInFirefox(extension, work, reports.next());
    expect(oracle).not.toHaveProperty('failed');

    const { report: ours } = await reportInWrtuiAsFirefox(extension, reports);
    expect(ours).toEqual(oracle);
    // What the comparison holds, spelled out (so that a Firefox that changed is seen as such).
    expect(oracle).toMatchObject({
      order: [
        'upgradeneeded 0->1 true true versionchange', 'upgrade complete', 'success 1 pairs,people', 'add 1', 'add 2', 'add 3', 'add 4', 'transaction complete',
        'duplicate ConstraintError', 'failing abort ConstraintError', 'prevented ConstraintError', 'kept complete', 'editing complete',
        'versionchange (first) 1->2', 'versionchange 1->2', 'upgradeneeded 1->2',
      ],
      cmp: [-1, 0, 1, 1, 'DataError'],
      clone: 'DataCloneError',
      values: { when: [true, 86400000], seen: [true, [['a', 1]]], set: [true, [1, 2]], bytes: [true, [7, 8]], nested: [3, false, true, true], realm: [true, true] },
      keyOrder: ['number 1', 'number 2', 'number 3', 'date 5', 'string values', 'array [1,"a"]'],
      cursors: [['1:ann', '2:bob', '3:cy', '4:ann'], [4, 3, 2, 1], ['x>1', 'y>1', 'z>4'], ['y>2 false', 'y>1 false', 'x>1 false'], [1, 3]],
      inactive: 'TransactionInactiveError',
      v2: [2, ['people'], ['by-name', 'by-name-unique'], 'id', true, true],
      unique: 'ConstraintError',
      nextKey: 5,
      lower: 'VersionError',
      databases: ['probe@2'],
      deleted: [2, null, null],
      afterDelete: 0,
    });
  });
});
