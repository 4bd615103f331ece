// One request as the UI shows it: the journal's webRequest entries of one requestId folded into a
// record (every hop of a redirect chain keeps the requestId, so one record per chain), plus the
// bodies and cookie changes that belong to it. Folding is O(1) per entry: it runs for every
// journal entry, thousands a second.
import type { BodyEntry, DnrEntry, ListenerOutcome, LogEntry, WebRequestEntry, WrtuiAddedHeader } from '../../engine/journal.js';
import type {
  BlockingResponse,
  CookieChangeInfo,
  HttpHeader,
  HttpHeaders,
  OnBeforeRedirectDetails,
  OnBeforeRequestDetails,
  OnCompletedDetails,
  OnErrorOccurredDetails,
  OnHeadersReceivedDetails,
  WebRequestBody,
  WebRequestDetails,
  WebRequestEventName,
} from '../../engine/types.js';
import { seenByWebRequest } from '../../engine/match-pattern.js';
import type { FilterableRequest, RuleVerdict } from '../filter/compile-filter.js';
import { hostnameOf, splitUrl } from './split-url.js';

export { hostnameOf, splitUrl };

/** A redirect loop must not grow one record without bound (Chrome stops at 20 redirects). */
export const MAX_EVENTS_PER_REQUEST = 200;
const MAX_DRY_RUN_NOTES = 8;
const MAX_COOKIE_CHANGES_PER_REQUEST = 100;

export interface TimelineEvent {
  event: WebRequestEventName;
  /** details.timeStamp: epoch ms, fractional. */
  timeStamp: number;
  details: WebRequestDetails;
  outcomes: ListenerOutcome[];
  /** The journal's note on how the request ended (see WebRequestEntry.ending). */
  ending?: WebRequestEntry['ending'];
}

/** One WebSocket message of a 101's connection (the proxy reads them off the spliced bytes). */
export interface WebSocketMessageRecord extends CapturedBody {
  direction: 'send' | 'receive';
  opcode: 'text' | 'binary' | 'close' | 'ping' | 'pong';
  /** Epoch ms it was read. */
  time: number;
  /** permessage-deflate compressed it: `bytes` are compressed. */
  compressed?: boolean;
}

/** Messages a record keeps (the oldest go past it, counted); the bytes are held within --body-memory. */
export const MAX_WEBSOCKET_MESSAGES = 5000;

export interface CapturedBody {
  /** As they crossed the wire (still content-encoded): all of it, or its first --max-body-size bytes. */
  bytes: Uint8Array;
  /** Bytes that crossed the wire in all. */
  size: number;
  /** False when `bytes` is not the whole body (cut at --max-body-size, or dropped). */
  complete: boolean;
  /** Let go to keep the TUI's bodies in budget (body-budget.ts): `bytes` is empty. */
  dropped?: boolean;
  /** Already decoded whatever the headers' Content-Encoding says (a replayed HAR's content). */
  decoded?: boolean;
}

export interface AttributedCookieChange {
  time: number;
  changeInfo: CookieChangeInfo;
}

export interface RequestRecord extends FilterableRequest {
  /** Arrival order, 1-based; the list is sorted by it. */
  readonly ordinal: number;
  readonly requestId: string;
  /** timeStamp of the first onBeforeRequest. */
  readonly startedAt: number;
  /** Bumped on every change, so a memoised row knows to redraw. */
  revision: number;
  /** The URL of the first hop (url is the latest hop's). */
  readonly firstUrl: string;
  hops: number;
  /** The URLs of the earlier hops of a redirect chain, first first; the filter matches them too. */
  earlierUrls: string[];
  /** Where the latest redirect pointed, until its next hop starts. */
  redirectTarget: string | undefined;
  /** The client took the 3xx as its answer (curl without -L, fetch's redirect: "manual"). */
  redirectNotFollowed: boolean;
  /** The response came from wrtui's HTTP cache (details.fromCache). */
  fromCache: boolean;
  /** The breakpoint stage the request waits at for the user's answer, if it does. */
  pausedAt?: string | undefined;
  /** What a listener at that stage was given (the detail pane shows it). */
  pausedDetails?: WebRequestDetails | undefined;
  statusLine: string | undefined;
  /** timeStamp of onCompleted / onErrorOccurred. */
  endedAt: number | undefined;
  events: TimelineEvent[];
  /** As shown to onBeforeSendHeaders listeners (before rules changed them). */
  requestHeaders: HttpHeaders | undefined;
  /** In a replay: how the request compares with its recording (what changed, one line each). */
  replayDiff?: { identical: boolean; changes: string[]; lines: string[] } | undefined;
  /** In a replay's re-run: still the last run's record, until the run under way replays this request. */
  replayStale?: boolean;
  /** What wrtui itself added to the client's headers on this hop (jar cookies, credentials). */
  wrtuiAdded: WrtuiAddedHeader[] | undefined;
  /** An extension made it itself (its own fetch). */
  madeBy: { extension: string; origin: string } | undefined;
  /** A WebSocket's messages after its 101, oldest first; undefined for every other request. */
  wsMessages?: WebSocketMessageRecord[] | undefined;
  /** Messages let go past MAX_WEBSOCKET_MESSAGES. */
  wsMessagesDropped?: number;
  /** wrtui resent it (r, e) from this request, which R selects. */
  resentFrom?: { ordinal: number; requestId: string } | undefined;
  /** An attached browser (`wrtui browser`) did not describe it: its type, frames and tab are inferred from headers. */
  inferred: boolean;
  /** As sent upstream (onSendHeaders). */
  sentHeaders: HttpHeaders | undefined;
  requestBody: WebRequestBody | undefined;
  responseHeaders: HttpHeaders | undefined;
  /**
   * What rules (listeners, declarativeNetRequest) changed in the response headers between what
   * the server sent (onHeadersReceived) and what the client got; only when they changed any.
   */
  responseHeaderChanges: { added: HttpHeaders; removed: HttpHeaders } | undefined;
  /** Every Set-Cookie received, per hop, in order. */
  setCookieHeaders: string[];
  requestBytes: CapturedBody | undefined;
  responseBytes: CapturedBody | undefined;
  /** The response as the client got it after StreamFilters rewrote it (Firefox's filterResponseData). */
  deliveredBytes: (CapturedBody & { filteredBy?: string[] }) | undefined;
  /** Content-Length of the response, or the body size when the journal had it. */
  responseSize: number | undefined;
  verdicts: Set<RuleVerdict>;
  rules: Set<string>;
  /** What dry-run rules would have done ("block-trackers: would cancel"). */
  dryRunNotes: string[];
  /** What declarativeNetRequest rules did to it, point by point. */
  dnr: DnrEntry[];
  cookieChanges: AttributedCookieChange[];
  /** Cookie names of this hop's Set-Cookie headers not yet seen as cookieChanged entries. */
  awaitingCookies: Set<string> | undefined;
  /** What wrtui logged about this request (a StreamFilter's pass, a failure's cause), oldest first. */
  notes: RequestNote[];
}

/** A log entry about the request, as the Timeline tab shows it. */
export type RequestNote = Pick<LogEntry, 'level' | 'source' | 'message'>;

/** Notes kept per request: the first ones say what happened; a request logged about without end keeps no more. */
export const MAX_NOTES = 20;

export function createRecord(ordinal: number, entry: WebRequestEntry): RequestRecord {
  const details = entry.details;
  const { host, path } = splitUrl(details.url);
  return {
    ordinal,
    requestId: details.requestId,
    startedAt: details.timeStamp,
    revision: 0,
    firstUrl: details.url,
    url: details.url,
    host,
    path,
    method: details.method,
    type: details.type,
    tabId: details.tabId,
    hops: 0,
    earlierUrls: [],
    redirectTarget: undefined,
    redirectNotFollowed: false,
    fromCache: false,
    statusCode: undefined,
    statusLine: undefined,
    error: undefined,
    phase: 'pending',
    endedAt: undefined,
    events: [],
    requestHeaders: undefined,
    wrtuiAdded: undefined,
    madeBy: undefined,
    inferred: false,
    sentHeaders: undefined,
    requestBody: undefined,
    responseHeaders: undefined,
    responseHeaderChanges: undefined,
    setCookieHeaders: [],
    requestBytes: undefined,
    responseBytes: undefined,
    deliveredBytes: undefined,
    responseSize: undefined,
    verdicts: new Set(),
    rules: new Set(),
    dryRunNotes: [],
    dnr: [],
    cookieChanges: [],
    awaitingCookies: undefined,
    notes: [],
  };
}

/** Folds one webRequest entry into its record. */
export function applyWebRequestEntry(record: RequestRecord, entry: WebRequestEntry): void {
  const { event, details, outcomes } = entry;
  record.revision++;
  if (record.events.length < MAX_EVENTS_PER_REQUEST) record.events.push({ event, timeStamp: details.timeStamp, details, outcomes, ...(entry.ending && { ending: entry.ending }) });
  for (const outcome of outcomes) noteOutcome(record, outcome);
  // A cookie change can only be caused by the hop whose headers just arrived.
  if (event !== 'onHeadersReceived') record.awaitingCookies = undefined;

  switch (event) {
    case 'onBeforeRequest': {
      const before = details as OnBeforeRequestDetails;
      record.hops++;
      if (entry.madeBy) record.madeBy = entry.madeBy;
      if (entry.inferred) record.inferred = true;
      if (record.hops > 1) {
        // A new hop of a redirect chain: what we knew of the response was the previous hop's.
        if (record.earlierUrls.length < MAX_EVENTS_PER_REQUEST) record.earlierUrls.push(record.url);
        record.redirectTarget = undefined;
        record.url = before.url;
        ({ host: record.host, path: record.path } = splitUrl(before.url));
        record.method = before.method;
        record.statusCode = undefined;
        record.statusLine = undefined;
        record.responseHeaders = undefined;
        record.responseHeaderChanges = undefined;
        record.responseSize = undefined;
      }
      if (before.requestBody) record.requestBody = before.requestBody;
      return;
    }
    case 'onBeforeSendHeaders':
      record.requestHeaders = (details as { requestHeaders?: HttpHeaders }).requestHeaders;
      record.wrtuiAdded = entry.wrtuiAdded;
      return;
    case 'onSendHeaders':
      record.sentHeaders = (details as { requestHeaders?: HttpHeaders }).requestHeaders;
      return;
    case 'onHeadersReceived':
    case 'onAuthRequired':
    case 'onResponseStarted': {
      const response = details as OnHeadersReceivedDetails;
      if (event === 'onResponseStarted') record.fromCache = (details as { fromCache?: boolean }).fromCache === true;
      record.statusCode = response.statusCode;
      record.statusLine = response.statusLine;
      if (event === 'onHeadersReceived') record.responseHeaderChanges = undefined;
      // The server's headers (from onHeadersReceived) against the client's: what rules changed.
      else if (event === 'onResponseStarted' && record.responseHeaders && response.responseHeaders) record.responseHeaderChanges = headerChanges(record.responseHeaders, response.responseHeaders);
      if (response.responseHeaders) {
        record.responseHeaders = response.responseHeaders;
        record.responseSize = contentLength(response.responseHeaders) ?? record.responseBytes?.size;
      }
      if (event === 'onHeadersReceived') {
        const setCookies = headerValues(response.responseHeaders, 'set-cookie');
        record.setCookieHeaders.push(...setCookies);
        record.awaitingCookies = setCookies.length > 0 ? new Set(setCookies.map(cookieNameOf)) : undefined;
      }
      return;
    }
    case 'onBeforeRedirect': {
      const redirect = details as OnBeforeRedirectDetails;
      record.statusCode = redirect.statusCode;
      record.statusLine = redirect.statusLine;
      record.redirectTarget = redirect.redirectUrl;
      // A listener's or DNR's redirect has no onHeadersReceived: its Location lives here.
      if (redirect.responseHeaders) record.responseHeaders = redirect.responseHeaders;
      // To data: or about:blank the request ends here (wrtui answers the client itself): nothing more comes.
      if (!seenByWebRequest(redirect.redirectUrl)) {
        record.phase = 'completed';
        record.endedAt = redirect.timeStamp;
      }
      return;
    }
    case 'onCompleted': {
      const completed = details as OnCompletedDetails;
      record.statusCode = completed.statusCode;
      record.statusLine = completed.statusLine;
      if (completed.responseHeaders) {
        record.responseHeaders = completed.responseHeaders;
        record.responseSize = contentLength(completed.responseHeaders) ?? record.responseBytes?.size ?? record.responseSize;
      }
      record.phase = 'completed';
      record.endedAt = completed.timeStamp;
      return;
    }
    case 'onErrorOccurred': {
      const failed = details as OnErrorOccurredDetails;
      if (entry.ending === 'redirect-not-followed') {
        // Chrome says net::ERR_ABORTED; for the client the request completed with the 3xx, when
        // the redirect arrived (the end came later, when wrtui gave up waiting for a follow-up).
        record.redirectNotFollowed = true;
        record.phase = 'completed';
        record.endedAt = record.events.findLast((timed) => timed.event === 'onBeforeRedirect')?.timeStamp ?? failed.timeStamp;
        return;
      }
      record.error = failed.error;
      record.phase = 'failed';
      record.endedAt = failed.timeStamp;
      if (failed.error === 'net::ERR_BLOCKED_BY_CLIENT' && !record.verdicts.has('dry-run')) record.verdicts.add('cancelled');
      return;
    }
  }
}

/** Folds a declarativeNetRequest entry: its effect counts as a verdict, each extension as a rule that acted. */
export function applyDnrEntry(record: RequestRecord, entry: DnrEntry): void {
  record.revision++;
  if (record.dnr.length < MAX_EVENTS_PER_REQUEST) record.dnr.push(entry);
  for (const match of entry.matches) if (match.status !== 'outranked') record.rules.add(match.extension);
  if (entry.dryRun) {
    record.verdicts.add('dry-run');
    if (record.dryRunNotes.length < MAX_DRY_RUN_NOTES) record.dryRunNotes.push(`${entry.matches[0]?.extension ?? 'DNR'}: rule ${entry.matches[0]?.ruleId ?? '?'} would ${entry.effect}`);
    return;
  }
  if (entry.effect === 'redirect' || entry.effect === 'upgradeScheme') record.verdicts.add('redirected');
  else if (entry.effect === 'modifyHeaders') record.verdicts.add(entry.stage === 'onBeforeSendHeaders' ? 'request-headers' : 'response-headers');
  // A block shows as `cancelled` once its onErrorOccurred arrives (net::ERR_BLOCKED_BY_CLIENT).
}

/** Folds a body entry into its record; returns the body now held (for the store's budget). */
export function applyBodyEntry(record: RequestRecord, entry: BodyEntry): CapturedBody {
  record.revision++;
  const body: CapturedBody = {
    // A copy only when the bytes are a view into a larger (pooled) buffer we must not keep alive.
    bytes: entry.bytes.byteOffset === 0 && entry.bytes.byteLength === entry.bytes.buffer.byteLength ? entry.bytes : new Uint8Array(entry.bytes),
    size: entry.size ?? entry.bytes.length,
    complete: entry.complete,
    ...(entry.decoded && { decoded: true }),
  };
  if (entry.direction === 'request') record.requestBytes = body;
  else if (entry.filteredBy) record.deliveredBytes = { ...body, filteredBy: entry.filteredBy };
  else {
    record.responseBytes = body;
    // What crossed the wire, chunked responses included (Content-Length said it already otherwise);
    // a decoded body's length is not that.
    if (!entry.decoded && (entry.size !== undefined || entry.complete)) record.responseSize = body.size;
  }
  return body;
}

/**
 * Whether this cookie change was caused by the record's latest Set-Cookie headers: the record is
 * between onHeadersReceived and its next event, one of those headers names the cookie, and the
 * request's host domain-matches the cookie. The engine stores cookies synchronously right there,
 * so this is exact for one request at a time and a close guess when two set the same cookie.
 */
export function claimCookieChange(record: RequestRecord, change: AttributedCookieChange): boolean {
  const awaiting = record.awaitingCookies;
  const cookie = change.changeInfo.cookie;
  if (!awaiting?.has(cookie.name)) return false;
  const domain = cookie.domain.replace(/^\./, '').replace(/^\[|\]$/g, '').toLowerCase();
  const host = hostnameOf(record.host).toLowerCase();
  if (host !== domain && !host.endsWith(`.${domain}`)) return false;
  if (record.cookieChanges.length < MAX_COOKIE_CHANGES_PER_REQUEST) record.cookieChanges.push(change);
  // An overwrite is reported as the old cookie's removal, then the new one's insertion: keep
  // waiting for the insertion.
  if (!(change.changeInfo.removed && change.changeInfo.cause === 'overwrite')) awaiting.delete(cookie.name);
  if (awaiting.size === 0) record.awaitingCookies = undefined;
  record.revision++;
  return true;
}

function noteOutcome(record: RequestRecord, outcome: ListenerOutcome): void {
  record.rules.add(outcome.owner);
  switch (outcome.status) {
    case 'applied':
      for (const verdict of verdictsOf(outcome.response)) record.verdicts.add(verdict);
      return;
    case 'dry-run':
      record.verdicts.add('dry-run');
      if (record.dryRunNotes.length < MAX_DRY_RUN_NOTES) record.dryRunNotes.push(`${outcome.owner}: ${outcome.reason ?? 'would answer'}`);
      return;
    case 'failed':
      record.verdicts.add('failed');
      return;
    case 'ignored':
      record.verdicts.add('ignored');
      return;
  }
}

function verdictsOf(response: BlockingResponse | undefined): RuleVerdict[] {
  if (!response) return [];
  const verdicts: RuleVerdict[] = [];
  if (response.cancel) verdicts.push('cancelled');
  if (response.redirectUrl !== undefined) verdicts.push('redirected');
  if (response.requestHeaders) verdicts.push('request-headers');
  if (response.responseHeaders) verdicts.push('response-headers');
  if (response.authCredentials) verdicts.push('auth');
  return verdicts;
}

/** What dry-run rules would have done, as the list marks it: cancel, redir, hdrs, auth. */
export function dryRunKinds(record: RequestRecord): string[] {
  const kinds = new Set<string>();
  for (const event of record.events) {
    for (const outcome of event.outcomes) {
      if (outcome.status !== 'dry-run') continue;
      const response = outcome.response;
      if (response?.cancel) kinds.add('cancel');
      else if (response?.redirectUrl !== undefined) kinds.add('redir');
      else if (response?.requestHeaders || response?.responseHeaders) kinds.add('hdrs');
      else if (response?.authCredentials) kinds.add('auth');
    }
  }
  return [...kinds];
}

/** A header's value as the detail pane shows it (a binary one as hex). */
export function shownHeaderValue(header: HttpHeader): string {
  return header.value ?? `<binary ${Buffer.from(header.binaryValue ?? []).toString('hex')}>`;
}

/** A header line as a key to compare lines by: the name lower-cased, and the value (a binary one as hex). */
export function headerLineKey(header: HttpHeader): string {
  return `${header.name.toLowerCase()}: ${header.value ?? Buffer.from(header.binaryValue ?? []).toString('hex')}`;
}

/** The listeners' outcomes of the latest `event` of the hop the record is at (none once a new hop began without one). */
export function latestOutcomes(record: RequestRecord, event: WebRequestEventName): ListenerOutcome[] {
  for (let index = record.events.length - 1; index >= 0; index--) {
    const seen = record.events[index]!;
    if (seen.event === event) return seen.outcomes;
    if (seen.event === 'onBeforeRequest') return [];
  }
  return [];
}

/** What declarativeNetRequest applied (not dry-run) at `stage` of the hop the record is at, oldest first. */
export function hopDnrEntries(record: RequestRecord, stage: DnrEntry['stage']): DnrEntry[] {
  return record.dnr.filter((entry) => entry.stage === stage && entry.url === record.url && !entry.dryRun);
}

/** Lines `after` has that `before` had not, and the other way round; undefined when the same. */
export function headerChanges(before: HttpHeaders, after: HttpHeaders): RequestRecord['responseHeaderChanges'] {
  if (before === after) return undefined;
  if (before.length === after.length && before.every((header, index) => sameLine(header, after[index]!))) return undefined;
  const added = after.filter((header) => !before.some((other) => sameLine(header, other)));
  const removed = before.filter((header) => !after.some((other) => sameLine(header, other)));
  return added.length > 0 || removed.length > 0 ? { added, removed } : undefined;
}

function sameLine(a: HttpHeader, b: HttpHeader): boolean {
  if (a.name.toLowerCase() !== b.name.toLowerCase()) return false;
  if (a.value !== undefined || b.value !== undefined) return a.value === b.value;
  return Buffer.from(a.binaryValue ?? []).equals(Buffer.from(b.binaryValue ?? []));
}

export function headerValues(headers: HttpHeaders | undefined, name: string): string[] {
  if (!headers) return [];
  const values: string[] = [];
  for (const header of headers) {
    if (header.name.toLowerCase() !== name) continue;
    values.push(header.value ?? Buffer.from(header.binaryValue ?? []).toString('latin1'));
  }
  return values;
}

/** The Content-Encoding to undo to read `body`: none when it is already decoded (a replayed HAR's). */
export function bodyEncoding(body: { decoded?: boolean } | undefined, headers: HttpHeaders | undefined): string | undefined {
  return body?.decoded ? undefined : headerValue(headers, 'content-encoding');
}

export function headerValue(headers: HttpHeaders | undefined, name: string): string | undefined {
  return headerValues(headers, name)[0];
}

function contentLength(headers: HttpHeaders): number | undefined {
  const value = headerValue(headers, 'content-length');
  if (value === undefined) return undefined;
  const length = Number(value);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

function cookieNameOf(setCookie: string): string {
  const pair = setCookie.split(';', 1)[0] ?? '';
  const equals = pair.indexOf('=');
  return (equals === -1 ? '' : pair.slice(0, equals)).trim();
}
