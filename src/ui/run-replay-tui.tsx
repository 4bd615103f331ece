// `wrtui replay <file>` on a terminal: the replayed session in the TUI (REPLAY in the status bar),
// each request marked `same` or `CHANGED` against its recording, `is:changed` to see only those,
// and a Diff tab saying what changed; timeline, bodies and rules verdicts as in live mode. Saving a
// rule or an extension re-runs the whole session through the new version: the list starts over
// and fills in as verdicts come, in recording order; a run whose rules fail to load keeps the last
// result on screen and says why.
import type { JournalEntry } from '../engine/journal.js';
import { FolderWatch } from '../engine/extensions/extension-folders.js';
import type { RequestDiff } from '../engine/session/request-diff.js';
import type { ReplayOptions, ReplayResult } from '../engine/session/session-replay.js';
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
  /** Runs the session again, telling what happens as it happens (the list fills in as verdicts come). */
  rerun?: (live: Pick<ReplayOptions, 'onLoaded' | 'onEntry' | 'onDiff'>) => Promise<ReplayResult>;
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
      let replaced = false;
      // What loading journals waits until it is known to have gone well.
      let loading: JournalEntry[] | undefined = [];
      try {
        const next = await options.rerun!({
          // A save that broke a rule or an extension: the last result stays, and the run stops there.
          onLoaded: (failures) => {
            const fresh = failures.filter((failure) => !first.summary.warnings.includes(failure));
            if (fresh.length > 0) {
              note('warn', `${file} changed, but the replay did not run cleanly: ${fresh.join('; ')}; the last result stays on screen`);
              return false;
            }
            // Otherwise the list starts over and fills in as the replay goes: the first verdicts show within moments.
            replaced = true;
            store.clear();
            for (const entry of loading ?? []) store.ingest(entry);
            loading = undefined;
            return true;
          },
          onEntry: (entry) => {
            const numbered = { ...entry, seq: ++seq };
            if (loading) loading.push(numbered);
            else store.ingest(numbered);
          },
          onDiff: (diff) => store.ingest(diffEntry(diff, ++seq, Date.now())),
        });
        if (next.stopped || !replaced) return;
        shown = next;
        entries = entriesOf(next);
        note('info', `${file} changed: replayed ${next.summary.requests} requests again in ${Math.round(performance.now() - started)} ms; ${next.summary.differing} differ (was ${first.summary.differing} at start)`);
      } catch (error) {
        if (replaced) {
          // Part of the new run was on screen: the last whole result goes back.
          store.clear();
          for (const entry of entries) store.ingest(entry);
        }
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
  return [...result.journal, ...result.diffs.map((diff) => diffEntry(diff, ++seq, time))];
}

/** A verdict as the store takes it: a replayDiff entry beside the journal's. */
function diffEntry(diff: RequestDiff, seq: number, time: number): JournalEntry {
  return { kind: 'replayDiff', ...diff, seq, time } as unknown as JournalEntry;
}
