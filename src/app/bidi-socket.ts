// WebDriver BiDi over the WebSocket Firefox's remote agent opens on 127.0.0.1 (firefox-launch.ts
// starts it with --remote-debugging-port 0 and reads the port Firefox chose from its stderr).
// Commands are `{id, method, params}`; answers `{type: "success" | "error", id, ...}`; events
// `{type: "event", method, params}`. Only loopback is ever connected to.
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';

export interface BidiEvent {
  method: string;
  params: Record<string, unknown>;
}

/** A BiDi command's error answer. */
export class BidiError extends Error {}

export class BidiSocket extends EventEmitter<{ event: [BidiEvent]; close: [] }> {
  readonly #socket: WebSocket;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void; method: string }>();
  #closed = false;

  private constructor(socket: WebSocket) {
    super();
    this.#socket = socket;
    socket.on('message', (data: Buffer) => this.#dispatch(data.toString('utf8')));
    socket.on('close', () => this.#close());
    socket.on('error', () => this.#close());
  }

  /** Connects to the BiDi endpoint `url` (ws://127.0.0.1:PORT/session); refuses any other host. */
  static connect(url: string, timeoutMs = 15_000): Promise<BidiSocket> {
    const host = new URL(url).hostname;
    if (host !== '127.0.0.1' && host !== '[::1]' && host !== 'localhost') return Promise.reject(new BidiError(`${url}: the browser's remote agent must listen on loopback`));
    return new Promise((resolve, reject) => {
      // No Origin header: Firefox's remote agent refuses connections that name one it does not allow.
      const socket = new WebSocket(url, { handshakeTimeout: timeoutMs, perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 });
      socket.once('open', () => resolve(new BidiSocket(socket)));
      socket.once('error', (error) => reject(new BidiError(`could not reach the browser's remote agent at ${url}: ${error.message}`)));
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Sends a command; resolves with its result. */
  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(new BidiError(`${method}: the browser's remote agent is gone`));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Sends a command whose answer nobody waits for. */
  post(method: string, params: Record<string, unknown> = {}): void {
    this.send(method, params).catch(() => {});
  }

  close(): void {
    this.#socket.close();
    this.#close();
  }

  #dispatch(text: string): void {
    let message: { type?: string; id?: number; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: string; message?: string };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      return; // not a message of the protocol
    }
    if (message.type === 'event') {
      if (message.method) this.emit('event', { method: message.method, params: message.params ?? {} });
      return;
    }
    if (message.id === undefined) return;
    const waiting = this.#pending.get(message.id);
    if (!waiting) return;
    this.#pending.delete(message.id);
    if (message.type === 'error') waiting.reject(new BidiError(`${waiting.method}: ${message.error ?? 'error'}${message.message ? ` (${message.message})` : ''}`));
    else waiting.resolve(message.result ?? {});
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const waiting of this.#pending.values()) waiting.reject(new BidiError(`${waiting.method}: the browser's remote agent closed`));
    this.#pending.clear();
    this.emit('close');
  }
}
