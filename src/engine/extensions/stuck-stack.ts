// What a worker that does not answer is doing. A worker whose event loop does not turn cannot say
// so itself, but V8's inspector still answers: the proxy thread attaches to the worker's inspector
// target (NodeWorker domain), asks its debugger to pause, reads the top frames (they name the
// extension's file and line even inside `while (true) {}`) and the heap in use, and lets it run on.
// Two such samples a second apart tell a hang (the same place, not one byte allocated) from work
// (compiling a filter list moves and allocates). A session exists only while a worker is being
// watched this closely; nothing is inspected while workers answer.
import inspector from 'node:inspector';

export interface StuckFrame {
  functionName: string;
  url: string;
  /** 1-based */
  line: number;
  column: number;
}

/** One look at a busy worker: where it is, and how much of its heap is in use. */
export interface WorkerSample {
  frames: StuckFrame[];
  heapUsed: number | undefined;
}

interface ProtocolMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: unknown;
}

interface CallFrame {
  functionName: string;
  url: string;
  location: { scriptId: string; lineNumber: number; columnNumber: number };
}

/** An inspector session attached to one worker thread, while it is watched. */
export class WorkerInspector {
  readonly #session: inspector.Session;
  readonly #sessionId: string;
  readonly #scripts = new Map<string, string>();
  readonly #replies = new Map<number, (message: ProtocolMessage) => void>();
  #paused: ((frames: CallFrame[] | undefined) => void) | undefined;
  #nextId = 0;
  #debuggerOn = false;
  #closed = false;

  private constructor(session: inspector.Session, sessionId: string) {
    this.#session = session;
    this.#sessionId = sessionId;
    session.on('NodeWorker.receivedMessageFromWorker', (message: { params: { sessionId: string; message: string } }) => {
      if (message.params.sessionId !== this.#sessionId) return;
      const inner = JSON.parse(message.params.message) as ProtocolMessage;
      if (inner.id !== undefined) {
        this.#replies.get(inner.id)?.(inner);
        this.#replies.delete(inner.id);
      } else if (inner.method === 'Debugger.scriptParsed') {
        this.#scripts.set(String(inner.params!.scriptId), String(inner.params!.url));
      } else if (inner.method === 'Debugger.paused') {
        const resolve = this.#paused;
        this.#paused = undefined;
        resolve?.(inner.params!.callFrames as CallFrame[]);
      }
    });
  }

  /**
   * A session on worker `threadId`, or undefined when none could be had within `timeoutMs` (another
   * inspector client owns the process; a loaded machine, where attaching once took over a second).
   */
  static async attach(threadId: number, timeoutMs: number): Promise<WorkerInspector | undefined> {
    const session = new inspector.Session();
    try {
      session.connect();
    } catch {
      return undefined;
    }
    const attached = new Promise<string>((resolve) => {
      // The inspector numbers workers its own way; their title, "[worker <threadId>] <name>", names the thread.
      session.on('NodeWorker.attachedToWorker', (message: { params: { sessionId: string; workerInfo: { title: string } } }) => {
        if (new RegExp(`^\\[worker ${threadId}\\]`).test(message.params.workerInfo.title)) resolve(message.params.sessionId);
      });
    });
    session.post('NodeWorker.enable', { waitForDebuggerOnStart: false }, () => {});
    const sessionId = await within(attached, timeoutMs);
    if (sessionId === undefined) {
      session.disconnect();
      return undefined;
    }
    return new WorkerInspector(session, sessionId);
  }

  /**
   * Pauses the worker, reads its frames (innermost first) and heap, and resumes it; undefined when
   * it did not pause within `timeoutMs` (it was between tasks: then the session is closed, so that
   * the pause asked for cannot stop it later).
   */
  async sample(timeoutMs: number): Promise<WorkerSample | undefined> {
    if (this.#closed) return undefined;
    const paused = new Promise<CallFrame[] | undefined>((resolve) => (this.#paused = resolve));
    if (!this.#debuggerOn) this.#send('Debugger.enable');
    this.#debuggerOn = true;
    this.#send('Debugger.pause');
    const callFrames = await within(paused, timeoutMs);
    if (!callFrames) {
      this.close();
      return undefined;
    }
    const heap = await within(this.#call('Runtime.getHeapUsage'), timeoutMs);
    if (this.#closed) return undefined;
    this.#send('Debugger.resume');
    return {
      frames: callFrames.map((frame) => ({
        functionName: frame.functionName,
        url: frame.url || this.#scripts.get(frame.location.scriptId) || '',
        line: frame.location.lineNumber + 1,
        column: frame.location.columnNumber + 1,
      })),
      heapUsed: typeof heap?.result?.usedSize === 'number' ? heap.result.usedSize : undefined,
    };
  }

  /** Detaches: the worker's debugger is off again (a pause still asked for is dropped with it). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    // Whoever waits for this session hears that it ended.
    this.#paused?.(undefined);
    this.#paused = undefined;
    for (const reply of this.#replies.values()) reply({});
    this.#replies.clear();
    this.#session.post('NodeWorker.detach', { sessionId: this.#sessionId }, () => {});
    this.#session.disconnect();
  }

  #send(method: string, onReply?: (message: ProtocolMessage) => void): void {
    const id = ++this.#nextId;
    // Before posting: the reply may be delivered while post() is still running.
    if (onReply) this.#replies.set(id, onReply);
    this.#session.post('NodeWorker.sendMessageToWorker', { sessionId: this.#sessionId, message: JSON.stringify({ id, method }) }, () => {});
  }

  #call(method: string): Promise<ProtocolMessage> {
    return new Promise((resolve) => this.#send(method, resolve));
  }
}

/**
 * The stuck worker's call frames, innermost first; [] when they could not be read within
 * `timeoutMs`. Reading takes tens of ms; the budget is for a loaded machine (CI's tests in
 * parallel, a host booting its workers at once), where attaching once took over a second.
 */
export async function stackOfStuckWorker(threadId: number, timeoutMs = 3000): Promise<StuckFrame[]> {
  const started = performance.now();
  const session = await WorkerInspector.attach(threadId, timeoutMs);
  if (!session) return [];
  try {
    return (await session.sample(Math.max(1, timeoutMs - (performance.now() - started))))?.frames ?? [];
  } finally {
    session.close();
  }
}

/** `promise`'s value, or undefined if it takes longer than `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
