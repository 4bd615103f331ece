// How a replayed request differs from its recording, in the terms a rule author thinks in:
// newly blocked, no longer blocked, redirected differently, different request headers sent,
// different response headers, different final status, different cookies, different listener
// outcomes. `identical` is the strict comparison of event-signature.ts (every event and outcome)
// plus the cookie changes the request caused; the categories explain a difference. When blocking
// changed, only that and the status are reported: the rest (headers never sent, no response)
// follows from it.
import type { WebRequestEntry } from '../journal.js';
import {
  ERR_BLOCKED_BY_CLIENT,
  type CookieChangeInfo,
  type HttpHeaders,
  type OnBeforeRedirectDetails,
  type OnCompletedDetails,
  type OnErrorOccurredDetails,
  type OnSendHeadersDetails,
  type WebRequestEventName,
} from '../types.js';
import { canonical, normalizeHeaders, outcomeFact, sameEvent, type OutcomeFact } from './event-signature.js';
import type { RequestTrace } from './request-trace.js';

export type DiffKind =
  | 'newly-blocked'
  | 'no-longer-blocked'
  | 'blocked-differently'
  | 'redirect'
  | 'request-headers'
  | 'response-headers'
  | 'status'
  | 'cookies'
  | 'outcomes'
  | 'dnr-rules'
  | 'events';

export const DIFF_KINDS: readonly DiffKind[] = [
  'newly-blocked', 'no-longer-blocked', 'blocked-differently', 'redirect', 'request-headers',
  'response-headers', 'status', 'cookies', 'outcomes', 'dnr-rules', 'events',
];

/** Who cancelled a request, and at which event. */
export interface BlockFact {
  owner: string;
  event: WebRequestEventName;
}

/**
 * A verdict that was not given: in one run a rule blocked the request, in the other the same
 * rule's listener failed at that event (its worker did not answer in time, or was not responding;
 * it threw), so the request went on without it. Blocking changed because of that, not the rule.
 */
export interface SkippedVerdict {
  /** The run in which it was not given. */
  in: 'recording' | 'replay';
  owner: string;
  event: WebRequestEventName;
  /** Why, in the outcome's words. */
  reason: string;
}

export interface HeaderDiff {
  /** In the replay only. */
  added: HttpHeaders;
  /** In the recording only. */
  removed: HttpHeaders;
}

/** A cookie change as compared (cause `expired` is left out: expiry runs on timers, not requests). */
export interface CookieFact {
  removed: boolean;
  cause: string;
  storeId: string;
  name: string;
  domain: string;
  path: string;
  value: string;
}

export interface RequestDiff {
  /** The request's position in the recording (0-based). */
  index: number;
  method: string;
  url: string;
  type: string;
  recordedRequestId: string;
  replayedRequestId: string | undefined;
  identical: boolean;
  changes: DiffKind[];
  blocked?: { recorded: BlockFact | null; replayed: BlockFact | null };
  /** Blocking changed because the blocking rule's verdict was not given in one of the runs. */
  skippedVerdict?: SkippedVerdict;
  /** Final status code, or the error the request ended with. */
  status?: { recorded: number | string | null; replayed: number | string | null };
  redirects?: { recorded: string[]; replayed: string[] };
  /** Per hop both have, what was sent upstream (onSendHeaders). */
  requestHeaders?: (HeaderDiff & { hop: number; url: string })[];
  /** The final response headers (after listeners). */
  responseHeaders?: HeaderDiff;
  cookies?: { added: CookieFact[]; removed: CookieFact[] };
  outcomes?: { added: OutcomeFact[]; removed: OutcomeFact[] };
  /** declarativeNetRequest rules that acted, as "stage effect extension ruleset#id status". */
  dnr?: { added: string[]; removed: string[] };
  events?: { recorded: string[]; replayed: string[] };
}

interface RequestFacts {
  /** The request's events, compared one by one (sameEvent). */
  entries: readonly WebRequestEntry[];
  eventNames: string[];
  blockedBy: BlockFact | null;
  status: number | string | null;
  redirects: string[];
  sentHeaders: { url: string; headers: HttpHeaders }[];
  responseHeaders: HttpHeaders | undefined;
  cookies: CookieFact[];
  outcomes: OutcomeFact[];
  dnr: string[];
}

export interface RequestIdentity {
  index: number;
  method: string;
  url: string;
  type: string;
  recordedRequestId: string;
}

export function diffRequest(identity: RequestIdentity, recorded: RequestTrace | undefined, replayed: RequestTrace | undefined): RequestDiff {
  const diff: RequestDiff = { ...identity, replayedRequestId: replayed?.requestId, identical: false, changes: [] };
  // Most requests replay as recorded: that is told from the events, cookies and DNR facts alone,
  // before the facts a diff is made of are gathered.
  const cookiesEqual = sameCookieChangesInOrder(recorded?.cookieChanges ?? NO_CHANGES, replayed?.cookieChanges ?? NO_CHANGES) || sameMultiset(cookieFactsOf(recorded).map(canonical), cookieFactsOf(replayed).map(canonical));
  if (cookiesEqual && sameEvents(recorded?.entries ?? [], replayed?.entries ?? []) && sameList(dnrFactsOf(recorded), dnrFactsOf(replayed))) {
    diff.identical = true;
    return diff;
  }
  const before = factsOf(recorded);
  const after = factsOf(replayed);

  const blockChange = blockingChange(before.blockedBy, after.blockedBy);
  if (blockChange) {
    diff.changes.push(blockChange);
    diff.blocked = { recorded: before.blockedBy, replayed: after.blockedBy };
    diff.status = { recorded: before.status, replayed: after.status };
    const skipped = blockChange === 'newly-blocked' ? skippedVerdict('recording', after.blockedBy!, before) : blockChange === 'no-longer-blocked' ? skippedVerdict('replay', before.blockedBy!, after) : undefined;
    if (skipped) diff.skippedVerdict = skipped;
    return diff;
  }
  if (!sameList(before.redirects, after.redirects)) {
    diff.changes.push('redirect');
    diff.redirects = { recorded: before.redirects, replayed: after.redirects };
  }
  const requestHeaders = before.sentHeaders.slice(0, after.sentHeaders.length).flatMap((hop, i) => {
    const headerDiff = diffHeaders(hop.headers, after.sentHeaders[i]!.headers);
    return headerDiff ? [{ hop: i, url: after.sentHeaders[i]!.url, ...headerDiff }] : [];
  });
  if (requestHeaders.length > 0) {
    diff.changes.push('request-headers');
    diff.requestHeaders = requestHeaders;
  }
  const responseHeaders = diffHeaders(before.responseHeaders ?? [], after.responseHeaders ?? []);
  if (responseHeaders) {
    diff.changes.push('response-headers');
    diff.responseHeaders = responseHeaders;
  }
  if (before.status !== after.status) {
    diff.changes.push('status');
    diff.status = { recorded: before.status, replayed: after.status };
  }
  if (!cookiesEqual) {
    diff.changes.push('cookies');
    diff.cookies = multisetDiff(before.cookies, after.cookies);
  }
  const outcomes = multisetDiff(before.outcomes, after.outcomes);
  if (outcomes.added.length + outcomes.removed.length > 0) {
    diff.changes.push('outcomes');
    diff.outcomes = outcomes;
  }
  const dnr = multisetDiffBy(before.dnr, after.dnr, (fact) => fact);
  if (dnr.added.length + dnr.removed.length > 0) {
    diff.changes.push('dnr-rules');
    diff.dnr = dnr;
  }
  if (diff.changes.length === 0) {
    // Only something the categories do not name differs (a type, a requestBody, an extra event).
    diff.changes.push('events');
    diff.events = { recorded: before.eventNames, replayed: after.eventNames };
  }
  return diff;
}

/** Cookie changes that belong to no request, compared for the whole session. */
export function diffCookieChanges(recorded: readonly CookieChangeInfo[], replayed: readonly CookieChangeInfo[]): { added: CookieFact[]; removed: CookieFact[] } {
  return multisetDiff(recorded.flatMap(cookieFact), replayed.flatMap(cookieFact));
}

function factsOf(trace: RequestTrace | undefined): RequestFacts {
  const facts: RequestFacts = {
    entries: trace?.entries ?? [],
    eventNames: [],
    blockedBy: null,
    status: null,
    redirects: [],
    sentHeaders: [],
    responseHeaders: undefined,
    cookies: cookieFactsOf(trace),
    outcomes: [],
    dnr: dnrFactsOf(trace),
  };
  if (!trace) return facts;
  let cancel: BlockFact | null = null;
  for (const entry of trace.dnr) {
    const acted = entry.matches.find((match) => match.status === 'applied');
    if (entry.effect === 'block' && !entry.dryRun && acted) cancel ??= { owner: `${acted.extension} (declarativeNetRequest ${acted.rulesetId}#${acted.ruleId})`, event: entry.stage };
  }
  let hopSent: { url: string; headers: HttpHeaders } | undefined;
  const endHop = () => {
    if (hopSent) facts.sentHeaders.push(hopSent);
    hopSent = undefined;
  };
  for (const entry of trace.entries) {
    facts.eventNames.push(entry.event);
    for (const outcome of entry.outcomes) {
      facts.outcomes.push(outcomeFact(outcome));
      if (outcome.status === 'applied' && outcome.response?.cancel) cancel ??= { owner: outcome.owner, event: entry.event };
    }
    switch (entry.event) {
      case 'onBeforeRequest':
        endHop();
        break;
      case 'onSendHeaders':
        // A credentials retry sends again: the hop's last send is what counts.
        hopSent = { url: entry.details.url, headers: (entry.details as OnSendHeadersDetails).requestHeaders ?? [] };
        break;
      case 'onBeforeRedirect':
        facts.redirects.push((entry.details as OnBeforeRedirectDetails).redirectUrl);
        break;
      case 'onCompleted': {
        const details = entry.details as OnCompletedDetails;
        facts.status = details.statusCode;
        facts.responseHeaders = details.responseHeaders ?? [];
        break;
      }
      case 'onErrorOccurred': {
        const { error } = entry.details as OnErrorOccurredDetails;
        facts.status = error;
        if (error === ERR_BLOCKED_BY_CLIENT) facts.blockedBy = cancel ?? { owner: 'unknown', event: lastBlockingEvent(trace.entries) };
        break;
      }
      default:
        break;
    }
  }
  endHop();
  return facts;
}

const NO_CHANGES: readonly CookieChangeInfo[] = [];

/**
 * The same cookie facts in the same order (expiries aside), compared in place: nearly every
 * replayed request's are. Building, serialising and sorting both lists' facts for every request
 * was 2 % of a replay's main thread without rules; a different order still counts as the same
 * through sameMultiset.
 */
function sameCookieChangesInOrder(a: readonly CookieChangeInfo[], b: readonly CookieChangeInfo[]): boolean {
  let i = 0;
  let j = 0;
  for (;;) {
    while (i < a.length && a[i]!.cause === 'expired') i++;
    while (j < b.length && b[j]!.cause === 'expired') j++;
    if (i === a.length || j === b.length) return i === a.length && j === b.length;
    const x = a[i++]!;
    const y = b[j++]!;
    if (x.removed !== y.removed || x.cause !== y.cause) return false;
    const c = x.cookie;
    const d = y.cookie;
    if (c.storeId !== d.storeId || c.name !== d.name || c.domain !== d.domain || c.path !== d.path || c.value !== d.value) return false;
  }
}

function cookieFactsOf(trace: RequestTrace | undefined): CookieFact[] {
  return trace && trace.cookieChanges.length > 0 ? trace.cookieChanges.flatMap(cookieFact) : [];
}

/** declarativeNetRequest rules that acted, as "stage effect extension ruleset#id status". */
function dnrFactsOf(trace: RequestTrace | undefined): string[] {
  const facts: string[] = [];
  for (const entry of trace?.dnr ?? []) {
    for (const match of entry.matches) facts.push(`${entry.stage} ${entry.effect} ${match.extension} ${match.rulesetId}#${match.ruleId} ${match.status}`);
  }
  return facts;
}

function sameEvents(a: readonly WebRequestEntry[], b: readonly WebRequestEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameEvent(a[i]!, b[i]!)) return false;
  return true;
}

function lastBlockingEvent(entries: readonly WebRequestEntry[]): WebRequestEventName {
  return entries.length > 1 ? entries[entries.length - 2]!.event : 'onBeforeRequest';
}

/** The blocking rule's listener failed at that event in the other run: its verdict was not given there. */
function skippedVerdict(run: SkippedVerdict['in'], blocker: BlockFact, other: RequestFacts): SkippedVerdict | undefined {
  const failed = other.outcomes.find((outcome) => outcome.owner === blocker.owner && outcome.event === blocker.event && outcome.status === 'failed');
  return failed && { in: run, owner: blocker.owner, event: blocker.event, reason: failed.reason ?? 'it failed' };
}

function blockingChange(before: BlockFact | null, after: BlockFact | null): DiffKind | undefined {
  if (!before && after) return 'newly-blocked';
  if (before && !after) return 'no-longer-blocked';
  if (before && after && (before.owner !== after.owner || before.event !== after.event)) return 'blocked-differently';
  return undefined;
}

function diffHeaders(before: HttpHeaders, after: HttpHeaders): HeaderDiff | undefined {
  const key = (header: [string, string]) => `${header[0]}\u0000${header[1]}`;
  const left = normalizeHeaders(before);
  const right = normalizeHeaders(after);
  const { added, removed } = multisetDiffBy(left, right, key);
  if (added.length + removed.length === 0) return undefined;
  const spell = (original: HttpHeaders) => (header: [string, string]) => ({
    name: original.find((h) => h.name.toLowerCase() === header[0])?.name ?? header[0],
    value: header[1],
  });
  return { added: added.map(spell(after)), removed: removed.map(spell(before)) };
}

function cookieFact(change: CookieChangeInfo): CookieFact[] {
  if (change.cause === 'expired') return [];
  const { cookie } = change;
  return [{ removed: change.removed, cause: change.cause, storeId: cookie.storeId, name: cookie.name, domain: cookie.domain, path: cookie.path, value: cookie.value }];
}

function multisetDiff<T>(before: readonly T[], after: readonly T[]): { added: T[]; removed: T[] } {
  return multisetDiffBy(before, after, canonical);
}

function multisetDiffBy<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): { added: T[]; removed: T[] } {
  const counts = new Map<string, number>();
  for (const item of before) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  const added: T[] = [];
  for (const item of after) {
    const left = counts.get(key(item)) ?? 0;
    if (left > 0) counts.set(key(item), left - 1);
    else added.push(item);
  }
  const removed: T[] = [];
  const extra = new Map<string, number>();
  for (const item of after) extra.set(key(item), (extra.get(key(item)) ?? 0) + 1);
  for (const item of before) {
    const left = extra.get(key(item)) ?? 0;
    if (left > 0) extra.set(key(item), left - 1);
    else removed.push(item);
  }
  return { added, removed };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameMultiset(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  return a.length === 0 || sameList([...a].sort(), [...b].sort());
}
