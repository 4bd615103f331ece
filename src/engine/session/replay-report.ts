// The readable `wrtui replay` report (without --json): one block per request that differs, then
// a summary line. Identical requests are counted, not listed.
import type { HttpHeaders } from '../types.js';
import type { OutcomeFact } from './event-signature.js';
import type { ReplaySummaryEntry } from './replay-entries.js';
import type { BlockFact, CookieFact, RequestDiff } from './request-diff.js';

export function formatDiff(diff: RequestDiff): string[] {
  const lines = [`#${diff.index} ${diff.method} ${diff.type} ${diff.url}`];
  const add = (line: string) => lines.push(`    ${line}`);
  for (const change of diff.changes) {
    switch (change) {
      case 'newly-blocked':
        add(`newly blocked by ${block(diff.blocked!.replayed)} (was ${status(diff.status?.recorded)})`);
        break;
      case 'no-longer-blocked':
        add(`no longer blocked (was by ${block(diff.blocked!.recorded)}), now ${status(diff.status?.replayed)}`);
        break;
      case 'blocked-differently':
        add(`blocked by ${block(diff.blocked!.replayed)} instead of ${block(diff.blocked!.recorded)}`);
        break;
      case 'redirect':
        add(`redirects: ${chain(diff.redirects!.recorded)} → now ${chain(diff.redirects!.replayed)}`);
        break;
      case 'request-headers':
        for (const hop of diff.requestHeaders!) add(`request headers sent${hop.hop > 0 ? ` (hop ${hop.hop}, ${hop.url})` : ''}: ${headers(hop.added, hop.removed)}`);
        break;
      case 'response-headers':
        add(`response headers: ${headers(diff.responseHeaders!.added, diff.responseHeaders!.removed)}`);
        break;
      case 'status':
        add(`status: ${status(diff.status!.recorded)} → ${status(diff.status!.replayed)}`);
        break;
      case 'cookies':
        add(`cookies: ${cookies(diff.cookies!.added, diff.cookies!.removed)}`);
        break;
      case 'outcomes':
        add(`listener outcomes: ${[...diff.outcomes!.added.map((o) => `+ ${outcome(o)}`), ...diff.outcomes!.removed.map((o) => `- ${outcome(o)}`)].join('; ')}`);
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
  if (summary.cookies.added.length + summary.cookies.removed.length > 0) lines.push(`cookie changes outside requests: ${cookies(summary.cookies.added, summary.cookies.removed)}`);
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

function headers(added: HttpHeaders, removed: HttpHeaders): string {
  return [...added.map((h) => `+ ${h.name}: ${h.value ?? ''}`), ...removed.map((h) => `- ${h.name}: ${h.value ?? ''}`)].join('; ');
}

function cookies(added: CookieFact[], removed: CookieFact[]): string {
  const describe = (c: CookieFact) => `${c.removed ? 'removed' : 'set'} ${c.name}=${c.value} (${c.domain}${c.path}, ${c.cause})`;
  return [...added.map((c) => `+ ${describe(c)}`), ...removed.map((c) => `- ${describe(c)}`)].join('; ');
}

function outcome(fact: OutcomeFact): string {
  return `${fact.owner} ${fact.event} ${fact.status}${fact.reason ? ` (${fact.reason})` : ''}`;
}
