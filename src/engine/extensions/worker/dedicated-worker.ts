// `Worker`, a dedicated worker as a page (or a worker) makes it; runs inside the creating realm.
// Checked against Chromium 156 (test/extensions/chromium-worker.test.ts): the script's URL is
// relative to the page (or the creating worker's script), on the extension's origin only
// (SecurityError otherwise, at once); `{ type: 'module' }` or classic; postMessage clones (a
// transfer list or `{ transfer }` empties what it moves; a function throws DataCloneError);
// onmessage, onerror, addEventListener; terminate() ends it and nothing of it arrives afterwards. Its
// uncaught error comes as an ErrorEvent ("Uncaught Error: …", its script's URL, line, column); a
// page that does not cancel it has it logged as the browser logs it, with the file:line. A script
// that cannot be loaded is a plain `error` Event.
import type { DedicatedWorkersApi, FromWorker, WorkerCreateOptions, WorkerErrorDetails, WorkerType } from './dedicated-worker-api.js';

export interface WorkerClassParts {
  workers: DedicatedWorkersApi;
  /** The URL a worker's URL is relative to: the page's, or the creating worker's script's. */
  base: () => string;
  /** The extension's origin (chrome-extension://id). */
  origin: string;
  navigator: () => WorkerCreateOptions['navigator'];
  /** Node's Event, EventTarget and MessageEvent (a page's DOM has its own). */
  Event: typeof Event;
  EventTarget: typeof EventTarget;
  MessageEvent: typeof MessageEvent;
  /** A worker's error nobody cancelled: logged as an uncaught error. */
  report: (message: string, location: string | undefined) => void;
}

/** ErrorEvent (Node has none): message, filename, lineno, colno, error. */
export function errorEventClass(EventClass: typeof Event) {
  return class ErrorEvent extends EventClass {
    readonly message: string;
    readonly filename: string;
    readonly lineno: number;
    readonly colno: number;
    readonly error: unknown;
    constructor(type: string, init: { message?: string; filename?: string; lineno?: number; colno?: number; error?: unknown; cancelable?: boolean } = {}) {
      super(type, { cancelable: init.cancelable ?? false });
      this.message = init.message ?? '';
      this.filename = init.filename ?? '';
      this.lineno = init.lineno ?? 0;
      this.colno = init.colno ?? 0;
      this.error = init.error ?? null;
    }
  };
}

/** postMessage's second argument: a transfer list, or `{ transfer }`. */
export function transferList(transfer: unknown): unknown[] {
  if (transfer === undefined || transfer === null) return [];
  if (Array.isArray(transfer)) return transfer;
  if (typeof transfer === 'object' && Symbol.iterator in transfer) return [...(transfer as Iterable<unknown>)];
  const list = (transfer as { transfer?: unknown }).transfer;
  return list === undefined ? [] : [...(list as Iterable<unknown>)];
}

/** Node's DataCloneError in the browser's words: "Failed to execute 'postMessage' on '<where>': … could not be cloned." */
export function postMessageError(error: unknown, where: string): unknown {
  if (error instanceof Error && error.name === 'DataCloneError') return new DOMException(`Failed to execute 'postMessage' on '${where}': ${error.message}`, 'DataCloneError');
  return error;
}

/**
 * An `on<type>` attribute on `prototype`: null until set; a function set there listens from where
 * it was first set, and is replaced in place; one returning false cancels the event.
 */
export function handlerAttribute(prototype: object, type: string): void {
  const handlers = new WeakMap<object, { handler: unknown; listener: (event: Event) => void }>();
  Object.defineProperty(prototype, `on${type}`, {
    get(this: object) {
      return handlers.get(this)?.handler ?? null;
    },
    set(this: EventTarget, value: unknown) {
      let entry = handlers.get(this);
      if (!entry) {
        const target = this;
        const made: { handler: unknown; listener: (event: Event) => void } = {
          handler: null,
          listener: (event) => {
            if (typeof made.handler === 'function' && (made.handler as (event: Event) => unknown).call(target, event) === false) event.preventDefault();
          },
        };
        handlers.set(this, (entry = made));
      }
      const listening = typeof entry.handler === 'function';
      entry.handler = typeof value === 'function' ? value : null;
      if (entry.handler && !listening) this.addEventListener(type, entry.listener);
      if (!entry.handler && listening) this.removeEventListener(type, entry.listener);
    },
    configurable: true,
    enumerable: true,
  });
}

/** The Worker class of one realm. */
export function createWorkerClass(parts: WorkerClassParts): unknown {
  const ErrorEvent = errorEventClass(parts.Event);

  class Worker extends parts.EventTarget {
    readonly #id: number;
    readonly #port: ReturnType<DedicatedWorkersApi['create']>['port'];
    #terminated = false;

    // One declared parameter each, as the browser's (Worker.length is 1).
    constructor(scriptURL: unknown, ...rest: unknown[]) {
      super();
      const options = rest[0];
      if (arguments.length < 1) throw new TypeError("Failed to construct 'Worker': 1 argument required, but only 0 present.");
      let url: URL;
      try {
        url = new URL(String(scriptURL), parts.base());
      } catch {
        throw new DOMException(`Failed to construct 'Worker': The URL '${String(scriptURL)}' is invalid.`, 'SyntaxError');
      }
      if (`${url.protocol}//${url.host}` !== parts.origin) {
        throw new DOMException(`Failed to construct 'Worker': Script at '${url.href}' cannot be accessed from origin '${parts.origin}'.`, 'SecurityError');
      }
      const given = (options ?? {}) as { type?: unknown; name?: unknown };
      const type = given.type === undefined ? 'classic' : String(given.type);
      if (type !== 'classic' && type !== 'module') {
        throw new TypeError(`Failed to construct 'Worker': Failed to read the 'type' property from 'WorkerOptions': The provided value '${type}' is not a valid enum value of type WorkerType.`);
      }
      const created = parts.workers.create(
        { url: url.href, type: type as WorkerType, name: given.name === undefined ? '' : String(given.name), navigator: parts.navigator() },
        { failed: () => this.#failed() },
      );
      this.#id = created.id;
      this.#port = created.port;
      this.#port.onmessage = (event) => {
        if (this.#terminated) return;
        const [kind, value] = event.data as FromWorker;
        if (kind === 'error') this.#error(value);
        else this.dispatchEvent(new parts.MessageEvent('message', { data: value, ports: [...event.ports] as never }));
      };
      this.#port.start();
    }

    postMessage(message: unknown, ...rest: unknown[]): void {
      if (arguments.length < 1) throw new TypeError("Failed to execute 'postMessage' on 'Worker': 1 argument required, but only 0 present.");
      const list = transferList(rest[0]);
      try {
        this.#port.postMessage(message, list);
      } catch (error) {
        throw postMessageError(error, 'Worker');
      }
    }

    terminate(): void {
      if (this.#terminated) return;
      this.#terminated = true;
      parts.workers.terminate(this.#id);
    }

    #error(details: WorkerErrorDetails): void {
      if (this.#terminated) return;
      const event = new ErrorEvent('error', { message: details.message, filename: details.filename, lineno: details.lineno, colno: details.colno, cancelable: true });
      this.dispatchEvent(event);
      if (!event.defaultPrevented) parts.report(details.message, details.location);
    }

    #failed(): void {
      if (!this.#terminated) this.dispatchEvent(new parts.Event('error'));
    }
  }
  for (const type of ['message', 'messageerror', 'error']) handlerAttribute(Worker.prototype, type);
  Object.defineProperty(Worker.prototype, Symbol.toStringTag, { value: 'Worker', configurable: true });
  return Worker;
}
