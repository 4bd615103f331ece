// Through a proxy the client follows redirects itself: its next request is a new mockttp request
// but, for webRequest, the next hop of the same request (same requestId). FollowUps remembers each
// redirect until the client's follow-up claims it, or ends the request when none comes: after
// `ttlMs`, or soon after the connection that got the redirect closes (curl without -L hangs up
// at once; a client that follows on another connection has `closeGraceMs` to do so).
import type { EventEmitter } from 'node:events';
import type { RequestFlight } from '../web-request/lifecycle.js';

interface Expected {
  flight: RequestFlight;
  /** The client connection (address:port) that received the redirect. */
  client: string | undefined;
  timer: NodeJS.Timeout;
  /** Stops listening for the connection's close (a keep-alive connection carries many redirects). */
  unwatch?: () => void;
}

export class FollowUps {
  readonly #byUrl = new Map<string, Expected[]>();
  readonly #ttlMs: number;
  readonly #closeGraceMs: number;
  readonly #onUnclaimed: (flight: RequestFlight) => void;

  /** `onUnclaimed` is called for a redirect nobody followed. */
  constructor(options: { ttlMs?: number; closeGraceMs?: number; onUnclaimed: (flight: RequestFlight) => void }) {
    this.#ttlMs = options.ttlMs ?? 10_000;
    this.#closeGraceMs = Math.min(options.closeGraceMs ?? 1_000, this.#ttlMs);
    this.#onUnclaimed = options.onUnclaimed;
  }

  /**
   * The flight's next hop is expected at its (already updated) url, from `client` most likely;
   * `connection` is the client's socket that received the redirect.
   */
  expect(flight: RequestFlight, client?: string, connection?: EventEmitter & { destroyed?: boolean }): void {
    const key = normalize(flight.url);
    const list = this.#byUrl.get(key) ?? [];
    const entry: Expected = { flight, client, timer: this.#endAfter(key, flight, this.#ttlMs) };
    list.push(entry);
    this.#byUrl.set(key, list);
    if (!connection) return;
    const hungUp = () => {
      if (!this.#byUrl.get(key)?.includes(entry)) return;
      clearTimeout(entry.timer);
      entry.timer = this.#endAfter(key, flight, this.#closeGraceMs);
    };
    if (connection.destroyed) return hungUp();
    connection.once('close', hungUp);
    entry.unwatch = () => connection.off('close', hungUp);
  }

  #endAfter(key: string, flight: RequestFlight, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.#remove(key, flight);
      this.#onUnclaimed(flight);
    }, ms);
    timer.unref();
    return timer;
  }

  /**
   * The flight expecting this url and method, if any; it is no longer expected. Clients follow a
   * redirect on the same connection when they can, so that one is preferred; otherwise the most
   * recent redirect (an older one is more likely a client that never followed).
   */
  claim(url: string, method: string, client?: string): RequestFlight | undefined {
    const key = normalize(url);
    const candidates = (this.#byUrl.get(key) ?? []).filter((entry) => entry.flight.method === method.toUpperCase());
    const expected = candidates.find((entry) => client !== undefined && entry.client === client) ?? candidates.at(-1);
    if (!expected) return undefined;
    clearTimeout(expected.timer);
    this.#remove(key, expected.flight);
    return expected.flight;
  }

  /** Ends every pending redirect now (the proxy is stopping). */
  drain(): void {
    for (const list of this.#byUrl.values()) {
      for (const { flight, timer, unwatch } of list) {
        clearTimeout(timer);
        unwatch?.();
        this.#onUnclaimed(flight);
      }
    }
    this.#byUrl.clear();
  }

  get size(): number {
    let size = 0;
    for (const list of this.#byUrl.values()) size += list.length;
    return size;
  }

  #remove(key: string, flight: RequestFlight): void {
    const list = this.#byUrl.get(key);
    if (!list) return;
    const kept = list.filter((entry) => entry.flight !== flight);
    for (const entry of list) if (entry.flight === flight) entry.unwatch?.();
    if (kept.length > 0) this.#byUrl.set(key, kept);
    else this.#byUrl.delete(key);
  }
}

function normalize(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href;
  } catch {
    return url;
  }
}
