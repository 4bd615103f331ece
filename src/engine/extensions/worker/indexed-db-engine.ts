// IndexedDB for an extension (runs inside the extension's realm): fake-indexeddb, bundled into one
// script that the worker runs there the first time the extension touches an IndexedDB global
// (worker-script.ts builds it; indexed-db-globals.ts runs it). Each extension's realm runs its own
// copy, so its databases are its own, as a browser keeps them per origin. Its clone makes objects of
// the extension's realm (structured-clone.ts), and its requests run one task each (setImmediate),
// as a browser's run on the event loop. The script leaves its maker on INDEXED_DB_ENGINE_GLOBAL.
import {
  IDBCursor,
  IDBCursorWithValue,
  IDBDatabase,
  IDBFactory,
  IDBIndex,
  IDBKeyRange,
  IDBObjectStore,
  IDBOpenDBRequest,
  IDBRequest,
  IDBTransaction,
  IDBVersionChangeEvent,
} from 'fake-indexeddb';
import { INDEXED_DB_ENGINE_GLOBAL, type IndexedDbEngine, type IndexedDbEngineOptions, type IndexedDbSnapshot } from './indexed-db-contract.js';
import { configureShims } from './indexed-db-shims.js';
import { restoreSnapshot, takeSnapshot, writing, type RawFactory } from './indexed-db-snapshot.js';
import { createStructuredClone } from './structured-clone.js';

type Method = (this: unknown, ...args: unknown[]) => unknown;

function makeIndexedDbEngine(options: IndexedDbEngineOptions): IndexedDbEngine {
  const blobHolders = new WeakSet<object>();
  const clone = createStructuredClone(options.isBlob, blobHolders);
  configureShims(clone, options.immediate);
  const factory = new IDBFactory() as unknown as RawFactory & { open: (name: string, version: number) => never; cmp: (first: unknown, second: unknown) => number };
  let restoring: Promise<unknown> = Promise.resolve();
  /** The restore's own transactions: what they write is what was saved already. */
  const restores = new WeakSet<object>();

  // What may change what is stored: a transaction that may write finishes (committed or rolled
  // back), or a database is deleted. fake-indexeddb's classes are this realm's own copy.
  const transactionPrototype = IDBTransaction.prototype as unknown as Record<string, Method>;
  const markFinished = transactionPrototype._markFinished!;
  transactionPrototype._markFinished = function (this: unknown, ...args: unknown[]) {
    const result = Reflect.apply(markFinished, this, args);
    if ((this as { mode: string }).mode !== 'readonly' && !restores.has(this as object)) options.changed();
    return result;
  };
  const factoryPrototype = IDBFactory.prototype as unknown as Record<string, Method>;
  const deleteDatabase = factoryPrototype.deleteDatabase!;
  factoryPrototype.deleteDatabase = function deleteDatabase_(...args: unknown[]) {
    const request = Reflect.apply(deleteDatabase, this, args) as { addEventListener(type: string, listener: () => void): void };
    request.addEventListener('success', () => options.changed());
    return request;
  };
  Object.defineProperty(factoryPrototype.deleteDatabase, 'name', { value: 'deleteDatabase' });
  // databases() answers once the saved databases are back (its answer is not queued behind them as open's is).
  const databases = factoryPrototype.databases!;
  factoryPrototype.databases = function databases_(...args: unknown[]) {
    return restoring.then(() => Reflect.apply(databases, this, args));
  };
  Object.defineProperty(factoryPrototype.databases, 'name', { value: 'databases' });

  return {
    globals: {
      indexedDB: factory,
      IDBFactory,
      IDBDatabase,
      IDBTransaction,
      IDBObjectStore,
      IDBIndex,
      IDBCursor,
      IDBCursorWithValue,
      IDBKeyRange,
      IDBRequest,
      IDBOpenDBRequest,
      IDBVersionChangeEvent,
    },
    restore(snapshot: IndexedDbSnapshot) {
      const restored = restoreSnapshot(factory, snapshot, restores, clone);
      restoring = restored;
      return restored;
    },
    snapshot: () => (writing(factory) ? undefined : takeSnapshot(factory, blobHolders)),
  };
}

(globalThis as unknown as Record<string, unknown>)[INDEXED_DB_ENGINE_GLOBAL] = makeIndexedDbEngine;
