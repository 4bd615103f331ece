// What a realm's `Worker` (dedicated-worker.ts), the Node side that starts each Worker's thread
// (dedicated-worker-threads.ts), that thread's own Node side (dedicated-worker-main.ts) and the global
// scope in its realm (worker-scope.ts) agree on. A dedicated Worker runs in a worker thread of its
// own, nested in the extension's, in a realm with the same isolation as the extension's (no process,
// require or Node modules; its thread's own realm locked down): it runs beside the extension as a
// browser's does, and a loop in it holds up nothing else. Its messages are structured clones through
// a MessagePort whose ends are moved into the creating realm and the worker's, so each side's data
// is made in its own realm and transfer lists work.

export type WorkerType = 'classic' | 'module';

export interface WorkerCreateOptions {
  /** The script's URL, on the extension's origin. */
  url: string;
  type: WorkerType;
  /** `new Worker(url, { name })`: self.name inside. */
  name: string;
  /** What its WorkerNavigator says: the creating realm's navigator, as the browser's is the same. */
  navigator: { userAgent: string; language: string; languages: string[]; onLine: boolean; hardwareConcurrency: number };
}

/** An uncaught error of the worker its own scope did not handle: an ErrorEvent at the Worker object. */
export interface WorkerErrorDetails {
  message: string;
  /** The script's URL (chrome-extension://id/js/x.js), and where in it. */
  filename: string;
  lineno: number;
  colno: number;
  /** `file:line:col` of the extension's file, for the journal. */
  location?: string;
}

/** What its creator hears of a Worker besides its messages (called in the creator's realm, on a later turn). */
export interface WorkerEvents {
  /** Its script could not be loaded (not there, a module that does not bundle): a plain `error` Event. */
  failed(): void;
}

/**
 * What a worker sends its creator, in order on one port: its messages, and its uncaught errors its
 * own scope did not cancel (a browser queues both on the same task source).
 */
export type FromWorker = ['message', data: unknown] | ['error', WorkerErrorDetails];

/** The end of a MessagePort moved into a realm (worker_threads.moveMessagePortToContext): onmessage only. */
export interface RealmPort {
  postMessage(message: unknown, transfer?: readonly unknown[]): void;
  start(): void;
  close(): void;
  onmessage: ((event: { data: unknown; ports: readonly unknown[] }) => void) | null;
}

/** The Workers of one realm: the ones it creates. */
export interface DedicatedWorkersApi {
  /** Starts the worker's thread now; its script loads meanwhile, and runs once both are ready. */
  create(options: WorkerCreateOptions, events: WorkerEvents): { id: number; port: RealmPort };
  /** Ends it (and the workers it made): nothing of it runs or arrives afterwards. */
  terminate(id: number): void;
}

/** What a worker's global scope is given inside its realm (worker-scope.ts). */
export interface WorkerScopeBoot extends WorkerCreateOptions {
  /** The extension's origin (chrome-extension://id). */
  origin: string;
  port: RealmPort;
  /** Firefox's words where they differ (none yet checked for workers): the persona's browser. */
  browser: 'chrome' | 'firefox';
}

/** The worker scope's way out of its realm: the worker's Node side. */
export interface WorkerScopeBridge {
  post(item: unknown[]): void;
  format(args: readonly unknown[]): string;
  locate(error: unknown): string | undefined;
  setTimer(callback: () => void, ms: number, repeat: boolean): unknown;
  clearTimer(handle: unknown): void;
  /** Runs a classic script in the worker's realm. */
  runScript(code: string, file: string, map?: unknown): unknown;
  /** importScripts: the file a URL of the extension's origin names (undefined: none), and its text. */
  fileOf(url: string): string | undefined;
  readFile(file: string): string;
  /** The URL of one of the extension's files (an ErrorEvent's filename). */
  urlOf(file: string): string;
  /** self.close(): what it posted in this task still arrives; nothing after. */
  close(): void;
  /** The workers this worker creates (nested dedicated workers). */
  workers: DedicatedWorkersApi;
}

export interface WorkerScopeHandle {
  /** Runs its script (its top level); then the messages sent to it meanwhile are delivered. */
  run(code: string, file: string, map?: unknown): void;
  /** It ends: its timers are cleared and nothing more is dispatched in it. */
  shutdown(): void;
  /** An error thrown where no listener of its own was running (a Node event's): as its own uncaught error. */
  report(error: unknown): void;
}

export type InstallWorkerScope = (bridge: WorkerScopeBridge, boot: WorkerScopeBoot) => WorkerScopeHandle;

/** The global the worker scope's script leaves its install function under, removed once called. */
export const INSTALL_WORKER_SCOPE_GLOBAL = '__wrtuiInstallWorkerScope';
