// `wrtui replay <file>` on a terminal: the replayed session in the TUI (REPLAY in the status bar),
// each request marked `same` or `CHANGED` against its recording, `is:changed` to see only those,
// and a Diff tab saying what changed; timeline, bodies and rules verdicts as in live mode.
import type { JournalEntry } from '../engine/journal.js';
import type { ReplayResult } from '../engine/session/session-replay.js';
import { createReplayBackend } from './replay-backend.js';
import { dropPerformanceEntries } from './run-tui.js';
import { startScreenSession } from './screen-session.js';
import { TrafficStore } from './store/traffic-store.js';

export async function runReplayTui(result: ReplayResult, options: { file: string; stateDir: string; dryRun: boolean }): Promise<void> {
  // The replay's journal, then its verdict on each request, numbered on from the journal's last seq.
  const last = result.journal.at(-1);
  let seq = last?.seq ?? 0;
  const time = last?.time ?? Date.now();
  const entries: JournalEntry[] = [...result.journal, ...result.diffs.map((diff) => ({ kind: 'replayDiff', ...diff, seq: ++seq, time }) as unknown as JournalEntry)];
  const store = new TrafficStore({ maxRequests: Math.max(5000, result.diffs.length), tickMs: 1000 });
  const dropTimings = dropPerformanceEntries();
  const backend = createReplayBackend({ file: options.file, entries, stateDir: options.stateDir, dryRun: options.dryRun, writeToTerminal: (data) => process.stdout.write(data) });
  store.attach(backend.journal);
  const { session: screen } = startScreenSession({ store, makeBackend: () => backend });
  await screen.stopped;
  screen.close();
  store.close();
  clearInterval(dropTimings);
}
