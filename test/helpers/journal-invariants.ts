// What every journal must hold, whatever the test did: the rules consumers (the TUI, headless,
// recordings) rely on. The shared proxy harness checks them when it closes.
//   - a webRequest entry's `outcomes` is a list;
//   - a request ends once: at most one terminal event (onCompleted, onErrorOccurred, or an
//     onBeforeRedirect to a URL webRequest never sees: data:, about:blank), and no webRequest
//     event of it comes after that.
import type { JournalEntry, WebRequestEntry } from '../../src/engine/journal.js';
import { EXTENSION_PROTOCOLS } from '../../src/engine/match-pattern.js';

/** Where webRequest reports events; a redirect anywhere else (data:, about:blank) ends the request. */
const SEEN_PROTOCOLS = new Set(['http:', 'https:', 'ws:', 'wss:', ...EXTENSION_PROTOCOLS]);

/** The entry ends its request. */
export function isTerminal(entry: WebRequestEntry): boolean {
  if (entry.event === 'onCompleted' || entry.event === 'onErrorOccurred') return true;
  if (entry.event !== 'onBeforeRedirect') return false;
  const target = (entry.details as { redirectUrl?: string }).redirectUrl;
  return target !== undefined && !SEEN_PROTOCOLS.has(`${target.slice(0, target.indexOf(':')).toLowerCase()}:`);
}

/** Every broken rule, one line each (empty when the journal is sound). */
export function journalViolations(entries: readonly JournalEntry[]): string[] {
  const violations: string[] = [];
  const ended = new Map<string, WebRequestEntry & { seq: number }>();
  const eventsOf = (requestId: string) =>
    entries
      .filter((entry): entry is WebRequestEntry & JournalEntry => entry.kind === 'webRequest' && entry.details?.requestId === requestId)
      .map((entry) => `${entry.seq}:${entry.event}${entry.event === 'onErrorOccurred' ? `(${(entry.details as { error?: string }).error})` : ''}`)
      .join(' ');
  for (const entry of entries) {
    if (entry.kind !== 'webRequest') continue;
    const requestId = entry.details.requestId;
    if (!Array.isArray(entry.outcomes)) violations.push(`seq ${entry.seq}: ${entry.event} of request ${requestId} has outcomes ${JSON.stringify(entry.outcomes)}, not a list`);
    const end = ended.get(requestId);
    if (end) {
      violations.push(`seq ${entry.seq}: ${entry.event} of request ${requestId} comes after its ${end.event} (seq ${end.seq}); its events: ${eventsOf(requestId)}`);
      continue;
    }
    if (isTerminal(entry)) ended.set(requestId, entry);
  }
  return violations;
}

/** Throws, naming every violation, unless the journal holds its invariants. */
export function assertJournalInvariants(entries: readonly JournalEntry[]): void {
  const violations = journalViolations(entries);
  if (violations.length > 0) throw new Error(`the journal broke its invariants:\n${violations.slice(0, 20).join('\n')}${violations.length > 20 ? `\n… and ${violations.length - 20} more` : ''}`);
}
