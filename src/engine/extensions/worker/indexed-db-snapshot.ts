// An extension's IndexedDB databases as data, and back (runs inside the extension's realm, in the
// IndexedDB script). Taking a snapshot reads fake-indexeddb's committed state directly (its
// factory's databases, their object stores, indexes, key generators and records, in key order):
// no connection is opened, so the extension's own connections never see a `versionchange` or a
// `blocked` of wrtui's, and a snapshot of a large database costs one walk over its records.
// It is taken only while no transaction that may write runs (fake-indexeddb writes in place and
// rolls back on abort, so a running one's writes are not yet committed). Putting a snapshot back
// goes through the public API: each database is opened at its version, and its upgrade creates the
// stores and indexes and puts the records back (indexes are rebuilt from the records, the key
// generator set past the key it had reached), before the extension's first request runs.
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
  records: { values(): Iterable<{ key: unknown; value: unknown }> };
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
  open(name: string, version: number): Request & { transaction: unknown; onupgradeneeded: unknown; onblocked: unknown };
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
  put(value: unknown, key?: unknown): unknown;
  delete(key: unknown): unknown;
}

/**
 * Puts the databases of `snapshot` back into `factory`; resolves with what went wrong (a database
 * that could not be restored starts empty). Its upgrade transactions are added to `own`.
 */
export function restoreSnapshot(factory: Factory, snapshot: IndexedDbSnapshot, own: WeakSet<object>): Promise<string[]> {
  if (snapshot?.format !== SNAPSHOT_FORMAT || !Array.isArray(snapshot.databases)) return Promise.resolve([`the saved databases are of an unknown format (${String(snapshot?.format)})`]);
  return Promise.all(snapshot.databases.map((database) => restoreDatabase(factory, database, own))).then((problems) => problems.filter((problem): problem is string => problem !== undefined));
}

function restoreDatabase(factory: Factory, database: DatabaseSnapshot, own: WeakSet<object>): Promise<string | undefined> {
  return new Promise((resolve) => {
    let request: ReturnType<Factory['open']>;
    try {
      request = factory.open(database.name, database.version);
    } catch (error) {
      return resolve(`database ${JSON.stringify(database.name)}: ${String(error)}`);
    }
    request.onupgradeneeded = () => {
      const connection = request.result as Connection;
      own.add(request.transaction as object);
      for (const store of database.stores) restoreStore(connection, store);
    };
    request.onsuccess = () => {
      (request.result as Connection).close();
      resolve(undefined);
    };
    request.onerror = () => resolve(`database ${JSON.stringify(database.name)}: ${request.error?.name ?? 'Error'} ${request.error?.message ?? ''}`.trim());
  });
}

function restoreStore(connection: Connection, store: StoreSnapshot): void {
  const objectStore = connection.createObjectStore(store.name, { keyPath: store.keyPath, autoIncrement: store.autoIncrement });
  for (const index of store.indexes) objectStore.createIndex(index.name, index.keyPath, { unique: index.unique, multiEntry: index.multiEntry });
  for (const [key, value] of store.records) {
    if (store.keyPath === null) objectStore.put(value, key);
    else objectStore.put(value);
  }
  // The generator goes on from where it was, though the records with its latest keys may be gone:
  // the records put back take it to their largest number; past that, a record at its key sets it
  // there (as any explicit numeric key does), and is deleted again.
  let highest = 0;
  for (const [key] of store.records) if (typeof key === 'number' && key > highest) highest = key;
  if (store.autoIncrement && typeof store.generatorKey === 'number' && store.generatorKey > highest) {
    const key = store.generatorKey;
    if (store.keyPath === null) objectStore.put(0, key);
    else objectStore.put(valueWithKeyAt(store.keyPath as string, key));
    objectStore.delete(key);
  }
}

/** `{ a: { b: key } }` for the key path `a.b`. */
function valueWithKeyAt(keyPath: string, key: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let here = root;
  const parts = keyPath.split('.');
  for (const part of parts.slice(0, -1)) here = here[part] = {};
  here[parts[parts.length - 1]!] = key;
  return root;
}
