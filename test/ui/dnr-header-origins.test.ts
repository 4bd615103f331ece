// The Request tab names who changed each request header. A declarativeNetRequest rule acts after
// the listeners saw the headers; before, a header it set was labelled "+" with no owner and one it
// removed "by" nobody. Real proxy, real DNR engine, curl.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineText } from '../../src/ui/detail/styled-line.js';
import { requestLines } from '../../src/ui/detail/request-lines.js';
import { startStoreRig, type StoreRig } from '../helpers/store-rig.js';

let rig: StoreRig;
beforeAll(async () => {
  rig = await startStoreRig((_req, res) => res.end('origin'));
  await rig.h.engine.dnr.addExtension({
    extensionId: 'abcdefghijklmnopabcdefghijklmnop',
    name: 'Header Tool',
    baseUrl: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/',
    rulesets: [
      {
        id: 'main',
        path: 'rules.json',
        enabled: true,
        rules: [
          {
            id: 3,
            action: { type: 'modifyHeaders', requestHeaders: [{ header: 'x-dnr', operation: 'set', value: 'yes' }, { header: 'user-agent', operation: 'remove' }] },
            condition: { urlFilter: '/dnr-headers', resourceTypes: ['other'] },
          },
        ],
      },
    ],
  });
});
afterAll(() => rig.close());

describe("the Request tab's header origins", () => {
  it("a header a declarativeNetRequest rule set or removed names its extension, as a listener's change names the rule", async () => {
    const text = requestLines(await rig.record('/dnr-headers', ['-s', '-o', '/dev/null', '-A', 'probe-agent'])).map(lineText);
    expect(text.find((row) => row.includes('x-dnr: yes'))).toMatch(/^\+ DNR Header T… x-dnr: yes$/);
    expect(text.find((row) => row.includes('probe-agent'))).toMatch(/^- removed\s+User-Agent: probe-agent {2}by DNR Header Tool$/);
  });
});
