// The `console` and timers an extension's code sees. Each console call becomes one journal `log`
// entry, whole (never cut), naming the extension; nothing reaches wrtui's stdout. Timers are a
// browser's: numeric ids, and a callback that throws is reported as an uncaught exception (as a
// browser logs it) while the worker goes on. They die with the worker, so a replaced version's
// setInterval never outlives it.
import type { Bridge } from './bridge.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: Readonly<Record<string, Level>> = {
  log: 'info',
  info: 'info',
  debug: 'debug',
  trace: 'error',
  warn: 'warn',
  error: 'error',
  dir: 'info',
  table: 'info',
};

export function createConsole(bridge: Pick<Bridge, 'post' | 'format'>): Record<string, unknown> {
  const write = (level: Level, args: readonly unknown[]) => bridge.post(['log', level, bridge.format(args)]);
  const counts = new Map<string, number>();
  const timers = new Map<string, number>();
  let indent = '';
  const out: Record<string, unknown> = {};
  for (const [method, level] of Object.entries(LEVELS)) {
    out[method] = (...args: unknown[]) => {
      if (indent === '') return write(level, args);
      // Grouped lines are indented as a console indents them.
      write(level, [bridge.format(args).replace(/^/gm, indent)]);
    };
  }
  out.assert = (condition: unknown, ...args: unknown[]) => {
    if (!condition) write('error', ['Assertion failed', ...(args.length > 0 ? [':', ...args] : [])]);
  };
  out.count = (label = 'default') => {
    const n = (counts.get(String(label)) ?? 0) + 1;
    counts.set(String(label), n);
    write('info', [`${String(label)}: ${n}`]);
  };
  out.countReset = (label = 'default') => counts.delete(String(label));
  out.time = (label = 'default') => timers.set(String(label), performance.now());
  out.timeLog = (label = 'default', ...args: unknown[]) => {
    const started = timers.get(String(label));
    if (started !== undefined) write('info', [`${String(label)}: ${(performance.now() - started).toFixed(3)} ms`, ...args]);
  };
  out.timeEnd = (label = 'default') => {
    (out.timeLog as (label: string) => void)(String(label));
    timers.delete(String(label));
  };
  out.group = out.groupCollapsed = (...args: unknown[]) => {
    if (args.length > 0) (out.log as (...a: unknown[]) => void)(...args);
    indent += '  ';
  };
  out.groupEnd = () => {
    indent = indent.slice(2);
  };
  return out;
}

export interface Timers {
  setTimeout(callback: unknown, ms?: unknown, ...args: unknown[]): number;
  setInterval(callback: unknown, ms?: unknown, ...args: unknown[]): number;
  clearTimeout(id: unknown): void;
  clearInterval(id: unknown): void;
}

/** The timers of one global scope, and a way to cancel them all (a dedicated Worker that ends). */
export function createTimers(bridge: Pick<Bridge, 'setTimer' | 'clearTimer'>, onError: (error: unknown, where: string) => void): { timers: Timers; cancelAll(): void } {
  const handles = new Map<number, unknown>();
  let next = 1;
  const schedule = (repeat: boolean, callback: unknown, ms: unknown, args: unknown[]): number => {
    const id = next++;
    const delay = Math.max(0, Number(ms) || 0);
    const run = () => {
      if (!repeat) handles.delete(id);
      try {
        if (typeof callback === 'function') callback(...args);
        // A string is evaluated, as browsers do (rare, but old code does it).
        else (0, eval)(String(callback));
      } catch (error) {
        onError(error, repeat ? 'setInterval callback' : 'setTimeout callback');
      }
    };
    handles.set(id, bridge.setTimer(run, delay, repeat));
    return id;
  };
  const clear = (id: unknown) => {
    const handle = handles.get(Number(id));
    if (handle === undefined) return;
    handles.delete(Number(id));
    bridge.clearTimer(handle);
  };
  return {
    timers: {
      setTimeout: (callback, ms, ...args) => schedule(false, callback, ms, args),
      setInterval: (callback, ms, ...args) => schedule(true, callback, ms, args),
      clearTimeout: clear,
      clearInterval: clear,
    },
    cancelAll: () => {
      for (const id of [...handles.keys()]) clear(id);
    },
  };
}
