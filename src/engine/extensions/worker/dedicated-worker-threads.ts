// The dedicated Workers a realm makes, on its thread's Node side (the extension's worker thread, or
// a Worker's own thread for a nested one): each runs in a worker thread of its own
// (dedicated-worker-main.ts), so it runs beside its creator as a browser's does: uBlock Origin
// compresses its compiled filter lists in one for seconds, which the extension's own thread would
// otherwise spend unanswering (the watchdog restarts an extension whose loop does not turn), and
// terminate() ends even a worker that never yields. Its thread's heap has the same cap as this one's.
// Between the two threads: the worker's messages, on a MessagePort whose near end is moved into the
// creating realm; and a control port for what only this side can do: its script (read here, or a
// module bundled on the host), its console and uncaught errors (passed on as this thread's own
// items), its requests to the network (passed on through the FetchRelay), and self.close(). (The
// errors its creator's Worker object hears of come on the messages' port, in their order.)
import type vm from 'node:vm';
import { MessageChannel, Worker, moveMessagePortToContext, resourceLimits, type MessagePort } from 'node:worker_threads';
import type { DedicatedWorkersApi, RealmPort, WorkerCreateOptions, WorkerEvents } from './dedicated-worker-api.js';
import type { FetchRelay, RelayChild } from './fetch-relay.js';
import type { OwnFiles } from './own-files.js';

/** A module Worker's script as the host bundles it (or a classic one as read). */
export interface WorkerScript {
  file: string;
  code: string;
  map?: unknown;
}

/** What a Worker's thread is started with (its workerData). */
export interface ThreadBoot {
  options: WorkerCreateOptions;
  /** The extension's folder as the boot names it, and its origin. */
  root: string;
  origin: string;
  browser: 'chrome' | 'firefox';
  /** Its end of the worker's messages, and of the control port. */
  port: MessagePort;
  control: MessagePort;
  /** The thread's own script, for the Workers it makes in turn. */
  source: string;
}

/** parent → child on the control port. */
export type ToWorkerThread = ['run', WorkerScript] | ['item', unknown[]] | ['bundled', id: number, ok: boolean, value: unknown];
/** child → parent on the control port. */
export type FromWorkerThread = ['item', unknown[]] | ['close'] | ['bundle', id: number, file: string];

export interface ThreadsParts {
  /** The script a Worker's thread runs. */
  source: string;
  files: () => OwnFiles;
  browser: () => 'chrome' | 'firefox';
  /** A child's console and uncaught errors, passed on as this thread's own items. */
  post: (item: unknown[]) => void;
  /** Its requests to the network, passed on. */
  relay: FetchRelay;
  /** A module Worker's script, bundled on the host. */
  bundle: (file: string) => Promise<WorkerScript>;
}

interface Child {
  thread: Worker;
  control: MessagePort;
  outer: RealmPort;
  events: WorkerEvents;
  send: RelayChild;
  ended: boolean;
}

/** The items of a child this thread passes on as they are (anything else of its is dropped). */
const PASSED_ON = new Set(['log', 'uncaught']);

export class DedicatedWorkerThreads {
  readonly #parts: ThreadsParts;
  readonly #children = new Map<number, Child>();
  #next = 1;

  constructor(parts: ThreadsParts) {
    this.#parts = parts;
  }

  /** The Workers a realm (`context`) makes. */
  api(context: vm.Context): DedicatedWorkersApi {
    return {
      create: (options, events) => this.#create(context, options, events),
      terminate: (id) => this.#end(id, 'terminated'),
    };
  }

  /** Its realm goes (a reload in a shared thread): every Worker it made ends. */
  endAll(): void {
    for (const id of [...this.#children.keys()]) this.#end(id, 'terminated');
  }

  #create(context: vm.Context, options: WorkerCreateOptions, events: WorkerEvents): { id: number; port: RealmPort } {
    const id = this.#next++;
    const files = this.#parts.files();
    const messages = new MessageChannel();
    const control = new MessageChannel();
    const boot: ThreadBoot = { options, root: files.root, origin: files.origin, browser: this.#parts.browser(), port: messages.port2, control: control.port2, source: this.#parts.source };
    const thread = new Worker(this.#parts.source, {
      eval: true,
      execArgv: [],
      workerData: boot,
      transferList: [messages.port2, control.port2],
      ...(resourceLimits.maxOldGenerationSizeMb ? { resourceLimits: { maxOldGenerationSizeMb: resourceLimits.maxOldGenerationSizeMb } } : {}),
      // Its console goes to the journal through the control port; its stdio must never reach the TUI.
      stdout: true,
      stderr: true,
      name: `wrtui worker ${options.url}`,
    });
    const outer = moveMessagePortToContext(messages.port1, context) as unknown as RealmPort;
    const child: Child = { thread, control: control.port1, outer, events, send: (item) => control.port1.postMessage(['item', item] satisfies ToWorkerThread), ended: false };
    this.#children.set(id, child);
    child.control.on('message', (message: FromWorkerThread) => this.#fromChild(id, child, message));
    thread.on('error', (error) => {
      if (child.ended) return;
      this.#parts.post(['log', 'error', `a Worker (${options.url}) stopped: ${error.message}`]);
      this.#end(id, 'terminated');
    });
    thread.on('exit', () => this.#end(id, 'closed'));
    void this.#load(id, child, options, files);
    return { id, port: outer };
  }

  /** Its script: a classic one read from the folder, a module bundled on the host; then it runs. */
  async #load(id: number, child: Child, options: WorkerCreateOptions, files: OwnFiles): Promise<void> {
    // A browser fetches it: whatever comes of it comes after the constructor returned.
    await new Promise((resolve) => setImmediate(resolve));
    const file = files.fileOf(options.url);
    let script: WorkerScript;
    try {
      if (file === undefined) throw new Error("it is not one of the extension's files");
      script = options.type === 'module' ? await this.#parts.bundle(file) : { file, code: files.read(file) };
    } catch (error) {
      if (child.ended) return;
      this.#parts.post(['log', 'warn', `new Worker(${JSON.stringify(options.url)}): its script could not be loaded: ${messageOf(error)}`]);
      child.events.failed();
      return this.#end(id, 'terminated', { keepEvents: true });
    }
    if (!child.ended) child.control.postMessage(['run', script] satisfies ToWorkerThread);
  }

  #fromChild(id: number, child: Child, message: FromWorkerThread): void {
    if (child.ended && message[0] !== 'item') return;
    switch (message[0]) {
      case 'item': {
        const item = message[1];
        if (this.#parts.relay.fromChild(child.send, item)) return;
        if (PASSED_ON.has(item[0] as string)) this.#parts.post(item);
        return;
      }
      case 'close':
        return this.#end(id, 'closed');
      case 'bundle': {
        const [, ask, file] = message;
        this.#parts.bundle(file).then(
          (script) => child.control.postMessage(['bundled', ask, true, script] satisfies ToWorkerThread),
          (error: unknown) => child.control.postMessage(['bundled', ask, false, messageOf(error)] satisfies ToWorkerThread),
        );
        return;
      }
    }
  }

  /**
   * Ends a Worker's thread (and so the Workers it made). Terminated by its creator, nothing of it
   * arrives any more; closed from inside, what it posted before still does.
   */
  #end(id: number, how: 'terminated' | 'closed', { keepEvents = false } = {}): void {
    const child = this.#children.get(id);
    if (!child) return;
    this.#children.delete(id);
    child.ended = true;
    if (how === 'terminated' && !keepEvents) {
      child.outer.onmessage = null;
      child.outer.close();
    }
    child.control.close();
    this.#parts.relay.childEnded(child.send);
    void child.thread.terminate();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error || (typeof error === 'object' && error !== null && 'message' in error) ? String((error as Error).message) : String(error);
}
