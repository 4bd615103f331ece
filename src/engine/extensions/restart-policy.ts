// When a faulted worker is started again. An MV3 service worker that dies is simply started again
// by the browser; wrtui does the same, with a growing delay so that an extension that faults at
// once after each start does not spin, and after `maxFaults` faults within `windowMs` it gives up:
// the extension is marked crashed and stays down until its files change (a fix).

export interface RestartPolicyOptions {
  /** Delay before the 1st, 2nd, … restart within the window; the last one repeats. */
  backoffMs: readonly number[];
  /** Faults within the window after which wrtui gives up. */
  maxFaults: number;
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = {
  backoffMs: [100, 1000, 5000],
  maxFaults: 4,
  windowMs: 5 * 60_000,
};

export type RestartDecision = { action: 'restart'; delayMs: number } | { action: 'give-up'; faults: number };

export class RestartPolicy {
  readonly #options: RestartPolicyOptions;
  readonly #now: () => number;
  #faults: number[] = [];

  constructor(options: RestartPolicyOptions = DEFAULT_RESTART_POLICY, now: () => number = Date.now) {
    this.#options = options;
    this.#now = now;
  }

  /** A fault happened now: restart after a delay, or give up. */
  fault(): RestartDecision {
    const now = this.#now();
    this.#faults = [...this.#faults.filter((at) => now - at < this.#options.windowMs), now];
    if (this.#faults.length >= this.#options.maxFaults) return { action: 'give-up', faults: this.#faults.length };
    const { backoffMs } = this.#options;
    return { action: 'restart', delayMs: backoffMs[Math.min(this.#faults.length - 1, backoffMs.length - 1)] ?? 0 };
  }

  /** The files changed: whatever failed before, the new version starts with a clean slate. */
  reset(): void {
    this.#faults = [];
  }

  /** Faults within the window. */
  get recentFaults(): number {
    const now = this.#now();
    return this.#faults.filter((at) => now - at < this.#options.windowMs).length;
  }
}
