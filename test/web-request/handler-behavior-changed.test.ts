import { describe, expect, it } from 'vitest';
import { HandlerBehaviorChangedQuota } from '../../src/engine/web-request/handler-behavior-changed.js';
import { MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES } from '../../src/engine/types.js';
import { createHarness } from '../helpers/web-request-harness.js';

describe('MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES', () => {
  it('is 20, and each webRequest namespace exposes it', () => {
    expect(MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES).toBe(20);
    expect(createHarness().webRequest().MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES).toBe(20);
  });
});

describe('"20 calls per 10-minute sustained interval"', () => {
  it('accepts 20 calls in a window, refuses the 21st, and frees a slot when the oldest call is 10 minutes old', () => {
    let now = 1_000_000;
    const quota = new HandlerBehaviorChangedQuota({ now: () => now });
    for (let i = 0; i < 20; i++) {
      expect(quota.take('rule').accepted).toBe(true);
      now += 1000;
    }
    const refused = quota.take('rule');
    expect(refused.accepted).toBe(false);
    expect(refused.state).toEqual({ used: 20, limit: 20, refused: 1, nextSlotFreeAt: 1_000_000 + 600_000 });
    now = 1_000_000 + 600_000; // the first call leaves the window
    expect(quota.take('rule').accepted).toBe(true);
    expect(quota.take('rule').accepted).toBe(false);
  });

  it('the window slides: refused calls do not count against it', () => {
    let now = 0;
    const quota = new HandlerBehaviorChangedQuota({ now: () => now });
    for (let i = 0; i < 20; i++) quota.take('rule');
    for (let i = 0; i < 50; i++) quota.take('rule');
    expect(quota.state('rule').used).toBe(20);
    now = 600_001;
    expect(quota.state('rule')).toEqual({ used: 0, limit: 20, refused: 0, nextSlotFreeAt: null });
  });

  it('the quota is per owner', () => {
    const quota = new HandlerBehaviorChangedQuota();
    for (let i = 0; i < 20; i++) quota.take('a');
    expect(quota.take('a').accepted).toBe(false);
    expect(quota.take('b').accepted).toBe(true);
  });
});

describe('handlerBehaviorChanged(callback)', () => {
  it('flushes the engine\'s caches, journals the call, and calls back', async () => {
    const h = createHarness();
    let called = false;
    await h.webRequest().handlerBehaviorChanged(() => void (called = true));
    expect(called).toBe(true);
    expect(h.flushes).toBe(1);
    expect(h.entries.find((e) => e.kind === 'handlerBehaviorChanged')).toMatchObject({ owner: 'rule', accepted: true, used: 1, limit: 20 });
  });

  it('the 21st call inside the window does not flush, is recorded as refused, and its callback and Promise still resolve', async () => {
    const h = createHarness();
    const wr = h.webRequest();
    for (let i = 0; i < 20; i++) await wr.handlerBehaviorChanged();
    let called = false;
    await wr.handlerBehaviorChanged(() => void (called = true));
    expect(called).toBe(true);
    expect(h.flushes).toBe(20);
    const last = h.entries.filter((e) => e.kind === 'handlerBehaviorChanged').at(-1);
    expect(last).toMatchObject({ accepted: false, used: 20, limit: 20, refused: 1 });
    // Said once: the handlerBehaviorChanged entry, not again as a log line.
    expect(h.entries.at(-1)).toBe(last);
    await wr.handlerBehaviorChanged();
    expect(h.entries.at(-1)).toMatchObject({ accepted: false, refused: 2 });
  });

  it('the callback is called asynchronously, after handlerBehaviorChanged returns', () => {
    const h = createHarness();
    let called = false;
    void h.webRequest().handlerBehaviorChanged(() => void (called = true));
    expect(called).toBe(false);
  });
});
