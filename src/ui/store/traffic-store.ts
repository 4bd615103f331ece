// The UI's view of the journal, kept outside React. A journal subscriber folds every entry into
// per-request records at once (cheap, O(1)), but tells its own subscribers at most once per
// `flushIntervalMs` (~30 times a second): React re-renders on notifications, so the UI costs the
// same whether 10 or 10,000 entries arrived in between. Memory is bounded: at most
// `maxRequests` requests (the oldest are dropped), a ring of log lines and cookie changes.
//
// The interval also stretches with what a frame costs (noteFrameCost): Ink redraws the whole
// screen each frame (several ms on a busy machine), and the UI is to keep at most FRAME_BUDGET of
// the event loop, so that the proxy never waits for the screen.
//
// The store also owns the list's filter, kept incrementally: on a flush only the records that
// changed are tested again, so filtering 100k requests costs nothing while traffic flows.
import type { BodyEntry, JournalEntry, LogEntry } from '../../engine/journal.js';
import type { JournalSource } from '../backend.js';
import { describeRuntime } from '../../engine/extensions/runtime-description.js';
import { describeQuota } from '../../engine/web-request/quota-description.js';
import type { CookieChangeInfo, WebRequestDetails } from '../../engine/types.js';
import type { RequestPredicate } from '../filter/compile-filter.js';
import { BodyBudget, DEFAULT_BODY_BUDGET_BYTES } from './body-budget.js';
import { RingBuffer } from './ring-buffer.js';
import { changeLines } from '../../engine/session/replay-report.js';
import { shortPath } from '../format.js';
import type { RequestDiff } from '../../engine/session/request-diff.js';
import {
  applyBodyEntry, applyDnrEntry,
  applyWebRequestEntry,
  claimCookieChange,
  createRecord,
  MAX_NOTES,
  type AttributedCookieChange,
  type RequestRecord,
} from './request-record.js';
import { ResendMarks } from './resend-marks.js';
import { applyWebSocketMessage } from './websocket-messages.js';

export const DEFAULT_MAX_REQUESTS = 5000;
const DEFAULT_FLUSH_INTERVAL_MS = 33;
const DEFAULT_LOG_LIMIT = 2000;
const DEFAULT_COOKIE_LOG_LIMIT = 1000;
/** Requests per second is averaged over this many whole seconds. */
const RATE_WINDOW_SECONDS = 3;
/** Request bodies held for a request whose onBeforeRequest has not come yet (see #earlyBodies), at most. */
const MAX_EARLY_BODIES = 256;
/** The share of the event loop frames may take; the flush interval grows to keep to it. */
export const FRAME_BUDGET = 0.2;
const MAX_FLUSH_INTERVAL_MS = 500;

export interface TrafficStoreOptions {
  /** Requests kept; the oldest are dropped past it. */
  maxRequests?: number;
  /** Least time between two notifications (ms). 0 notifies on the next macrotask. */
  flushIntervalMs?: number;
  /** A notification at least this often even without entries (the rate and quota clocks move); 0 = never. */
  tickMs?: number;
  logLimit?: number;
  cookieLogLimit?: number;
  now?: () => number;
  /** Total body bytes held (request and response bodies); the oldest are let go past it. */
  maxBodyBytes?: number;
  /**
   * How requests are numbered (their ordinal, the list's order): as they arrive (live), or by
   * their requestId (a replay: its engine numbers requests in the recording's order each run, while
   * they arrive in the order their first listeners answer), so a request keeps its number and its
   * place, and stays selected, across re-runs.
   */
  ordinals?: 'arrival' | 'requestId';
}

export interface LogLine {
  seq: number;
  time: number;
  level: LogEntry['level'];
  source: string;
  message: string;
}

export interface CookieLogLine extends AttributedCookieChange {
  seq: number;
  /** The request whose Set-Cookie caused it, when there was one. */
  request: { ordinal: number; requestId: string; url: string } | undefined;
}

export interface ListeningInfo {
  url: string;
  incognitoUrl: string | undefined;
}

type Listener = () => void;

export class TrafficStore {
  readonly maxRequests: number;
  readonly #minFlushIntervalMs: number;
  #flushIntervalMs: number;
  #frameCostMs = 0;
  readonly #now: () => number;
  readonly #listeners = new Set<Listener>();
  #held = false;

  /** Every kept record, oldest first (ordinal ascending). */
  #records: RequestRecord[] = [];
  readonly #byId = new Map<string, RequestRecord>();
  #nextOrdinal = 1;
  readonly #ordinalsByRequestId: boolean;
  #dropped = 0;
  readonly #bodies: BodyBudget;
  #seen = 0;

  #predicate: RequestPredicate | undefined;
  /** The records the filter lets through, ordinal ascending; `#records` itself when unfiltered. */
  #visible: RequestRecord[] = this.#records;
  readonly #matching = new WeakSet<RequestRecord>();

  /** Records changed since the last flush, and those created. */
  readonly #dirty = new Set<RequestRecord>();
  /** Records with Set-Cookie headers whose cookie changes may still come. */
  readonly #awaitingCookies = new Set<RequestRecord>();
  /**
   * A request's body as the client sent it, journaled when the proxy has read it: before the
   * request's onBeforeRequest, which makes its record. Held here until then (the latest few).
   */
  readonly #earlyBodies = new Map<string, BodyEntry>();
  #earlyBytes = 0;

  readonly #logs: RingBuffer<LogLine>;
  readonly #cookieLog: RingBuffer<CookieLogLine>;
  #cookiesVersion = 0;
  #rulesVersion = 0;
  #unseenProblems = 0;
  #lastRefusal: { seq: number; text: string } | undefined;
  #listening: ListeningInfo | undefined;

  /** Requests started per whole second (epoch second → count), a few seconds deep. */
  readonly #startsPerSecond = new Map<number, number>();

  #version = 0;
  #pendingChange = false;
  #flushTimer: NodeJS.Timeout | undefined;
  #lastFlushAt = 0;
  #tickTimer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(options: TrafficStoreOptions = {}) {
    this.maxRequests = Math.max(1, options.maxRequests ?? DEFAULT_MAX_REQUESTS);
    this.#bodies = new BodyBudget(options.maxBodyBytes ?? DEFAULT_BODY_BUDGET_BYTES);
    this.#minFlushIntervalMs = options.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.#flushIntervalMs = this.#minFlushIntervalMs;
    this.#now = options.now ?? Date.now;
    this.#ordinalsByRequestId = options.ordinals === 'requestId';
    this.#logs = new RingBuffer(options.logLimit ?? DEFAULT_LOG_LIMIT);
    this.#cookieLog = new RingBuffer(options.cookieLogLimit ?? DEFAULT_COOKIE_LOG_LIMIT);
    const tickMs = options.tickMs ?? 0;
    if (tickMs > 0) {
      this.#tickTimer = setInterval(() => this.touch(), tickMs);
      this.#tickTimer.unref();
    }
  }

  /** Subscribes to a journal, from seq 1; returns (and remembers, for close) the unsubscribe. */
  attach(journal: JournalSource): () => void {
    this.#unsubscribe?.();
    const unsubscribe = journal.subscribe((entry) => this.ingest(entry), { fromStart: true });
    this.#unsubscribe = unsubscribe;
    return unsubscribe;
  }

  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearTimeout(this.#flushTimer);
    clearInterval(this.#tickTimer);
    this.#listeners.clear();
  }

  /**
   * Which requests are paused at a breakpoint, and where. A request paused at onBeforeRequest has
   * no journal entry yet (an event is journaled once its listeners answered): it is listed now,
   * from the details its listeners were given, and its events fold into the same record later.
   */
  setPaused(paused: readonly { requestId: string; stage: string; details: WebRequestDetails }[]): void {
    const stages = new Map(paused.map((request) => [request.requestId, request]));
    for (const { requestId, details } of paused) {
      if (this.#byId.has(requestId)) continue;
      const record = createRecord(this.#nextOrdinal++, { kind: 'webRequest', event: 'onBeforeRequest', details, outcomes: [] });
      this.#byId.set(requestId, record);
      this.#records.push(record);
      this.#seen++;
      this.#dirty.add(record);
    }
    for (const record of this.#records) {
      const paused = stages.get(record.requestId);
      const stage = paused?.stage;
      if (record.pausedAt === stage && record.pausedDetails === paused?.details) continue;
      record.pausedAt = stage;
      record.pausedDetails = paused?.details;
      record.revision++;
      this.#dirty.add(record);
    }
    this.#pendingChange = true;
    this.flush();
  }

  // ── resends ───────────────────────────────────────────────────────────────

  /** A resend of `from` is about to go through the proxy (resend-marks.ts); the caller ends the wait once it is answered. */
  expectResend(from: Pick<RequestRecord, 'ordinal' | 'requestId'>, method: string, url: string): () => void {
    return this.#resends.expect(from, method, url);
  }

  readonly #resends = new ResendMarks();

  // ── folding ───────────────────────────────────────────────────────────────

  ingest(entry: JournalEntry): void {
    switch (entry.kind) {
      case 'webRequest': {
        const known = this.#byId.get(entry.details.requestId);
        let record = known?.replayStale ? undefined : known;
        if (known?.replayStale && entry.event === 'onBeforeRequest') {
          record = this.#replaceStale(known, entry);
        } else if (!record) {
          // A request we dropped (or cleared) goes on sending events: let it go.
          if (entry.event !== 'onBeforeRequest') return;
          record = createRecord(this.#ordinalsByRequestId ? Number(entry.details.requestId) : this.#nextOrdinal++, entry);
          this.#byId.set(record.requestId, record);
          this.#resends.mark(record);
          this.#addRecord(record);
          this.#seen++;
          this.#countStart(entry.time);
        }
        applyWebRequestEntry(record, entry);
        const early = entry.event === 'onBeforeRequest' ? this.#takeEarlyBody(record.requestId) : undefined;
        if (early) this.#applyBody(record, early);
        if (record.awaitingCookies) this.#awaitingCookies.add(record);
        else this.#awaitingCookies.delete(record);
        this.#dirty.add(record);
        break;
      }
      case 'websocketMessage': {
        const record = this.#current(entry.requestId);
        if (!record) return;
        applyWebSocketMessage(record, entry, this.#bodies);
        this.#dirty.add(record);
        break;
      }
      case 'dnr': {
        const record = this.#current(entry.requestId);
        if (!record) return;
        applyDnrEntry(record, entry);
        this.#dirty.add(record);
        break;
      }
      case 'body': {
        const record = this.#current(entry.requestId);
        if (record) this.#applyBody(record, entry);
        else if (entry.direction === 'request') this.#holdEarlyBody(entry);
        break;
      }
      case 'cookieChanged':
        this.#cookieChanged(entry.seq, entry.time, entry.changeInfo);
        break;
      case 'log': {
        this.#log({ seq: entry.seq, time: entry.time, level: entry.level, source: entry.source, message: entry.message });
        const record = entry.requestId === undefined ? undefined : this.#current(entry.requestId);
        if (record && record.notes.length < MAX_NOTES) {
          record.notes.push({ level: entry.level, source: entry.source, message: entry.message });
          record.revision++;
          this.#dirty.add(record);
        }
        break;
      }
      case 'rule': {
        const level = entry.action === 'failed' ? 'error' : entry.action === 'warning' ? 'warn' : 'info';
        const message = `${entry.action}${entry.message ? `: ${entry.message}` : ''}${entry.location ? ` (${entry.location})` : ''}`;
        this.#log({ seq: entry.seq, time: entry.time, level, source: `rule ${entry.rule}`, message });
        this.#rulesVersion++;
        break;
      }
      case 'runtime': {
        // Workers starting and running are the normal case: only faults, restarts and give-ups are news.
        if (entry.state === 'starting' || (entry.state === 'running' && entry.restarts === 0) || (entry.state === 'stopped' && !entry.reason)) {
          this.#rulesVersion++;
          break;
        }
        this.#log({ seq: entry.seq, time: entry.time, level: entry.state === 'running' ? 'info' : entry.state === 'crashed' ? 'error' : 'warn', source: `worker ${entry.owner}`, message: describeRuntime(entry.location ? { ...entry, location: shortPath(entry.location) } : entry) });
        this.#rulesVersion++;
        break;
      }
      case 'handlerBehaviorChanged': {
        const state = { used: entry.used, limit: entry.limit, refused: entry.refused ?? 0, nextSlotFreeAt: entry.nextSlotFreeAt };
        // A reload spends the quota too (by design): a refusal then is wrtui's call, not the rule's.
        const caller = entry.madeBy === 'reload' ? ' (called by wrtui on reloading the rule)' : '';
        const message = `handlerBehaviorChanged${caller} ${entry.accepted ? 'accepted' : 'refused, caches not flushed'}: ${describeQuota(state, entry.time)}`;
        this.#log({ seq: entry.seq, time: entry.time, level: entry.accepted ? 'info' : 'warn', source: entry.owner, message });
        if (!entry.accepted) this.#lastRefusal = { seq: entry.seq, text: `${entry.owner}: ${message}` };
        this.#rulesVersion++;
        break;
      }
      case 'replayDiff' as JournalEntry['kind']: {
        // A replay's verdict on one request (session-replay.ts appends them after the replay).
        const diff = entry as unknown as RequestDiff;
        const record = diff.replayedRequestId === undefined ? undefined : this.#current(diff.replayedRequestId);
        if (!record) break;
        record.replayDiff = { identical: diff.identical, changes: diff.changes, lines: diff.identical ? [] : changeLines(diff) };
        record.revision++;
        this.#dirty.add(record);
        break;
      }
      case 'listening':
        this.#listening = { url: entry.url, incognitoUrl: typeof entry.incognitoUrl === 'string' ? entry.incognitoUrl : undefined };
        this.#log({ seq: entry.seq, time: entry.time, level: 'info', source: 'wrtui', message: `listening on ${entry.url}` });
        break;
    }
    this.#changed();
  }

  #applyBody(record: RequestRecord, entry: BodyEntry): void {
    const slot = entry.filteredBy ? 'delivered' : entry.direction;
    this.#bodies.release(record, slot); // a redirect's next hop replaces the body
    this.#bodies.hold(record, slot, applyBodyEntry(record, entry));
    this.#dirty.add(record);
  }

  #holdEarlyBody(entry: BodyEntry): void {
    this.#takeEarlyBody(entry.requestId);
    this.#earlyBodies.set(entry.requestId, entry);
    this.#earlyBytes += entry.bytes.byteLength;
    // Requests that never got their onBeforeRequest (they failed first), or many uploads waiting for
    // listeners: the oldest go, and never more than the store's own body budget is held here.
    while (this.#earlyBodies.size > MAX_EARLY_BODIES || this.#earlyBytes > this.#bodies.maxBytes) this.#takeEarlyBody(this.#earlyBodies.keys().next().value!);
  }

  #takeEarlyBody(requestId: string): BodyEntry | undefined {
    const entry = this.#earlyBodies.get(requestId);
    if (entry) {
      this.#earlyBodies.delete(requestId);
      this.#earlyBytes -= entry.bytes.byteLength;
    }
    return entry;
  }

  /** The record of `requestId` that entries now go to: none while it is the last run's (a re-run's stale record). */
  #current(requestId: string): RequestRecord | undefined {
    const record = this.#byId.get(requestId);
    return record?.replayStale ? undefined : record;
  }

  /** A re-run's first event of a request: its new record takes the last run's place in the list. */
  #replaceStale(stale: RequestRecord, entry: Extract<JournalEntry, { kind: 'webRequest' }>): RequestRecord {
    const record = createRecord(stale.ordinal, entry);
    this.#dirty.delete(stale);
    this.#bodies.release(stale);
    this.#byId.set(record.requestId, record);
    const index = lowerBound(this.#records, stale.ordinal);
    if (this.#records[index] === stale) this.#records[index] = record;
    else this.#addRecord(record);
    // Filtered, the new record is placed by the next flush's refilter, as any changed record is.
    if (this.#predicate && this.#matching.delete(stale)) {
      const at = lowerBound(this.#visible, stale.ordinal);
      if (this.#visible[at] === stale) this.#visible.splice(at, 1);
    }
    this.#seen++;
    this.#countStart(entry.time);
    return record;
  }

  #cookieChanged(seq: number, time: number, changeInfo: CookieChangeInfo): void {
    const change: AttributedCookieChange = { time, changeInfo };
    let request: CookieLogLine['request'];
    for (const record of this.#awaitingCookies) {
      if (!claimCookieChange(record, change)) continue;
      request = { ordinal: record.ordinal, requestId: record.requestId, url: record.url };
      this.#dirty.add(record);
      if (!record.awaitingCookies) this.#awaitingCookies.delete(record);
      break;
    }
    this.#cookieLog.push({ ...change, seq, request });
    this.#cookiesVersion++;
  }

  #log(line: LogLine): void {
    this.#logs.push(line);
    if (line.level === 'warn' || line.level === 'error') this.#unseenProblems++;
  }

  #countStart(time: number): void {
    const second = Math.floor(time / 1000);
    this.#startsPerSecond.set(second, (this.#startsPerSecond.get(second) ?? 0) + 1);
    if (this.#startsPerSecond.size > RATE_WINDOW_SECONDS + 2) {
      for (const key of this.#startsPerSecond.keys()) if (key < second - RATE_WINDOW_SECONDS - 1) this.#startsPerSecond.delete(key);
    }
  }

  // ── notifications ─────────────────────────────────────────────────────────

  #changed(): void {
    this.#pendingChange = true;
    if (this.#flushTimer) return;
    const wait = Math.max(0, this.#lastFlushAt + this.#flushIntervalMs - this.#now());
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      this.flush();
    }, wait);
  }

  /** Applies the cap and the filter to what changed, then notifies (tests call it directly). */
  flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#lastFlushAt = this.#now();
    this.#dropOverCap();
    if (this.#predicate) this.#refilter(this.#dirty);
    this.#dirty.clear();
    if (!this.#pendingChange) return;
    this.#pendingChange = false;
    this.#notify();
  }

  /**
   * What the last frame cost (React and Ink, ms). The flush interval follows a moving average of
   * it so that frames take at most FRAME_BUDGET of the time: cheap frames keep ~30 per second,
   * expensive ones (a slow machine, a huge terminal) come less often instead of starving the proxy.
   */
  noteFrameCost(ms: number): void {
    this.#frameCostMs = this.#frameCostMs === 0 ? ms : this.#frameCostMs * 0.8 + ms * 0.2;
    this.#flushIntervalMs = Math.min(MAX_FLUSH_INTERVAL_MS, Math.max(this.#minFlushIntervalMs, this.#frameCostMs / FRAME_BUDGET));
  }

  /** The current least time between notifications (ms). */
  /** What a frame costs lately (React's render plus Ink's drawing), a moving average in ms. */
  get frameCostMs(): number {
    return this.#frameCostMs;
  }

  get flushIntervalMs(): number {
    return this.#flushIntervalMs;
  }

  /** Something outside the journal changed (rules, the dry-run switch): redraw soon. */
  touch(): void {
    this.#changed();
  }

  subscribe = (listener: Listener): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Changes with every notification: the snapshot useSyncExternalStore compares. */
  getVersion = (): number => this.#version;

  #notify(): void {
    this.#version++;
    if (this.#held) return;
    for (const listener of this.#listeners) listener();
  }

  /**
   * While held, changes are folded but nobody is told (the UI does not draw: an editor has the
   * terminal); releasing tells once, so the screen catches up.
   */
  hold(on: boolean): void {
    const was = this.#held;
    this.#held = on;
    if (was && !on) this.#notify();
  }

  // ── the list ──────────────────────────────────────────────────────────────

  #dropOverCap(): void {
    const excess = this.#records.length - this.maxRequests;
    if (excess <= 0) return;
    const gone = this.#records.splice(0, excess);
    for (const record of gone) {
      this.#bodies.release(record);
      this.#byId.delete(record.requestId);
      this.#dirty.delete(record);
      this.#awaitingCookies.delete(record);
    }
    this.#dropped += excess;
    if (this.#predicate) {
      const firstKept = this.#records[0]?.ordinal ?? Infinity;
      this.#visible.splice(0, lowerBound(this.#visible, firstKept));
    }
    this.#pendingChange = true;
  }

  /** Keeps #records in ordinal order: with ordinals by requestId a request may arrive after a later-numbered one. */
  #addRecord(record: RequestRecord): void {
    const last = this.#records[this.#records.length - 1];
    if (!last || last.ordinal < record.ordinal) this.#records.push(record);
    else this.#records.splice(lowerBound(this.#records, record.ordinal), 0, record);
  }

  #refilter(records: Iterable<RequestRecord>): void {
    const predicate = this.#predicate!;
    for (const record of records) {
      const matches = predicate(record);
      if (matches === this.#matching.has(record)) continue;
      if (matches) {
        this.#matching.add(record);
        const last = this.#visible[this.#visible.length - 1];
        if (!last || last.ordinal < record.ordinal) this.#visible.push(record);
        else this.#visible.splice(lowerBound(this.#visible, record.ordinal), 0, record);
      } else {
        this.#matching.delete(record);
        const index = lowerBound(this.#visible, record.ordinal);
        if (this.#visible[index] === record) this.#visible.splice(index, 1);
      }
    }
  }

  /** Sets (or with undefined, removes) the list's filter; applies it to every kept record now. */
  setFilter(predicate: RequestPredicate | undefined): void {
    this.#predicate = predicate;
    if (!predicate) {
      this.#visible = this.#records;
    } else {
      this.#visible = [];
      for (const record of this.#records) {
        if (predicate(record)) {
          this.#matching.add(record);
          this.#visible.push(record);
        } else {
          this.#matching.delete(record);
        }
      }
    }
    this.#pendingChange = true;
    this.flush();
  }

  get filtered(): boolean {
    return this.#predicate !== undefined;
  }

  /**
   * Forgets every finished request (the "clear" command). Requests still in flight, or paused at a
   * breakpoint, stay: what the user waits for is their outcome (or their own answer to a paused
   * one), which would otherwise never show. A replay's new run (`rerun`) forgets everything, the
   * cookie change log too (it starts from the recording's cookies).
   */
  clear(options: { rerun?: boolean } = {}): void {
    const kept = options.rerun ? [] : this.#records.filter((record) => record.phase === 'pending');
    if (options.rerun) {
      this.#earlyBodies.clear();
      this.#earlyBytes = 0;
      this.#cookieLog.clear();
      this.#cookiesVersion++;
    }
    this.#records = kept;
    this.#bodies.clear();
    for (const record of kept) {
      if (record.requestBytes && !record.requestBytes.dropped) this.#bodies.hold(record, 'request', record.requestBytes);
      if (record.responseBytes && !record.responseBytes.dropped) this.#bodies.hold(record, 'response', record.responseBytes);
    }
    this.#visible = this.#predicate ? kept.filter((record) => this.#matching.has(record)) : this.#records;
    this.#byId.clear();
    for (const record of kept) this.#byId.set(record.requestId, record);
    this.#dirty.clear();
    for (const record of this.#awaitingCookies) if (record.phase !== 'pending' || options.rerun) this.#awaitingCookies.delete(record);
    this.#pendingChange = true;
    this.flush();
  }

  /**
   * A replay's re-run begins: the list keeps the last run's records, each marked `replayStale`,
   * and the run under way replaces each in its place when it replays that request (its first
   * event); so the list is updated in place, the selection and the scroll position kept.
   * endRerun() drops the records the new run did not replay. The cookie change log starts over
   * (the run starts from the recording's cookies).
   */
  beginRerun(): void {
    this.#cookieLog.clear();
    this.#cookiesVersion++;
    this.#awaitingCookies.clear();
    for (const record of this.#records) {
      record.replayStale = true;
      record.revision++;
      this.#dirty.add(record);
    }
    this.#pendingChange = true;
    this.flush();
  }

  /** The re-run ended whole: what it did not replay leaves the list. */
  endRerun(): void {
    const stale = this.#records.filter((record) => record.replayStale);
    if (stale.length === 0) return;
    this.#records = this.#records.filter((record) => !record.replayStale);
    this.#visible = this.#predicate ? this.#visible.filter((record) => !record.replayStale) : this.#records;
    for (const record of stale) {
      this.#byId.delete(record.requestId);
      this.#bodies.release(record);
      this.#dirty.delete(record);
      this.#matching.delete(record);
    }
    this.#pendingChange = true;
    this.flush();
  }

  /** The records the list shows (filtered), oldest first. Do not mutate. */
  visible(): readonly RequestRecord[] {
    return this.#visible;
  }

  /** Every kept record, oldest first. */
  all(): readonly RequestRecord[] {
    return this.#records;
  }

  /** Index of the record with this ordinal in visible(), or of the first one after it. */
  visibleIndexOf(ordinal: number): number {
    return lowerBound(this.#visible, ordinal);
  }

  byOrdinal(ordinal: number): RequestRecord | undefined {
    const index = lowerBound(this.#records, ordinal);
    const record = this.#records[index];
    return record?.ordinal === ordinal ? record : undefined;
  }

  /** The bodies held, in bytes, and the budget they are held in. */
  get bodyBudget(): { bytes: number; maxBytes: number; dropped: number } {
    return { bytes: this.#bodies.bytes, maxBytes: this.#bodies.maxBytes, dropped: this.#bodies.droppedCount };
  }

  /** Requests dropped because of the cap. */
  get droppedCount(): number {
    return this.#dropped;
  }

  /** Requests seen since start (including dropped and cleared ones). */
  get seenCount(): number {
    return this.#seen;
  }

  /** Requests started per second over the last few whole seconds. */
  requestsPerSecond(): number {
    const current = Math.floor(this.#now() / 1000);
    let total = 0;
    for (let second = current - RATE_WINDOW_SECONDS; second < current; second++) total += this.#startsPerSecond.get(second) ?? 0;
    return total / RATE_WINDOW_SECONDS;
  }

  // ── logs, cookies, rules ──────────────────────────────────────────────────

  /** Log lines [from, to), oldest first (all of them without arguments). */
  logs(from?: number, to?: number): LogLine[] {
    return this.#logs.slice(from, to);
  }

  get logCount(): number {
    return this.#logs.length;
  }

  /** Warnings and errors logged since markProblemsSeen (the status bar's hint). */
  /** The latest refused handlerBehaviorChanged call, for the screen to flash once. */
  get lastRefusal(): { seq: number; text: string } | undefined {
    return this.#lastRefusal;
  }

  get unseenProblems(): number {
    return this.#unseenProblems;
  }

  markProblemsSeen(): void {
    if (this.#unseenProblems === 0) return;
    this.#unseenProblems = 0;
    this.#changed();
  }

  /** Cookie changes [from, to), oldest first (all of them without arguments). */
  cookieLog(from?: number, to?: number): CookieLogLine[] {
    return this.#cookieLog.slice(from, to);
  }

  get cookieLogCount(): number {
    return this.#cookieLog.length;
  }

  /** Changes whenever a cookie changed (the cookies view reads the stores again). */
  get cookiesVersion(): number {
    return this.#cookiesVersion;
  }

  /** Changes on rule and handlerBehaviorChanged entries. */
  get rulesVersion(): number {
    return this.#rulesVersion;
  }

  get listening(): ListeningInfo | undefined {
    return this.#listening;
  }
}

/** First index whose record's ordinal is >= ordinal (records sorted by ordinal). */
function lowerBound(records: readonly RequestRecord[], ordinal: number): number {
  let low = 0;
  let high = records.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (records[middle]!.ordinal < ordinal) low = middle + 1;
    else high = middle;
  }
  return low;
}
