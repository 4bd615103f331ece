// Replays requests interleaved as they were recorded, one step at a time. Each recorded request is
// a task that, before each lifecycle step (onBeforeRequest, the send, the response, …), waits
// until the recorded timeline reaches that step's position; the scheduler wakes the waiting task
// with the lowest position and waits until it waits again or ends. So a response's Set-Cookie
// lands in the store before exactly those later requests that saw it live, and never before one
// that did not, whatever the rules' listeners take. Steps with no recorded counterpart (a rule now
// redirects elsewhere) run at once.
//
// Only one task runs at a time, so replay is deterministic. The scheduler is also the replay's
// clock: the engine reads `now()` for timeStamps and cookie expiry, and it follows the recording.

interface Waiting {
  position: number;
  resume: () => void;
}

export interface ReplayTask {
  /** Timeline position of its first step. */
  position: number;
  run: () => Promise<void>;
}

export class ReplayScheduler {
  readonly #times: readonly number[];
  readonly #heap: Waiting[] = [];
  #now: number;
  #yielded: (() => void) | undefined;

  constructor(times: readonly number[], startedAt: number) {
    this.#times = times;
    this.#now = startedAt;
  }

  /** The replay clock: the recorded time of the step being replayed (epoch ms, never going back). */
  now(): number {
    return this.#now;
  }

  /** For the running task: resolves when the timeline reaches `position` (at once when undefined). */
  at(position: number | undefined): Promise<void> {
    if (position === undefined) return Promise.resolve();
    return new Promise((resume) => {
      push(this.#heap, { position, resume });
      this.#yield();
    });
  }

  /** Runs every task to its end; `onSettled` after each task ends (a thrown error is passed along). */
  async run(tasks: readonly ReplayTask[], onSettled: (error: unknown) => void): Promise<void> {
    for (const task of tasks) {
      push(this.#heap, {
        position: task.position,
        resume: () => {
          task.run().then(
            () => (onSettled(undefined), this.#yield()),
            (error: unknown) => (onSettled(error), this.#yield()),
          );
        },
      });
    }
    while (this.#heap.length > 0) {
      const next = pop(this.#heap)!;
      this.#now = Math.max(this.#now, this.#times[next.position] ?? this.#now);
      await new Promise<void>((resolve) => {
        this.#yielded = resolve;
        next.resume();
      });
    }
  }

  #yield(): void {
    const yielded = this.#yielded;
    this.#yielded = undefined;
    yielded?.();
  }
}

// A binary min-heap on position: tasks come back with later positions all the time.
function push(heap: Waiting[], item: Waiting): void {
  heap.push(item);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]!.position <= item.position) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = item;
}

function pop(heap: Waiting[]): Waiting | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || last === undefined) return top;
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= heap.length) break;
    const right = left + 1;
    const child = right < heap.length && heap[right]!.position < heap[left]!.position ? right : left;
    if (heap[child]!.position >= last.position) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
  return top;
}
