// handlerBehaviorChanged (§4.6, §8): at most 20 accepted calls per owner in any sliding 10-minute
// window. A refused call does not flush, but its callback or Promise still resolves (Chrome just
// logs a warning); the refusal is journaled so the UI can show it.
import { MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES } from '../types.js';

export const QUOTA_WINDOW_MS = 10 * 60 * 1000;

export interface QuotaState {
  /** Accepted calls still inside the window. */
  used: number;
  limit: number;
  /** Refused calls in the same sliding window (a rule calling in a loop shows here). */
  refused: number;
  /** Epoch ms when the oldest accepted call leaves the window; null while nothing is in it. */
  nextSlotFreeAt: number | null;
}

export class HandlerBehaviorChangedQuota {
  readonly limit: number;
  readonly windowMs: number;
  readonly #now: () => number;
  readonly #acceptedAt = new Map<string, number[]>();
  readonly #refusedAt = new Map<string, number[]>();

  constructor(options: { now?: () => number; limit?: number; windowMs?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.limit = options.limit ?? MAX_HANDLER_BEHAVIOR_CHANGED_CALLS_PER_10_MINUTES;
    this.windowMs = options.windowMs ?? QUOTA_WINDOW_MS;
  }

  /** Records a call by `owner`; returns whether it was accepted, and the state after it. */
  take(owner: string): { accepted: boolean; state: QuotaState } {
    const now = this.#now();
    const calls = this.#live(this.#acceptedAt, owner, now);
    const refused = this.#live(this.#refusedAt, owner, now);
    const accepted = calls.length < this.limit;
    if (accepted) calls.push(now);
    else refused.push(now);
    return { accepted, state: this.#stateOf(calls, refused) };
  }

  state(owner: string): QuotaState {
    const now = this.#now();
    return this.#stateOf(this.#live(this.#acceptedAt, owner, now), this.#live(this.#refusedAt, owner, now));
  }

  /** Forget an owner entirely. Not called on reload: a reloaded rule keeps its quota, as in Chrome. */
  forget(owner: string): void {
    this.#acceptedAt.delete(owner);
    this.#refusedAt.delete(owner);
  }

  #live(byOwner: Map<string, number[]>, owner: string, now: number): number[] {
    let calls = byOwner.get(owner);
    if (!calls) byOwner.set(owner, (calls = []));
    const cutoff = now - this.windowMs;
    let expired = 0;
    while (expired < calls.length && calls[expired]! <= cutoff) expired++;
    if (expired > 0) calls.splice(0, expired);
    return calls;
  }

  #stateOf(calls: number[], refused: number[]): QuotaState {
    return {
      used: calls.length,
      limit: this.limit,
      refused: refused.length,
      nextSlotFreeAt: calls.length > 0 ? calls[0]! + this.windowMs : null,
    };
  }
}
