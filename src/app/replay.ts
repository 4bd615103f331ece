// `wrtui replay <file>`: opens a session file, headless NDJSON or HAR, and either replays it
// through the rules and reports what differs (readable, or NDJSON with --json), or with
// --export-har writes it as HAR 1.2 and stops (--export-journal: its journal, every entry whole,
// as `wrtui headless --json` prints one). stdout carries only the report; progress (on a
// terminal) and warnings go to stderr. The exit code: 0, or 1 with --fail-on-diff when anything
// differs, or 2 when the file cannot be read (or an export's file exists, without --force), or 141
// when stdout's reader went away (stdout-lines.ts). Printed output waits for a slow reader: the
// replay reads on only as fast as stdout is taken, so memory stays flat and every line arrives.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { sessionToHar, writeHarFile } from '../engine/session/har/har-export.js';
import { openHarFile } from '../engine/session/har/har-import.js';
import { HarFormatError } from '../engine/session/har/har-validation.js';
import { RecordingFormatError, openRecording, sniff, type Sniffed } from '../engine/session/open-recording.js';
import { ProgressBar } from '../engine/session/progress-bar.js';
import { readingProgress, type Progress } from '../engine/session/progress.js';
import type { RecordedSession } from '../engine/session/recorded-session.js';
import type { ReplaySummaryEntry } from '../engine/session/replay-entries.js';
import { streamedHarInput, streamedReplayInput, type ReplayInput } from '../engine/session/replay-input.js';
import { formatDiffs, formatSummary } from '../engine/session/replay-report.js';
import type { RequestDiff } from '../engine/session/request-diff.js';
import { readSessionEntries, SessionFileError } from '../engine/session/session-reader.js';
import { replay, replaySession, type ReplayOptions, type ReplayResult } from '../engine/session/session-replay.js';
import { encodeLine } from '../engine/session/session-json.js';
import { DEFAULT_WORKER_LIMITS } from '../engine/extensions/extension-worker.js';
import { workersToStart } from '../engine/extensions/extension-folders.js';
import { WorkerPool } from '../engine/extensions/worker-pool.js';
import { FileExistsError, refuseExisting, writePrivateFile } from '../engine/private-file.js';
import { shortPath } from '../engine/path-text.js';
import { DiffSpool } from './diff-spool.js';
import { toJsonLine } from './json-line.js';
import { statusOfLostOutput, stdoutLines, type StdoutLines } from './stdout-lines.js';

export interface ReplayCommandOptions {
  file: string;
  rulesDir: string;
  extensions?: string[];
  persona?: 'spec' | 'chrome' | 'firefox';
  json: boolean;
  /** With --json: only the replayDiff lines and the summary, not the replay's journal (CI logs). */
  diffsOnly?: boolean;
  /** Show the replay in the TUI (a terminal and no --json): true unless --no-tui. */
  tui?: boolean;
  /** For exports from the TUI. */
  stateDir?: string;
  dryRun: boolean;
  failOnDiff: boolean;
  /** Write the file as HAR here instead of replaying it. */
  exportHar?: string;
  /** Write the recording's journal here ("-": stdout), each entry whole, instead of replaying it. */
  exportJournal?: string;
  /** Undefined: the recording's own timeout. */
  listenerTimeoutMs?: number;
  /** --force: an export replaces an existing file (a new 0600 file, never written through a link). */
  force?: boolean;
}

/** The journal kinds `wrtui headless --json` prints that a replay has too. */
const JOURNAL_KINDS: ReadonlySet<string> = new Set(['webRequest', 'cookieChanged', 'rule', 'log', 'handlerBehaviorChanged', 'runtime']);

export const EXIT_OK = 0;
export const EXIT_DIFFERENT = 1;
export const EXIT_UNREADABLE = 2;

export async function runReplayCommand(options: ReplayCommandOptions): Promise<number> {
  const stdout = stdoutLines();
  const out = (line: string) => stdout.write(line);
  const warn = (line: string) => process.stderr.write(`wrtui: ${line}\n`);
  const progress = new ProgressBar(process.stderr);
  const file = resolve(options.file);
  const unreadable = (error: unknown): number => {
    progress.clear();
    if (error instanceof HarFormatError) warn(`${options.file} is not a valid HAR file: ${error.message}`);
    else if (error instanceof SessionFileError || error instanceof RecordingFormatError) warn(error.message);
    else if ((error as NodeJS.ErrnoException).code === 'ENOENT') warn(`${options.file}: no such file`);
    else if ((error as NodeJS.ErrnoException).code === 'EACCES') warn(`${options.file}: permission denied`);
    else throw error;
    return EXIT_UNREADABLE;
  };
  const exists = (error: FileExistsError): number => {
    progress.clear();
    warn(`${shortPath(error.path)} exists: not overwritten (--force replaces it)`);
    return EXIT_UNREADABLE;
  };
  // A reader that went away (`| head`): the replay stops there, quietly.
  const outputGone = new AbortController();
  stdout.onGone(() => outputGone.abort());
  const finished = (code: number): number => (stdout.gone ? statusOfLostOutput(stdout.gone) : code);

  const replayOptions = {
    rulesDir: resolve(options.rulesDir),
    extensions: (options.extensions ?? []).map((dir) => resolve(dir)),
    ...(options.persona && { persona: options.persona }),
    dryRun: options.dryRun,
    ...(options.listenerTimeoutMs !== undefined && { listenerTimeoutMs: options.listenerTimeoutMs }),
  };
  const tui = !options.exportHar && !options.exportJournal && !options.json && options.tui !== false && process.stdout.isTTY && process.stdin.isTTY;

  // Printed output replays a session file or a HAR as it is read: memory does not grow with the
  // file. Only the report's modes on a session file up to READ_WHOLE_MAX_MB read it whole, for the
  // fast path (printPredictedReplay). The TUI (which lists and re-runs it) and an export hold the recording whole.
  let sniffed: Sniffed;
  try {
    sniffed = await sniff(file);
  } catch (error) {
    return unreadable(error);
  }
  // An export that would be refused is refused before the recording is read (that can take minutes).
  const exportTo = options.exportHar ?? (options.exportJournal === '-' ? undefined : options.exportJournal);
  if (exportTo !== undefined && !options.force) {
    try {
      await refuseExisting(resolve(exportTo));
    } catch (error) {
      if (error instanceof FileExistsError) return exists(error);
      throw error;
    }
  }
  if (options.exportJournal) {
    if (sniffed.kind !== 'ndjson') {
      warn(`${options.file} is a HAR file: it has no journal (no events, no listener outcomes); --export-har converts it, and a replay compares it with the rules`);
      return EXIT_UNREADABLE;
    }
    try {
      await exportJournal(file, sniffed.gzipped, options.exportJournal, { progress, stdout, force: options.force ?? false });
    } catch (error) {
      if (error instanceof FileExistsError) return exists(error);
      return unreadable(error);
    }
    return finished(EXIT_OK);
  }
  if (!tui && !options.exportHar && sniffed.kind === 'ndjson' && needsOnlyTheReport(options) && process.env.WRTUI_REPLAY_FAST !== '0' && (await smallEnoughToReadWhole(file, sniffed))) {
    try {
      const paced = { ...replayOptions, signal: outputGone.signal };
      return finished(exitCode(options, (await printPredictedReplay(file, sniffed, options, paced, progress, stdout, warn)).summary));
    } catch (error) {
      return unreadable(error);
    }
  }
  if (!tui && !options.exportHar) {
    try {
      const print = sniffed.kind === 'ndjson' ? printStreamedReplay : printStreamedHarReplay;
      const paced = { ...replayOptions, signal: outputGone.signal };
      return finished(exitCode(options, (await print(file, sniffed.gzipped, options, paced, progress, stdout, warn)).summary));
    } catch (error) {
      return unreadable(error);
    }
  }

  // The TUI's first run's workers boot while the recording is read (worker-pool.ts).
  const workerPool = tui ? await WorkerPool.open(DEFAULT_WORKER_LIMITS.heapLimitMb) : undefined;
  if (workerPool) workerPool.warm(await workersToStart(replayOptions.rulesDir, replayOptions.extensions));
  let session: RecordedSession;
  try {
    session = await openRecording(file, { onProgress: progress.update, sniffed });
  } catch (error) {
    await workerPool?.close();
    return unreadable(error);
  }
  progress.clear();

  if (options.exportHar) {
    const har = sessionToHar(session, { onProgress: progress.update });
    progress.clear();
    // 0600, never through a link, never over a file unless --force: a HAR holds cookies and headers.
    try {
      await writeHarFile(resolve(options.exportHar), har, { replace: options.force ?? false });
    } catch (error) {
      if (error instanceof FileExistsError) return exists(error);
      throw error;
    }
    if (!options.json) out(`wrote ${har.log.entries.length} HAR entries (${session.requests.length} requests) to ${options.exportHar}`);
    return EXIT_OK;
  }

  const { runReplayTui } = await import('../ui/run-replay-tui.js');
  // The screen comes up at once and fills in as the replay goes; saving a rule or an extension
  // re-runs the whole session through the new version. Workers for the next run boot while the
  // user edits: a save finds them ready.
  const last = await runReplayTui({
    file: options.file,
    stateDir: options.stateDir ?? '.wrtui',
    dryRun: options.dryRun,
    requests: session.requests.length,
    watch: [replayOptions.rulesDir, ...replayOptions.extensions],
    rulesDir: replayOptions.rulesDir,
    run: async (live) => {
      try {
        return await replaySession(session, { ...replayOptions, ...live, ...(workerPool && { workerPool }) });
      } finally {
        workerPool?.refill();
      }
    },
  }).finally(() => workerPool?.close());
  if (!last) {
    warn('the replay was stopped before its end: no summary');
    return EXIT_OK;
  }
  for (const warning of last.summary.warnings) warn(warning);
  for (const line of formatSummary(last.summary)) out(line);
  return exitCode(options, last.summary);
}

/**
 * The recording's journal as `wrtui headless --json` prints a live one: every entry whole (a
 * session file does not repeat what a request's earlier events said; webrequest-delta.ts), so jq
 * filters written for headless output work on recordings too. Read as a stream: memory does not
 * grow with the file. A new private file (private-file.ts; --force replaces one), or stdout for
 * "-", read on only as fast as stdout is taken.
 */
async function exportJournal(file: string, gzipped: boolean, to: string, options: { progress: ProgressBar; stdout: StdoutLines; force: boolean }): Promise<void> {
  const { progress, stdout } = options;
  const batches = () => readSessionEntries(file, { gzipped, onProgress: progress.update }).batches();
  try {
    if (to === '-') {
      for await (const batch of batches()) {
        for (const entry of batch) stdout.write(toJsonLine(entry));
        await stdout.ready();
        if (stdout.gone) return;
      }
      return;
    }
    await writePrivateFile(
      resolve(to),
      async (output) => {
        for await (const batch of batches()) {
          let text = '';
          for (const entry of batch) text += `${toJsonLine(entry)}\n`;
          await output.write(text);
        }
      },
      { replace: options.force },
    );
  } finally {
    progress.clear();
  }
}

/**
 * The modes that print only the report (the readable diffs and summary, or --json --diffs-only):
 * no replay journal is printed, so the fast path (predict and verify, docs/replay-engine.md) can
 * give it. It works from the recording read whole, and hands the run to today's engine whenever it
 * cannot vouch for the result, so what is printed is the same either way.
 */
function needsOnlyTheReport(options: ReplayCommandOptions): boolean {
  // Unpacked extensions and browser personas are what the fast path always hands over: streamed
  // through today's engine straight away, the file is not read whole for nothing.
  const predictable = !options.extensions?.length && (options.persona === undefined || options.persona === 'spec');
  return predictable && (!options.json || options.diffsOnly === true);
}

/**
 * The fast path works from the recording read whole (about 9 MB of memory per 1,000 requests,
 * docs/replay-engine.md); a recording past this size is streamed through today's engine instead,
 * so memory stays flat however big the file (WRTUI_REPLAY_READ_WHOLE_MAX_MB moves the limit).
 * A gzipped file counts as 8 times its size, roughly what it expands to.
 */
const READ_WHOLE_MAX_MB = 128;

async function smallEnoughToReadWhole(file: string, sniffed: Sniffed): Promise<boolean> {
  const limitMb = Number(process.env.WRTUI_REPLAY_READ_WHOLE_MAX_MB ?? READ_WHOLE_MAX_MB);
  const { size } = await stat(file);
  return (sniffed.gzipped ? size * 8 : size) <= limitMb * 1024 * 1024;
}

/** A session file read whole, then replayed by predicting and verifying; the bar follows the reading, then the replay. */
async function printPredictedReplay(file: string, sniffed: Sniffed, options: ReplayCommandOptions, replayOptions: ReplayOptions, progress: ProgressBar, stdout: StdoutLines, warn: (line: string) => void): Promise<ReplayResult> {
  // The rules' workers boot while the recording is read (worker-pool.ts), as the TUI's do.
  const workerPool = await WorkerPool.open(DEFAULT_WORKER_LIMITS.heapLimitMb);
  try {
    workerPool.warm(await workersToStart(replayOptions.rulesDir, []));
    const session = await openRecording(file, { onProgress: progress.update, sniffed });
    return await printPredictedSession(session, options, { ...replayOptions, workerPool }, progress, stdout, warn);
  } finally {
    await workerPool.close();
  }
}

async function printPredictedSession(session: RecordedSession, options: ReplayCommandOptions, replayOptions: ReplayOptions, progress: ProgressBar, stdout: StdoutLines, warn: (line: string) => void): Promise<ReplayResult> {
  const { replayPredicted } = await import('../engine/replay/predicted-replay.js');
  const predicted = async (run: ReplayOptions) => {
    const result = await replayPredicted(session, run);
    // Which engine gave the report, and why (WRTUI_REPLAY_EXPLAIN=1): the output is the same either way.
    if (process.env.WRTUI_REPLAY_EXPLAIN === '1') warn(`replayed by the ${result.path} path${result.fellBack ? `: ${result.fellBack.reason}` : ''}`);
    return result;
  };
  return printReplay(predicted, options, { ...replayOptions, onProgress: progress.update }, progress, stdout, warn);
}

/** A session file replayed as it is read; the bar follows the file (its request total is unknown until the end). */
function printStreamedReplay(file: string, gzipped: boolean, options: ReplayCommandOptions, replayOptions: ReplayOptions, progress: ProgressBar, stdout: StdoutLines, warn: (line: string) => void): Promise<ReplayResult> {
  let read: Progress | undefined;
  let replayed = 0;
  const show = () => read && progress.update({ ...read, phase: 'replaying', requests: replayed });
  const stream = readSessionEntries(file, {
    gzipped,
    onProgress: (reading) => {
      read = reading;
      show();
    },
  });
  // Once the whole file is read, the requests still replaying are what is left: each one shows.
  const onReplayed = () => {
    if (++replayed % 64 === 0 || (read && read.done >= read.total)) show();
  };
  return printReplay(pacedBy(stdout, streamedReplayInput(file, stream)), options, replayOptions, progress, stdout, warn, onReplayed);
}

/**
 * A HAR replayed as it is read, twice: without rules (what the rules' replay is compared with),
 * then with them. The bar follows the file in each pass.
 */
async function printStreamedHarReplay(file: string, gzipped: boolean, options: ReplayCommandOptions, replayOptions: ReplayOptions, progress: ProgressBar, stdout: StdoutLines, warn: (line: string) => void): Promise<ReplayResult> {
  const har = await openHarFile(file, { gzipped });
  let read: Progress | undefined;
  let phase = 'replaying without rules';
  let replayed = 0;
  const show = () => read && progress.update({ ...read, phase, requests: replayed });
  const input = streamedHarInput(har, {
    reading: () =>
      readingProgress(har.size, (reading) => {
        read = reading;
        show();
      }),
  });
  const onProgress = (update: Progress) => {
    // The rules' pass reads the file again, from its start.
    if (update.phase !== phase && read) read = { ...read, done: 0 };
    phase = update.phase;
    replayed = update.done;
    show();
  };
  return printReplay(pacedBy(stdout, input), options, { ...replayOptions, onProgress }, progress, stdout, warn);
}

/** Today's engine on a streamed input that is read on only as fast as stdout is taken. */
function pacedBy(stdout: StdoutLines, input: ReplayInput): (options: ReplayOptions) => Promise<ReplayResult> {
  const chunks = input.chunks;
  // The input object itself is kept (its fields fill in as it is read); only its chunks wait.
  input.chunks = async function* () {
    for await (const chunk of chunks.call(input)) {
      await stdout.ready();
      yield chunk;
    }
  };
  return (options) => replay(input, options);
}

function exitCode(options: ReplayCommandOptions, summary: ReplaySummaryEntry): number {
  const anythingDiffers = summary.differing > 0 || summary.cookies.added.length + summary.cookies.removed.length > 0;
  return options.failOnDiff && anythingDiffers ? EXIT_DIFFERENT : EXIT_OK;
}

/**
 * The printed replay. --json: the replay's journal as `wrtui headless --json` prints a live one
 * (one jq filter serves both), then the replayDiff lines and the summary (--diffs-only: just
 * those). The journal lines go out as they happen; the replayDiff lines, which come after all of
 * them, wait in a temporary file (0600, removed after), not in memory. Readable: the differing
 * requests (kept, to group what they share), then the summary. The replay reads its input only as
 * fast as stdout is taken (the requests in flight still finish): a slow or late reader makes it
 * wait, never piles its output up in memory.
 */
async function printReplay(
  run: (options: ReplayOptions) => Promise<ReplayResult>,
  options: ReplayCommandOptions,
  replayOptions: ReplayOptions,
  progress: ProgressBar,
  stdout: StdoutLines,
  warn: (line: string) => void,
  onReplayed?: () => void,
): Promise<ReplayResult> {
  const out = (line: string) => stdout.write(line);
  const differing: RequestDiff[] = [];
  const spool = options.json ? await DiffSpool.open() : undefined;
  try {
    const result = await run({
      ...replayOptions,
      keepJournal: false,
      onDiff: (diff) => {
        onReplayed?.();
        if (spool) spool.add(diff);
        else if (!diff.identical) differing.push(diff);
      },
      ...(options.json && !options.diffsOnly && { onEntry: (entry) => JOURNAL_KINDS.has(entry.kind) && out(toJsonLine(entry)) }),
    });
    progress.clear();
    if (stdout.gone) return result; // nobody is reading: the rest would go nowhere
    if (spool) {
      // Numbered on from the journal's last entry, so that one NDJSON stream reads in order.
      await spool.print(async (line) => {
        out(line);
        await stdout.ready();
      }, result.lastSeq, result.endTime);
      out(encodeLine(result.summary));
    } else {
      for (const warning of result.summary.warnings) warn(warning);
      for (const line of formatDiffs(differing)) out(line);
      for (const line of formatSummary(result.summary)) out(line);
    }
    return result;
  } finally {
    progress.clear();
    await spool?.close();
  }
}
