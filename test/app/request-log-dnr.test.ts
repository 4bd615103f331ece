// `wrtui headless` names the declarativeNetRequest rule that acted on a request, as it names a
// listener's verdict: extension, action, ruleset and rule id.
import { describe, expect, it } from 'vitest';
import { createRequestLog } from '../../src/app/request-log.js';
import type { JournalEntry } from '../../src/engine/journal.js';

const details = (extra: object) => ({ requestId: '7', url: 'http://shop.test/ads/x.js', method: 'GET', type: 'script', frameId: -1, parentFrameId: -1, tabId: -1, timeStamp: 1000, ...extra });

describe('the plain headless line of a request a rule blocked', () => {
  it('ends with the extension, the action and the rule', () => {
    const lines: string[] = [];
    const log = createRequestLog((line) => lines.push(line));
    const entries = [
      { kind: 'webRequest', event: 'onBeforeRequest', details: details({}), outcomes: [] },
      { kind: 'dnr', requestId: '7', url: 'http://shop.test/ads/x.js', stage: 'onBeforeRequest', effect: 'block', matches: [{ extension: 'Ad Rules', extensionId: 'a', rulesetId: 'main', ruleId: 3, priority: 1, action: 'block', status: 'applied' }] },
      { kind: 'webRequest', event: 'onErrorOccurred', details: details({ error: 'net::ERR_BLOCKED_BY_CLIENT', timeStamp: 1002 }), outcomes: [] },
    ];
    entries.forEach((entry, index) => log({ ...entry, seq: index + 1, time: 1_764_000_000_000 } as unknown as JournalEntry));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/GET +net::ERR_BLOCKED_BY_CLIENT script +http:\/\/shop\.test\/ads\/x\.js  2 ms  \[Ad Rules applied block \(DNR main#3\)\]$/);
  });
});
