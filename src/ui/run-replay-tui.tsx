// `wrtui replay <file>` on a terminal: the replayed session in the TUI (REPLAY in the status bar),
// each request marked `same` or `CHANGED` against its recording, `is:changed` to see only those,
// and a Diff tab saying what changed; timeline, bodies and rules verdicts as in live mode. Saving a
// rule or an extension re-runs the whole session through the new version and updates the list in
// place; a run whose rules fail to load keeps the last result on screen and says why.
import type { JournalEntry } from '../engine/journal.js';
import { FolderWatch } from '../engine/extensions/extension-folders.js';
import type { ReplayResult } from '../engine/session/session-replay.js';
import { createReplayBackend } from './replay-backend.js';
import { dropPerformanceEntries } from './run-tui.js';
import { installFastInkOutput } from './ink-fast-output.js';
import { startScreenSession } from './screen-session.js';
import { TrafficStore } from './store/traffic-store.js';

export interface ReplayTuiOptions {
  file: string;
  stateDir: string;
  dryRun: boolean;
  /** Folders whose changes re-run the replay (the rules folder, extension folders). */
  watch?: string[];
  rerun?: () => Promise<ReplayResult>;
}

/** Shows the replay until the user quits; resolves with the result last shown. */
export async function runReplayTui(first: ReplayResult, options: ReplayTuiOptions): Promise<ReplayResult> {
  let shown = first;
  let entries = entriesOf(first);
  const store = new TrafficStore({ maxRequests: Math.max(5000, first.diffs.length), tickMs: 1000 });
  const dropTimings = dropPerformanceEntries();
  const backend = createReplayBackend({ file: options.file, entries: () => entries, stateDir: options.stateDir, dryRun: options.dryRun, writeToTerminal: (data) => process.stdout.write(data) });
  store.attach(backend.journal);
  await installFastInkOutput(); // Ink's frames, composed with less work (see ink-fast-output.ts)
  const { session: screen } = startScreenSession({ store, makeBackend: () => backend });

  let seq = entries.at(-1)?.seq ?? 0;
  const note = (level: 'info' | 'warn', message: string) => store.ingest({ kind: 'log', level, source: 'replay', message, seq: ++seq, time: Date.now() });
  let running: Promise<void> | undefined;
  let again = false;
  const rerun = async (file: string) => {
    if (!options.rerun) return;
    if (running) {
      again = true; // one more run once this one ends: it must see the latest save
      return;
    }
    const started = performance.now();
    running = (async () => {
      try {
        const next = await options.rerun!();
        const failures = next.summary.warnings.filter((warning) => !first.summary.warnings.includes(warning));
        if (failures.length > 0) return note('warn', `${file} changed, but the replay did not run cleanly: ${failures.join('; ')}; the last result stays on screen`);
        shown = next;
        entries = entriesOf(next);
        store.clear();
        for (const entry of entries) store.ingest(entry);
        seq = entries.at(-1)?.seq ?? seq;
        note('info', `${file} changed: replayed ${next.summary.requests} requests again in ${Math.round(performance.now() - started)} ms; ${next.summary.differing} differ (was ${first.summary.differing} at start)`);
      } catch (error) {
        note('warn', `${file} changed, but the replay failed: ${(error as Error).message}; the last result stays on screen`);
      } finally {
        running = undefined;
        store.flush();
      }
    })();
    await running;
    if (again) {
      again = false;
      await rerun(file);
    }
  };
  const watches = await Promise.all(
    (options.rerun ? (options.watch ?? []) : []).map((dir) =>
      FolderWatch.start(dir, { onChange: (file) => void rerun(file), onError: (error) => note('warn', `watching ${dir}: ${error.message}`), onAppeared: () => void rerun(dir) }),
    ),
  );

  await screen.stopped;
  await Promise.all(watches.map((watch) => watch.close()));
  await running;
  screen.close();
  store.close();
  clearInterval(dropTimings);
  return shown;
}

/** The replay's journal, then its verdict on each request, numbered on from the journal's last seq. */
function entriesOf(result: ReplayResult): JournalEntry[] {
  const last = result.journal.at(-1);
  let seq = last?.seq ?? 0;
  const time = last?.time ?? Date.now();
  return [...result.journal, ...result.diffs.map((diff) => ({ kind: 'replayDiff', ...diff, seq: ++seq, time }) as unknown as JournalEntry)];
}
