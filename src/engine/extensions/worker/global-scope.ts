// The extension's global scope as a browser makes it (runs inside the extension's realm): an
// EventTarget with its event handler attributes — a service worker's ServiceWorkerGlobalScope
// (`self.addEventListener('install', …)`, `self.onactivate = …`, which real MV3 extensions write at
// top level), a background page's window — and, for a service worker, its registration, clients
// and skipWaiting, and the install and activate events of its first run. Checked against Chromium
// 156 (test/extensions/chromium-service-worker.test.ts): after the top level, `install` (an
// InstallEvent with waitUntil; registration.installing), runtime.onInstalled, then `activate`
// (registration.active "activating", later "activated"); clients.claim() before activation fails
// with "Only the active worker can claim clients.". A worker restarted after a fault, as a woken
// service worker, is active from the start and gets neither event.

interface Entry {
  callback: unknown;
  capture: boolean;
  once: boolean;
  removed: boolean;
}

/** addEventListener, removeEventListener, dispatchEvent and `on…` attributes, on the global object. */
export class GlobalEvents {
  readonly #scope: Record<string, unknown>;
  readonly #onError: (error: unknown, where: string) => void;
  readonly #entries = new Map<string, Entry[]>();

  constructor(scope: Record<string, unknown>, onError: (error: unknown, where: string) => void, handlerAttributes: readonly string[]) {
    this.#scope = scope;
    this.#onError = onError;
    const events = this;
    scope.addEventListener = function addEventListener(type: unknown, callback: unknown, options?: unknown) {
      events.add(String(type), callback, options);
    };
    scope.removeEventListener = function removeEventListener(type: unknown, callback: unknown, options?: unknown) {
      events.remove(String(type), callback, options);
    };
    scope.dispatchEvent = function dispatchEvent(event: unknown) {
      return events.dispatch(event);
    };
    for (const type of handlerAttributes) this.#handlerAttribute(type);
  }

  add(type: string, callback: unknown, options?: unknown): void {
    if (callback === null || callback === undefined) return;
    const capture = typeof options === 'boolean' ? options : Boolean((options as { capture?: unknown } | undefined)?.capture);
    const once = typeof options === 'object' && options !== null && Boolean((options as { once?: unknown }).once);
    const list = this.#entries.get(type) ?? [];
    if (list.some((entry) => entry.callback === callback && entry.capture === capture)) return;
    list.push({ callback, capture, once, removed: false });
    this.#entries.set(type, list);
  }

  remove(type: string, callback: unknown, options?: unknown): void {
    const capture = typeof options === 'boolean' ? options : Boolean((options as { capture?: unknown } | undefined)?.capture);
    const list = this.#entries.get(type);
    const index = list?.findIndex((entry) => entry.callback === callback && entry.capture === capture) ?? -1;
    if (index < 0) return;
    list![index]!.removed = true;
    list!.splice(index, 1);
  }

  /** Runs the listeners of `event.type` in order, as the target's; false when one called preventDefault. */
  dispatch(given: unknown): boolean {
    // Node's Event or, in a page with a DOM, the DOM's: either has a type and preventDefault.
    if (typeof given !== 'object' || given === null || typeof (given as Event).type !== 'string' || typeof (given as Event).preventDefault !== 'function') {
      throw new TypeError("Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'.");
    }
    const event = given as Event;
    // Node's Event keeps its target to itself; the global's listeners see the global, as in a browser.
    for (const name of ['target', 'currentTarget', 'srcElement']) Object.defineProperty(event, name, { value: this.#scope, configurable: true });
    let stopped = false;
    const stopImmediately = event.stopImmediatePropagation;
    Object.defineProperty(event, 'stopImmediatePropagation', {
      value() {
        stopped = true;
        stopImmediately.call(event);
      },
      configurable: true,
    });
    for (const entry of [...(this.#entries.get(event.type) ?? [])]) {
      if (stopped) break;
      if (entry.removed) continue;
      if (entry.once) this.remove(event.type, entry.callback, entry.capture);
      try {
        if (typeof entry.callback === 'function') (entry.callback as (event: Event) => unknown).call(this.#scope, event);
        else (entry.callback as { handleEvent?: (event: Event) => unknown }).handleEvent?.(event);
      } catch (error) {
        this.#onError(error, `a "${event.type}" event listener`);
      }
    }
    Object.defineProperty(event, 'currentTarget', { value: null, configurable: true });
    return !event.defaultPrevented;
  }

  /** `on<type>`: null until set; a function set there listens where it was first set, and is replaced in place. */
  #handlerAttribute(type: string): void {
    let handler: unknown = null;
    const call = (event: Event) => (typeof handler === 'function' ? (handler as (event: Event) => unknown).call(this.#scope, event) : undefined);
    Object.defineProperty(this.#scope, `on${type}`, {
      get: () => handler,
      set: (value: unknown) => {
        const listening = typeof handler === 'function';
        handler = typeof value === 'function' ? value : null;
        if (handler && !listening) this.add(type, call);
        if (!handler && listening) this.remove(type, call);
      },
      configurable: true,
      enumerable: true,
    });
  }
}

/** A service worker's event handler attributes (Chromium 156 has each, null until set). */
export const SERVICE_WORKER_HANDLERS = ['install', 'activate', 'fetch', 'message', 'messageerror', 'error', 'unhandledrejection', 'rejectionhandled', 'notificationclick', 'notificationclose', 'push', 'pushsubscriptionchange', 'sync'];
/** A background page's (window's) that matter without a document. */
export const PAGE_HANDLERS = ['load', 'error', 'message', 'messageerror', 'unhandledrejection', 'rejectionhandled', 'storage', 'beforeunload', 'unload'];

/** An event whose `waitUntil` extends it (install, activate). */
export class ExtendableEvent extends Event {
  readonly #waits: Promise<unknown>[] = [];
  #open = true;

  waitUntil(promise: unknown): void {
    if (!this.#open) throw new DOMException("Failed to execute 'waitUntil' on 'ExtendableEvent': The event handler is already finished.", 'InvalidStateError');
    this.#waits.push(Promise.resolve(promise));
  }

  /** Closes waitUntil and settles with everything it was given (the first rejection, if any). */
  finished(): Promise<unknown> {
    this.#open = false;
    return Promise.all(this.#waits);
  }
}

class InstallEvent extends ExtendableEvent {}

type WorkerState = 'parsed' | 'installing' | 'installed' | 'activating' | 'activated';

/** What the service worker's scope adds: registration, clients, skipWaiting, and its first run's events. */
export class ServiceWorkerScope {
  #state: WorkerState = 'parsed';
  readonly #events: GlobalEvents;
  readonly #onError: (error: unknown, where: string) => void;

  constructor(scope: Record<string, unknown>, events: GlobalEvents, scriptUrl: string, baseUrl: string, onError: (error: unknown, where: string) => void) {
    this.#events = events;
    this.#onError = onError;
    const self = this;
    const worker = {
      scriptURL: scriptUrl,
      get state() {
        return self.#state;
      },
      onstatechange: null,
      onerror: null,
      postMessage() {},
    };
    const registration = {
      scope: baseUrl,
      updateViaCache: 'imports',
      onupdatefound: null,
      get installing() {
        return self.#state === 'installing' ? worker : null;
      },
      get waiting() {
        return null;
      },
      get active() {
        return self.#state === 'activating' || self.#state === 'activated' ? worker : null;
      },
      update: () => Promise.resolve(registration),
      // wrtui keeps the extension's worker running as long as the extension is loaded.
      unregister: () => Promise.resolve(false),
      getNotifications: () => Promise.resolve([]),
    };
    const clients = {
      matchAll: () => Promise.resolve([]),
      get: () => Promise.resolve(undefined),
      claim: () =>
        self.#state === 'activating' || self.#state === 'activated' ? Promise.resolve(undefined) : Promise.reject(new DOMException('Only the active worker can claim clients.', 'InvalidStateError')),
      openWindow: () => Promise.reject(new TypeError('wrtui has no windows to open')),
    };
    // `self instanceof ServiceWorkerGlobalScope` is how libraries tell a service worker apart.
    const WorkerGlobalScope = function WorkerGlobalScope() {
      throw new TypeError('Illegal constructor');
    };
    const ServiceWorkerGlobalScope = function ServiceWorkerGlobalScope() {
      throw new TypeError('Illegal constructor');
    };
    Object.setPrototypeOf(ServiceWorkerGlobalScope.prototype, WorkerGlobalScope.prototype);
    Object.defineProperty(ServiceWorkerGlobalScope.prototype, Symbol.toStringTag, { value: 'ServiceWorkerGlobalScope', configurable: true });
    Object.setPrototypeOf(scope, ServiceWorkerGlobalScope.prototype);
    Object.assign(scope, {
      WorkerGlobalScope,
      ServiceWorkerGlobalScope,
      registration,
      clients,
      skipWaiting: () => Promise.resolve(undefined),
      serviceWorker: worker,
      ExtendableEvent,
    });
  }

  /** A worker restarted after a fault (or a reload without onInstalled) is active from the start. */
  active(): void {
    this.#state = 'activated';
  }

  /** Its first run: install, then `installed` (runtime.onInstalled, given), then activate. */
  async install(installed: () => void): Promise<void> {
    this.#state = 'installing';
    await this.#extendable(new InstallEvent('install'));
    this.#state = 'installed';
    installed();
    this.#state = 'activating';
    await this.#extendable(new ExtendableEvent('activate'));
    this.#state = 'activated';
  }

  /** Dispatches `event`, then waits for what its listeners gave waitUntil (a rejection is reported, and the run goes on). */
  async #extendable(event: ExtendableEvent): Promise<void> {
    this.#events.dispatch(event);
    try {
      await event.finished();
    } catch (error) {
      this.#onError(error, `the ${event.type} event's waitUntil`);
    }
  }
}
