// What an extension's IndexedDB costs (docs/extensions-and-host.md, "Extension host: what runs where").
//
//   node --import tsx bench/indexed-db.ts            (IDB_RECORDS=1000,10000,50000 by default)
//
// The engine runs here as it runs in an extension's worker: the IndexedDB script built by
// worker-script.ts, in a vm context of its own. Measured:
//  - first use: running the script in a fresh worker's realm (what an extension's first touch of
//    `indexedDB` costs its worker; one that never touches it pays nothing);
//  - a readwrite transaction of one put, as extensions write (Lightbeam: one per request seen);
//  - per save, on the extension's thread: the snapshot of the committed databases and its v8
//    serialisation, for N records of ~200 bytes (an object with a string, a number, a Date and a
//    small array; Lightbeam's are of that size) in one store with an index;
//  - per save, on the proxy thread: the bytes' copy as postMessage makes it (structuredClone), and
//    IndexedDbFile.write (temporary file, fsync, rename) until durable: its wall time, and the
//    process's CPU for it (libuv's file-system threads included);
//  - at start: restoring the snapshot (the first use of IndexedDB after a restart).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import { IndexedDbFile } from '../src/engine/extensions/indexed-db-file.js';
import { INDEXED_DB_ENGINE_GLOBAL, INDEXED_DB_INTRINSICS, type IndexedDbEngine, type IndexedDbSnapshot, type MakeIndexedDbEngine } from '../src/engine/extensions/worker/indexed-db-contract.js';
import { buildIndexedDbSource } from '../src/engine/extensions/worker-script.js';

const COUNTS = (process.env.IDB_RECORDS ?? '1000,10000,50000').split(',').map(Number);
const ROUNDS = 7;

const source = await buildIndexedDbSource(path.resolve('src/engine/extensions/worker'));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** A realm with the engine in it, as the worker's first use makes it; `changed` counts saves due. */
function realm(): { engine: IndexedDbEngine; context: vm.Context; loadMs: number } {
  const context = vm.createContext({ DOMException, Blob, console });
  const started = process.hrtime.bigint();
  const realmGlobal = vm.runInContext('globalThis', context) as Record<string, unknown>;
  (vm.runInContext(source, context, { filename: 'wrtui:indexeddb' }) as (...values: unknown[]) => void).apply(realmGlobal, INDEXED_DB_INTRINSICS.map((name) => realmGlobal[name]));
  const make = (context as Record<string, unknown>)[INDEXED_DB_ENGINE_GLOBAL] as MakeIndexedDbEngine;
  const engine = make({ immediate: (task) => void setImmediate(task), isBlob: (value) => value instanceof Blob, changed: () => {} });
  return { engine, context, loadMs: ms(started) };
}

/** Runs `code` in the realm (its indexedDB is the engine's) and waits for the Promise it gives. */
function inRealm<T>(context: vm.Context, engine: IndexedDbEngine, code: string): Promise<T> {
  (context as Record<string, unknown>).indexedDB = engine.globals.indexedDB;
  return vm.runInContext(code, context) as Promise<T>;
}

const FILL = (count: number) => `new Promise((resolve, reject) => {
  const request = indexedDB.open('bench', 1);
  request.onupgradeneeded = () => request.result.createObjectStore('sites', { keyPath: 'hostname' }).createIndex('firstRequestTime', 'firstRequestTime');
  request.onsuccess = () => {
    const tx = request.result.transaction('sites', 'readwrite');
    const store = tx.objectStore('sites');
    for (let i = 0; i < ${count}; i++) store.put({ hostname: 'host-' + i + '.example.com', firstRequestTime: 1700000000000 + i, lastSeen: new Date(1700000000000 + i), thirdPartyHostnames: ['tracker-' + (i % 50) + '.example.net', 'cdn-' + (i % 7) + '.example.org'], isVisible: i % 2 });
    tx.oncomplete = () => { request.result.close(); resolve(); };
    tx.onerror = () => reject(tx.error);
  };
  request.onerror = () => reject(request.error);
})`;

const work = await mkdtemp(path.join(tmpdir(), 'wrtui-bench-idb-'));
try {
  // First use, in a fresh worker each time (its own isolate: nothing compiled yet), as an extension's first touch.
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const worker = new Worker(
      `const vm = require('node:vm'); const { parentPort, workerData } = require('node:worker_threads');
       const context = vm.createContext({ DOMException, Blob }); const realm = vm.runInContext('globalThis', context);
       const started = performance.now();
       vm.runInContext(workerData.source, context).apply(realm, workerData.names.map((name) => realm[name]));
       realm[workerData.maker]({ immediate: setImmediate, isBlob: () => false, changed: () => {} });
       parentPort.postMessage(performance.now() - started);`,
      { eval: true, workerData: { source, names: INDEXED_DB_INTRINSICS, maker: INDEXED_DB_ENGINE_GLOBAL } },
    );
    loads.push(await new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject)));
    await worker.terminate();
  }
  console.log(`IndexedDB script: ${(source.length / 1024).toFixed(0)} KiB; first use in a fresh worker: median ${median(loads).toFixed(1)} ms (${loads.map((load) => load.toFixed(1)).join(', ')})`);

  // An extension's everyday use: one record per readwrite transaction, one after another (Lightbeam's way).
  {
    const { engine, context } = realm();
    await inRealm(context, engine, FILL(1000));
    const started = process.hrtime.bigint();
    await inRealm(context, engine, `new Promise((resolve, reject) => {
      const request = indexedDB.open('bench');
      request.onsuccess = async () => {
        const db = request.result;
        for (let i = 0; i < 1000; i++) {
          await new Promise((done, fail) => { const tx = db.transaction('sites', 'readwrite'); tx.objectStore('sites').put({ hostname: 'new-' + i, firstRequestTime: i, thirdPartyHostnames: ['a'] }); tx.oncomplete = done; tx.onerror = () => fail(tx.error); });
        }
        db.close();
        resolve();
      };
      request.onerror = () => reject(request.error);
    })`);
    console.log(`one put per readwrite transaction, into 1,000 records: ${(ms(started) / 1000).toFixed(3)} ms a transaction`);
  }
  console.log('records | snapshot | v8.serialize | bytes | copy (postMessage) | file write wall / CPU | restore');
  for (const count of COUNTS) {
    const { engine, context } = realm();
    await inRealm(context, engine, FILL(count));
    const snapshots: number[] = [];
    const serialisations: number[] = [];
    let bytes = new Uint8Array();
    for (let round = 0; round < ROUNDS; round++) {
      let started = process.hrtime.bigint();
      const taken = engine.snapshot()!;
      snapshots.push(ms(started));
      started = process.hrtime.bigint();
      const buffer = v8.serialize(taken.snapshot);
      serialisations.push(ms(started));
      bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    }
    const copies: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const started = process.hrtime.bigint();
      structuredClone(bytes);
      copies.push(ms(started));
    }
    const file = new IndexedDbFile(path.join(work, String(count)), 'bench', (message) => console.error(message));
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      await file.write(bytes);
      walls.push(ms(started));
      const used = process.cpuUsage(cpu);
      cpus.push((used.user + used.system) / 1000);
    }
    const restores: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const fresh = realm();
      const started = process.hrtime.bigint();
      const problems = await fresh.engine.restore(v8.deserialize(bytes) as IndexedDbSnapshot);
      restores.push(ms(started));
      if (problems.length > 0) throw new Error(problems.join('; '));
    }
    console.log(
      `${count} | ${median(snapshots).toFixed(1)} ms | ${median(serialisations).toFixed(1)} ms | ${(bytes.byteLength / 1024).toFixed(0)} KiB | ${median(copies).toFixed(2)} ms | ${median(walls).toFixed(1)} / ${median(cpus).toFixed(1)} ms | ${median(restores).toFixed(0)} ms`,
    );
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
