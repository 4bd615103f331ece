// Libraries (mockttp first of all) and rules write to console.*. In headless --json mode stdout
// carries NDJSON and in the TUI the screen is Ink's, so console output goes to the journal instead.
import { format } from 'node:util';
import type { Journal } from '../engine/journal.js';

const METHODS = { log: 'info', info: 'info', debug: 'debug', warn: 'warn', error: 'error', trace: 'debug' } as const;

/** Redirects console.* into the journal until the returned function is called. */
export function captureConsole(journal: Journal): () => void {
  const originals = new Map<keyof typeof METHODS, (...args: unknown[]) => void>();
  for (const [method, level] of Object.entries(METHODS) as [keyof typeof METHODS, (typeof METHODS)[keyof typeof METHODS]][]) {
    originals.set(method, console[method]);
    console[method] = (...args: unknown[]) => {
      journal.append({ kind: 'log', level, source: sourceOf(new Error().stack), message: format(...args) });
    };
  }
  return () => {
    for (const [method, original] of originals) console[method] = original;
  };
}

/** Who called console: the package in node_modules, else "console". */
function sourceOf(stack: string | undefined): string {
  const frame = stack?.split('\n').slice(2).find((line) => !line.includes('console-capture'));
  const pkg = frame && /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame)?.[1];
  return pkg ?? 'console';
}
