// What wrtui's IndexedDB parts agree on: the global the IndexedDB script (indexed-db-engine.ts,
// fake-indexeddb in the extension's realm) hands its maker over on, what the maker is given and
// gives back, and the snapshot of an extension's databases that the worker serialises (v8) and the
// host keeps in `<state-dir>/extensions/<id>/indexeddb.v8`.

/** The global the IndexedDB script leaves its maker on (taken and deleted at once). */
export const INDEXED_DB_ENGINE_GLOBAL = '__wrtuiIndexedDbEngine';

/** The globals a browser's window and worker have for IndexedDB, in Firefox ESR 153.8's list. */
export const INDEXED_DB_GLOBALS = [
  'indexedDB', 'IDBFactory', 'IDBDatabase', 'IDBTransaction', 'IDBObjectStore', 'IDBIndex', 'IDBCursor', 'IDBCursorWithValue',
  'IDBKeyRange', 'IDBRequest', 'IDBOpenDBRequest', 'IDBVersionChangeEvent',
] as const;

/**
 * The built-ins the IndexedDB script is given as parameters, as the realm had them before the
 * extension's code ran: its names then resolve to them, not to the realm's global object (which
 * the extension may have changed), and not through the vm context's global lookup, which is slow
 * (a restore of 10,000 records took twice as long with each of fake-indexeddb's `Object` and
 * `Array` looked up there).
 */
export const INDEXED_DB_INTRINSICS = [
  'Object', 'Array', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Date', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'Promise', 'Symbol',
  'Error', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'Math', 'Number', 'String', 'Boolean', 'BigInt',
  'RegExp', 'Reflect', 'JSON', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'DOMException', 'isNaN', 'isFinite',
] as const;

/** The version of the snapshot's shape. */
export const SNAPSHOT_FORMAT = 1;

export interface IndexedDbSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  databases: DatabaseSnapshot[];
}

export interface DatabaseSnapshot {
  name: string;
  version: number;
  stores: StoreSnapshot[];
}

export interface StoreSnapshot {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  /** The key generator's current number (the last key it gave, or the largest numeric key stored). */
  generatorKey?: number;
  indexes: IndexSnapshot[];
  /** [key, value], in key order. */
  records: [unknown, unknown][];
}

export interface IndexSnapshot {
  name: string;
  keyPath: string | string[];
  unique: boolean;
  multiEntry: boolean;
}

/** What the worker's Node side gives the IndexedDB script. */
export interface IndexedDbEngineOptions {
  /** Runs `task` after the current one and its microtasks (setImmediate): how fake-indexeddb schedules. */
  immediate(task: () => void): void;
  /** Whether `value` is a Blob (kept as it is: it cannot change). */
  isBlob(value: object): boolean;
  /** A transaction that may have written finished, or a database was deleted: what is stored may have changed. */
  changed(): void;
}

export interface IndexedDbEngine {
  /** The globals, by name (INDEXED_DB_GLOBALS). */
  globals: Record<string, unknown>;
  /** Puts the databases of `snapshot` back (before any of the extension's requests run); resolves with the problems met. */
  restore(snapshot: IndexedDbSnapshot): Promise<string[]>;
  /**
   * The databases as committed now; undefined while a transaction that may write runs (what it
   * wrote so far could still be rolled back). `skipped` counts the records left out (they hold a Blob).
   */
  snapshot(): { snapshot: IndexedDbSnapshot; skipped: number } | undefined;
}

export type MakeIndexedDbEngine = (options: IndexedDbEngineOptions) => IndexedDbEngine;
