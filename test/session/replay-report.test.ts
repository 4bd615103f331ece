// The readable replay report: before → after on one line per changed thing, and a change shared
// by many requests said once ("13 requests: …"), never as pairs of lines that read the same.
import { describe, expect, it } from 'vitest';
import { formatDiffs } from '../../src/engine/session/replay-report.js';
import type { RequestDiff } from '../../src/engine/session/request-diff.js';

const applied = (headers: { name: string; value: string }[]) => ({
  owner: 'my-headers',
  event: 'onBeforeSendHeaders',
  status: 'applied',
  response: { requestHeaders: headers },
});

function headerChange(index: number): RequestDiff {
  return {
    index,
    method: 'GET',
    url: `http://a.test/${index}`,
    type: 'xmlhttprequest',
    recordedRequestId: String(index),
    replayedRequestId: String(index + 100),
    identical: false,
    changes: ['request-headers', 'outcomes'],
    requestHeaders: [{ hop: 0, url: `http://a.test/${index}`, added: [{ name: 'X-Served-Via', value: 'wrtui' }], removed: [] }],
    outcomes: {
      removed: [applied([{ name: 'Accept', value: '*/*' }])],
      added: [applied([{ name: 'Accept', value: '*/*' }, { name: 'X-Served-Via', value: 'wrtui' }])],
    } as RequestDiff['outcomes'],
  };
}

describe('the replay report', () => {
  it('"groups identical changes across requests (13 requests: my-headers now adds X-Served-Via)", with before → after on one line', () => {
    const diffs = Array.from({ length: 13 }, (_, index) => headerChange(index));
    diffs.push({ ...headerChange(13), changes: ['request-headers', 'outcomes', 'status'], status: { recorded: 200, replayed: 404 } });
    diffs.push({ index: 14, method: 'GET', url: 'http://a.test/same', type: 'other', recordedRequestId: '14', replayedRequestId: '114', identical: true, changes: [] });
    expect(formatDiffs(diffs)).toEqual([
      '14 requests: request header sent: X-Served-Via: (none) → wrtui',
      '    #0 GET http://a.test/0, #1 GET http://a.test/1, #2 GET http://a.test/2 and 11 more',
      '14 requests: my-headers onBeforeSendHeaders now answers request header X-Served-Via: (none) → wrtui',
      '    #0 GET http://a.test/0, #1 GET http://a.test/1, #2 GET http://a.test/2 and 11 more',
      '#13 GET xmlhttprequest http://a.test/13',
      '    status: 200 → 404',
    ]);
  });

  it('a change of one header value reads as one line, not a + and a - line', () => {
    const diff: RequestDiff = {
      ...headerChange(0),
      changes: ['response-headers'],
      responseHeaders: { added: [{ name: 'Cache-Control', value: 'no-store' }], removed: [{ name: 'cache-control', value: 'max-age=60' }] },
    };
    expect(formatDiffs([diff])).toEqual(['#0 GET xmlhttprequest http://a.test/0', '    response header: Cache-Control: max-age=60 → no-store']);
  });

  it('a listener that stopped answering, and one that now fails, say so against what they did', () => {
    const diff: RequestDiff = {
      ...headerChange(0),
      changes: ['outcomes'],
      outcomes: {
        removed: [applied([]), { owner: 'blocker', event: 'onBeforeRequest', status: 'applied', response: { cancel: true } }],
        added: [{ owner: 'blocker', event: 'onBeforeRequest', status: 'failed', reason: 'TypeError: x is undefined' }],
      } as RequestDiff['outcomes'],
    };
    expect(formatDiffs([diff]).slice(1)).toEqual([
      '    blocker onBeforeRequest: applied → failed (TypeError: x is undefined)',
      '    my-headers onBeforeSendHeaders: no longer applied',
    ]);
  });
});
