// How the handlerBehaviorChanged quota reads, in the same words everywhere (status bar, Rules
// view, log, headless): calls left rather than calls used, and a countdown only where it matters.
import type { QuotaState } from './handler-behavior-changed.js';

/** "in 9m59s", "in 42s", "now". */
export function countdown(epochMs: number, now: number): string {
  const ms = epochMs - now;
  if (ms <= 0) return 'now';
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `in ${seconds}s`;
  return `in ${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** "19 of 20 calls left". */
export function callsLeft(quota: Pick<QuotaState, 'used' | 'limit'>): string {
  return `${Math.max(0, quota.limit - quota.used)} of ${quota.limit} calls left`;
}

/**
 * The whole state in one sentence: "19 of 20 calls left in this 10-minute window (the oldest
 * leaves it in 9m59s)", or when none is left "0 of 20 calls left: the next is accepted in
 * 3m12s", with the refusals of the window at the end.
 */
export function describeQuota(quota: QuotaState, now: number): string {
  const refused = quota.refused > 0 ? `; ${quota.refused} refused in the last 10 minutes` : '';
  if (quota.used >= quota.limit && quota.nextSlotFreeAt !== null) return `${callsLeft(quota)}: the next is accepted ${countdown(quota.nextSlotFreeAt, now)}${refused}`;
  const oldest = quota.nextSlotFreeAt !== null ? ` (the oldest leaves it ${countdown(quota.nextSlotFreeAt, now)})` : '';
  return `${callsLeft(quota)} in this 10-minute window${oldest}${refused}`;
}
