// IndexedDB's globals in the extension's scope (runs inside the extension's realm, in the bindings),
// and keeping what it stores. Every extension (a background page, a service worker, a rule) has
// `indexedDB`, `IDBKeyRange` and the rest, as both browsers give them. The engine
// (indexed-db-engine.ts, fake-indexeddb) runs the first time one of them is touched, so an
// extension that never uses IndexedDB pays nothing; it starts with the databases the host kept
// (WorkerBoot.indexedDb), put back before the extension's first request runs.
// Keeping them: when a transaction that may write finishes (or a database is deleted), a snapshot
// of every database is taken in this worker, serialised (v8) by its Node side, and sent to the host,
// which writes it to `<state-dir>/extensions/<id>/indexeddb.v8` (indexed-db-file.ts). At most one
// snapshot per SAVE_INTERVAL_MS: the first change after a quiet spell is saved at the end of its
// turn, later ones together when the interval is up. Records holding a Blob stay in memory only.
import type { Bridge } from './bridge.js';
import type { HostCalls } from './host-calls.js';
import { INDEXED_DB_GLOBALS, INDEXED_DB_INTRINSICS, type IndexedDbEngine } from './indexed-db-contract.js';

/** At most one snapshot of the databases per this many ms. */
export const SAVE_INTERVAL_MS = 200;

export interface IndexedDbParts {
  scope: Record<string, unknown>;
  bridge: Bridge;
  calls: HostCalls;
}

/** What the bindings do with IndexedDB once its globals are there. */
export interface IndexedDbHandle {
  /** wrtui is closing: save what changed now (once a running write transaction ends), then tell the host (indexedDB.saved). */
  saveNow(): void;
}

/** Defines IndexedDB's globals on `scope`, each running the engine on first touch. */
export function installIndexedDb({ scope, bridge, calls }: IndexedDbParts): IndexedDbHandle {
  let engine: IndexedDbEngine | undefined;
  // Taken now, before any of the extension's code runs.
  const intrinsics = INDEXED_DB_INTRINSICS.map((name) => scope[name]);
  const RealmBlob = scope.Blob as typeof Blob;
  const warn = (message: string) => bridge.post(['log', 'warn', message]);
  const settle = (name: string, value: unknown) => Object.defineProperty(scope, name, { value, writable: true, configurable: true, enumerable: false });

  // ── saving ──
  let timer: unknown;
  let dirty = false;
  let lastSave = -Infinity;
  let toldSkipped = false;
  /** The host waits for word that everything is saved (saveNow). */
  let owed = false;
  const tellSaved = () => {
    owed = false;
    void calls.call('indexedDB.saved', []);
  };
  const save = () => {
    timer = undefined;
    if (!dirty || !engine) {
      if (owed) tellSaved();
      return;
    }
    const taken = engine.snapshot();
    // A transaction that may write still runs: its end is a change, which comes back here.
    if (!taken) return;
    dirty = false;
    lastSave = performance.now();
    if (taken.skipped > 0 && !toldSkipped) {
      toldSkipped = true;
      warn(`IndexedDB: ${taken.skipped} record${taken.skipped === 1 ? '' : 's'} holding a Blob or File ${taken.skipped === 1 ? 'is' : 'are'} kept while the extension runs, not on disk (wrtui does not write Blobs)`);
    }
    let bytes: Uint8Array;
    try {
      bytes = bridge.indexedDb.serialize(taken.snapshot);
    } catch (error) {
      warn(`IndexedDB could not be saved: ${String(error)}`);
      if (owed) tellSaved();
      return;
    }
    void calls.call('indexedDB.write', [bytes]).then((reply) => {
      if (!reply.ok) warn(`IndexedDB could not be saved: ${reply.error}`);
    });
    if (owed) tellSaved();
  };
  const changed = () => {
    dirty = true;
    if (owed) {
      // Closing: no waiting for the interval.
      if (timer !== undefined) bridge.clearTimer(timer);
      timer = undefined;
    }
    if (timer !== undefined) return;
    timer = bridge.setTimer(save, owed ? 0 : Math.max(0, lastSave + SAVE_INTERVAL_MS - performance.now()), false);
  };

  const load = (): IndexedDbEngine => {
    if (engine) return engine;
    const made = bridge.indexedDb.load(intrinsics)({
      immediate: bridge.indexedDb.immediate,
      isBlob: (value) => value instanceof RealmBlob,
      changed,
    });
    engine = made;
    let saved: unknown;
    try {
      saved = bridge.indexedDb.saved();
    } catch (error) {
      // Never overwritten: the host sets the file aside before this realm saves anything.
      void calls.call('indexedDB.unreadable', [String(error)]);
    }
    if (saved !== undefined) {
      void made.restore(saved as Parameters<IndexedDbEngine['restore']>[0]).then((problems) => {
        for (const problem of problems) warn(`IndexedDB: the saved ${problem}; it starts empty`);
      });
    }
    return made;
  };

  for (const name of INDEXED_DB_GLOBALS) {
    Object.defineProperty(scope, name, {
      get: () => {
        const value = load().globals[name];
        // Still the trigger (the extension did not set its own meanwhile): the engine's.
        if (Object.getOwnPropertyDescriptor(scope, name)?.get) settle(name, value);
        return value;
      },
      set: (value: unknown) => settle(name, value),
      configurable: true,
      enumerable: false,
    });
  }

  return {
    saveNow() {
      owed = true;
      if (timer !== undefined) bridge.clearTimer(timer);
      // A failed snapshot (a write transaction still runs) waits for that transaction's end, a change.
      save();
    },
  };
}
