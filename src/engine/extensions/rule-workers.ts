// Where rule files run: a few worker threads they share, each rule in a realm of its own
// (worker/extension-realm.ts). A worker costs ~11.5 MB and ~0.16 s to start here; a realm in a
// running worker costs a fraction of that, so a hundred small rules cost a few workers, not a
// hundred (issue 36; bench/many-rules.ts measures it). Extensions, and a rule whose manifest says
// `ownWorker: true`, get a worker each (RealmWorker, exclusive), as a browser gives each extension
// a process of its own.
import os from 'node:os';
import type { WorkerBoot } from './protocol.js';
import { RealmWorker, type RealmLink } from './realm-worker.js';
import type { WorkerPool } from './worker-pool.js';

/**
 * How many workers the rule files share: one per core, at most 4 (the proxy thread needs a core
 * too, and past that more workers add memory, not throughput: bench/many-rules.ts), at least 1.
 */
export function sharedRuleWorkerCount(cores = os.availableParallelism()): number {
  return Math.max(1, Math.min(4, cores));
}

export class RuleWorkers {
  readonly #pool: WorkerPool;
  readonly #size: number;
  readonly #shared: RealmWorker[] = [];

  constructor(pool: WorkerPool, size = sharedRuleWorkerCount()) {
    this.#pool = pool;
    this.#size = Math.max(1, size);
  }

  get size(): number {
    return this.#size;
  }

  /** The shared workers running now, with the realms each holds. */
  get load(): number[] {
    return this.#shared.map((worker) => worker.realms);
  }

  /** A realm for a rule in the least busy shared worker (a new one while there are fewer than `size`). */
  openShared(boot: WorkerBoot, progress: Int32Array): RealmLink {
    let worker: RealmWorker | undefined;
    if (this.#shared.length < this.#size) {
      worker = new RealmWorker(this.#pool.take(), false, (dead) => this.#forget(dead));
      this.#shared.push(worker);
    } else {
      worker = this.#shared.reduce((least, each) => (each.realms < least.realms ? each : least));
    }
    return worker.open(boot, progress);
  }

  /** A worker of its own: an extension's, or a rule's that asked. */
  openExclusive(boot: WorkerBoot, progress: Int32Array): RealmLink {
    return new RealmWorker(this.#pool.take(), true).open(boot, progress);
  }

  /** Ends the shared workers (their realms are gone by now). */
  async close(): Promise<void> {
    const shared = this.#shared.splice(0);
    await Promise.all(shared.map((worker) => worker.thread.terminate()));
  }

  #forget(worker: RealmWorker): void {
    const at = this.#shared.indexOf(worker);
    if (at !== -1) this.#shared.splice(at, 1);
  }
}
