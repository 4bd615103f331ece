// Under `wrtui browser` the browser describes its own requests; one it did not (a request from
// another client through the same proxy, or one whose report never came) keeps wrtui's inference,
// and the list and the Timeline say so. Real proxy, real journal, real store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserToldRequests } from '../../src/engine/capture/browser-told.js';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { timelineLines } from '../../src/ui/detail/timeline-lines.js';
import { ruleMarks } from '../../src/ui/list/request-columns.js';
import { finished, requestIdOf } from '../helpers/proxy-harness.js';
import { startStoreRig, type StoreRig } from '../helpers/store-rig.js';

let rig: StoreRig;
beforeAll(async () => {
  rig = await startStoreRig((_req, res) => res.end('origin'));
  rig.h.proxy.browserTold = new BrowserToldRequests();
});
afterAll(async () => {
  rig.h.proxy.browserTold = undefined;
  await rig.close();
});

describe('a request an attached browser did not describe', () => {
  it('is marked "guess" in the list and "inferred" in the Timeline; one it described is not, and carries its tab and frame', async () => {
    const told = `${rig.origin.url}/told.png`;
    const guessed = `${rig.origin.url}/guessed`;
    rig.h.proxy.browserTold!.told({ method: 'GET', url: told, type: 'image', tabId: 7, frameId: 3, parentFrameId: 0, frameType: 'sub_frame', documentLifecycle: 'active' });
    await rig.h.fetch(told).then((response) => response.body.text());
    await rig.h.fetch(guessed).then((response) => response.body.text());
    await finished(rig.h, requestIdOf(rig.h, told));
    await finished(rig.h, requestIdOf(rig.h, guessed));
    rig.store.flush();
    const toldRecord = rig.store.all().find((record) => record.firstUrl === told)!;
    const guessedRecord = rig.store.all().find((record) => record.firstUrl === guessed)!;
    expect(ruleMarks(guessedRecord).map((mark) => mark.text)).toContain('guess');
    expect(timelineLines(guessedRecord, 120).map(lineText)).toContain('inferred: the attached browser did not report this request; its type, frame and tab are guessed from its headers');
    expect(ruleMarks(toldRecord).map((mark) => mark.text)).not.toContain('guess');
    expect(timelineLines(toldRecord, 120).map(lineText).some((text) => text.startsWith('inferred'))).toBe(false);
    const before = rig.h.webRequestEntries((entry) => entry.event === 'onBeforeRequest' && entry.details.url === told)[0]!;
    expect(before.details).toMatchObject({ type: 'image', tabId: 7, frameId: 3, parentFrameId: 0 });
  });
});
