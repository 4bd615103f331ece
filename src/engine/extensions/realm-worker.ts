// The proxy thread's end of one worker thread that runs realms (worker/worker-main.ts): an
// extension's or a rule's own worker holds one realm; a worker the rule files share holds several.
// Each realm is reached through a RealmLink, which is what an ExtensionWorker talks to.
//
// A fault of the thread is a fault of every realm in it: a stuck loop, an exhausted heap or
// process.exit ends the thread. The realm that ran when it happened (the `running` slot the thread
// writes: worker-main.ts), or the one whose watchdog found it stuck, is at fault and is told so
// ('error', 'exit'); its worker-mates are told they go with it ('collateral'), so the host restarts
// them without counting it against them and the journal names the one at fault, not its neighbours.
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { HostItem, WorkerBoot, WorkerItem } from './protocol.js';
import type { FromRealmThread, ToRealmThread } from './worker/worker-main.js';

/** What a worker-mate is told when the thread ends for another realm's fault. */
export interface CollateralFault {
  /** The name of the rule at fault, when known. */
  culprit: string | undefined;
  /** What it did: "was stuck", "ran out of memory", "exited". */
  what: string;
}

export class RealmWorker {
  readonly thread: Worker;
  /** It holds one realm only, and ends with it. */
  readonly exclusive: boolean;
  readonly #running = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  readonly #links = new Map<number, RealmLink>();
  #next = 1;
  #dead = false;
  /** Batches for its realms gathered in this turn: one message for all (a hundred rules, one wake-up of the thread). */
  #outgoing: [id: number, batch: HostItem[]][] = [];
  /** The realm whose watchdog ended the thread, and why. */
  #blame: { id: number; name: string; what: string } | undefined;
  readonly #onDead: ((worker: RealmWorker) => void) | undefined;

  constructor(thread: Worker, exclusive: boolean, onDead?: (worker: RealmWorker) => void) {
    this.thread = thread;
    this.exclusive = exclusive;
    this.#onDead = onDead;
    thread.on('message', (batches: FromRealmThread) => {
      for (const [id, batch] of batches) this.#links.get(id)?.emit('message', batch);
    });
    // Output of Node's own stdio (a Node rule's process.stdout) is the running realm's.
    thread.stdout.on('data', (chunk: Buffer) => this.#runningLink()?.emit('stdout', chunk));
    thread.stderr.on('data', (chunk: Buffer) => this.#runningLink()?.emit('stderr', chunk));
    thread.on('error', (error: Error & { code?: string }) => this.#died({ error }));
    thread.on('exit', (code: number) => this.#died({ code }));
  }

  /** Realms it holds now. */
  get realms(): number {
    return this.#links.size;
  }

  get dead(): boolean {
    return this.#dead;
  }

  /** Makes a realm for `boot` and starts it; `progress`: the counters its watchdog reads. */
  open(boot: WorkerBoot, progress: Int32Array): RealmLink {
    const id = this.#next++;
    const link = new RealmLink(this, id, boot.name);
    this.#links.set(id, link);
    this.#post({ realm: id, boot, progress, running: this.#running });
    return link;
  }

  /** Whether realm `id` is still in it. */
  holds(id: number): boolean {
    return this.#links.has(id);
  }

  /** The number of the realm that runs now (or ran last). */
  running(): number {
    return Atomics.load(this.#running, 0);
  }

  /** @internal RealmLink's */
  post(id: number, batch: HostItem[]): void {
    if (!this.#links.has(id)) return;
    if (this.exclusive) return this.#post([[id, batch]]);
    if (this.#outgoing.push([id, batch]) === 1) setImmediate(() => this.#flush());
  }

  #flush(): void {
    const batches = this.#outgoing.filter(([id]) => this.#links.has(id));
    this.#outgoing = [];
    if (batches.length > 0) this.#post(batches);
  }

  /** @internal RealmLink's: the realm goes; the thread stays for its mates (an exclusive one ends). */
  async close(id: number): Promise<void> {
    if (!this.#links.delete(id)) return;
    if (this.exclusive || this.#dead) await this.thread.terminate();
    else this.#post({ dispose: id });
  }

  /** @internal RealmLink's: the realm is stuck, so the thread ends, and its mates with it. */
  async abandon(id: number, name: string, what: string): Promise<void> {
    if (!this.#links.delete(id)) return;
    this.#blame ??= { id, name, what };
    this.#dead = true;
    this.#onDead?.(this);
    await this.thread.terminate();
    this.#died({ code: 1 });
  }

  #post(message: ToRealmThread): void {
    if (this.#dead) return;
    try {
      this.thread.postMessage(message);
    } catch {
      // The thread is ending: its 'exit' tells every realm.
    }
  }

  #runningLink(): RealmLink | undefined {
    return this.#links.get(this.running()) ?? this.#links.values().next().value;
  }

  #died(outcome: { error?: Error & { code?: string }; code?: number }): void {
    const links = [...this.#links];
    this.#links.clear();
    if (!this.#dead) {
      this.#dead = true;
      this.#onDead?.(this);
    }
    if (links.length === 0) return;
    const culprit = this.#blame?.id ?? this.running();
    const culpritName = this.#blame?.name ?? links.find(([id]) => id === culprit)?.[1].name;
    const what = this.#blame?.what ?? (outcome.error?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'ran out of memory' : outcome.error ? `crashed (${outcome.error.message})` : `exited with code ${outcome.code}`);
    for (const [id, link] of links) {
      if (id === culprit && !this.#blame) {
        if (outcome.error) link.emit('error', outcome.error);
        else link.emit('exit', outcome.code ?? 1);
      } else {
        link.emit('collateral', { culprit: culpritName, what } satisfies CollateralFault);
      }
    }
  }
}

/**
 * One realm's end of its worker thread: what an ExtensionWorker posts to and hears from.
 * Events: 'message' (a batch), 'stdout'/'stderr' (chunks), 'error', 'exit' (this realm was at
 * fault, or its thread of its own ended), 'collateral' (a worker-mate's fault ended the thread).
 */
export class RealmLink extends EventEmitter {
  readonly worker: RealmWorker;
  readonly id: number;
  readonly name: string;

  constructor(worker: RealmWorker, id: number, name: string) {
    super();
    this.worker = worker;
    this.id = id;
    this.name = name;
  }

  get thread(): Worker {
    return this.worker.thread;
  }

  /**
   * Whether this realm is the one its thread runs (always, alone in it): only then may its stall be
   * its fault. When the one that ran is gone (a realm replaced while its code still ran), any
   * realm's watchdog may end the thread, or it would stay stuck with nobody to blame.
   */
  get isRunning(): boolean {
    const running = this.worker.running();
    return this.worker.exclusive || running === this.id || !this.worker.holds(running);
  }

  postMessage(batch: HostItem[]): void {
    this.worker.post(this.id, batch);
  }

  /** This realm goes; its worker-mates stay. */
  terminate(): Promise<void> {
    return this.worker.close(this.id);
  }

  /** This realm is stuck: its thread ends, and its worker-mates are told why (`what`). */
  abandon(what: string): Promise<void> {
    return this.worker.abandon(this.id, this.name, what);
  }
}

export type { WorkerItem };
