// Removes cookies when they expire even if nothing reads them, so onChanged reports `expired`
// (spec §3 "automatic expiry") at the right moment. One timer, armed for the earliest expiry the
// store knows about; never a fixed poll.
import { MAX_TIMER_DELAY_MS, type Clock } from './clock.js';

export class ExpirySweeper {
  readonly #clock: Clock;
  readonly #onDue: (now: number) => void;
  #cancel: (() => void) | undefined;
  #armedAt = Infinity;
  #stopped = false;

  /** `onDue(now)` must remove what has expired and call `scheduleAt` with the next expiry. */
  constructor(clock: Clock, onDue: (now: number) => void) {
    this.#clock = clock;
    this.#onDue = onDue;
  }

  /** When the timer will fire next (Infinity when idle). */
  get armedAt(): number {
    return this.#armedAt;
  }

  /** Makes sure the sweeper wakes up no later than `at` (epoch ms); later requests change nothing. */
  scheduleAt(at: number): void {
    if (this.#stopped || !(at < this.#armedAt) || !Number.isFinite(at)) return;
    this.#cancel?.();
    this.#armedAt = at;
    // A far expiry exceeds what setTimeout can wait; wake up early, find nothing due, re-arm.
    const delay = Math.min(Math.max(0, at - this.#clock.now()), MAX_TIMER_DELAY_MS);
    this.#cancel = this.#clock.schedule(() => this.#fire(), delay);
  }

  stop(): void {
    this.#stopped = true;
    this.#cancel?.();
    this.#cancel = undefined;
    this.#armedAt = Infinity;
  }

  #fire(): void {
    this.#cancel = undefined;
    this.#armedAt = Infinity;
    if (!this.#stopped) this.#onDue(this.#clock.now());
  }
}
