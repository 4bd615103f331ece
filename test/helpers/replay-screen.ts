// How long a user waits, in the replay TUI, from saving a rule to the whole updated diff: read off
// the screen (tmux capture-pane), as a user would see it, not from any flag inside wrtui.
//
// The re-run is seen to begin when the status bar counts its own verdicts ("compared N/T" with N
// below T: the last run's rows no longer count); it is whole when the status bar no longer says
// "compared" ("all identical", or "K changed") and keeps so for `settleMs`, so that a moment
// between two runs (a save seen twice stops the first run and starts another) is not taken for
// the end. The time is when that settled status first showed.

export interface ScreenReader {
  screen(): Promise<string>;
}

export interface WholeDiffTiming {
  /** From the save to the first screen of the settled, whole diff. */
  ms: number;
  /** The status bar then. */
  statusBar: string;
  /** How many status bars were read, and the most verdicts the re-run was seen to have (N of "compared N/T"). */
  reads: number;
}

export interface WholeDiffOptions {
  settleMs?: number;
  timeoutMs?: number;
  pollMs?: number;
}

/** The status bar: the screen's line that says REPLAY. */
export function replayStatusBar(screen: string): string {
  return screen.split('\n').find((line) => line.includes(' REPLAY ')) ?? '';
}

/** "compared N/T" of a status bar, or undefined when it does not say it (no run under way). */
export function comparedOf(statusBar: string): { compared: number; total: number } | undefined {
  const match = /compared ([\d,]+)\/([\d,]+)/.exec(statusBar);
  return match ? { compared: Number(match[1]!.replaceAll(',', '')), total: Number(match[2]!.replaceAll(',', '')) } : undefined;
}

/** A run's end as the status bar says it: what it found, and no count of a run under way. */
export function settledStatus(statusBar: string): boolean {
  return comparedOf(statusBar) === undefined && (statusBar.includes('all identical') || /\d[\d,]* changed \(is:changed\)/.test(statusBar));
}

/** Saves (`save`), then reads the screen until the whole updated diff shows, settled (see above). */
export async function timeSaveToWholeDiff(reader: ScreenReader, save: () => Promise<void>, options: WholeDiffOptions = {}): Promise<WholeDiffTiming> {
  const settleMs = options.settleMs ?? 1_500;
  const timeoutMs = options.timeoutMs ?? 180_000;
  const pollMs = options.pollMs ?? 50;
  const saved = performance.now();
  await save();
  let rerunSeen = false;
  let settledAt: number | undefined;
  let reads = 0;
  let statusBar = '';
  for (;;) {
    statusBar = replayStatusBar(await reader.screen());
    const now = performance.now();
    reads++;
    const count = comparedOf(statusBar);
    if (count) {
      if (count.compared < count.total) rerunSeen = true;
      settledAt = undefined;
    } else if (rerunSeen && settledStatus(statusBar)) {
      settledAt ??= now;
      if (now - settledAt >= settleMs) return { ms: settledAt - saved, statusBar, reads };
    } else settledAt = undefined;
    if (now - saved > timeoutMs) throw new Error(`the replay TUI: no whole updated diff within ${timeoutMs} ms of the save (re-run ${rerunSeen ? 'seen' : 'never seen'}); its status bar: ${statusBar}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
