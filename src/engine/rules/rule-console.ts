// The `console` a rule's code sees: everything it prints becomes a `log` journal entry whose source
// is the rule's name, never a line on wrtui's stdout (which belongs to the TUI or to NDJSON). It is
// a real node:console Console, so %s formatting, console.table, console.group, console.count and
// console.time behave as usual; only where the text goes differs.
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import type { LogEntry } from '../journal.js';

export type LogLevel = LogEntry['level'];

/** Methods whose output is not ordinary information. */
const METHOD_LEVELS: Readonly<Record<string, LogLevel>> = {
  debug: 'debug',
  warn: 'warn',
  error: 'error',
  trace: 'error',
  assert: 'error',
};

/** A console writing each printed text, without its final newline, to `write` with the method's level. */
export function createRuleConsole(write: (level: LogLevel, message: string) => void): Console {
  let level: LogLevel = 'info';
  const sink = new Writable({
    // Console writes synchronously, so `level` is still the calling method's when this runs.
    write(chunk: Buffer | string, _encoding, done) {
      write(level, String(chunk).replace(/\n$/, ''));
      done();
    },
  });
  const base = new Console({ stdout: sink, stderr: sink, colorMode: false });
  const ruleConsole = Object.create(base) as Console;
  for (const [name, method] of Object.entries(base)) {
    if (typeof method !== 'function') continue;
    Object.defineProperty(ruleConsole, name, {
      value: (...args: unknown[]) => {
        level = METHOD_LEVELS[name] ?? 'info';
        try {
          (method as (...args: unknown[]) => unknown)(...args);
        } finally {
          level = 'info';
        }
      },
      enumerable: true,
    });
  }
  return ruleConsole;
}
