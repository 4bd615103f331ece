// What the worker's Node side hands to the bindings that run inside the extension's own realm
// (a vm context with a browser's globals). The bindings build `chrome`/`browser`, console and
// timers in that realm, so every object, Promise and Error an extension sees is of its own realm,
// as in a browser; the bridge is the only way out, and it only posts to the host.
import type { HostReply, WorkerBoot, WorkerItem } from '../protocol.js';
import type { DedicatedWorkersApi } from './dedicated-worker-api.js';
import type { CanvasKit } from './canvas-kit.js';
import type { MakeIndexedDbEngine } from './indexed-db-contract.js';

export interface Bridge {
  /** Queues an item for the host; one message per turn of the worker's event loop. */
  post(item: WorkerItem): void;
  /** util.format of console arguments: the text a console call prints, whole. */
  format(args: readonly unknown[]): string;
  /** `file:line:col` of the first stack frame of `error` in the extension's own code (source-mapped). */
  locate(error: unknown): string | undefined;
  /** Runs a classic script in the extension's global scope; `file` names it in stack traces (mapped through `map` for a bundle). */
  runScript(code: string, file: string, map?: unknown): unknown;
  /** A file of the extension, as text (importScripts, background scripts). */
  readFile(file: string): string;
  /** Evaluates a rule's CommonJS bundle; returns its exports. `require` is the Node gate. */
  runRuleBundle(code: string, file: string, map: unknown): Record<string, unknown>;
  /** Whether a rule's manifest opted into Node (`node: true`); fixed once its module ran. */
  setNodeAllowed(allowed: boolean): void;
  /** runtime.getPlatformInfo(): this machine as Chrome names it. */
  platform: { os: string; arch: string; nacl_arch: string };
  setTimer(callback: () => void, ms: number, repeat: boolean): unknown;
  /** IndexedDB's engine and what it keeps (indexed-db-globals.ts). */
  indexedDb: {
    /** Runs the IndexedDB script in the extension's realm (once), with these values of INDEXED_DB_INTRINSICS, and gives its maker. */
    load(intrinsics: readonly unknown[]): MakeIndexedDbEngine;
    /** The databases the host kept (WorkerBoot.indexedDb), as data; throws when they cannot be read. */
    saved(): unknown;
    /** A snapshot of the databases as bytes (v8's serialisation, which keeps Dates, Maps, typed arrays …). */
    serialize(snapshot: unknown): Uint8Array;
    /** setImmediate: a task after this one and its microtasks. */
    immediate(task: () => void): void;
  };
  clearTimer(handle: unknown): void;
  /** The dedicated Workers the extension's realm makes (a background page's `Worker`). */
  workers: DedicatedWorkersApi;
  /** The 2D canvas library (Skia), loaded on first use (canvas-kit.ts). */
  canvas(): CanvasKit;
  /** The bindings' calls to the host, for what the Node side asks of it (a module Worker's bundle). */
  useHostCalls(call: (method: string, args: unknown[]) => Promise<HostReply>): void;
}

/** The function the bindings script defines in the extension's realm; the worker calls it once. */
export type InstallBindings = (bridge: Bridge, boot: WorkerBoot) => BindingsHandle;

export interface BindingsHandle {
  /** Handles one batch of host items (except pings, which the Node side answers). */
  receive(items: readonly unknown[][]): void;
  /** Runs the background: the scripts, or the rule's module and its default export. */
  start(): void;
}

/** The global the bindings script leaves its install function under, removed once called. */
export const INSTALL_GLOBAL = '__wrtuiInstallBindings';
