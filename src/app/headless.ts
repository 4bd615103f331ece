// `wrtui headless`: the proxy and the rules with no UI. With --json every journal entry is one
// NDJSON line on stdout, the first being {"kind":"listening",…}; otherwise one line per request.
// A reader that falls behind gets whole lines in order, up to a bound, then one line saying what
// was dropped (bounded-lines.ts); a reader that goes away (EPIPE) stops wrtui as a signal does.
import { resolve as resolvePath } from 'node:path';
import type { JournalEntry } from '../engine/journal.js';
import { BoundedLines, OUTPUT_BOUND, type Dropped } from './bounded-lines.js';
import { announceListening, startCaptureSession, type SessionOptions } from './capture-session.js';
import { toJsonLine } from './json-line.js';
import { recordedClause } from './record-session.js';
import { createRequestLog, REQUEST_LOG_EVENTS } from './request-log.js';
import { statusOfLostOutput, stdoutLines } from './stdout-lines.js';
import { catchStopSignals, noteTerminalGone, onStopSignal } from './stop-signals.js';

export interface HeadlessOptions extends SessionOptions {
  json: boolean;
}

/** Runs until a signal or the output's end stops it, cleanly; resolves with the exit status. */
export async function runHeadless(options: HeadlessOptions): Promise<number> {
  const out = stdoutLines();
  const bounded = new BoundedLines(out, { notice: options.json ? jsonNotice : textNotice });
  const write = (line: string) => bounded.write(() => line);
  const requestLog = options.json ? undefined : createRequestLog(write);
  const print = requestLog ?? ((entry: JournalEntry) => bounded.write(() => toJsonLine(entry), entry.seq));

  // A signal during start-up (the rules loading, the proxies opening) stops it once it has started,
  // cleanly, rather than killing it half-open; a second one kills it at once.
  catchStopSignals();
  const session = await startCaptureSession(options);
  // Every entry from seq 1 (start-up: cookies set aside, rules loading, CA warnings), after the
  // "listening" line, which the contract puts first: then in seq order.
  const early: JournalEntry[] = [];
  let listening = false;
  session.engine.journal.subscribe(
    (entry) => {
      if (listening) print(entry);
      else if (entry.kind === 'listening') {
        listening = true;
        print(entry);
        for (const queued of early.splice(0)) print(queued);
      } else early.push(entry);
    },
    // The request lines need only some events: the others, when no listener gets them, are not even made (journal.ts).
    { fromStart: true, ...(requestLog && { webRequestEvents: REQUEST_LOG_EVENTS }) },
  );
  announceListening(session, options);

  const why = await new Promise<{ signal: NodeJS.Signals } | { lost: NodeJS.ErrnoException }>((resolve) => {
    onStopSignal((signal) => resolve({ signal }));
    out.onGone((lost) => resolve({ lost }));
    if (out.gone) resolve({ lost: out.gone });
  });
  // A terminal that closed under headless output: a hangup (stop-signals.ts).
  if ('lost' in why && why.lost.code === 'EIO') noteTerminalGone();
  const stoppedBy = 'signal' in why ? why.signal : `stdout's end (${why.lost.code ?? why.lost.message})`;
  session.engine.journal.append({ kind: 'log', level: 'info', source: 'wrtui', message: `stopping on ${stoppedBy}` });
  await session.close();
  // What waited for a slow reader is printed before the last line (a second signal kills, as ever).
  await bounded.drain();
  // One line at the end (stderr under --json, whose stdout is the journal's alone).
  const saved = `cookie store saved in ${resolvePath(options.stateDir)}${recordedClause(session.recorder)}`;
  if (requestLog) out.write(`wrtui stopped on ${stoppedBy}: ${requestLog.summary()}; ${saved}`);
  else process.stderr.write(`wrtui stopped on ${stoppedBy}; ${saved}\n`);
  return 'lost' in why && why.lost.code !== 'EIO' ? statusOfLostOutput(why.lost) : 0;
}

/** --json: the line in place of the entries a stalled reader missed; not a journal entry (it has no seq of its own). */
function jsonNotice(dropped: Dropped): string {
  const which = dropped.firstSeq === undefined ? '' : ` (seq ${dropped.firstSeq}–${dropped.lastSeq})`;
  return JSON.stringify({
    kind: 'dropped',
    entries: dropped.lines,
    ...(dropped.firstSeq !== undefined && { firstSeq: dropped.firstSeq, lastSeq: dropped.lastSeq }),
    time: Date.now(),
    message: `stdout's reader fell ${mib(OUTPUT_BOUND)} behind: ${dropped.lines} journal entr${dropped.lines === 1 ? 'y was' : 'ies were'} not printed${which}`,
  });
}

function textNotice(dropped: Dropped): string {
  return `warn [wrtui] stdout's reader fell ${mib(OUTPUT_BOUND)} behind: ${dropped.lines} line${dropped.lines === 1 ? ' was' : 's were'} not printed`;
}

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}
