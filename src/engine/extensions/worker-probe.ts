// What the watchdog (worker-watchdog.ts) reads of one worker thread, from the proxy thread and
// without the worker's event loop having to turn: the items it has taken up (worker-progress.ts),
// its own time (thread-clock.ts, once it has said which thread it is), how busy its event loop
// was (Node's eventLoopUtilization, read across threads), and, while it stalls, looks at it
// through the inspector (stuck-stack.ts).
import type { Worker } from 'node:worker_threads';
import { WorkerInspector } from './stuck-stack.js';
import { WALL_CLOCK, threadClock, type ThreadClock } from './thread-clock.js';
import { itemsTaken, workerThreadId } from './worker-progress.js';
import type { WatchdogProbe } from './worker-watchdog.js';

/** How long a look at a busy worker through the inspector may take before it is given up (ms). */
const INSPECTOR_TIMEOUT_MS = 3000;

export class WorkerProbe implements WatchdogProbe {
  readonly #worker: Worker;
  readonly #progress: Int32Array;
  #clock: ThreadClock | undefined;
  #elu: ReturnType<Worker['performance']['eventLoopUtilization']>;
  #inspector: Promise<WorkerInspector | undefined> | undefined;

  /** Whether looks at the thread are this realm's to take: a realm whose worker-mate runs is not looked at. */
  readonly #mayLook: () => boolean;

  /** `progress`: the counters the worker was given at boot. */
  constructor(worker: Worker, progress: Int32Array, mayLook: () => boolean = () => true) {
    this.#worker = worker;
    this.#progress = progress;
    this.#mayLook = mayLook;
    this.#elu = worker.performance.eventLoopUtilization();
  }

  taken(): number {
    return itemsTaken(this.#progress);
  }

  clock(): ThreadClock {
    if (this.#clock) return this.#clock;
    const tid = workerThreadId(this.#progress);
    if (tid === 0) return WALL_CLOCK;
    return (this.#clock = threadClock(tid));
  }

  utilization(): number {
    const now = this.#worker.performance.eventLoopUtilization();
    const since = this.#worker.performance.eventLoopUtilization(now, this.#elu);
    this.#elu = now;
    return since.utilization;
  }

  async sample() {
    if (!this.#mayLook()) return undefined;
    const inspector = await (this.#inspector ??= WorkerInspector.attach(this.#worker.threadId, INSPECTOR_TIMEOUT_MS));
    return inspector?.sample(INSPECTOR_TIMEOUT_MS);
  }

  stopSampling(): void {
    const inspector = this.#inspector;
    this.#inspector = undefined;
    void inspector?.then((session) => session?.close());
  }

  /** The worker is gone. */
  close(): void {
    this.stopSampling();
    this.#clock?.close();
  }
}
