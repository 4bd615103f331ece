// What a browser wrtui started told it about its own requests (`wrtui browser`, attached over the
// DevTools protocol), waiting for the proxied request it describes. A browser reports a request
// (its type, frame, tab, document, initiator) just before it sends it; the proxy claims the report
// by method and URL, oldest first, when the request arrives. Nothing is added to the request on
// the wire: the match is by what the request already is.
//
// Reports nobody claims (answered from the browser's cache, a redirect hop the proxy follows as the
// same request, a request that never left) are forgotten after MAX_AGE_MS, and never more than
// MAX_WAITING are kept. A request that arrives before its report waits for it at most the bound
// the caller gives; then it goes on with what wrtui infers from its headers.
import type { ResourceType } from '../types.js';

/** One request as the browser describes it, in webRequest's terms. */
export interface ToldRequest {
  method: string;
  url: string;
  /** Undefined where the browser's kind says less than the headers (wrtui infers the type then). */
  type?: ResourceType;
  tabId: number;
  frameId: number;
  parentFrameId: number;
  frameType?: 'outermost_frame' | 'sub_frame';
  documentLifecycle?: 'active';
  /** The document it is loaded for (subresources), as Chrome's documentId. */
  documentId?: string;
  parentDocumentId?: string;
  /** The origin of what caused it (absent for a navigation the user started). */
  initiator?: string;
  /** The URL of the document it loads into (Firefox's documentUrl). */
  documentUrl?: string;
  /** Firefox's originUrl: the URL of what caused it, where the browser says more than the Referer. */
  originUrl?: string;
  /** Firefox's frameAncestors: the frame's ancestors, parent first. */
  frameAncestors?: { url: string; frameId: number }[];
  /** Firefox's thirdParty: against every document of the frame's ancestry, not the initiator alone. */
  thirdParty?: boolean;
}

const MAX_AGE_MS = 30_000;
const MAX_WAITING = 2_000;

interface Waiting {
  told: ToldRequest;
  at: number;
}

interface Claimant {
  resolve: (told: ToldRequest | undefined) => void;
  timer: NodeJS.Timeout;
  since: number;
}

/** Counts for the status line and the benchmark. */
export interface ToldStats {
  /** Requests matched with a report already there. */
  matched: number;
  /** Requests matched with a report that came while they waited. */
  matchedAfterWait: number;
  /** Requests no report matched (inferred). */
  unmatched: number;
  /** Reports dropped unclaimed (aged out or over the bound). */
  dropped: number;
  /** The longest a matched request waited for its report, in ms. */
  longestWaitMs: number;
}

export class BrowserToldRequests {
  readonly #byKey = new Map<string, Waiting[]>();
  readonly #claimants = new Map<string, Claimant[]>();
  #size = 0;
  readonly #now: () => number;
  readonly stats: ToldStats = { matched: 0, matchedAfterWait: 0, unmatched: 0, dropped: 0, longestWaitMs: 0 };

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The browser reported a request it is about to send. */
  told(told: ToldRequest): void {
    const key = keyOf(told.method, told.url);
    const claimant = this.#claimants.get(key)?.shift();
    if (claimant) {
      clearTimeout(claimant.timer);
      this.stats.matchedAfterWait++;
      this.stats.longestWaitMs = Math.max(this.stats.longestWaitMs, this.#now() - claimant.since);
      claimant.resolve(told);
      return;
    }
    const list = this.#byKey.get(key);
    const waiting = { told, at: this.#now() };
    if (list) list.push(waiting);
    else this.#byKey.set(key, [waiting]);
    if (++this.#size > MAX_WAITING) this.#prune(true);
  }

  /**
   * The report of the request `method url` the proxy received, oldest first; when none is there
   * yet, waits up to `waitMs` for it (0: not at all). Undefined: wrtui infers.
   */
  claim(method: string, url: string, waitMs: number): ToldRequest | undefined | Promise<ToldRequest | undefined> {
    const key = keyOf(method, url);
    const found = this.#take(key);
    if (found) {
      this.stats.matched++;
      return found;
    }
    if (waitMs <= 0) {
      this.stats.unmatched++;
      return undefined;
    }
    return new Promise((resolve) => {
      const claimant: Claimant = {
        resolve,
        since: this.#now(),
        timer: setTimeout(() => {
          const list = this.#claimants.get(key);
          const index = list?.indexOf(claimant) ?? -1;
          if (index >= 0) list!.splice(index, 1);
          if (list?.length === 0) this.#claimants.delete(key);
          this.stats.unmatched++;
          resolve(undefined);
        }, waitMs),
      };
      const list = this.#claimants.get(key);
      if (list) list.push(claimant);
      else this.#claimants.set(key, [claimant]);
    });
  }

  /** Reports waiting to be claimed. */
  get size(): number {
    return this.#size;
  }

  #take(key: string): ToldRequest | undefined {
    const list = this.#byKey.get(key);
    if (!list) return undefined;
    const cutoff = this.#now() - MAX_AGE_MS;
    while (list.length > 0) {
      const next = list.shift()!;
      this.#size--;
      if (next.at >= cutoff) {
        if (list.length === 0) this.#byKey.delete(key);
        return next.told;
      }
      this.stats.dropped++;
    }
    this.#byKey.delete(key);
    return undefined;
  }

  /** Forgets reports past their age; `overBound`: also the oldest ones until half the bound is left. */
  #prune(overBound: boolean): void {
    const cutoff = this.#now() - MAX_AGE_MS;
    const all: { key: string; waiting: Waiting }[] = [];
    for (const [key, list] of this.#byKey) for (const waiting of list) all.push({ key, waiting });
    all.sort((a, b) => a.waiting.at - b.waiting.at);
    const excess = overBound ? Math.max(0, all.length - MAX_WAITING / 2) : 0;
    const drop = new Set(all.filter((item, index) => index < excess || item.waiting.at < cutoff).map((item) => item.waiting));
    if (drop.size === 0) return;
    for (const [key, list] of this.#byKey) {
      const kept = list.filter((waiting) => !drop.has(waiting));
      if (kept.length === 0) this.#byKey.delete(key);
      else this.#byKey.set(key, kept);
    }
    this.#size -= drop.size;
    this.stats.dropped += drop.size;
  }
}

function keyOf(method: string, url: string): string {
  return `${method.toUpperCase()} ${stripFragment(url)}`;
}

function stripFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}
