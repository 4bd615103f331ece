// A dedicated Worker's global scope (bundled on its own, run inside each Worker's realm, as the
// bindings are in the extension's): DedicatedWorkerGlobalScope, as Chromium 156 has it for an
// extension's worker (test/extensions/chromium-worker.test.ts): self, name, location, navigator,
// postMessage, close, onmessage/onmessageerror/onerror and addEventListener, importScripts (a
// classic worker's; a module's throws), console, timers, fetch (its files relative to its URL, the
// network through the proxy), FileReader, and Worker (a nested one). No chrome or browser, no
// document, window or web storage. Its uncaught error is an ErrorEvent at its global first (the
// `onerror` attribute is given message, filename, line, column and error, and true cancels), then,
// not cancelled, at the Worker object in its creator's realm.
import { createConsole, createTimers } from './console-and-timers.js';
import { INSTALL_WORKER_SCOPE_GLOBAL, type FromWorker, type WorkerErrorDetails, type WorkerScopeBoot, type WorkerScopeBridge, type WorkerScopeHandle } from './dedicated-worker-api.js';
import { createWorkerClass, errorEventClass, postMessageError, transferList } from './dedicated-worker.js';
import { createFileReader } from './file-reader.js';
import { GlobalEvents } from './global-scope.js';
import { createImportScripts, moduleImportScripts } from './import-scripts.js';

function installWorkerScope(bridge: WorkerScopeBridge, boot: WorkerScopeBoot): WorkerScopeHandle {
  const scope = globalThis as unknown as Record<string, unknown>;
  const NodeEvent = Event;
  const ErrorEvent = errorEventClass(NodeEvent);
  let closed = false;
  /** Where `error` was thrown, as an ErrorEvent says it: the script's URL, line and column. */
  const whereOf = (error: unknown) => {
    const location = bridge.locate(error);
    const match = location === undefined ? undefined : /^(.*):(\d+):(\d+)$/.exec(location);
    return match ? { filename: bridge.urlOf(match[1]!), lineno: Number(match[2]), colno: Number(match[3]), location } : { filename: boot.url, lineno: 0, colno: 0, location };
  };
  const messageOf = (error: unknown) => {
    const named = typeof error === 'object' && error !== null && typeof (error as Error).name === 'string' && typeof (error as Error).message === 'string';
    return `Uncaught ${named ? `${(error as Error).name}: ${(error as Error).message}` : String(error)}`;
  };
  // The worker's own error event first; what it does not cancel goes to the Worker object.
  let reporting = false;
  const reportError = (error: unknown) => {
    if (closed) return;
    const where = whereOf(error);
    const message = messageOf(error);
    // An error listener that throws is not told of its own error again.
    if (!reporting) {
      const event = new ErrorEvent('error', { message, filename: where.filename, lineno: where.lineno, colno: where.colno, error, cancelable: true });
      reporting = true;
      try {
        events.dispatch(event);
      } finally {
        reporting = false;
      }
      if (event.defaultPrevented) return;
    }
    const details: WorkerErrorDetails = { message, filename: where.filename, lineno: where.lineno, colno: where.colno, ...(where.location !== undefined && { location: where.location }) };
    // On the messages' own port: after what it posted before, as the browser orders them.
    boot.port.postMessage(['error', details] satisfies FromWorker);
  };
  const events = new GlobalEvents(scope, (error) => reportError(error), ['message', 'messageerror']);
  errorHandlerAttribute(scope, events);

  // `self instanceof DedicatedWorkerGlobalScope` (and WorkerGlobalScope) is how scripts tell a worker.
  const WorkerGlobalScope = function WorkerGlobalScope() {
    throw new TypeError('Illegal constructor');
  };
  const DedicatedWorkerGlobalScope = function DedicatedWorkerGlobalScope() {
    throw new TypeError('Illegal constructor');
  };
  Object.setPrototypeOf(DedicatedWorkerGlobalScope.prototype, WorkerGlobalScope.prototype);
  Object.defineProperty(DedicatedWorkerGlobalScope.prototype, Symbol.toStringTag, { value: 'DedicatedWorkerGlobalScope', configurable: true });
  Object.setPrototypeOf(scope, DedicatedWorkerGlobalScope.prototype);

  const url = new URL(boot.url);
  const { timers, cancelAll } = createTimers(bridge, (error) => reportError(error));
  Object.assign(scope, timers, {
    WorkerGlobalScope,
    DedicatedWorkerGlobalScope,
    self: globalThis,
    name: boot.name,
    origin: boot.origin,
    isSecureContext: true,
    console: createConsole(bridge),
    location: workerLocation(url),
    navigator: { ...boot.navigator, languages: [...boot.navigator.languages] },
    FileReader: createFileReader({ Event: NodeEvent, EventTarget, onError: (error) => reportError(error) }),
    // After close() too: what it posts in the same task still arrives (the channel closes on a later turn).
    postMessage(message: unknown, ...rest: unknown[]) {
      try {
        boot.port.postMessage(['message', message] satisfies FromWorker, transferList(rest[0]));
      } catch (error) {
        throw postMessageError(error, 'DedicatedWorkerGlobalScope');
      }
    },
    close() {
      bridge.close();
    },
    importScripts:
      boot.type === 'module'
        ? moduleImportScripts
        : createImportScripts({
            scriptUrl: boot.url,
            origin: boot.origin,
            fileOf: (resolved) => bridge.fileOf(resolved.href) ?? resolved.href,
            readFile: (file) => bridge.readFile(file),
            runScript: (code, file) => bridge.runScript(code, file),
          }),
    Worker: createWorkerClass({
      workers: bridge.workers,
      base: () => boot.url,
      origin: boot.origin,
      navigator: () => boot.navigator,
      Event: NodeEvent,
      EventTarget,
      MessageEvent,
      report: (message, location) => bridge.post(location === undefined ? ['uncaught', 'exception', message] : ['uncaught', 'exception', message, location]),
    }),
  });

  boot.port.onmessage = (event) => {
    if (!closed) events.dispatch(new MessageEvent('message', { data: event.data, ports: [...event.ports] as never }));
  };

  return {
    run(code, file, map) {
      try {
        bridge.runScript(code, file, map);
      } catch (error) {
        reportError(error);
      }
      // What its creator sent meanwhile arrives now, to the listeners its top level added.
      boot.port.start();
    },
    shutdown() {
      closed = true;
      cancelAll();
    },
    report: reportError,
  };
}

/** A WorkerLocation: the script's URL in parts. */
function workerLocation(url: URL): Record<string, unknown> {
  const location = { href: url.href, origin: `${url.protocol}//${url.host}`, protocol: url.protocol, host: url.host, hostname: url.hostname, port: url.port, pathname: url.pathname, search: url.search, hash: url.hash, toString: () => url.href };
  Object.defineProperty(location, Symbol.toStringTag, { value: 'WorkerLocation' });
  return location;
}

/**
 * The global scope's `onerror`: unlike other handlers it is given (message, filename, lineno,
 * colno, error), and returning true cancels the error (it is not reported further).
 */
function errorHandlerAttribute(scope: Record<string, unknown>, events: GlobalEvents): void {
  let handler: unknown = null;
  const listener = (event: Event) => {
    if (typeof handler !== 'function') return;
    const error = event as Event & { message: string; filename: string; lineno: number; colno: number; error: unknown };
    if ((handler as (...args: unknown[]) => unknown).call(scope, error.message, error.filename, error.lineno, error.colno, error.error) === true) event.preventDefault();
  };
  Object.defineProperty(scope, 'onerror', {
    get: () => handler,
    set: (value: unknown) => {
      const listening = typeof handler === 'function';
      handler = typeof value === 'function' ? value : null;
      if (handler && !listening) events.add('error', listener);
      if (!handler && listening) events.remove('error', listener);
    },
    configurable: true,
    enumerable: true,
  });
}

(globalThis as unknown as Record<string, unknown>)[INSTALL_WORKER_SCOPE_GLOBAL] = installWorkerScope;
