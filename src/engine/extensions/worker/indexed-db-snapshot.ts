// An extension's IndexedDB databases as data, and back (runs inside the extension's realm, in the
// IndexedDB script). Taking a snapshot reads fake-indexeddb's committed state directly (its
// factory's databases, their object stores, indexes, key generators and records, in key order):
// no connection is opened, so the extension's own connections never see a `versionchange` or a
// `blocked` of wrtui's, and a snapshot of a large database costs one walk over its records.
// It is taken only while no transaction that may write runs (fake-indexeddb writes in place and
// rolls back on abort, so a running one's writes are not yet committed). Putting a snapshot back
// opens each database at its version; its upgrade creates the stores and indexes through the
// public API and puts the records straight into the stores (a request per record would cost a task
// each, and fake-indexeddb's request queue grows quadratic: 50,000 records took 13 s that way),
// cloned into the extension's realm; the indexes are then built from them and the key generator
// set where it was, before the extension's first request runs.
import type { DatabaseSnapshot, IndexedDbSnapshot, StoreSnapshot } from './indexed-db-contract.js';
import { SNAPSHOT_FORMAT } from './indexed-db-contract.js';

/** fake-indexeddb's own state, as far as a snapshot reads it (lib/Database.js, ObjectStore.js, Index.js). */
interface RawIndex {
  deleted: boolean;
  name: string;
  keyPath: string | string[];
  unique: boolean;
  multiEntry: boolean;
}
interface RawObjectStore {
  deleted: boolean;
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  keyGenerator: { num: number } | null;
  records: { values(): Iterable<{ key: unknown; value: unknown }>; put(record: { key: unknown; value: unknown }): unknown };
  rawIndexes: Map<string, RawIndex>;
}
interface RawDatabase {
  name: string;
  version: number;
  rawObjectStores: Map<string, RawObjectStore>;
  transactions: { mode: string; _state: string }[];
}
export interface RawFactory {
  _databases: Map<string, RawDatabase>;
}

/** Whether a transaction that may write (readwrite, versionchange) has not finished in any database. */
export function writing(factory: RawFactory): boolean {
  for (const database of factory._databases.values()) {
    if (database.transactions.some((transaction) => transaction.mode !== 'readonly' && transaction._state !== 'finished')) return true;
  }
  return false;
}

/** The committed databases of `factory` (call only when `writing` is false); records holding a Blob are left out and counted. */
export function takeSnapshot(factory: RawFactory, blobHolders: WeakSet<object>): { snapshot: IndexedDbSnapshot; skipped: number } {
  let skipped = 0;
  const databases: DatabaseSnapshot[] = [];
  for (const database of factory._databases.values()) {
    // Version 0: being created by its first upgrade, or left by one that aborted (not a database yet).
    if (database.version === 0) continue;
    const stores: StoreSnapshot[] = [];
    for (const store of database.rawObjectStores.values()) {
      if (store.deleted) continue;
      const records: [unknown, unknown][] = [];
      for (const record of store.records.values()) {
        if (typeof record.value === 'object' && record.value !== null && blobHolders.has(record.value)) skipped++;
        else records.push([record.key, record.value]);
      }
      stores.push({
        name: store.name,
        keyPath: store.keyPath,
        autoIncrement: store.autoIncrement,
        ...(store.keyGenerator && { generatorKey: store.keyGenerator.num }),
        indexes: [...store.rawIndexes.values()].filter((index) => !index.deleted).map(({ name, keyPath, unique, multiEntry }) => ({ name, keyPath, unique, multiEntry })),
        records,
      });
    }
    databases.push({ name: database.name, version: database.version, stores });
  }
  return { snapshot: { format: SNAPSHOT_FORMAT, databases }, skipped };
}

/** The public IndexedDB API as a restore uses it. */
interface Factory {
  open(name: string, version: number): Request & { transaction: { abort(): void } | null; onupgradeneeded: unknown; onblocked: unknown };
  cmp(first: unknown, second: unknown): number;
}
interface Request {
  result: unknown;
  error: { name: string; message: string } | null;
  onsuccess: unknown;
  onerror: unknown;
}
interface Connection {
  createObjectStore(name: string, options: { keyPath: string | string[] | null; autoIncrement: boolean }): ObjectStore;
  close(): void;
}
interface ObjectStore {
  createIndex(name: string, keyPath: string | string[], options: { unique: boolean; multiEntry: boolean }): unknown;
  /** fake-indexeddb's own store behind it. */
  _rawObjectStore: RawObjectStore;
}

/**
 * Puts the databases of `snapshot` back into `factory`; resolves with what went wrong (a database
 * that could not be restored starts empty). Its upgrade transactions are added to `own`.
 */
export function restoreSnapshot(factory: Factory, snapshot: IndexedDbSnapshot, own: WeakSet<object>, clone: <T>(value: T) => T): Promise<string[]> {
  if (snapshot?.format !== SNAPSHOT_FORMAT || !Array.isArray(snapshot.databases)) return Promise.resolve([`the saved databases are of an unknown format (${String(snapshot?.format)})`]);
  return Promise.all(snapshot.databases.map((database) => restoreDatabase(factory, database, own, clone))).then((problems) => problems.filter((problem): problem is string => problem !== undefined));
}

function restoreDatabase(factory: Factory, database: DatabaseSnapshot, own: WeakSet<object>, clone: <T>(value: T) => T): Promise<string | undefined> {
  return new Promise((resolve) => {
    let request: ReturnType<Factory['open']>;
    try {
      request = factory.open(database.name, database.version);
    } catch (error) {
      return resolve(`database ${JSON.stringify(database.name)}: ${String(error)}`);
    }
    let failure: string | undefined;
    request.onupgradeneeded = () => {
      const connection = request.result as Connection;
      own.add(request.transaction as object);
      try {
        for (const store of database.stores) restoreStore(factory, connection, store, clone);
      } catch (error) {
        // A key that is no key (the file was not wrtui's): the database starts empty.
        failure = `database ${JSON.stringify(database.name)}: ${String(error)}`;
        request.transaction!.abort();
      }
    };
    request.onsuccess = () => {
      (request.result as Connection).close();
      resolve(undefined);
    };
    request.onerror = (event: { preventDefault(): void }) => {
      event.preventDefault();
      resolve(failure ?? `database ${JSON.stringify(database.name)}: ${request.error?.name ?? 'Error'} ${request.error?.message ?? ''}`.trim());
    };
  });
}

function restoreStore(factory: Factory, connection: Connection, store: StoreSnapshot, clone: <T>(value: T) => T): void {
  const objectStore = connection.createObjectStore(store.name, { keyPath: store.keyPath, autoIncrement: store.autoIncrement });
  // Each index is built from the store's records when its creation runs, after the records below are in.
  for (const index of store.indexes) objectStore.createIndex(index.name, index.keyPath, { unique: index.unique, multiEntry: index.multiEntry });
  const raw = objectStore._rawObjectStore;
  for (const [key, value] of store.records) {
    // Throws a DataError for what is no key.
    factory.cmp(key, key);
    raw.records.put({ key: clone(key), value: clone(value) });
  }
  // The generator goes on from where it was, though the records with its latest keys may be gone.
  if (raw.keyGenerator && typeof store.generatorKey === 'number') raw.keyGenerator.num = Math.max(raw.keyGenerator.num, store.generatorKey);
}
