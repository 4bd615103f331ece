// Worker threads started ahead of need. Booting a worker (a V8 isolate, Node's bootstrap, the
// worker script) is most of what starting an extension costs, ~25–40 ms here, and it runs on the
// new thread: started together, ten boot in the time of a few, and a worker started while the user
// edits is ready when the save comes. Each worker still runs exactly one extension: a spare one has
// run nothing, and is told which extension it is for by its first message (worker-main.ts).
import { canvasModulePath } from './canvas-module.js';
import { Worker } from 'node:worker_threads';
import { workerSource } from './worker-script.js';

export class WorkerPool {
  readonly #code: string;
  readonly #heapLimitMb: number;
  readonly #spare: Worker[] = [];
  #takenSinceRefill = 0;
  #closed = false;

  private constructor(code: string, heapLimitMb: number) {
    this.#code = code;
    this.#heapLimitMb = heapLimitMb;
  }

  /** A pool whose workers get this heap cap (every extension's worker has the same). */
  static async open(heapLimitMb: number): Promise<WorkerPool> {
    return new WorkerPool(await workerSource(), heapLimitMb);
  }

  get heapLimitMb(): number {
    return this.#heapLimitMb;
  }

  /** Spare workers now. */
  get spare(): number {
    return this.#spare.length;
  }

  /**
   * A worker that has run nothing yet, for one extension: a spare one (booted, or still booting:
   * what is posted to it waits), else one started now. Its first message must be `{ boot }`.
   */
  take(): Worker {
    this.#takenSinceRefill++;
    const worker = this.#spare.shift();
    if (!worker) return this.#spawn();
    worker.removeAllListeners('error');
    worker.removeAllListeners('exit');
    worker.ref();
    return worker;
  }

  /** Starts workers until `count` are spare; they boot in the background, together. */
  warm(count: number): void {
    while (!this.#closed && this.#spare.length < count) {
      const worker = this.#spawn();
      // Spare, it keeps nothing alive and no failure of its boot is anyone's but the pool's.
      worker.unref();
      worker.on('error', () => this.#drop(worker));
      worker.on('exit', () => this.#drop(worker));
      this.#spare.push(worker);
    }
  }

  /** As many spare workers as were taken since the last refill: a re-run of the same rules finds them booted. */
  refill(): void {
    const count = this.#takenSinceRefill;
    this.#takenSinceRefill = 0;
    this.warm(count);
  }

  /** Ends the spare workers; later takes still start workers. */
  async close(): Promise<void> {
    this.#closed = true;
    const spare = this.#spare.splice(0);
    await Promise.all(spare.map((worker) => worker.terminate()));
  }

  #spawn(): Worker {
    return new Worker(this.#code, {
      eval: true,
      // The worker is one self-contained script: no loader (tsx, a test runner's) of the parent's.
      execArgv: [],
      workerData: { waitsForBoot: true, canvasModule: canvasModulePath() },
      resourceLimits: { maxOldGenerationSizeMb: this.#heapLimitMb },
      // The extension's output goes to the journal; the worker's own stdio must never reach the TUI.
      stdout: true,
      stderr: true,
      name: 'wrtui extension',
    });
  }

  #drop(worker: Worker): void {
    const at = this.#spare.indexOf(worker);
    if (at !== -1) this.#spare.splice(at, 1);
  }
}
