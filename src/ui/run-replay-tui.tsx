// `wrtui replay <file>` on a terminal: the replayed session in the TUI (REPLAY in the status bar),
// each request marked `same` or `CHANGED` against its recording, `is:changed` to see only those,
// and a Diff tab saying what changed; timeline, bodies and rules verdicts as in live mode. The
// screen comes up at once and fills in as the replay goes; saving a rule or an extension re-runs
// the whole session through the new version (a run under way stops for it): each row is replaced
// in place as its new verdict comes, in recording order, the last run's rows dim until then (the
// selection and scroll position stay); a run whose rules fail to load keeps the last
// result on screen and says why. The rules and cookies views show the run on screen; reloading a
// rule or turning a dry-run switch (a rule's, or the global one) re-runs the session.
import type { JournalEntry } from '../engine/journal.js';
import { FolderWatch } from '../engine/extensions/extension-folders.js';
import type { ReplayRunView } from '../engine/session/replay-run-view.js';
import type { ReplayOptions, ReplayResult } from '../engine/session/session-replay.js';
import { createReplayBackend } from './replay-backend.js';
import { dropPerformanceEntries } from './run-tui.js';
import { installFastInkOutput } from './ink-fast-output.js';
import { mouseWanted } from './mouse.js';
import { startScreenSession } from './screen-session.js';
import { DEFAULT_BODY_BUDGET_BYTES } from './store/body-budget.js';
import { TrafficStore } from './store/traffic-store.js';

export interface ReplayTuiOptions {
  file: string;
  stateDir: string;
  dryRun: boolean;
  /** How many requests the session has (the list is sized for them). */
  requests: number;
  /** Folders whose changes re-run the replay (the rules folder, extension folders). */
  watch?: string[];
  /** Where quick rules (w) are written: they load as a save does. */
  rulesDir?: string;
  /** Runs the session, telling what happens as it happens (the list fills in as verdicts come). */
  run: (live: Pick<ReplayOptions, 'onLoaded' | 'onEntry' | 'onDiff' | 'signal' | 'keepJournal' | 'dryRun' | 'dryRunOverrides' | 'journalBodies'>) => Promise<ReplayResult>;
}

/**
 * Shows the replay until the user quits: the screen comes up at once and the list fills in as the
 * first run goes. Resolves with the last result shown whole (undefined when the user quit before
 * the first run ended).
 */
export async function runReplayTui(options: ReplayTuiOptions): Promise<ReplayResult | undefined> {
  let first: ReplayResult | undefined;
  let shown: ReplayResult | undefined;
  /** What the last whole run put on screen, as it was put there, and its rules and cookies. */
  let entries: JournalEntry[] = [];
  let shownRun: ReplayRunView | undefined;
  /** The run being shown as it goes (its list is on screen), until it ends whole. */
  let showingRun: ReplayRunView | undefined;
  const runListeners = new Set<() => void>();
  let unsubscribeRun: (() => void) | undefined;
  /** The rules and cookies views show `run` from now on. */
  const showRun = (run: ReplayRunView | undefined) => {
    unsubscribeRun?.();
    unsubscribeRun = run?.onChange(() => runListeners.forEach((listener) => listener()));
    showingRun = run;
    runListeners.forEach((listener) => listener());
  };
  /** The run under way (it stops for a newer save), if any. */
  let current: AbortController | undefined;
  let dryRun = options.dryRun;
  const dryRunOverrides = new Map<string, boolean>();

  const store = new TrafficStore({ maxRequests: Math.max(5000, options.requests), tickMs: 1000, ordinals: 'requestId' });
  const dropTimings = dropPerformanceEntries();
  let seq = 0;
  const note = (level: 'info' | 'warn' | 'error', message: string, source = 'replay') => store.ingest({ kind: 'log', level, source, message, seq: ++seq, time: Date.now() });
  const backend = createReplayBackend({
    reportProblem: (message) => note('error', message, 'tui'),
    file: options.file,
    entries: () => entries,
    stateDir: options.stateDir,
    writeToTerminal: (data) => process.stdout.write(data),
    ...(options.rulesDir !== undefined && { rulesDir: options.rulesDir }),
    requests: options.requests,
    running: () => current !== undefined,
    run: () => showingRun,
    onRunChange: (listener) => {
      runListeners.add(listener);
      return () => runListeners.delete(listener);
    },
    rerun: (why) => request(why),
    dryRun: {
      get: () => dryRun,
      set: (on) => {
        dryRun = on;
        void request(`global dry-run ${on ? 'on' : 'off'}`);
      },
      setFor: (name, on) => {
        dryRunOverrides.set(name, on);
        void request(`${name}: dry-run ${on ? 'on' : 'off'}`);
      },
    },
  });
  store.attach(backend.journal);
  await installFastInkOutput(); // Ink's frames, composed with less work (see ink-fast-output.ts)
  const { session: screen } = startScreenSession({ store, mouse: mouseWanted(undefined), makeBackend: () => backend });

  /**
   * A run stopped midway (a newer save stopped it) left rows of two runs on screen: the run that
   * follows replaces them in place; one that does not load puts the last whole result back.
   */
  let partial = false;
  /** What is on screen goes back to the last whole result. */
  const restore = () => {
    partial = false;
    store.clear({ rerun: true });
    for (const entry of entries) store.ingest(entry);
    showRun(shownRun);
  };
  let quitting = false;

  /** One run: the opening one (`why` undefined), or after a save of `why` or a switch the user turned. */
  const runOnce = async (why: string | undefined) => {
    const started = performance.now();
    const controller = new AbortController();
    current = controller;
    let replaced = false;
    // What loading journals waits until it is known to have gone well.
    let loading: JournalEntry[] | undefined = [];
    // The screen is the record of the run: the result need not keep the journal too. Bodies are
    // kept for a restore only as far as the store itself holds bodies (its budget).
    const ingested: JournalEntry[] = [];
    let bodyBytes = 0;
    let run: ReplayRunView | undefined;
    const show = (entry: JournalEntry) => {
      store.ingest(entry);
      if (entry.kind === 'body') {
        bodyBytes += entry.bytes.length;
        if (bodyBytes > DEFAULT_BODY_BUDGET_BYTES) return;
      }
      ingested.push(entry);
    };
    try {
      const next = await options.run({
        signal: controller.signal,
        keepJournal: false,
        journalBodies: true,
        dryRun,
        dryRunOverrides: new Map(dryRunOverrides),
        onLoaded: (failures, loaded) => {
          // After a change that broke a rule or an extension: the last result stays, and the run stops there.
          const fresh = first ? failures.filter((failure) => !first!.summary.warnings.includes(failure)) : [];
          if (why !== undefined && fresh.length > 0) {
            if (partial) restore();
            note('warn', `${why}, but the replay did not run cleanly: ${fresh.join('; ')}; the last result stays on screen`);
            return false;
          }
          // Otherwise the new run replaces the list's rows in place as it goes (the last run's
          // stay, dim, until it reaches them): the first verdicts show within moments.
          replaced = true;
          partial = false;
          run = loaded;
          store.beginRerun();
          showRun(loaded);
          for (const entry of loading ?? []) show(entry);
          loading = undefined;
          return true;
        },
        onEntry: (entry) => {
          const numbered = { ...entry, seq: ++seq };
          if (loading) loading.push(numbered);
          else show(numbered);
        },
        onDiff: (diff) => show({ kind: 'replayDiff', ...diff, seq: ++seq, time: Date.now() } as unknown as JournalEntry),
      });
      if (!replaced) return;
      if (next.stopped) {
        // Stopped for a newer save or switch: that run replaces the rows in place, as this one did.
        partial = true;
        return;
      }
      store.endRerun();
      first ??= next;
      shown = next;
      entries = ingested;
      shownRun = run;
      runListeners.forEach((listener) => listener()); // its rules as they were at its end
      const took = Math.round(performance.now() - started);
      if (why === undefined) note('info', `replayed ${next.summary.requests} requests in ${took} ms; ${next.summary.differing} differ`);
      else note('info', `${why}: replayed ${next.summary.requests} requests again in ${took} ms; ${next.summary.differing} differ (was ${first.summary.differing} at start)`);
    } catch (error) {
      // Part of the new run was on screen: the last whole result goes back.
      if (replaced || partial) restore();
      note('warn', `${why ?? options.file}${why === undefined ? '' : ', but'} the replay failed: ${(error as Error).message}${shown ? '; the last result stays on screen' : ''}`);
    } finally {
      current = undefined;
      store.flush();
    }
  };

  // Runs go one at a time, the latest request wins: a newer save or switch stops the run under way,
  // and every request made meanwhile is answered by the one run that follows.
  let pending: { why: string | undefined; answered: (() => void)[] } | undefined;
  let pumping: Promise<void> | undefined;
  const request = (why: string | undefined): Promise<void> =>
    new Promise<void>((answered) => {
      if (pending) {
        pending.why = why;
        pending.answered.push(answered);
      } else {
        pending = { why, answered: [answered] };
      }
      current?.abort();
      pumping ??= pump();
    });
  const pump = async () => {
    while (pending && !quitting) {
      const { why, answered } = pending;
      pending = undefined;
      await runOnce(why);
      for (const answer of answered) answer();
    }
    for (const answer of pending?.answered ?? []) answer();
    pending = undefined;
    pumping = undefined;
  };

  void request(undefined);
  const watches = await Promise.all(
    (options.watch ?? []).map((dir) =>
      FolderWatch.start(dir, { onChange: (file) => void request(`${file} changed`), onError: (error) => note('warn', `watching ${dir}: ${error.message}`), onAppeared: () => void request(`${dir} appeared`) }),
    ),
  );

  await screen.stopped;
  quitting = true;
  await Promise.all(watches.map((watch) => watch.close()));
  current?.abort();
  await pumping;
  unsubscribeRun?.();
  screen.close();
  store.close();
  clearInterval(dropTimings);
  return shown;
}
