// A dedicated Worker of an extension page (fixtures/extensions/worker-probe): classic and module
// scripts, structured clones and transfer lists, its global scope, errors (thrown at top level, in
// a listener, a script that does not parse, one that is not there), terminate() and self.close().
// The probe runs in Chromium 156, where its page is opened in a tab (Chromium runs no MV2
// background page), and in wrtui as the background page under the chrome persona; the reports must
// be the same. Before, `Worker` was not defined and uBlock Origin's serializer failed at start-up.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, NO_CHROMIUM, pageReportInChromium, reportInWrtui } from '../helpers/chromium-probe.js';
import { browserVersion, expectAgreement } from '../helpers/differential.js';

const EXTENSION = fileURLToPath(new URL('../../fixtures/extensions/worker-probe', import.meta.url));

describe.skipIf(NO_CHROMIUM)("an extension page's dedicated Worker: Chromium 156 and wrtui's chrome persona", () => {
  it('answer alike: messages, transfers, its global scope, module workers, errors, terminate and close', { timeout: 120_000 }, async () => {
    const oracle = await pageReportInChromium(EXTENSION);
    const ours = await reportInWrtui(EXTENSION);
    expect(ours.failures).toEqual([]);
    expectAgreement(browserVersion(CHROMIUM), 'the worker probe', ours.report, oracle);
    // What the comparison holds, spelled out (so that a Chromium that changed is seen as such).
    expect(oracle.transferred).toBe(0);
    expect(oracle.thrower).toEqual([
      ['message', { seenInWorker: ['ErrorEvent', 'Uncaught Error: boom at top level', '/js/thrower.js', 5, 7, true] }],
      ['error', 'ErrorEvent', 'error', 'Uncaught Error: boom at top level', 'ext:/js/thrower.js', 5, 7, 'null'],
    ]);
    expect(oracle.afterTerminate).toBe(0);
  });
});
