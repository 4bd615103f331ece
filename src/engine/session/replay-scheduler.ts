// Replays requests interleaved as they were recorded. Each recorded request is a task that, before
// each lifecycle step (onBeforeRequest, the send, the response, …), waits until the recorded
// timeline reaches that step's position; the scheduler wakes the waiting task with the lowest
// position and waits until it waits again or ends. So a response's Set-Cookie lands in the store
// before exactly those later requests that saw it live, and never before one that did not,
// whatever the rules' listeners take. Steps with no recorded counterpart (a rule now redirects
// elsewhere) run at once.
//
// With `overlap`, a step that waits for listeners' answers (its task says so, `waiting()`; or it
// is still busy once the event loop has turned: nothing else in replay waits past a turn) is set
// aside, and later steps may start meanwhile, up to the set-aside task's next recorded step
// (`stepsAt`): requests overlap as much as they overlapped live and no more, every step still
// starts in recorded order (so every worker receives its events in that order), and the events of
// many steps travel to a worker in one message. A step that reads the
// cookie store (`readsCookies`) never starts while a task set aside at an earlier position may
// still write it before that step (in the step it is in, `writesCookies`, or in one of its later
// steps, `writesAt`), so cookies still land as they did live. Without it only one
// step runs at a time.
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
  /** The running step now waits for listeners' answers: with overlap, the next step may start. */
  waiting(): void;
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
  /** Called when the task waits for its next step or ends. */
  onYield: (() => void) | undefined;
  /** Sets the running step aside (while it is the one running). */
  setAside: (() => void) | undefined;
  /** The position of the step it is running, and whether that step may write cookies. */
  position: number;
  writes: boolean;
  stepsAt: readonly number[];
  writesAt: readonly number[];
  /** Set aside: the position of its next recorded step (Infinity when none). */
  next: number;
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

export class ReplayScheduler {
  /** Recorded times of positions `#timesBase` onwards (older ones are let go once passed). */
  #times: number[];
  #timesBase = 0;
  /** Waiting steps by position: tasks come back with later positions all the time. */
  readonly #heap = new MinHeap<Waiting>((a, b) => a.position - b.position);
  readonly #overlap: number;
  /** Tasks whose step is set aside (waiting on a worker). */
  readonly #aside = new Set<TaskState>();
  #now: number;
  /** The position of the latest step started. */
  #position = 0;
  #changed: (() => void) | undefined;
  /** Streamed input: no task still to be added has a step before this position. */
  #frontier = 0;
  #inputEnded = false;
  #aborted = false;
  #added = 0;
  #settled = 0;
  #inputWanted: { limit: number; resolve: () => void } | undefined;
  #onSettled: (error: unknown) => void = () => undefined;

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
    this.#added++;
    const state: TaskState = { onYield: undefined, setAside: undefined, position: task.position, writes: false, stepsAt: task.stepsAt ?? [], writesAt: task.writesAt ?? [], next: Infinity };
    const gate: StepGate = {
      at: (position, options = {}) => {
        if (this.#aborted) {
          this.#yieldOf(state);
          return Promise.reject(new ReplayAborted());
        }
        if (position === undefined) return Promise.resolve();
        return new Promise((resume, reject) => {
          this.#heap.push({ position, task: state, readsCookies: options.readsCookies ?? false, writesCookies: options.writesCookies ?? false, resume, cancel: () => reject(new ReplayAborted()) });
          this.#yieldOf(state);
        });
      },
      waiting: () => state.setAside?.(),
    };
    this.#heap.push({
      position: task.position,
      task: state,
      readsCookies: false,
      writesCookies: false,
      resume: () => void task.run(gate).then(() => this.#end(state, undefined), (error: unknown) => this.#end(state, error)),
      cancel: () => this.#end(state, new ReplayAborted()),
    });
    this.#wake();
  }

  /**
   * Stops the replay: no further task or step starts (each ends with ReplayAborted), and no input
   * is taken; steps already running end as they would. drain() resolves once they have.
   */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.end();
    for (let waiting = this.#heap.pop(); waiting; waiting = this.#heap.pop()) waiting.cancel();
    this.#wake();
  }

  /** No task still to come has a step before `position`: steps before it may start. */
  advance(position: number): void {
    this.#frontier = Math.max(this.#frontier, position);
    this.#wake();
  }

  /** No more tasks. */
  end(): void {
    this.#inputEnded = true;
    this.#frontier = Infinity;
    this.#wake();
  }

  /**
   * Resolves when fewer than `limit` tasks are added and not yet ended, or when nothing can start
   * for want of input: the reader of a recording waits on this, so that it stays only so far ahead.
   */
  wantsInput(limit: number): Promise<void> {
    if (this.#added - this.#settled < limit || this.#starved()) return Promise.resolve();
    return new Promise((resolve) => (this.#inputWanted = { limit, resolve }));
  }

  /** Runs tasks as they are added until end() and every task has ended. */
  async drain(onSettled: (error: unknown) => void): Promise<void> {
    this.#onSettled = onSettled;
    let turnStarted = performance.now();
    while (!this.#inputEnded || this.#settled < this.#added) {
      // Steps that wait on no worker chain through promises alone and would never let the event loop
      // turn: the TUI showing the replay (same thread) would not draw until the end.
      if (performance.now() - turnStarted > TURN_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        turnStarted = performance.now();
        continue; // what the turn brought (tasks ended, input) is seen afresh
      }
      const next = this.#heap.peek();
      if (!next || next.position >= this.#frontier || (this.#overlap > 0 && this.#aside.size >= this.#overlap) || this.#asideStepBefore(next.position) || (next.readsCookies && this.#writerAsideBefore(next.position))) {
        // Nothing may start now: wait for a step set aside to come back, a task to end, or more input.
        this.#offerInput();
        await new Promise<void>((resolve) => (this.#changed = resolve));
        continue;
      }
      this.#heap.pop();
      this.#position = next.position;
      this.#now = Math.max(this.#now, this.#timeAt(next.position) ?? this.#now);
      const task = next.task;
      task.position = next.position;
      task.writes = next.writesCookies;
      await new Promise<void>((resolve) => {
        let decided = false;
        task.onYield = () => {
          decided = true;
          task.setAside = undefined;
          resolve();
        };
        if (this.#overlap > 0) {
          // Waiting on listeners (said, or still busy after a turn): set aside; it rejoins when it yields.
          task.setAside = () => {
            if (decided) return;
            decided = true;
            task.setAside = undefined;
            task.next = task.stepsAt.find((at) => at > task.position) ?? Infinity;
            this.#aside.add(task);
            task.onYield = () => {
              this.#aside.delete(task);
              this.#wake();
            };
            resolve();
          };
          setImmediate(() => task.setAside?.());
        }
        next.resume();
      });
    }
  }

  #end(task: TaskState, error: unknown): void {
    this.#settled++;
    this.#onSettled(error);
    this.#offerInput();
    this.#yieldOf(task);
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

  #yieldOf(task: TaskState): void {
    const onYield = task.onYield;
    task.onYield = undefined;
    onYield?.();
    this.#wake();
  }

  #wake(): void {
    const changed = this.#changed;
    this.#changed = undefined;
    changed?.();
  }

  /** A task set aside has a recorded step before `position`: that one goes first, as it did live. */
  #asideStepBefore(position: number): boolean {
    for (const task of this.#aside) if (task.next < position) return true;
    return false;
  }

  /** A task set aside may write cookies before `position`: in the step it is in, or in a later one of its own. */
  #writerAsideBefore(position: number): boolean {
    for (const task of this.#aside) {
      if (task.position >= position) continue;
      if (task.writes) return true;
      for (const at of task.writesAt) if (at > task.position && at < position) return true;
    }
    return false;
  }
}

/** The longest the scheduler runs steps without letting the event loop turn. */
const TURN_MS = 10;

/** How many passed positions' times are kept before they are let go in one go. */
const DROP_TIMES_AFTER = 1 << 16;
