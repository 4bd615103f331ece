// One ordered stream of everything that happened. Capture, replay, the UI, the recorder and the
// headless NDJSON output all subscribe here; the engine never knows who listens.
import type {
  BlockingResponse,
  CookieChangeInfo,
  WebRequestDetails,
  WebRequestEventName,
} from './types.js';
import type { WebSocketOpcode } from './capture/websocket-frames.js';

/** What became of one listener's answer (or failure) to one event. */
export type OutcomeStatus =
  /** merged into what the request does */
  | 'applied'
  /** lost a conflict, or was not allowed for this event; `reason` says why */
  | 'ignored'
  /** computed but not applied, because the owner or the engine is in dry-run */
  | 'dry-run'
  /** threw, timed out, or returned something that is not a valid BlockingResponse */
  | 'failed';

export interface ListenerOutcome {
  /** The owner (rule) id of the listener. */
  owner: string;
  event: WebRequestEventName;
  status: OutcomeStatus;
  /** What the listener returned (sanitised), when it returned something. */
  response?: BlockingResponse;
  /** Human-readable: why ignored, why failed, or for dry-run what it would have done. */
  reason?: string;
  /** Where the failure came from, when known (a stack frame `file:line:col`). */
  location?: string;
  durationMs: number;
}

export interface WebRequestEntry {
  kind: 'webRequest';
  event: WebRequestEventName;
  /** The details object with every optional field the event can carry. */
  details: WebRequestDetails;
  outcomes: ListenerOutcome[];
  /**
   * Set when the event fired only for some personas' listeners, or (empty) for none: on an auth
   * retry Chrome and the spec fire nothing and Firefox re-fires four events; the retry's headers
   * and response are journaled all the same, for the record.
   */
  firedFor?: string[];
  /**
   * Why a request ended, when its event alone would mislead: 'redirect-not-followed' marks the
   * onErrorOccurred (net::ERR_ABORTED, as Chrome reports it) of a request whose client took a
   * 3xx as its answer (curl without -L, fetch with redirect: "manual"). The request completed
   * with that 3xx from the client's point of view.
   */
  ending?: 'redirect-not-followed';
  /** On onBeforeSendHeaders: the headers wrtui itself put on the client's request before listeners saw it. */
  wrtuiAdded?: WrtuiAddedHeader[];
  /** On onBeforeRequest: an extension made the request itself (its fetch): which, and its origin (replay makes it so again). */
  madeBy?: { extension: string; origin: string };
  /**
   * On onBeforeRequest, while a browser wrtui started is attached (`wrtui browser`): the browser did
   * not describe this request, so its type, frames, tab and initiator are inferred from its headers.
   */
  inferred?: true;
}

/** A header wrtui added to what the client sent: cookies from its jar, credentials a rule gave. */
export interface WrtuiAddedHeader {
  header: string;
  by: 'cookie jar' | 'auth credentials';
  /** For Cookie: the names whose values came from the jar. */
  cookies?: string[];
  /** For Cookie: what the client itself sent (absent: no Cookie header). */
  clientValue?: string;
}

export interface CookieChangedEntry {
  kind: 'cookieChanged';
  changeInfo: CookieChangeInfo;
}

export interface HandlerBehaviorChangedEntry {
  kind: 'handlerBehaviorChanged';
  owner: string;
  accepted: boolean;
  /** 'reload': wrtui made the call when it reloaded the rule (a reload calls it, as an update would), not the rule's code. */
  madeBy?: 'reload';
  /** Accepted calls in the current 10-minute window, after this call. */
  used: number;
  limit: number;
  /** Refused calls in the same window, this one included when refused (absent in old recordings). */
  refused?: number;
  /** Epoch ms when the oldest accepted call leaves the window and frees a slot (null when none is in it). */
  nextSlotFreeAt: number | null;
}

export interface RuleEntry {
  kind: 'rule';
  action: 'loaded' | 'reloaded' | 'failed' | 'unloaded' | 'warning';
  rule: string;
  file?: string;
  message?: string;
  location?: string;
}

/** An extension's or rule's worker changed state: started, serving, faulted and restarting, given up. */
export interface RuntimeEntry {
  kind: 'runtime';
  /** The rule's or extension's name (its owner id). */
  owner: string;
  state: 'starting' | 'running' | 'restarting' | 'crashed' | 'stopped';
  /** Why (a fault: stuck, out of memory, exited, crashed). */
  reason?: string;
  /** What it was doing when it faulted: the event and URL of the oldest unanswered event. */
  doing?: { event: WebRequestEventName; url: string; forMs: number };
  /** Where it was stuck or crashed, `file:line:col`, when known. */
  location?: string;
  /** Restarts after faults so far. */
  restarts: number;
}

/** Problems that belong to no single request event (listener errors outside the lifecycle, lastError unchecked, …). */
export interface LogEntry {
  kind: 'log';
  level: 'debug' | 'info' | 'warn' | 'error';
  source: string;
  message: string;
  /** The request it is about, when it is about one (the TUI shows it with that request). */
  requestId?: string;
}

/**
 * A request's or response's body, for the recorder and the TUI (the proxy's `journalBodies`),
 * up to the size wrtui keeps (--max-body-size).
 */
export interface BodyEntry {
  kind: 'body';
  requestId: string;
  direction: 'request' | 'response';
  url: string;
  /**
   * The bytes as they crossed the wire (still content-encoded). When the body was larger than
   * the cap, its first cap bytes (recordings keep none of a cut body: session-recorder.ts).
   */
  bytes: Uint8Array;
  /** False when the body was larger than the cap: `bytes` is only its beginning. */
  complete: boolean;
  /** Bytes that crossed the wire in all (absent in recordings made before it existed). */
  size?: number;
  /**
   * The bytes are already decoded, whatever Content-Encoding the headers name: a replayed HAR's
   * content (HAR keeps bodies decoded).
   */
  decoded?: boolean;
  /**
   * Present: a response's bytes as the client got them after these owners' StreamFilters (Firefox's
   * filterResponseData) rewrote them, in the order they ran; journaled after the server's own,
   * marked decoded, as a filter writes them. Recordings leave it out: a replay runs the filters again.
   */
  filteredBy?: string[];
}

/**
 * One WebSocket message on a connection the proxy spliced after its 101 (webRequest sees none:
 * this is wrtui's own record, for the TUI, the recorder and HAR's _webSocketMessages).
 */
export interface WebSocketMessageEntry {
  kind: 'websocketMessage';
  /** The handshake's request. */
  requestId: string;
  /** send: client to server; receive: server to client (Chrome DevTools' words). */
  direction: 'send' | 'receive';
  opcode: WebSocketOpcode;
  /** Payload bytes in all. */
  size: number;
  /** The first bytes of the payload (up to what wrtui keeps), unmasked. */
  data: Uint8Array;
  /** `data` is the whole payload. */
  complete: boolean;
  /** permessage-deflate compressed the payload: `data` is compressed bytes. */
  compressed?: true;
}

export interface ListeningEntry {
  kind: 'listening';
  url: string;
  [key: string]: unknown;
}

/** One declarativeNetRequest rule that matched a request, and what became of it. */
export interface DnrMatch {
  extension: string;
  extensionId: string;
  /** A static ruleset's id, `_dynamic` or `_session`. */
  rulesetId: string;
  ruleId: number;
  priority: number;
  action: string;
  /** applied; computed only (dry-run); or lost to another extension's action. */
  status: 'applied' | 'dry-run' | 'outranked';
}

/** What declarativeNetRequest rules did to a request at one point of its life. */
export interface DnrEntry {
  kind: 'dnr';
  requestId: string;
  url: string;
  /** The webRequest event the rules act beside. */
  stage: 'onBeforeRequest' | 'onBeforeSendHeaders' | 'onHeadersReceived';
  effect: 'block' | 'redirect' | 'upgradeScheme' | 'allow' | 'modifyHeaders';
  matches: DnrMatch[];
  redirectUrl?: string;
  headerChanges?: { header: string; operation: string; value?: string; ruleId: number; extension: string }[];
  /** The effect was computed, not applied: the extension (or wrtui) is in dry-run. */
  dryRun?: true;
}

export type JournalEntryBody =
  | WebRequestEntry
  | DnrEntry
  | CookieChangedEntry
  | HandlerBehaviorChangedEntry
  | RuleEntry
  | RuntimeEntry
  | LogEntry
  | BodyEntry
  | WebSocketMessageEntry
  | ListeningEntry;

/** Every entry carries its position in the stream and when it was appended (epoch ms). */
export type JournalEntry = JournalEntryBody & { seq: number; time: number };

export type JournalSubscriber = (entry: JournalEntry) => void;

export interface SubscribeOptions {
  /**
   * Receive what was appended before subscribing, from seq 1, before anything new: what an output
   * (the TUI, headless, the recorder) must show. The journal keeps the latest KEPT_ENTRIES entries
   * for this (body entries excepted: they are for the recorder, which subscribes first); past that,
   * a late subscriber's first entry is a later one, and its seq says so.
   */
  fromStart?: boolean;
  /**
   * The webRequest events this subscriber reads, when not all of them (headless's request lines
   * need a request's start, redirects and end). An event no listener gets and no subscriber reads is
   * not journaled at all (its details are not even built: issue #37); one that some subscriber
   * reads goes to every subscriber, as ever. Absent: every event (the TUI, the recorder, --json).
   */
  webRequestEvents?: readonly WebRequestEventName[];
}

/** How many entries the journal keeps for subscribers that come late (a few MB at most). */
export const KEPT_ENTRIES = 2000;

/** Distinct failures of one subscriber journaled before it is reported no more (it may fail on every entry). */
const FAILURES_TOLD_PER_SUBSCRIBER = 3;

export class Journal {
  #seq = 0;
  readonly #subscribers = new Set<JournalSubscriber>();
  /** Subscribers that read every webRequest event; and, of the others, how many read each event. */
  #readingAll = 0;
  readonly #reading = new Map<WebRequestEventName, number>();
  readonly #now: () => number;
  readonly #onSubscriberError: ((error: unknown) => void) | undefined;
  /** The messages of each subscriber's failures journaled so far. */
  readonly #failuresTold = new WeakMap<JournalSubscriber, Set<string>>();
  /** Failures to journal once the entry they happened on has reached every subscriber. */
  readonly #failureReports: LogEntry[] = [];
  readonly #kept: JournalEntry[] = [];
  readonly #keep: number;
  /** Where the oldest kept entry is in #kept (a ring once full). */
  #oldest = 0;

  constructor(options: { now?: () => number; onSubscriberError?: (error: unknown) => void; keep?: number } = {}) {
    this.#now = options.now ?? Date.now;
    this.#keep = options.keep ?? KEPT_ENTRIES;
    this.#onSubscriberError = options.onSubscriberError;
  }

  /** Appends `body` (which becomes the entry: pass a fresh object) and tells every subscriber. */
  append(body: JournalEntryBody): JournalEntry {
    const entry = body as JournalEntry;
    entry.seq = ++this.#seq;
    entry.time = this.#now();
    // Bodies and WebSocket messages are for subscribers there from the start (the recorder, the TUI).
    if (entry.kind !== 'body' && entry.kind !== 'websocketMessage' && this.#keep > 0) {
      if (this.#kept.length < this.#keep) this.#kept.push(entry);
      else {
        this.#kept[this.#oldest] = entry;
        this.#oldest = (this.#oldest + 1) % this.#keep;
      }
    }
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(entry);
      } catch (error) {
        // A broken subscriber (UI, recorder) must never break the request that produced the entry.
        this.#subscriberFailed(subscriber, entry, error);
      }
    }
    this.#tellFailures();
    return entry;
  }

  /** Journals the subscribers' failures, after the entry they failed on reached everyone (each sees entries in order). */
  #tellFailures(): void {
    while (this.#failureReports.length > 0) this.append(this.#failureReports.shift()!);
  }

  /**
   * A subscriber threw: the journal says so itself (every consumer sees it, recordings keep it),
   * once per distinct failure and at most FAILURES_TOLD_PER_SUBSCRIBER times per subscriber, so that
   * one failing on every entry (or on the report itself) neither floods nor loops.
   */
  #subscriberFailed(subscriber: JournalSubscriber, entry: JournalEntry, error: unknown): void {
    if (this.#onSubscriberError) return this.#onSubscriberError(error);
    const message = error instanceof Error ? error.message : String(error);
    let told = this.#failuresTold.get(subscriber);
    if (!told) this.#failuresTold.set(subscriber, (told = new Set()));
    if (told.has(message) || told.size >= FAILURES_TOLD_PER_SUBSCRIBER) return;
    told.add(message);
    const where = error instanceof Error ? error.stack?.split('\n').find((frame) => frame.trim().startsWith('at '))?.trim() : undefined;
    const last = told.size === FAILURES_TOLD_PER_SUBSCRIBER ? '; its further failures are not logged' : '';
    this.#failureReports.push({ kind: 'log', level: 'error', source: 'journal', message: `a journal subscriber failed on a ${entry.kind} entry (seq ${entry.seq}) and was skipped for it: ${message}${where ? ` (${where})` : ''}${last}` });
  }

  subscribe(subscriber: JournalSubscriber, options: SubscribeOptions = {}): () => void {
    if (options.fromStart) {
      for (let i = 0; i < this.#kept.length; i++) {
        const entry = this.#kept[(this.#oldest + i) % this.#kept.length]!;
        try {
          subscriber(entry);
        } catch (error) {
          this.#subscriberFailed(subscriber, entry, error);
        }
      }
    }
    if (this.#subscribers.has(subscriber)) return () => this.#unsubscribe(subscriber, undefined);
    this.#subscribers.add(subscriber);
    const events = options.webRequestEvents;
    if (events) for (const event of events) this.#reading.set(event, (this.#reading.get(event) ?? 0) + 1);
    else this.#readingAll++;
    this.#tellFailures();
    let subscribed = true;
    return () => {
      if (!subscribed) return false;
      subscribed = false;
      return this.#unsubscribe(subscriber, events);
    };
  }

  #unsubscribe(subscriber: JournalSubscriber, events: readonly WebRequestEventName[] | undefined): boolean {
    if (!this.#subscribers.delete(subscriber)) return false;
    if (events) for (const event of events) this.#reading.set(event, this.#reading.get(event)! - 1);
    else this.#readingAll--;
    return true;
  }

  /**
   * Whether an entry of this webRequest event would be read: by some subscriber, or (nobody
   * subscribed yet) kept for the first one to come.
   */
  reads(event: WebRequestEventName): boolean {
    return this.#readingAll > 0 || this.#subscribers.size === 0 || (this.#reading.get(event) ?? 0) > 0;
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** How many entries have been appended so far. */
  get length(): number {
    return this.#seq;
  }
}
