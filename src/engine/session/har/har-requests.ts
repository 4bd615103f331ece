// HAR entries cut into requests, with the timeline replay interleaves them by, as the entries are
// read. A HAR lists each redirect hop as its own entry: taken in start order, an entry whose URL is
// where an earlier 3xx entry sent the client continues that request as its next hop, and wrtui's
// own exports say outright which entries belong together (`_webRequest`).
//
// Read whole (window Infinity), every entry is in before the first is placed. Read as a stream, a
// HAR need not be held: entries are put in start order within a window (browsers write them in
// start order, or nearly), a request is handed out once no later entry can still join it and each
// of its steps has its timeline position, and only what is inside the window is held. A file
// whose entries are further out of order than the window still replays, each late entry as if it
// started with the entry before it, and says so.
import { getHeader } from '../../headers.js';
import type { HttpHeaders, NetError, ResourceType } from '../../types.js';
import { parseRequestBody } from '../../web-request/request-body.js';
import { MinHeap } from '../min-heap.js';
import type { RecordedExchange, RecordedHop, RecordedRequest, RecordedResponse } from '../recorded-session.js';
import { NO_TAB_ID } from '../../capture/resource-type.js';

/** One HAR entry as imported (har-import.ts). */
export interface HarEntry {
  index: number;
  started: number;
  /** Offsets from `started` (ms): when headers went out, when the response came, when it ended. */
  sentAfter: number;
  respondedAfter: number;
  endedAfter: number;
  method: string;
  url: string;
  clientHeaders: HttpHeaders;
  body?: Uint8Array;
  response?: RecordedResponse;
  /** A network failure replay reproduces (not a client-side block). */
  error?: NetError;
  failure?: string;
  /** Absolute URL a 3xx sent the client to. */
  redirectTo?: string;
  internalRedirect: boolean;
  type: ResourceType;
  tabId: number;
  frameId: number;
  parentFrameId: number;
  storeId: string;
  sentHeaders?: HttpHeaders;
  group?: { requestId: string; hop: number; attempt: number };
}

/** How far out of start order entries may be and still be put in order when a HAR is read as a stream. */
export const HAR_REORDER_WINDOW = 4096;

/** The entries of one request, while more may join it. */
interface Chain {
  /** The request's index: chains are made in start order. */
  index: number;
  entries: HarEntry[];
  /** wrtui's own group (`_webRequest.requestId`). */
  requestId?: string;
  /** The URL its last hop redirected to, while it waits for an entry there. */
  waitingFor?: string;
  /** The release count when an entry last joined. */
  lastJoined: number;
}

/** A request made, while some of its steps have no timeline position yet. */
interface Placing {
  request: RecordedRequest;
  unplaced: number;
  firstPosition: number | undefined;
}

interface TimelinePoint {
  time: number;
  /** Tie-break: the entry, then the phase within it. */
  order: number;
  of: Placing;
  assign: (position: number) => void;
}

export class HarRequestBuilder {
  /** The earliest start of any entry read so far (replay's clock starts here); undefined before any is placed. */
  startedAt: number | undefined;
  readonly #window: number;
  /** Read, not yet placed: the earliest comes out once the window is full. */
  readonly #unplaced = new MinHeap<HarEntry>((a, b) => a.started - b.started || a.index - b.index);
  /** The start of the entry placed last: later entries cannot start before it. */
  #placedUpTo = -Infinity;
  #placedCount = 0;
  #nextIndex = 0;
  /** Chains more entries may join, in the order they were made (so by index). */
  readonly #open = new Set<Chain>();
  /** The same chains, least recently joined first (a Set keeps insertion order: joining moves one to the end). */
  readonly #idle = new Set<Chain>();
  readonly #byRequestId = new Map<string, Chain>();
  /** Chains whose last hop redirected, by the URL the client was sent to (oldest first). */
  readonly #waiting = new Map<string, Chain[]>();
  readonly #points = new MinHeap<TimelinePoint>((a, b) => a.time - b.time || a.order - b.order);
  readonly #placing = new Set<Placing>();
  #nextPosition = 0;
  #times: number[] = [];
  #ready: RecordedRequest[] = [];
  #finished = false;
  #late = 0;
  #firstLate = -1;

  constructor(options: { window?: number } = {}) {
    this.#window = options.window ?? HAR_REORDER_WINDOW;
  }

  /** The next entry in the file's order. */
  add(entry: HarEntry): void {
    if (entry.started < this.#placedUpTo) {
      // Further out of order than the window: placed with the entry before it (its steps keep their spacing).
      if (this.#late++ === 0) this.#firstLate = entry.index;
      entry.started = this.#placedUpTo;
    }
    this.#unplaced.push(entry);
    if (this.#unplaced.size <= this.#window) return;
    this.#place(this.#unplaced.pop()!);
    this.#closeIdle();
    this.#assignPositions();
  }

  /** The file ended: every request can be made. */
  finish(): void {
    this.#finished = true;
    for (let entry = this.#unplaced.pop(); entry; entry = this.#unplaced.pop()) this.#place(entry);
    for (const chain of [...this.#open]) this.#close(chain);
    this.#assignPositions();
  }

  /** Requests whose steps are all placed since the last call, and the times of the positions placed. */
  take(): { times: number[]; requests: RecordedRequest[] } {
    const taken = { times: this.#times, requests: this.#ready };
    this.#times = [];
    this.#ready = [];
    return taken;
  }

  /** The lowest position a request not yet handed out may have a step at. */
  frontier(): number {
    let lowest = this.#nextPosition;
    for (const placing of this.#placing) if (placing.firstPosition !== undefined && placing.firstPosition < lowest) lowest = placing.firstPosition;
    return lowest;
  }

  /** The lowest index of a request not yet handed out. */
  lowestIndexToCome(): number {
    let lowest = this.#firstOpen()?.index ?? this.#nextIndex;
    for (const placing of this.#placing) lowest = Math.min(lowest, placing.request.index);
    return lowest;
  }

  /** The oldest chain more entries may join: chains are made in start order, so it has the lowest index and started earliest. */
  #firstOpen(): Chain | undefined {
    return this.#open.values().next().value;
  }

  /** What the reader should tell the user about the order it found. */
  warnings(): string[] {
    if (this.#late === 0) return [];
    return [`log.entries[${this.#firstLate}]: ${this.#late} entr${this.#late === 1 ? 'y starts' : 'ies start'} more than ${this.#window} entries out of start order; replayed as if started with the entry before`];
  }

  #place(entry: HarEntry): void {
    const placed = this.#placedCount++;
    this.#placedUpTo = entry.started;
    this.startedAt ??= entry.started;
    if (entry.group) {
      let chain = this.#byRequestId.get(entry.group.requestId);
      if (!chain) this.#byRequestId.set(entry.group.requestId, (chain = this.#openChain(entry.group.requestId)));
      this.#join(chain, entry, placed);
      return;
    }
    const candidates = this.#waiting.get(entry.url);
    const chain = candidates?.shift() ?? this.#openChain(undefined);
    if (candidates?.length === 0) this.#waiting.delete(entry.url);
    chain.waitingFor = entry.redirectTo;
    this.#join(chain, entry, placed);
    if (!entry.redirectTo) {
      // Nothing joins a chain but where a redirect sent the client: this request is whole.
      this.#close(chain);
      return;
    }
    const list = this.#waiting.get(entry.redirectTo) ?? [];
    list.push(chain);
    this.#waiting.set(entry.redirectTo, list);
  }

  #openChain(requestId: string | undefined): Chain {
    const chain: Chain = { index: this.#nextIndex++, entries: [], lastJoined: 0, ...(requestId !== undefined && { requestId }) };
    this.#open.add(chain);
    return chain;
  }

  #join(chain: Chain, entry: HarEntry, placed: number): void {
    chain.entries.push(entry);
    chain.lastJoined = placed;
    this.#idle.delete(chain);
    this.#idle.add(chain);
  }

  /** Chains nothing joined for a whole window: a redirect nobody followed, or a wrtui request that ended. */
  #closeIdle(): void {
    for (const chain of this.#idle) {
      if (chain.lastJoined + this.#window >= this.#placedCount) break;
      this.#close(chain);
    }
  }

  #close(chain: Chain): void {
    this.#open.delete(chain);
    this.#idle.delete(chain);
    if (chain.requestId !== undefined) {
      this.#byRequestId.delete(chain.requestId);
      chain.entries.sort((a, b) => a.group!.hop - b.group!.hop || a.group!.attempt - b.group!.attempt);
    }
    if (chain.waitingFor !== undefined) {
      const list = this.#waiting.get(chain.waitingFor);
      const at = list?.indexOf(chain) ?? -1;
      if (at !== -1) list!.splice(at, 1);
      if (list?.length === 0) this.#waiting.delete(chain.waitingFor);
    }
    this.#makeRequest(chain);
  }

  /** Places every step no entry still to come can go before. */
  #assignPositions(): void {
    const oldest = this.#firstOpen();
    const bound = Math.min(this.#finished ? Infinity : this.#placedUpTo, oldest ? oldest.entries[0]!.started : Infinity);
    for (let point = this.#points.peek(); point && point.time < bound; point = this.#points.peek()) {
      this.#points.pop();
      const position = this.#nextPosition++;
      this.#times.push(point.time);
      point.assign(position);
      const placing = point.of;
      placing.firstPosition ??= position;
      if (--placing.unplaced === 0) {
        this.#placing.delete(placing);
        this.#ready.push(placing.request);
      }
    }
  }

  /** A chain's hops and exchanges, and a timeline point for each step. */
  #makeRequest(chain: Chain): void {
    const group = chain.entries;
    const first = group[0]!;
    const hops: RecordedHop[] = [];
    const request: RecordedRequest = {
      index: chain.index,
      requestId: first.group?.requestId ?? String(first.index),
      type: first.type,
      tabId: first.tabId ?? NO_TAB_ID,
      frameId: first.frameId,
      parentFrameId: first.parentFrameId,
      storeId: first.storeId,
      hops,
      redirectNotFollowed: false,
      complete: true,
    };
    const placing: Placing = { request, unplaced: 0, firstPosition: undefined };
    const point = (time: number, entry: HarEntry, phase: number, assign: (position: number) => void) => {
      placing.unplaced++;
      this.#points.push({ time, order: entry.index * 8 + phase, of: placing, assign });
    };
    let previousHop: number | undefined;
    for (const entry of group) {
      const sameHop = entry.group !== undefined && entry.group.hop === previousHop;
      previousHop = entry.group?.hop;
      let hop = sameHop ? hops.at(-1)! : undefined;
      if (!hop) {
        const requestBody = parseRequestBody({ method: entry.method, contentType: getHeader(entry.clientHeaders, 'content-type'), bytes: entry.body });
        hop = {
          url: entry.url,
          method: entry.method,
          clientHeaders: entry.clientHeaders,
          ...(entry.body && { body: entry.body }),
          ...(requestBody && { requestBody }),
          exchanges: [],
          at: {},
          ...(entry.internalRedirect && { redirectedInternally: true }),
        };
        const created = hop;
        point(entry.started, entry, 0, (position) => (created.at.beforeRequest = position));
        hops.push(hop);
      }
      const thisHop = hop;
      if (entry.redirectTo) thisHop.redirectUrl = entry.redirectTo;
      if (entry.response || entry.error) {
        const exchange: RecordedExchange = { at: {}, ...(entry.sentHeaders && { sentHeaders: entry.sentHeaders }) };
        if (entry.response) exchange.response = entry.response;
        if (entry.error) exchange.error = entry.error;
        thisHop.exchanges.push(exchange);
        point(entry.started + entry.sentAfter, entry, 1, (position) => (exchange.at.beforeSendHeaders = position));
        point(entry.started + entry.respondedAfter, entry, 2, (position) => (exchange.at.response = position));
        if (entry.response) point(entry.started + entry.respondedAfter, entry, 3, (position) => (thisHop.at.responseStarted = position));
      }
      if (entry.failure) thisHop.error = entry.failure;
      point(entry.started + entry.endedAfter, entry, 4, (position) => (thisHop.at.end = position));
    }
    // A chain ending in a server redirect nobody followed: the client stopped there (fetch's
    // redirect: 'manual', or curl without -L), and replay does the same.
    const lastHop = hops.at(-1)!;
    request.redirectNotFollowed = lastHop.redirectUrl !== undefined && !lastHop.redirectedInternally;
    this.#placing.add(placing);
  }
}
