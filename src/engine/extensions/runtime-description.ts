// How a worker's state change reads in a log line (the TUI's log, plain headless output).
import type { RuntimeEntry } from '../journal.js';

/** A worker's state change as one log line: what happened, while doing what, where. */
export function describeRuntime(entry: RuntimeEntry): string {
  const doing = entry.doing ? ` while handling ${entry.doing.event} for ${entry.doing.url} (${entry.doing.forMs} ms)` : '';
  const where = entry.location ? ` at ${entry.location}` : '';
  const restarts = entry.state === 'running' ? ` after ${entry.restarts} restart${entry.restarts === 1 ? '' : 's'}` : '';
  return `${entry.state}${restarts}${entry.reason ? `: ${entry.reason}` : ''}${doing}${where}`;
}
