// How a worker's state change reads in a log line (the TUI's log, plain headless output).
import type { RuntimeEntry } from '../journal.js';

/**
 * A worker's state change as one log line: what happened, where, while doing what. The place in
 * the user's code comes first, as a compiler puts it: a log row cut to the terminal's width still
 * shows it.
 */
export function describeRuntime(entry: RuntimeEntry): string {
  const doing = entry.doing && `while handling ${entry.doing.event} for ${entry.doing.url} (${entry.doing.forMs} ms)`;
  const restarts = entry.state === 'running' ? ` after ${entry.restarts} restart${entry.restarts === 1 ? '' : 's'}` : '';
  const what = [entry.reason, doing].filter(Boolean).join(' ');
  return [`${entry.state}${restarts}`, entry.location, what].filter(Boolean).join(': ');
}
