// Merges the BlockingResponses of several owners into what the request does, and says for each
// answer whether it was applied, ignored (and why) or only computed (dry-run). Precedence follows
// Chrome: the owner with the higher precedence (by default the one installed last) wins conflicts.
//   1. cancel wins over everything.
//   2. redirectUrl: redirects to data: and about:blank first (Chrome treats them like a cancel),
//      then by precedence; other owners' different redirects are ignored.
//   3. requestHeaders: each owner's change is a delta against the headers it was shown; a delta
//      that touches a header a higher-precedence delta already set differently or removed is
//      ignored whole.
//   4. responseHeaders: one owner per request may change them (§2.8); the first to do so keeps that right.
//   5. authCredentials: the highest precedence wins.
import { describeVerdict } from './blocking-response.js';
import type { ListenerOutcome } from '../journal.js';
import { describeHeaderDelta, headerDelta, type HeaderDelta } from './header-delta.js';
import type { IgnoredAction, Owner } from '../owner.js';
import type { AuthCredentials, BlockingResponse, HttpHeaders, WebRequestEventName } from '../types.js';
import { sortSmall, type ListenerAnswer } from './dispatch.js';

export interface MergedVerdict {
  cancelledBy?: string;
  /** Whose cancel it was (a cancel in onAuthRequired means different things in Chrome and Firefox). */
  canceller?: Owner;
  /** Firefox's upgradeToSecure (onBeforeRequest), when nobody redirected. */
  upgradeToSecure?: boolean;
  redirectUrl?: string;
  requestHeaders?: HttpHeaders;
  responseHeaders?: HttpHeaders;
  authCredentials?: AuthCredentials;
}

export interface MergeContext {
  event: WebRequestEventName;
  /** The engine-wide dry-run switch. */
  dryRun: boolean;
  /** The headers the listeners were shown (onBeforeSendHeaders), to compute deltas against. */
  shownRequestHeaders?: HttpHeaders;
  /** The response headers the listeners were shown (onHeadersReceived), to say what dry-run would change. */
  shownResponseHeaders?: HttpHeaders;
  /** The owner that already changed this request's responseHeaders, if any. */
  responseHeadersOwner?: string;
}

export interface MergeResult {
  verdict: MergedVerdict;
  outcomes: ListenerOutcome[];
  /** Set when this merge gave an owner the request's responseHeaders right. */
  responseHeadersOwner?: string;
  /** Answers that lost a conflict to another owner's (Chrome tells those owners with onActionIgnored). */
  ignoredActions: { owner: Owner; action: IgnoredAction }[];
}

export function mergeVerdicts(answers: readonly ListenerAnswer[], context: MergeContext): MergeResult {
  // Most answers change nothing (a listener that only looks): nothing to order, merge or journal.
  if (changesNothing(answers)) return { verdict: {}, outcomes: [], ignoredActions: [] };
  const outcomes: ListenerOutcome[] = [];
  const live: { owner: string; ownerRef: Owner; response: BlockingResponse; durationMs: number; outcome: ListenerOutcome }[] = [];
  const ignoredActions: MergeResult['ignoredActions'] = [];

  // Highest precedence first; one owner's listeners in registration order.
  const ordered = answers.length < 2 ? answers : sortSmall([...answers], byPrecedence);
  for (const { listener, checked, durationMs } of ordered) {
    if (checked.kind === 'invalid') continue; // reported by dispatch
    const unused = checked.unusedKeys.length > 0 ? `${checked.unusedKeys.join(', ')} not used in ${context.event}` : undefined;
    const base = { owner: listener.owner.id, event: context.event, durationMs };
    if (checked.kind === 'empty') {
      if (unused) outcomes.push({ ...base, status: 'ignored', reason: unused });
      continue;
    }
    const response = checked.response;
    if (context.dryRun || listener.owner.dryRun) {
      outcomes.push({ ...base, status: 'dry-run', response, reason: `would ${describeDryRun(response, context)}${unused ? `; ${unused}` : ''}` });
      continue;
    }
    const outcome: ListenerOutcome = { ...base, status: 'applied', response, ...(unused && { reason: unused }) };
    outcomes.push(outcome);
    live.push({ owner: listener.owner.id, ownerRef: listener.owner, response, durationMs, outcome });
  }

  const verdict: MergedVerdict = {};
  const ignore = (outcome: ListenerOutcome, reason: string) => {
    outcome.status = 'ignored';
    outcome.reason = reason;
  };
  /** An answer that lost a conflict: ignored, and its owner told which action was. */
  const lose = (answer: (typeof live)[number], reason: string, action?: IgnoredAction) => {
    ignore(answer.outcome, reason);
    const response = answer.response;
    const lost = action ?? (response.redirectUrl !== undefined ? 'redirect' : response.requestHeaders ? 'request_headers' : response.responseHeaders ? 'response_headers' : response.authCredentials ? 'auth_credentials' : undefined);
    if (lost) ignoredActions.push({ owner: answer.ownerRef, action: lost });
  };

  // 1. cancel
  const canceller = live.find((answer) => answer.response.cancel);
  if (canceller) {
    verdict.cancelledBy = canceller.owner;
    verdict.canceller = canceller.ownerRef;
    for (const answer of live) if (!answer.response.cancel) ignore(answer.outcome, `request cancelled by ${canceller.owner}`);
    return { verdict, outcomes, ignoredActions };
  }

  // 2. redirectUrl
  const redirects = live.filter((answer) => answer.response.redirectUrl !== undefined);
  const cancelLike = (url: string) => url.startsWith('data:') || url === 'about:blank';
  const redirector = redirects.find((answer) => cancelLike(answer.response.redirectUrl!)) ?? redirects[0];
  if (redirector) {
    verdict.redirectUrl = redirector.response.redirectUrl!;
    for (const answer of live) {
      if (answer === redirector) continue;
      if (answer.response.redirectUrl === verdict.redirectUrl) continue; // the same redirect agrees
      if (answer.response.redirectUrl !== undefined) lose(answer, `conflicts with ${redirector.owner}'s redirect to ${verdict.redirectUrl}`, 'redirect');
      else lose(answer, `request redirected by ${redirector.owner}`);
    }
    return { verdict, outcomes, ignoredActions };
  }
  if (live.some((answer) => answer.response.upgradeToSecure)) verdict.upgradeToSecure = true;

  // 3. requestHeaders
  const headerAnswers = live.filter((answer) => answer.response.requestHeaders);
  if (headerAnswers.length === 1) {
    // One owner: exactly its headers, order and case kept (no delta needed: nothing to conflict with).
    verdict.requestHeaders = headerAnswers[0]!.response.requestHeaders!;
  } else if (headerAnswers.length > 1) {
    const shown = context.shownRequestHeaders ?? [];
    const accepted: { owner: string; delta: HeaderDelta; headers: HttpHeaders }[] = [];
    for (const answer of headerAnswers) {
      const delta = headerDelta(shown, answer.response.requestHeaders!);
      const clash = accepted.map((other) => conflictBetween(delta, other.delta) && { other, header: conflictBetween(delta, other.delta)! }).find(Boolean);
      if (clash) lose(answer, `conflicts with ${clash.other.owner} on request header "${clash.header}"`, 'request_headers');
      else accepted.push({ owner: answer.owner, delta, headers: answer.response.requestHeaders! });
    }
    // One owner: exactly its headers, order and case kept. Several: their deltas on top of what they were shown.
    verdict.requestHeaders = accepted.length === 1 ? accepted[0]!.headers : applyDeltas(shown, accepted.map((a) => a.delta));
  }

  // 4. responseHeaders
  let responseHeadersOwner: string | undefined;
  for (const answer of live.filter((a) => a.response.responseHeaders)) {
    const holder = context.responseHeadersOwner ?? responseHeadersOwner;
    if (holder === undefined || holder === answer.owner) {
      if (verdict.responseHeaders) {
        lose(answer, `another listener of ${answer.owner} already set responseHeaders for this event`, 'response_headers');
        continue;
      }
      verdict.responseHeaders = answer.response.responseHeaders!;
      if (context.responseHeadersOwner === undefined) responseHeadersOwner = answer.owner;
    } else {
      lose(answer, `only one rule may modify responseHeaders per request (§2.8); ${holder} already does`, 'response_headers');
    }
  }

  // 5. authCredentials
  const authAnswers = live.filter((answer) => answer.response.authCredentials);
  if (authAnswers.length > 0) {
    verdict.authCredentials = authAnswers[0]!.response.authCredentials!;
    for (const answer of authAnswers.slice(1)) lose(answer, `${authAnswers[0]!.owner}'s credentials were used`, 'auth_credentials');
  }

  return { verdict, outcomes, ignoredActions, ...(responseHeadersOwner !== undefined && { responseHeadersOwner }) };
}

const byPrecedence = (a: ListenerAnswer, b: ListenerAnswer) => b.listener.owner.precedence - a.listener.owner.precedence || a.listener.id - b.listener.id;

function changesNothing(answers: readonly ListenerAnswer[]): boolean {
  for (const { checked } of answers) {
    if (checked.kind === 'valid' || (checked.kind === 'empty' && checked.unusedKeys.length > 0)) return false;
  }
  return true;
}

/** The header two deltas disagree on, if any. */
function conflictBetween(mine: HeaderDelta, theirs: HeaderDelta): string | undefined {
  for (const [key, group] of mine.set) {
    const other = theirs.set.get(key);
    if (theirs.removed.has(key) || (other && other.values.join('\n') !== group.values.join('\n'))) return group.name;
  }
  for (const key of mine.removed) if (theirs.set.has(key)) return theirs.set.get(key)!.name;
  return undefined;
}

function applyDeltas(base: HttpHeaders, deltas: HeaderDelta[]): HttpHeaders {
  let headers = base.map((header) => ({ ...header }));
  for (const delta of deltas) {
    headers = headers.filter((header) => !delta.removed.has(header.name.toLowerCase()) && !delta.set.has(header.name.toLowerCase()));
    for (const { name, values } of delta.set.values()) for (const value of values) headers.push({ name, value });
  }
  return headers;
}

/**
 * What a dry-run answer would do, in words a user can check: the headers it would add, change
 * and remove (against what the listener was shown), the redirect target, and so on.
 */
function describeDryRun(response: BlockingResponse, context: MergeContext): string {
  const parts: string[] = [];
  const { requestHeaders, responseHeaders, ...rest } = response;
  const others = describeVerdict(rest);
  if (others) parts.push(others);
  if (requestHeaders) parts.push(context.shownRequestHeaders ? `${describeHeaderDelta(headerDelta(context.shownRequestHeaders, requestHeaders), context.shownRequestHeaders)} (request)` : `set request headers (${requestHeaders.length})`);
  if (responseHeaders) parts.push(context.shownResponseHeaders ? `${describeHeaderDelta(headerDelta(context.shownResponseHeaders, responseHeaders), context.shownResponseHeaders)} (response)` : `set response headers (${responseHeaders.length})`);
  return parts.join(', ');
}
