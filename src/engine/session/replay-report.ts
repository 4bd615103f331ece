// The readable `wrtui replay` report (without --json): changes shared by several requests said
// once, then each differing request with its own, then a summary line. Identical requests are
// counted, not listed.
import type { HttpHeaders } from '../types.js';
import type { OutcomeFact } from './event-signature.js';
import type { ReplaySummaryEntry } from './replay-entries.js';
import type { BlockFact, CookieFact, RequestDiff } from './request-diff.js';

/** How many requests a grouped change lists by name before "and N more". */
const GROUP_NAMES_SHOWN = 3;

/**
 * The report's body: a change shared by several requests is said once ("13 requests: request
 * headers sent: X-Served-Via: (none) → wrtui", then which requests), then each request with the
 * changes that are its own. One line per changed thing, before → after.
 */
export function formatDiffs(diffs: readonly RequestDiff[]): string[] {
  const differing = diffs.filter((diff) => !diff.identical);
  const linesOf = new Map(differing.map((diff) => [diff, changeLines(diff)]));
  const requestsWith = new Map<string, RequestDiff[]>();
  for (const [diff, lines] of linesOf) for (const line of new Set(lines)) requestsWith.set(line, [...(requestsWith.get(line) ?? []), diff]);
  const shared = [...requestsWith].filter(([, requests]) => requests.length > 1).sort((a, b) => b[1].length - a[1].length);
  const out: string[] = [];
  for (const [line, requests] of shared) {
    out.push(`${requests.length} requests: ${line}`);
    const named = requests.slice(0, GROUP_NAMES_SHOWN).map((diff) => `#${diff.index} ${diff.method} ${diff.url}`);
    out.push(`    ${named.join(', ')}${requests.length > GROUP_NAMES_SHOWN ? ` and ${requests.length - GROUP_NAMES_SHOWN} more` : ''}`);
  }
  const sharedLines = new Set(shared.map(([line]) => line));
  for (const [diff, lines] of linesOf) {
    const own = lines.filter((line) => !sharedLines.has(line));
    if (own.length === 0) continue;
    out.push(`#${diff.index} ${diff.method} ${diff.type} ${diff.url}`);
    for (const line of own) out.push(`    ${line}`);
  }
  return out;
}

/** What changed for one request, one line per changed thing, before → after. */
export function changeLines(diff: RequestDiff): string[] {
  const lines: string[] = [];
  const add = (line: string) => lines.push(line);
  for (const change of diff.changes) {
    switch (change) {
      case 'newly-blocked':
        if (diff.skippedVerdict) add(`newly blocked by ${block(diff.blocked!.replayed)} (was ${status(diff.status?.recorded)}): when it was recorded, ${diff.skippedVerdict!.owner}'s verdict was not given (${diff.skippedVerdict!.reason}), so the request went on unblocked`);
        else add(`newly blocked by ${block(diff.blocked!.replayed)} (was ${status(diff.status?.recorded)})`);
        break;
      case 'no-longer-blocked':
        if (diff.skippedVerdict) add(`no longer blocked (was by ${block(diff.blocked!.recorded)}): in this replay ${diff.skippedVerdict!.owner}'s verdict was not given (${diff.skippedVerdict!.reason}), and the recording has no answer for a request that was blocked`);
        else add(`no longer blocked (was by ${block(diff.blocked!.recorded)}), now ${status(diff.status?.replayed)}`);
        break;
      case 'blocked-differently':
        add(`blocked by ${block(diff.blocked!.replayed)} instead of ${block(diff.blocked!.recorded)}`);
        break;
      case 'redirect':
        add(`redirects: ${chain(diff.redirects!.recorded)} → now ${chain(diff.redirects!.replayed)}`);
        break;
      case 'request-headers':
        for (const hop of diff.requestHeaders!) for (const pair of headerChanges(hop.removed, hop.added)) add(`request header sent${hop.hop > 0 ? ` (hop ${hop.hop}, ${hop.url})` : ''}: ${pair}`);
        break;
      case 'response-headers':
        for (const pair of headerChanges(diff.responseHeaders!.removed, diff.responseHeaders!.added)) add(`response header: ${pair}`);
        break;
      case 'status':
        add(`status: ${status(diff.status!.recorded)} → ${status(diff.status!.replayed)}`);
        break;
      case 'cookies':
        for (const cookie of diff.cookies!.added) add(`cookie now ${describeCookie(cookie)}`);
        for (const cookie of diff.cookies!.removed) add(`cookie no longer ${describeCookie(cookie)}`);
        break;
      case 'outcomes':
        for (const line of outcomeChanges(diff.outcomes!.removed, diff.outcomes!.added)) add(line);
        break;
      case 'dnr-rules':
        for (const fact of diff.dnr!.added) add(`declarativeNetRequest now: ${fact}`);
        for (const fact of diff.dnr!.removed) add(`declarativeNetRequest no longer: ${fact}`);
        break;
      case 'events':
        add(`events: ${diff.events!.recorded.join(' ')}`);
        add(`   now: ${diff.events!.replayed.join(' ')}`);
        break;
    }
  }
  return lines;
}

export function formatSummary(summary: ReplaySummaryEntry): string[] {
  const kinds = Object.entries(summary.changes).map(([kind, count]) => `${kind} ${count}`);
  const lines = [
    `${summary.requests} request(s) replayed in ${summary.durationMs} ms (${summary.requestsPerSecond}/s): ${summary.identical} identical, ${summary.differing} differ${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}` +
      `${summary.skipped > 0 ? `; ${summary.skipped} unfinished in the recording, skipped` : ''}`,
    `compared with ${summary.baseline === 'recording' ? 'the recording' : 'the same file replayed without rules'}; rules: ${summary.rules.length > 0 ? summary.rules.join(', ') : 'none'}${summary.dryRun ? ' (dry-run)' : ''}`,
  ];
  for (const cookie of summary.cookies.added) lines.push(`cookie change outside requests, now: ${describeCookie(cookie)}`);
  for (const cookie of summary.cookies.removed) lines.push(`cookie change outside requests, no longer: ${describeCookie(cookie)}`);
  return lines;
}

function block(fact: BlockFact | null | undefined): string {
  return fact ? `${fact.owner} at ${fact.event}` : 'nobody';
}

function status(value: number | string | null | undefined): string {
  return value === null || value === undefined ? 'no end' : String(value);
}

function chain(urls: string[]): string {
  return urls.length === 0 ? '(none)' : urls.join(' → ');
}

/** "X-Served-Via: (none) → wrtui", one per header name that differs. */
function headerChanges(before: HttpHeaders, after: HttpHeaders): string[] {
  const valuesOf = (headers: HttpHeaders) => {
    const byName = new Map<string, { name: string; values: string[] }>();
    for (const header of headers) {
      const key = header.name.toLowerCase();
      const entry = byName.get(key) ?? { name: header.name, values: [] };
      entry.values.push(header.value ?? '');
      byName.set(key, entry);
    }
    return byName;
  };
  const old = valuesOf(before);
  const now = valuesOf(after);
  const names = new Set([...old.keys(), ...now.keys()]);
  const text = (entry: { values: string[] } | undefined) => entry?.values.join(', ') ?? '(none)';
  return [...names].filter((key) => text(old.get(key)) !== text(now.get(key))).map((key) => `${(now.get(key) ?? old.get(key))!.name}: ${text(old.get(key))} → ${text(now.get(key))}`);
}

function describeCookie(c: CookieFact): string {
  return `${c.removed ? 'removed' : 'set'}: ${c.name}=${c.value} (${c.domain}${c.path}, ${c.cause})`;
}

/**
 * Listener outcomes that differ, a recorded and a replayed one of the same listener event paired:
 * "my-headers onBeforeSendHeaders now adds X-Served-Via: wrtui to the request headers", not two
 * lines that read the same.
 */
function outcomeChanges(recorded: OutcomeFact[], replayed: OutcomeFact[]): string[] {
  const lines: string[] = [];
  const unpaired = [...recorded];
  for (const now of replayed) {
    const index = unpaired.findIndex((was) => was.owner === now.owner && was.event === now.event);
    const was = index === -1 ? undefined : unpaired.splice(index, 1)[0];
    const who = `${now.owner} ${now.event}`;
    if (!was) lines.push(`${who}: now ${outcome(now)}`);
    else if (was.status !== now.status) lines.push(`${who}: ${outcome(was)} → ${outcome(now)}`);
    else lines.push(...answerChanges(who, was, now));
  }
  for (const was of unpaired) lines.push(`${was.owner} ${was.event}: no longer ${outcome(was)}`);
  return lines;
}

/** The same listener, the same status, a different answer: what about the answer changed. */
function answerChanges(who: string, was: OutcomeFact, now: OutcomeFact): string[] {
  const before = was.response ?? {};
  const after = now.response ?? {};
  const lines: string[] = [];
  const verb = now.status === 'dry-run' ? 'would' : 'now';
  for (const key of ['requestHeaders', 'responseHeaders'] as const) {
    const old = before[key];
    const next = after[key];
    if (JSON.stringify(old) === JSON.stringify(next)) continue;
    const where = key === 'requestHeaders' ? 'request' : 'response';
    for (const pair of headerChanges(old ?? [], next ?? [])) lines.push(`${who} ${verb} answers ${where} header ${pair}`);
  }
  if (before.redirectUrl !== after.redirectUrl) lines.push(`${who} ${verb} redirects to ${after.redirectUrl ?? '(nowhere)'} (was ${before.redirectUrl ?? 'no redirect'})`);
  if (Boolean(before.cancel) !== Boolean(after.cancel)) lines.push(`${who} ${verb} ${after.cancel ? 'cancels' : 'does not cancel'}`);
  if (JSON.stringify(before.authCredentials) !== JSON.stringify(after.authCredentials)) lines.push(`${who} ${verb} answers auth as ${after.authCredentials?.username ?? '(none)'} (was ${before.authCredentials?.username ?? 'none'})`);
  if (lines.length === 0 && was.reason !== now.reason) lines.push(`${who}: ${outcome(was)} → ${outcome(now)}`);
  return lines;
}

function outcome(fact: OutcomeFact): string {
  return `${fact.status}${fact.reason ? ` (${fact.reason})` : ''}`;
}
