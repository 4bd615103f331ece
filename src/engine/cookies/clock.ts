// Time for the cookie stores: what "now" is and how to wait. Injected so tests can move time by
// hand (expiry, eviction order, persistence debounce) instead of sleeping.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /**
   * Runs `callback` once after `delayMs`; returns a function that cancels it. The timer must not
   * keep the process alive (wrtui exits when its proxy closes, pending expiries or not).
   */
  schedule(callback: () => void, delayMs: number): () => void;
}

/** setTimeout's delay is a signed 32-bit count of milliseconds (about 24.8 days); longer waits fire at once. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

function scheduleUnref(callback: () => void, delayMs: number): () => void {
  const timer = setTimeout(callback, Math.min(Math.max(0, delayMs), MAX_TIMER_DELAY_MS));
  timer.unref();
  return () => clearTimeout(timer);
}

export const systemClock: Clock = { now: Date.now, schedule: scheduleUnref };

/** A clock reading `now` but waiting with real (unref'd) timers. */
export function clockWithNow(now: () => number): Clock {
  return { now, schedule: scheduleUnref };
}
