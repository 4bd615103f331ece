// The fast path's verdict check judges outcomes as the replay diff does: timing aside, a changed
// status, reason or answer is a difference.
import { describe, expect, it } from 'vitest';
import type { ListenerOutcome } from '../../src/engine/journal.js';
import { sameOutcomes } from '../../src/engine/replay/same-outcomes.js';

const applied: ListenerOutcome = { owner: 'gpc', event: 'onBeforeSendHeaders', status: 'applied', durationMs: 1.5, response: { requestHeaders: [{ name: 'Sec-GPC', value: '1' }] } };

describe('a verified event matches its prediction only when its outcomes are the recorded ones', () => {
  it('the same answer, another duration: the same', () => {
    expect(sameOutcomes([applied], [{ ...applied, durationMs: 40, response: { requestHeaders: [{ name: 'Sec-GPC', value: '1' }] } }])).toBe(true);
  });
  it('another header value, status, owner or a missing outcome: different', () => {
    expect(sameOutcomes([applied], [{ ...applied, response: { requestHeaders: [{ name: 'Sec-GPC', value: '0' }] } }])).toBe(false);
    expect(sameOutcomes([applied], [{ ...applied, status: 'dry-run', reason: 'would add Sec-GPC' }])).toBe(false);
    expect(sameOutcomes([applied], [{ ...applied, owner: 'other' }])).toBe(false);
    expect(sameOutcomes([applied], [])).toBe(false);
  });
});
