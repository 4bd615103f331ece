// Events for an extension that is being started again after a fault wait for the version started
// in its place, as Chromium 156 holds a request for a service worker it stopped and starts again
// (docs/extensions-and-host.md, "Extension host"): the faulted worker's listeners stay registered, and what they are
// sent goes to its successor once that is live, to the successor's listeners of the same event,
// within the caller's timeout (--listener-timeout). What was waiting on the faulted worker itself
// when it faulted went on without it, as in Chromium.
import type { RemoteResult } from '../web-request/listener-registry.js';
import type { WebRequestEventName } from '../types.js';

/** The version started in a faulted one's place, as a restart wait forwards to it. */
export interface Successor {
  /** Sends an event meant for the predecessor's listeners `lids` to its own listeners of that event. */
  forward(event: WebRequestEventName, lids: number[], details: string, url: string, timeoutMs: number): Promise<RemoteResult[] | { failed: string }> | undefined;
}

export class RestartWait {
  readonly #successor: Promise<Successor | undefined>;

  /** `successor`: resolves with the version once it is live, or undefined if none will be (given up on, unloaded). */
  constructor(successor: Promise<Successor | undefined>) {
    this.#successor = successor;
  }

  send(event: WebRequestEventName, lids: number[], details: string, url: string, timeoutMs: number): Promise<RemoteResult[] | { failed: string }> | undefined {
    if (timeoutMs <= 0) {
      // Nobody waits: it is delivered once the successor runs.
      void this.#successor.then((successor) => successor?.forward(event, lids, details, url, 0));
      return undefined;
    }
    const deadline = performance.now() + timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const forwarded = this.#successor.then((successor): Promise<RemoteResult[] | { failed: string }> | RemoteResult[] | { failed: string } => {
      if (!successor) return { failed: 'its worker faulted and is not started again; the request went on without it' };
      return successor.forward(event, lids, details, url, Math.max(1, deadline - performance.now())) ?? [];
    });
    // Not unref'd: the faulted worker no longer keeps the process alive, and the restart's timer does not either.
    const timedOut = new Promise<{ failed: string }>((resolve) => {
      timer = setTimeout(() => resolve({ failed: `its worker is being started again after a fault and did not answer within ${timeoutMs} ms; the request went on without it` }), timeoutMs);
    });
    return Promise.race([forwarded, timedOut]).finally(() => clearTimeout(timer));
  }
}
