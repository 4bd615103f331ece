// chrome.privacy's settings as an extension finds them (Privacy Badger reads six at start-up and
// failed on wrtui's empty answer): one unpacked extension (fixtures/extensions/privacy-probe)
// reports what every setting's get() answers, and set/clear/onChange/incognito on one, inside
// Chromium 156 (the oracle) and inside wrtui under the chrome persona; the reports must be the same.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NO_CHROMIUM, reportInChromium, reportInWrtui } from '../helpers/chromium-probe.js';

const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/privacy-probe', import.meta.url));

describe.skipIf(NO_CHROMIUM)("chrome.privacy's settings: Chromium 156 and wrtui's chrome persona", () => {
  it("answer alike: Chromium's defaults, controllable_by_this_extension; set keeps the value and fires onChange; clear goes back; bad details throw; incognito is refused", { timeout: 90_000 }, async () => {
    const oracle = await reportInChromium(EXTENSION);
    const ours = await reportInWrtui(EXTENSION);
    expect(ours.failures).toEqual([]);
    expect(ours.report).toEqual(oracle);
    expect(oracle).toMatchObject({
      afterSet: { levelOfControl: 'controlled_by_this_extension', value: false },
      afterClear: { levelOfControl: 'controllable_by_this_extension', value: true },
      wrongType: 'threw TypeError: Invalid invocation',
      incognitoGet: 'rejected You do not have permission to access incognito preferences.',
    });
    // A set to the value it already has fires nothing.
    expect(oracle.changes).toHaveLength(2);
  });
});
