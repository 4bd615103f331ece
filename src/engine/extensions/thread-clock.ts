// A worker thread's own time: how long it has run, or slept of its own accord, whatever the rest
// of the machine does. Linux accounts every thread's CPU time in /proc/self/task/<tid>/schedstat
// (nanoseconds on a CPU, first); a thread waiting for a CPU adds nothing to it, so on a loaded
// machine a worker's own time runs slower than the wall clock, as its work does. A thread asleep
// with work waiting for it (Atomics.wait, a synchronous child process or file read in a Node rule)
// is busy too: when /proc/self/task/<tid>/stat says it sleeps (S, D) at two readings in a row, the
// wall time between them counts as its own as well. (Wall time less schedstat's run-queue wait
// would say the same in one number, but that wait is only added when the thread gets a CPU again:
// read while it waits, it runs ahead and then back.)
//
// Reading it is two preads of files kept open: a few µs of the proxy thread's CPU, done once per
// heartbeat while the worker has something waiting. Where there is no /proc (not Linux, or a thread id the worker could not
// learn), the clock is the wall clock, as before.
import { closeSync, openSync, readSync } from 'node:fs';

export interface ThreadClock {
  /** The thread's own time so far (ms); only differences mean anything. */
  ownMs(): number;
  /** Whether it counts the thread's own time (false: the wall clock stands in). */
  readonly own: boolean;
  close(): void;
}

/** The wall clock, where the thread's own time cannot be read. */
export const WALL_CLOCK: ThreadClock = { ownMs: () => performance.now(), own: false, close: () => {} };

// schedstat is three numbers; the state is near the start of stat (`tid (name) S`, a name of at most 15 bytes).
const buffer = Buffer.alloc(64);

/** ms on a CPU, from schedstat's `<on-cpu ns> <waiting ns> <slices>`; undefined if it says nothing readable. */
export function parseSchedstat(text: string): number | undefined {
  const match = /^(\d+) \d+ \d+/.exec(text);
  return match ? Number(match[1]) / 1e6 : undefined;
}

/** The state letter of a /proc stat line (`tid (name) S …`; the name may hold spaces and parentheses). */
export function parseState(text: string): string | undefined {
  const end = text.lastIndexOf(') ');
  const state = end === -1 ? undefined : text[end + 2];
  return state !== undefined && /^[A-Za-z]$/.test(state) ? state : undefined;
}

function readText(fd: number): string {
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  return buffer.toString('latin1', 0, length);
}

class ProcClock implements ThreadClock {
  readonly own = true;
  readonly #schedstat: number;
  readonly #stat: number;
  #closed = false;
  #blockedMs = 0;
  #last: { wall: number; cpu: number; asleep: boolean } | undefined;

  constructor(schedstat: number, stat: number) {
    this.#schedstat = schedstat;
    this.#stat = stat;
  }

  ownMs(): number {
    const wall = performance.now();
    if (this.#closed) return wall;
    let cpu: number | undefined;
    let asleep = false;
    try {
      cpu = parseSchedstat(readText(this.#schedstat));
      const state = parseState(readText(this.#stat));
      asleep = state === 'S' || state === 'D';
    } catch {
      // The thread is gone (terminated): nothing more to count.
    }
    if (cpu === undefined) return (this.#last?.cpu ?? 0) + this.#blockedMs;
    if (this.#last?.asleep && asleep) this.#blockedMs += Math.max(0, wall - this.#last.wall - (cpu - this.#last.cpu));
    this.#last = { wall, cpu, asleep };
    return cpu + this.#blockedMs;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const fd of [this.#schedstat, this.#stat]) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
  }
}

/** The clock of thread `tid` of this process (its kernel thread id), or the wall clock where that cannot be read. */
export function threadClock(tid: number): ThreadClock {
  if (!(tid > 0) || process.platform !== 'linux') return WALL_CLOCK;
  const opened: number[] = [];
  try {
    opened.push(openSync(`/proc/self/task/${tid}/schedstat`, 'r'), openSync(`/proc/self/task/${tid}/stat`, 'r'));
    // A kernel without scheduler statistics has the file but no numbers in it.
    if (parseSchedstat(readText(opened[0]!)) !== undefined && parseState(readText(opened[1]!)) !== undefined) return new ProcClock(opened[0]!, opened[1]!);
  } catch {
    // unreadable: the wall clock
  }
  for (const fd of opened) closeSync(fd);
  return WALL_CLOCK;
}

/** This thread's kernel thread id (Linux), for the other side's clock; 0 where it cannot be learnt. */
export function ownThreadId(readlink: (path: string) => string): number {
  try {
    // "<pid>/task/<tid>"
    const tid = Number(readlink('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : 0;
  } catch {
    return 0;
  }
}
