// How a live wrtui (the TUI, headless, browser) is stopped from outside, and how it then exits.
// SIGINT, SIGTERM and SIGHUP (a terminal's window closing) all ask for the same clean stop: the
// cookie jar written, the recording finished and its sessions.json record ended. A second signal
// kills at once, as before. A terminal that goes away (EIO or end of input on it) is a hangup too;
// the SIGHUP the kernel sends with it is not a second signal.
//
// After a hangup wrtui ends by SIGHUP itself (status 129, as a shell reports a hung-up job): Node's
// own exit restores the terminal's modes, and on a terminal that is gone that fails an assertion
// and aborts (a native stack trace, SIGABRT) after the clean stop.
import { stdoutLines } from './stdout-lines.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let installed = false;
let first: NodeJS.Signals | undefined;
let hungUp = false;
let stopTarget: ((signal: NodeJS.Signals) => void) | undefined;

function onSignal(signal: NodeJS.Signals): void {
  // The terminal closed: its SIGHUP may come before or after the end of input; one stop either way.
  if (signal === 'SIGHUP' && hungUp) return;
  if (signal === 'SIGHUP') hungUp = true;
  if (first === undefined) {
    first = signal;
    stopTarget?.(signal);
    return;
  }
  // A second signal: the user does not want to wait for the clean stop.
  for (const each of SIGNALS) process.off(each, onSignal);
  process.kill(process.pid, signal);
}

/**
 * From now on SIGINT, SIGTERM and SIGHUP stop wrtui cleanly instead of killing it. A signal that
 * comes before anything can stop (start-up: the rules loading, the proxies opening) is kept and
 * acted on once onStopSignal says what stopping is.
 */
export function catchStopSignals(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

/** What the first signal does; called at once when one came already. Returns its removal. */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  catchStopSignals();
  stopTarget = stop;
  if (first !== undefined) stop(first);
  return () => {
    if (stopTarget === stop) stopTarget = undefined;
  };
}

/** The signal that asked for the stop, if one did. */
export function stopSignal(): NodeJS.Signals | undefined {
  return first;
}

/** The controlling terminal went away (the TUI read EIO or the end of its input). */
export function noteTerminalGone(): void {
  hungUp = true;
}

export function terminalGone(): boolean {
  return hungUp;
}

/**
 * Ends the process once stdout has handed everything to the kernel: with `code`, or after a
 * hangup by SIGHUP itself (see the top of this file).
 */
export async function exitAfterStop(code: number): Promise<never> {
  await stdoutLines().flush();
  if (hungUp) {
    process.removeAllListeners('SIGHUP'); // the default action: the process ends by the signal
    process.kill(process.pid, 'SIGHUP');
  }
  process.exit(code);
}
