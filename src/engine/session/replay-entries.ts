// The entries a replay adds to the journal stream beside the ordinary ones (which it produces
// exactly as a live session does): one `replayDiff` per replayed request and one `replaySummary`.
// A UI shows replay results from these; `wrtui replay --json` prints them as NDJSON.
import type { JournalEntry } from '../journal.js';
import type { DiffKind, RequestDiff, CookieFact } from './request-diff.js';
import type { SessionSource } from './recorded-session.js';

export interface ReplayDiffEntry extends RequestDiff {
  kind: 'replayDiff';
}

export interface ReplaySummaryEntry {
  kind: 'replaySummary';
  file: string;
  source: SessionSource;
  /** What replay was compared with: the recorded journal, or (HAR) a replay of the file with no rules. */
  baseline: 'recording' | 'no-rules';
  requests: number;
  identical: number;
  differing: number;
  /** Requests the recording does not hold to their end. */
  skipped: number;
  /** Requests per kind of difference. */
  changes: Partial<Record<DiffKind, number>>;
  /** Cookie changes caused by no request (rules' cookies.set, …) that differ. */
  cookies: { added: CookieFact[]; removed: CookieFact[] };
  rules: string[];
  dryRun: boolean;
  durationMs: number;
  requestsPerSecond: number;
  warnings: string[];
}

/** What a replay streams: the journal entries of the replayed session, then its diffs and summary. */
export type ReplayStreamEntry = JournalEntry | (ReplayDiffEntry & { seq: number; time: number }) | ReplaySummaryEntry;
