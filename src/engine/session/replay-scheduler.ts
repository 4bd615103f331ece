// Replays requests interleaved as they were recorded. Each recorded request is a task that, before
// each lifecycle step (onBeforeRequest, the send, the response, …), waits until the recorded
// timeline reaches that step's position; the scheduler starts the waiting step with the lowest
// position and waits until it waits again or ends. So a response's Set-Cookie lands in the store
// before exactly those later requests that saw it live, and never before one that did not,
// whatever the rules' listeners take. Steps with no recorded counterpart (a rule now redirects
// elsewhere) run at once, within the step they follow.
//
// With `overlap`, a step that waits for listeners' answers (its task says so: `waiting()`) is set
// aside, and later steps may start meanwhile, up to the set-aside task's next recorded step
// (`stepsAt`, and at most ASIDE_HORIZON positions): requests overlap as much as they overlapped live and no more, and the events of
// many steps travel to a worker in one message. A step that reads the cookie store
// (`readsCookies`) never starts while a task set aside at an earlier position may still write it
// before that step (in the step it is in, `writesCookies`, or in one of its later steps,
// `writesAt`), so cookies still land as they did live. Without it only one step runs at a time.
//
// Deterministic: a task set aside goes on (`resumed()`, once its answers are in) only when the
// scheduler gets to it, never when its answers happen to arrive: when the next step may not start
// before it (the rules above), when `overlap` tasks are set aside (the earliest goes on), or when
// nothing else is left. Which steps start before which continuation thus depends on the recording
// alone, so every worker receives its events in one order, the same on every run, whatever the
// workers take to answer.
//
// The scheduler is also the replay's clock: the engine reads `now()` for timeStamps and cookie
// expiry, and it follows the recording.
//
// Tasks may be given all at once (`run`) or as a recording is read (`add`, `advance`, `end`): a
// step starts only once the reader has said that no task still to come has an earlier step (the
// frontier), so a streamed replay runs exactly as a whole one.
import { MinHeap } from './min-heap.js';

export interface StepOptions {
  /** The step reads the cookie store (the request's Cookie header). */
  readsCookies?: boolean;
  /** The step may write the cookie store (a response's Set-Cookie). */
  writesCookies?: boolean;
}

/** A task's side of the scheduler. */
export interface StepGate {
  /** Resolves when the timeline reaches `position` (at once when undefined). */
  at(position: number | undefined, options?: StepOptions): Promise<void>;
  /** The running step now waits for listeners' answers: with overlap, it is set aside and the next step may start. */
  waiting(): void;
  /** The answers waited for are in: resolves when the scheduler lets the step go on (at once unless set aside). */
  resumed(): Promise<void>;
}

export interface ReplayTask {
  /** Timeline position of its first step. */
  position: number;
  /** Positions of all its recorded steps, ascending (for overlap: see above). */
  stepsAt?: readonly number[];
  /** Positions of its steps that may write the cookie store, ascending (for overlap: see above). */
  writesAt?: readonly number[];
  run: (at: StepGate) => Promise<void>;
}

export interface ReplaySchedulerOptions {
  /** Let steps waiting on workers overlap (see above); at most this many set aside at once. 0: one step at a time. */
  overlap?: number;
}

interface TaskState {
  /** Order added: ties between equal positions go by it. */
  seq: number;
  /** The position of the step it is running (or set aside in), and whether that step may write cookies. */
  position: number;
  writes: boolean;
  stepsAt: readonly number[];
  writesAt: readonly number[];
  /** Set aside: the position of its next recorded step (Infinity when none). */
  next: number;
  aside: boolean;
  /** Set aside and answered: lets it go on. */
  goOn: (() => void) | undefined;
}

interface Waiting {
  position: number;
  task: TaskState;
  readsCookies: boolean;
  writesCookies: boolean;
  resume: () => void;
  /** The replay was aborted before this step started. */
  cancel: () => void;
}

/** What a task's step gets when the replay is aborted before the step started. */
export class ReplayAborted extends Error {
  constructor() {
    super('the replay was stopped');
    this.name = 'ReplayAborted';
  }
}

const RESOLVED = Promise.resolve();

export class ReplayScheduler {
  /** Recorded times of positions `#timesBase` onwards (older ones are let go once passed). */
  #times: number[];
  #timesBase = 0;
  /** Waiting steps by position: tasks come back with later positions all the time. */
  readonly #heap = new MinHeap<Waiting>((a, b) => a.position - b.position || a.task.seq - b.task.seq);
  readonly #overlap: number;
  /** Tasks whose step is set aside (waiting on a worker, or answered and waiting for its turn). */
  readonly #aside = new Set<TaskState>();
  /** The task whose step runs now. */
  #running: TaskState | undefined;
  #now: number;
  /** The position of the latest step started. */
  #position = 0;
  /** Streamed input: no task still to be added has a step before this position. */
  #frontier = 0;
  #inputEnded = false;
  #aborted = false;
  #added = 0;
  #settled = 0;
  #inputWanted: { limit: number; resolve: () => void } | undefined;
  #onSettled: (error: unknown) => void = () => undefined;
  #drained: (() => void) | undefined;
  #pumping = false;
  #again = false;
  /** The event loop is to turn before more steps start (see TURN_MS). */
  #turnPending = false;
  #turnStarted = 0;
  /** Looks at what may start, counted: the clock is read every LOOKS_PER_CLOCK_READ. */
  #looks = 0;

  constructor(times: readonly number[], startedAt: number, options: ReplaySchedulerOptions = {}) {
    this.#times = [...times];
    this.#now = startedAt;
    this.#overlap = options.overlap ?? 0;
  }

  /** The replay clock: the recorded time of the latest step started (epoch ms, never going back). */
  now(): number {
    return this.#now;
  }

  /** No step from now on starts, and no task set aside resumes, before this position. */
  lowWater(): number {
    let lowest = this.#position;
    for (const task of this.#aside) lowest = Math.min(lowest, task.position);
    return lowest;
  }

  /** Runs every task to its end; `onSettled` after each task ends (a thrown error is passed along). */
  async run(tasks: readonly ReplayTask[], onSettled: (error: unknown) => void): Promise<void> {
    for (const task of tasks) this.add(task);
    this.end();
    await this.drain(onSettled);
  }

  // ── streamed input: a recording read as it is replayed ──────────────────────

  /** The recorded times of the next positions. */
  addTimes(times: readonly number[]): void {
    for (const time of times) this.#times.push(time);
  }

  /** A task to run; its first step may not be before the frontier given so far. */
  add(task: ReplayTask): void {
    const state: TaskState = { seq: this.#added++, position: task.position, writes: false, stepsAt: task.stepsAt ?? [], writesAt: task.writesAt ?? [], next: Infinity, aside: false, goOn: undefined };
    const gate: StepGate = {
      at: (position, options) => {
        if (this.#aborted) {
          this.#yielded(state);
          return Promise.reject(new ReplayAborted());
        }
        if (position === undefined) return RESOLVED;
        return new Promise((resume, reject) => {
          this.#heap.push({ position, task: state, readsCookies: options?.readsCookies ?? false, writesCookies: options?.writesCookies ?? false, resume, cancel: () => reject(new ReplayAborted()) });
          this.#yielded(state);
        });
      },
      waiting: () => {
        if (this.#overlap === 0 || this.#running !== state) return;
        state.aside = true;
        // No further than ASIDE_HORIZON positions: a request with no later recorded step (it now does
        // more than it did live), or one that stayed open long live, would otherwise hold the replay's
        // low-water mark, and the recording's data kept for it, until its far step or the end.
        state.next = Math.min(nextAfter(state.stepsAt, state.position), state.position + ASIDE_HORIZON);
        this.#aside.add(state);
        this.#running = undefined;
        this.#pump();
      },
      resumed: () => {
        if (!state.aside || this.#aborted) return this.#goOnNow(state);
        return new Promise<void>((goOn) => {
          state.goOn = goOn;
          this.#pump();
        });
      },
    };
    this.#heap.push({
      position: task.position,
      task: state,
      readsCookies: false,
      writesCookies: false,
      resume: () => void task.run(gate).then(() => this.#end(state, undefined), (error: unknown) => this.#end(state, error)),
      cancel: () => this.#end(state, new ReplayAborted()),
    });
    this.#pump();
  }

  /**
   * Stops the replay: no further task or step starts (each ends with ReplayAborted), and no input
   * is taken; steps already running or set aside end as they would. drain() resolves once they have.
   */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.end();
    for (let waiting = this.#heap.pop(); waiting; waiting = this.#heap.pop()) waiting.cancel();
    for (const task of [...this.#aside]) {
      const goOn = task.goOn;
      if (!goOn) continue;
      void this.#goOnNow(task);
      goOn();
    }
    this.#pump();
  }

  /** No task still to come has a step before `position`: steps before it may start. */
  advance(position: number): void {
    this.#frontier = Math.max(this.#frontier, position);
    this.#pump();
  }

  /** No more tasks. */
  end(): void {
    this.#inputEnded = true;
    this.#frontier = Infinity;
    this.#pump();
  }

  /**
   * Resolves when fewer than `limit` tasks are added and not yet ended, or when nothing can start
   * for want of input: the reader of a recording waits on this, so that it stays only so far ahead.
   */
  wantsInput(limit: number): Promise<void> {
    if (this.#added - this.#settled < limit || this.#starved()) return RESOLVED;
    return new Promise((resolve) => (this.#inputWanted = { limit, resolve }));
  }

  /** Runs tasks as they are added until end() and every task has ended. */
  drain(onSettled: (error: unknown) => void): Promise<void> {
    this.#onSettled = onSettled;
    const drained = new Promise<void>((resolve) => (this.#drained = resolve));
    this.#turnStarted = performance.now();
    this.#pump();
    return drained;
  }

  /** Starts what may start now, in order, until a step runs or nothing can. */
  #pump(): void {
    if (this.#pumping) {
      this.#again = true; // called from within: looked at again once the current look ends
      return;
    }
    if (this.#turnPending || !this.#drained) return;
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        this.#startWhatMay();
      } while (this.#again && !this.#turnPending && this.#drained);
    } finally {
      this.#pumping = false;
    }
  }

  #startWhatMay(): void {
    // A first step runs synchronously up to its first await: it may have yielded already when resume() returns.
    while (this.#running === undefined) {
      if (this.#inputEnded && this.#settled === this.#added) {
        const drained = this.#drained;
        this.#drained = undefined;
        drained?.();
        return;
      }
      // Steps that wait on no worker chain through promises alone and would never let the event loop
      // turn: the TUI showing the replay (same thread) would not draw, nor workers' answers come in.
      // The clock is read every few starts: reading it at each was 3 % of a replay without rules.
      if ((++this.#looks & (LOOKS_PER_CLOCK_READ - 1)) === 0 && performance.now() - this.#turnStarted > TURN_MS) {
        this.#turnPending = true;
        setImmediate(() => {
          this.#turnPending = false;
          this.#turnStarted = performance.now();
          this.#pump();
        });
        return;
      }
      if (this.#aborted) {
        // Nothing starts any more; what is set aside ends as it would, in any order.
        for (let waiting = this.#heap.pop(); waiting; waiting = this.#heap.pop()) waiting.cancel();
        return;
      }
      const next = this.#heap.peek();
      let before: TaskState | undefined;
      if (next && next.position < this.#frontier) {
        before = this.#mustGoOnBefore(next);
        if (!before) {
          this.#start(next);
          continue;
        }
      } else if (this.#inputEnded) {
        before = this.#earliestAside();
      } else {
        this.#offerInput(); // nothing may start before more of the recording is read
        return;
      }
      // Its answers not in yet: its resumed() pumps again. (No task set aside: steps running elsewhere, after an abort.)
      if (!before?.goOn) return;
      this.#goOn(before);
    }
  }

  /** The task set aside that must go on before `next` starts, if any (the earliest of them). */
  #mustGoOnBefore(next: Waiting): TaskState | undefined {
    let before: TaskState | undefined;
    for (const task of this.#aside) {
      if (before && (task.position > before.position || (task.position === before.position && task.seq > before.seq))) continue;
      if (task.next < next.position || (next.readsCookies && writesBefore(task, next.position))) before = task;
    }
    if (!before && this.#aside.size >= this.#overlap && this.#overlap > 0) before = this.#earliestAside();
    return before;
  }

  #earliestAside(): TaskState | undefined {
    let earliest: TaskState | undefined;
    for (const task of this.#aside) {
      if (!earliest || task.position < earliest.position || (task.position === earliest.position && task.seq < earliest.seq)) earliest = task;
    }
    return earliest;
  }

  #start(next: Waiting): void {
    this.#heap.pop();
    this.#position = next.position;
    const time = this.#timeAt(next.position);
    if (time !== undefined && time > this.#now) this.#now = time;
    const task = next.task;
    task.position = next.position;
    task.writes = next.writesCookies;
    this.#running = task;
    next.resume();
  }

  /** A task set aside goes on with its step: it runs now. */
  #goOn(task: TaskState): void {
    const goOn = task.goOn!;
    task.goOn = undefined;
    task.aside = false;
    this.#aside.delete(task);
    this.#running = task;
    goOn();
  }

  /** Aborted: a task set aside goes on at once, in no particular order. */
  #goOnNow(task: TaskState): Promise<void> {
    task.goOn = undefined;
    if (task.aside) {
      task.aside = false;
      this.#aside.delete(task);
    }
    return RESOLVED;
  }

  /** The task waits for its next step, ends, or (set aside, not told to go on) moved on by itself. */
  #yielded(task: TaskState): void {
    if (this.#running === task) this.#running = undefined;
    else if (task.aside) {
      // Went on without resumed() (a caller that does not use it): it rejoins now.
      task.aside = false;
      task.goOn = undefined;
      this.#aside.delete(task);
    }
    this.#pump();
  }

  #end(task: TaskState, error: unknown): void {
    this.#settled++;
    this.#onSettled(error);
    this.#offerInput();
    this.#yielded(task);
  }

  /** Nothing in the heap may start until more input comes. */
  #starved(): boolean {
    const next = this.#heap.peek();
    return !next || next.position >= this.#frontier;
  }

  #offerInput(): void {
    const wanted = this.#inputWanted;
    if (!wanted || (this.#added - this.#settled >= wanted.limit && !this.#starved())) return;
    this.#inputWanted = undefined;
    wanted.resolve();
  }

  /** The recorded time of a position (a half position, between two entries, has none). */
  #timeAt(position: number): number | undefined {
    if (!Number.isInteger(position)) return undefined;
    const index = position - this.#timesBase;
    const time = this.#times[index];
    // Steps start in position order: what lies well behind this one is never read again.
    if (index > DROP_TIMES_AFTER) {
      this.#times.splice(0, index - 1);
      this.#timesBase += index - 1;
    }
    return time;
  }
}

/** The first of `positions` after `position`; Infinity when none. */
function nextAfter(positions: readonly number[], position: number): number {
  for (const at of positions) if (at > position) return at;
  return Infinity;
}

/** A task set aside may write cookies before `position`: in the step it is in, or in a later one of its own. */
function writesBefore(task: TaskState, position: number): boolean {
  if (task.position >= position) return false;
  if (task.writes) return true;
  for (const at of task.writesAt) if (at > task.position && at < position) return true;
  return false;
}

/** The longest the scheduler runs steps without letting the event loop turn (give or take LOOKS_PER_CLOCK_READ steps). */
const TURN_MS = 10;
/** A power of two. */
const LOOKS_PER_CLOCK_READ = 16;

/** The furthest (in positions) later steps may run ahead of a step set aside before it must go on. */
const ASIDE_HORIZON = 1024;

/** How many passed positions' times are kept before they are let go in one go. */
const DROP_TIMES_AFTER = 1 << 16;
