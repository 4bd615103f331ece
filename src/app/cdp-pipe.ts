// The Chrome DevTools Protocol over --remote-debugging-pipe: Chromium reads commands from its fd 3
// and writes answers and events to its fd 4, each message one JSON text ended by a NUL byte. A pipe,
// not a port: nothing else on the machine can reach the browser through it.
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';

export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  /** The target session it came from (flat mode); undefined: the browser itself. */
  sessionId?: string;
}

/** A CDP command's error answer. */
export class CdpError extends Error {}

export class CdpPipe extends EventEmitter<{ event: [CdpEvent]; close: [] }> {
  readonly #out: Writable;
  /** The events anyone listens to (undefined: all); the rest are dropped unparsed. */
  readonly #wanted: ReadonlySet<string> | undefined;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void; method: string }>();
  #buffered: Buffer[] = [];
  #closed = false;

  /**
   * `toBrowser`: the browser's fd 3; `fromBrowser`: its fd 4. `wanted`: the only events to parse;
   * a browser sends many more (every response, every chunk of data), and parsing them would cost
   * the proxy's thread CPU for nothing.
   */
  constructor(toBrowser: Writable, fromBrowser: Readable, wanted?: Iterable<string>) {
    super();
    this.#out = toBrowser;
    this.#wanted = wanted ? new Set(wanted) : undefined;
    toBrowser.on('error', () => this.#close());
    fromBrowser.on('error', () => this.#close());
    fromBrowser.on('close', () => this.#close());
    fromBrowser.on('data', (chunk: Buffer) => this.#read(chunk));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends a command (to a target's session when `sessionId` is given); resolves with its result. */
  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(new CdpError(`${method}: the browser's pipe is closed`));
    const id = this.#nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId !== undefined && { sessionId }) });
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      this.#out.write(`${message}\0`);
    });
  }

  /** Sends a command whose answer nobody waits for (a detached target's error is expected, not a fault). */
  post(method: string, params: Record<string, unknown> = {}, sessionId?: string): void {
    this.send(method, params, sessionId).catch(() => {});
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(0); end !== -1; end = chunk.indexOf(0, start)) {
      this.#buffered.push(chunk.subarray(start, end));
      const message = this.#buffered.length === 1 ? this.#buffered[0]! : Buffer.concat(this.#buffered);
      this.#buffered = [];
      start = end + 1;
      if (this.#wants(message)) this.#dispatch(message.toString('utf8'));
    }
    if (start < chunk.length) this.#buffered.push(chunk.subarray(start));
  }

  /** Chromium writes an event's method first: `{"method":"Network.dataReceived",...`; answers start `{"id":`. */
  #wants(message: Buffer): boolean {
    if (!this.#wanted) return true;
    const head = message.toString('latin1', 0, 64);
    const method = /^\{"method":"([^"]+)"/.exec(head);
    return method === null || this.#wanted.has(method[1]!);
  }

  #dispatch(text: string): void {
    let message: { id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: { message?: string }; sessionId?: string };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return; // not a message of the protocol: nothing to answer
    }
    if (message.id !== undefined) {
      const waiting = this.#pending.get(message.id);
      if (!waiting) return;
      this.#pending.delete(message.id);
      if (message.error) waiting.reject(new CdpError(`${waiting.method}: ${message.error.message ?? 'failed'}`));
      else waiting.resolve(message.result ?? {});
      return;
    }
    if (message.method) this.emit('event', { method: message.method, params: message.params ?? {}, ...(message.sessionId !== undefined && { sessionId: message.sessionId }) });
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiting of this.#pending.values()) waiting.reject(new CdpError(`${waiting.method}: the browser's pipe closed`));
    this.#pending.clear();
    this.emit('close');
  }
}
