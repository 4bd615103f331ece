// The worker's Node side of IndexedDB (indexed-db-globals.ts is the realm's): it runs the IndexedDB
// script in the extension's realm on first use, reads the databases the host kept, and serialises
// snapshots with v8's serializer (the structured clone's own format: Dates, Maps, Sets, typed
// arrays, cycles, all kept), here on the extension's thread, so the proxy thread only writes bytes.
import v8 from 'node:v8';
import type { Bridge } from './bridge.js';
import { INDEXED_DB_ENGINE_GLOBAL, type MakeIndexedDbEngine } from './indexed-db-contract.js';

// The IndexedDB script, inlined by the build (see worker-script.ts).
declare const WRTUI_INDEXEDDB_SOURCE: string;

/**
 * The bridge's `indexedDb`: `runScript` runs a script in the extension's realm, `realmGlobal` is
 * that realm's global, and `kept` the bytes the host kept (WorkerBoot.indexedDb), once booted.
 */
export function indexedDbBridge(runScript: (code: string, file: string) => unknown, realmGlobal: Record<string, unknown>, kept: () => Uint8Array | undefined): Bridge['indexedDb'] {
  let maker: MakeIndexedDbEngine | undefined;
  return {
    load(intrinsics) {
      if (!maker) {
        (runScript(WRTUI_INDEXEDDB_SOURCE, 'wrtui:indexeddb') as (...values: unknown[]) => void).apply(realmGlobal, [...intrinsics]);
        maker = realmGlobal[INDEXED_DB_ENGINE_GLOBAL] as MakeIndexedDbEngine;
        delete realmGlobal[INDEXED_DB_ENGINE_GLOBAL];
      }
      return maker;
    },
    saved() {
      const bytes = kept();
      return bytes === undefined || bytes.byteLength === 0 ? undefined : v8.deserialize(bytes);
    },
    serialize(snapshot) {
      const buffer = v8.serialize(snapshot);
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    },
    immediate(task) {
      setImmediate(task);
    },
  };
}
