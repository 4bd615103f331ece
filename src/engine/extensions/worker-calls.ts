// The blocking events a worker has been sent and not answered yet, each with its deadline
// (--listener-timeout). One timer serves them all, due at the earliest deadline: a timer per call
// cost the proxy thread more than the call. A call past its deadline fails ("the request went on
// without it"); the worker is told nothing, and its late answer is dropped.
import type { RemoteResult } from '../web-request/listener-registry.js';
import type { WebRequestEventName } from '../types.js';

/** What a call was about, for a fault's "doing". */
export interface CallSubject {
  event: WebRequestEventName;
  url: string;
  /** performance.now() when it was sent. */
  since: number;
}

interface PendingCall extends CallSubject {
  resolve: (results: RemoteResult[] | { failed: string }) => void;
  /** performance.now() after which the call has timed out. */
  deadline: number;
  timeoutMs: number;
}

export class PendingCalls {
  readonly #pending = new Map<number, PendingCall>();
  readonly #onTimeout: () => void;
  #next = 1;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Infinity;
  /** The latest call that timed out, until the worker answers a ping again. */
  lastUnanswered: CallSubject | undefined;

  /** `onTimeout`: some calls just timed out. */
  constructor(onTimeout: () => void) {
    this.#onTimeout = onTimeout;
  }

  /** A new call's number (the worker answers by it) and the Promise of its results. */
  open(event: WebRequestEventName, url: string, timeoutMs: number): { call: number; answer: Promise<RemoteResult[] | { failed: string }> } {
    const call = this.#next++;
    const answer = new Promise<RemoteResult[] | { failed: string }>((resolve) => {
      const since = performance.now();
      const deadline = since + timeoutMs;
      this.#pending.set(call, { resolve, deadline, timeoutMs, event, url, since });
      if (deadline < this.#timerAt) this.#arm(deadline);
    });
    return { call, answer };
  }

  /** The worker answered `call` (nothing happens if it timed out already). */
  answered(call: number, results: RemoteResult[]): void {
    const pending = this.#pending.get(call);
    if (!pending) return;
    this.#pending.delete(call);
    pending.resolve(results);
  }

  /** Fails every call still waiting (the worker was stopped). */
  failAll(reason: string): void {
    clearTimeout(this.#timer);
    this.#timerAt = Infinity;
    for (const call of this.#pending.values()) call.resolve({ failed: reason });
    this.#pending.clear();
  }

  /** The oldest call not answered: still waiting, or the latest that timed out. */
  oldest(): CallSubject | undefined {
    let oldest = this.lastUnanswered;
    for (const call of this.#pending.values()) if (!oldest || call.since < oldest.since) oldest = call;
    return oldest;
  }

  #arm(at: number): void {
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#expire(), Math.max(0, at - performance.now()));
    this.#timer.unref();
  }

  /** Fails the calls past their deadline, then waits for the next deadline. */
  #expire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    let expired = false;
    for (const [call, pending] of this.#pending) {
      if (pending.deadline > now) {
        next = Math.min(next, pending.deadline);
        continue;
      }
      this.#pending.delete(call);
      this.lastUnanswered = { event: pending.event, url: pending.url, since: pending.since };
      pending.resolve({ failed: `listener did not answer within ${pending.timeoutMs} ms; the request went on without it` });
      expired = true;
    }
    if (next !== Infinity) this.#arm(next);
    if (expired) this.#onTimeout();
  }
}
