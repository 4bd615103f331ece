// The plain `wrtui headless` output: one line per finished request, plus rules' and wrtui's
// warnings. A subscriber of the journal like any other.
import type { JournalEntry, ListenerOutcome } from '../engine/journal.js';
import type { OnBeforeRedirectDetails, OnCompletedDetails, OnErrorOccurredDetails } from '../engine/types.js';
import { describeRuntime } from '../engine/extensions/runtime-description.js';
import { describeQuota } from '../engine/web-request/quota-description.js';

interface Pending {
  startedAt: number;
  marks: Set<string>;
  firstUrl: string;
  /** The latest redirect: its status, target and time. */
  redirect?: { statusCode: number; to: string; at: number };
}

/**
 * The webRequest events the request lines are made of: a request's start, its redirects, its end
 * (an event that a listener got is journaled anyway, and its outcomes mark the line).
 */
export const REQUEST_LOG_EVENTS = ['onBeforeRequest', 'onBeforeRedirect', 'onCompleted', 'onErrorOccurred'] as const;

export interface RequestLog {
  (entry: JournalEntry): void;
  /** One line for the end of a run: requests seen, how they ended, what rules did. */
  summary(): string;
}

export function createRequestLog(write: (line: string) => void): RequestLog {
  const pending = new Map<string, Pending>();
  const counts = { requests: 0, failed: 0, byRules: 0, rules: new Set<string>() };
  // Once wrtui is stopping, rules unloading one by one is not news: the summary says it once.
  let stopping = false;
  const log = (entry: JournalEntry) => {
    switch (entry.kind) {
      case 'listening':
        write(`wrtui listening on ${entry.url}${entry.incognitoUrl ? ` (incognito store on ${entry.incognitoUrl})` : ''}`);
        return;
      case 'rule':
        if (entry.action === 'loaded' || entry.action === 'reloaded') counts.rules.add(entry.rule);
        if (stopping && entry.action === 'unloaded') return;
        write(`rule ${entry.rule} ${entry.action}${entry.message ? `: ${entry.message}` : ''}${entry.location ? ` (${entry.location})` : ''}`);
        return;
      case 'log':
        if (entry.source === 'wrtui' && entry.message.startsWith('stopping')) stopping = true;
        if (entry.level === 'warn' || entry.level === 'error') write(`${entry.level} [${entry.source}] ${entry.message}`);
        return;
      case 'runtime':
        // Faults, restarts and give-ups; a worker that simply started is not news.
        if (entry.state === 'restarting' || entry.state === 'crashed' || (entry.state === 'running' && entry.restarts > 0)) write(`worker ${entry.owner} ${describeRuntime(entry)}`);
        return;
      case 'handlerBehaviorChanged':
        if (!entry.accepted) write(`handlerBehaviorChanged${entry.madeBy === 'reload' ? ' (called by wrtui on reloading the rule)' : ''} refused for ${entry.owner}, caches not flushed: ${describeQuota({ ...entry, refused: entry.refused ?? 0 }, entry.time)}`);
        return;
      case 'dnr': {
        // declarativeNetRequest rules that acted: named like a rule's verdict, with their ruleset and id.
        const request = pending.get(entry.requestId);
        for (const match of entry.matches) if (request && match.status !== 'outranked') request.marks.add(`${match.extension} ${match.status === 'dry-run' ? 'dry-run: would' : 'applied'} ${match.action} (DNR ${match.rulesetId}#${match.ruleId})`);
        return;
      }
      case 'webRequest': {
        const { requestId } = entry.details;
        let request = pending.get(requestId);
        if (!request) pending.set(requestId, (request = { startedAt: entry.details.timeStamp, marks: new Set(), firstUrl: entry.details.url }));
        for (const outcome of entry.outcomes) request.marks.add(markOf(outcome));
        if (entry.event === 'onBeforeRedirect') {
          const redirect = entry.details as OnBeforeRedirectDetails;
          request.redirect = { statusCode: redirect.statusCode, to: redirect.redirectUrl, at: redirect.timeStamp };
        }
        if (entry.event !== 'onCompleted' && entry.event !== 'onErrorOccurred') return;
        pending.delete(requestId);
        counts.requests++;
        if (entry.event === 'onErrorOccurred' && entry.ending === undefined) counts.failed++;
        if (request.marks.size > 0) counts.byRules++;
        const details = entry.details as OnCompletedDetails | OnErrorOccurredDetails;
        // A redirect the client took as its answer ended the request then, with that status.
        const unfollowed = entry.ending === 'redirect-not-followed' ? request.redirect : undefined;
        const result = unfollowed ? String(unfollowed.statusCode) : 'error' in details ? details.error : String(details.statusCode);
        const ms = Math.round((unfollowed?.at ?? details.timeStamp) - request.startedAt);
        const marks = request.marks.size > 0 ? `  [${[...request.marks].join('; ')}]` : '';
        const chain = unfollowed
          ? `  (redirect to ${unfollowed.to} not followed)`
          : request.firstUrl !== details.url
            ? `  (redirected from ${request.firstUrl})`
            : '';
        write(`${clock(entry.time)} ${details.method.padEnd(6)} ${result.padEnd(3)} ${details.type.padEnd(14)} ${details.url}${chain}  ${ms} ms${marks}`);
        return;
      }
      default:
        return;
    }
  };
  log.summary = () => {
    const { requests, failed, byRules, rules } = counts;
    const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;
    return `${plural(requests, 'request')} (${failed} failed, ${byRules} touched by rules), ${plural(rules.size, 'rule')} loaded${pending.size > 0 ? `, ${pending.size} still in flight at the end` : ''}`;
  };
  return log;
}

function markOf(outcome: ListenerOutcome): string {
  const what = outcome.reason ?? outcome.status;
  return `${outcome.owner} ${outcome.status}${outcome.status === 'applied' ? ` ${outcome.event}` : `: ${what}`}`;
}

function clock(time: number): string {
  return new Date(time).toISOString().slice(11, 23);
}
