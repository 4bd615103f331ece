// IndexedDB in an extension's global scope (docs/extensions-and-host.md, "Extension host: what runs where"): every
// extension has it, its databases are its own, and they are kept in
// <state-dir>/extensions/<id>/indexeddb.v8 (0600) so that a restart of wrtui finds them, as a
// browser keeps them. Each test runs real extensions in their workers through an ExtensionHost.
import { mkdtemp, mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import type { JournalEntry } from '../../src/engine/journal.js';
import { ExtensionHost } from '../../src/engine/extensions/extension-host.js';
import { INDEXED_DB_FILE } from '../../src/engine/extensions/indexed-db-file.js';

let work: string;
let stateDir: string;
const running: { host: ExtensionHost; engine: Engine }[] = [];

beforeEach(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'wrtui-idb-'));
  stateDir = path.join(work, 'state');
});

afterEach(async () => {
  for (const { host, engine } of running.splice(0)) {
    await host.close();
    await engine.close();
  }
  await rm(work, { recursive: true, force: true });
});

/** An MV2 extension (background scripts) at work/<name> whose script is `source`. */
async function extension(name: string, source: string, manifest: Record<string, unknown> = {}): Promise<string> {
  const folder = path.join(work, name);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, 'manifest.json'), JSON.stringify({ manifest_version: 2, name, version: '1', background: { scripts: ['bg.js'] }, ...manifest }));
  await writeFile(path.join(folder, 'bg.js'), source);
  return folder;
}

/** Starts wrtui's extension host on `folders` (one state dir for the whole test); resolves with the reports they log. */
async function start(folders: string[]): Promise<{ host: ExtensionHost; entries: JournalEntry[]; reports: (source: string) => Promise<unknown> }> {
  const engine = await Engine.open({});
  const entries: JournalEntry[] = [];
  const waiters = new Set<() => void>();
  engine.journal.subscribe((entry) => {
    entries.push(entry);
    for (const waiter of waiters) waiter();
  });
  const host = await ExtensionHost.start(engine, { extensions: folders, watch: false, typeCheck: false, stateDir });
  running.push({ host, engine });
  const reports = (source: string) =>
    new Promise<unknown>((resolve, reject) => {
      const look = () => {
        const found = entries.find((e) => e.kind === 'log' && e.source === source && e.message.startsWith('REPORT '));
        const failed = entries.find((e) => (e.kind === 'log' && e.level === 'error' && e.source === source) || (e.kind === 'rule' && e.action === 'failed'));
        if (failed) return finish(() => reject(new Error(`the extension failed: ${JSON.stringify(failed)}`)));
        if (found && found.kind === 'log') finish(() => resolve(JSON.parse(found.message.slice('REPORT '.length))));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no report from ${source}; last entries:\n${entries.slice(-6).map((e) => JSON.stringify(e)).join('\n')}`))), 10_000);
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(look);
        settle();
      };
      waiters.add(look);
      look();
    });
  return { host, entries, reports };
}

/** Resolves once `test` holds, checking every 20 ms (at most 10 s). */
async function until<T>(test: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await test().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the condition did not hold within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A promise-returning helper the extensions' scripts share: one IDBRequest awaited. */
const HELPERS = `
const done = (request) => new Promise((resolve, reject) => { request.onsuccess = () => resolve(request.result); request.onerror = () => reject(request.error); });
const report = (value) => console.log('REPORT ' + JSON.stringify(value));
const fail = (error) => console.error(String(error && error.stack || error));
`;

/** Opens "notes" (v1: store "notes" with an index on `tag`, auto-incremented keys); writes when asked, then reads everything back. */
const NOTES = `${HELPERS}
const open = () => new Promise((resolve, reject) => {
  const request = indexedDB.open('notes', 1);
  request.onupgradeneeded = (event) => {
    const store = request.result.createObjectStore('notes', { keyPath: 'id', autoIncrement: true });
    store.createIndex('by-tag', 'tag');
  };
  request.onsuccess = () => resolve(request.result);
  request.onerror = () => reject(request.error);
});
const WRITE = self.WRITE;
(async () => {
  const db = await open();
  if (WRITE) {
    const tx = db.transaction('notes', 'readwrite');
    const store = tx.objectStore('notes');
    store.add({ tag: 'a', when: new Date(5), seen: new Map([['x', 1]]), bytes: new Uint8Array([1, 2, 3]) });
    store.add({ tag: 'b', text: 'second' });
    store.add({ tag: 'a', text: 'third' });
    await new Promise((resolve) => (tx.oncomplete = resolve));
    // The last key given goes away: the generator still goes on past it.
    await done(db.transaction('notes', 'readwrite').objectStore('notes').delete(3));
  }
  const store = db.transaction('notes', 'readonly').objectStore('notes');
  const all = await done(store.getAll());
  const first = all[0];
  const tagged = await done(store.index('by-tag').getAllKeys('a'));
  const added = await done(db.transaction('notes', 'readwrite').objectStore('notes').add({ tag: 'c' }));
  report({
    ids: all.map((note) => note.id),
    tagged,
    added,
    first: { when: first.when instanceof Date && first.when.getTime(), seen: first.seen instanceof Map && [...first.seen], bytes: first.bytes instanceof Uint8Array && [...first.bytes] },
    ownRealm: Object.getPrototypeOf(first) === Object.prototype && first instanceof Object,
    names: (await indexedDB.databases()).map((database) => database.name + '@' + database.version),
  });
})().catch(fail);
`;

describe("an extension's IndexedDB", () => {
  it('keeps its databases across a restart of wrtui, in <state-dir>/extensions/<id>/indexeddb.v8 (0600): records, indexes and the key generator', async () => {
    const folder = await extension('Notes', `self.WRITE = !self.localStorage.getItem('wrote'); self.localStorage.setItem('wrote', '1');\n${NOTES}`);
    const first = await start([folder]);
    expect(await first.reports('Notes')).toEqual({
      ids: [1, 2],
      tagged: [1],
      added: 4,
      first: { when: 5, seen: [['x', 1]], bytes: [1, 2, 3] },
      ownRealm: true,
      names: ['notes@1'],
    });
    const extensionId = first.host.rules()[0]!.extensionId!;
    const file = path.join(stateDir, 'extensions', extensionId, INDEXED_DB_FILE);
    // Written once the last transaction (the add of 4) committed.
    await until(async () => ((v8.deserialize(await readFile(file)) as { databases: { stores: { records: unknown[] }[] }[] }).databases[0]!.stores[0]!.records.length === 3 ? true : undefined));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await first.host.close();

    const second = await start([folder]);
    // Read back after the restart: 1, 2 and 4 are there, the index finds 1, and the next key is 5 (not 3, nor 4 again).
    expect(await second.reports('Notes')).toEqual({
      ids: [1, 2, 4],
      tagged: [1],
      added: 5,
      first: { when: 5, seen: [['x', 1]], bytes: [1, 2, 3] },
      ownRealm: true,
      names: ['notes@1'],
    });
  });

  it('saves what the last transactions wrote when wrtui quits, though the next snapshot was not due yet', async () => {
    // A first write is saved at once; the second, right after, waits for the interval (200 ms), which wrtui does not wait out when it quits.
    const folder = await extension('Quitting', `${HELPERS}
const request = indexedDB.open('q', 1);
request.onupgradeneeded = () => request.result.createObjectStore('s');
done(request).then(async (db) => {
  const before = await done(db.transaction('s').objectStore('s').getAllKeys());
  if (before.length > 0) return report(before);
  await done(db.transaction('s', 'readwrite').objectStore('s').put(1, 'first'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await done(db.transaction('s', 'readwrite').objectStore('s').put(2, 'second'));
  report('written');
}).catch(fail);`);
    const first = await start([folder]);
    expect(await first.reports('Quitting')).toBe('written');
    await first.host.close();
    const second = await start([folder]);
    expect(await second.reports('Quitting')).toEqual(['first', 'second']);
  });

  it("is each extension's own: two extensions with a database of the same name do not see each other's records", async () => {
    const source = (mine: string) => `${HELPERS}
const request = indexedDB.open('shared', 1);
request.onupgradeneeded = () => request.result.createObjectStore('items');
done(request).then(async (db) => {
  await done(db.transaction('items', 'readwrite').objectStore('items').put('${mine}', '${mine}'));
  report(await done(db.transaction('items').objectStore('items').getAllKeys()));
}).catch(fail);`;
    const one = await extension('One', source('one'));
    const two = await extension('Two', source('two'));
    const { reports } = await start([one, two]);
    expect(await reports('One')).toEqual(['one']);
    expect(await reports('Two')).toEqual(['two']);
  });

  it('clones what it stores as a browser does: a class instance comes back a plain object, cycles stay cycles, a function is a DataCloneError', async () => {
    const folder = await extension('Clones', `${HELPERS}
const request = indexedDB.open('c', 1);
request.onupgradeneeded = () => request.result.createObjectStore('s');
done(request).then(async (db) => {
  class Point { constructor() { this.x = 1; } get twice() { return 2; } }
  const cyclic = { name: 'loop' };
  cyclic.self = cyclic;
  const store = db.transaction('s', 'readwrite').objectStore('s');
  let refused;
  try { store.put({ f() {} }, 'f'); } catch (error) { refused = error.name; }
  store.put(new Point(), 'point');
  store.put(cyclic, 'cyclic');
  const point = await done(store.get('point'));
  const loop = await done(store.get('cyclic'));
  report({ refused, point: [Object.getPrototypeOf(point) === Object.prototype, point.x, 'twice' in point], cyclic: loop.self === loop });
}).catch(fail);`);
    const { reports } = await start([folder]);
    expect(await reports('Clones')).toEqual({ refused: 'DataCloneError', point: [true, 1, false], cyclic: true });
  });

  it('keeps a record holding a Blob while the extension runs, not on disk, and says so once', async () => {
    const folder = await extension('Blobs', `${HELPERS}
const request = indexedDB.open('b', 1);
request.onupgradeneeded = () => request.result.createObjectStore('s');
done(request).then(async (db) => {
  const before = await done(db.transaction('s').objectStore('s').getAllKeys());
  if (before.length > 0) return report(before);
  const store = db.transaction('s', 'readwrite').objectStore('s');
  store.put({ picture: new Blob(['abc'], { type: 'text/plain' }) }, 'blob');
  store.put('text', 'plain');
  const back = await done(store.get('blob'));
  report([back.picture instanceof Blob, back.picture.size, back.picture.type, await back.picture.text()]);
}).catch(fail);`);
    const first = await start([folder]);
    expect(await first.reports('Blobs')).toEqual([true, 3, 'text/plain', 'abc']);
    await first.host.close();
    expect(first.entries.filter((e) => e.kind === 'log' && e.level === 'warn').map((e) => (e as { message: string }).message)).toEqual([
      'IndexedDB: 1 record holding a Blob or File is kept while the extension runs, not on disk (wrtui does not write Blobs)',
    ]);
    const second = await start([folder]);
    expect(await second.reports('Blobs')).toEqual(['plain']);
  });

  it('a file it cannot read is set aside, never overwritten, and the extension starts with no databases', async () => {
    const folder = await extension('Broken', `${HELPERS}
indexedDB.databases().then((list) => {
  const request = indexedDB.open('fresh', 1);
  request.onupgradeneeded = () => request.result.createObjectStore('s');
  return done(request).then(async (db) => {
    await done(db.transaction('s', 'readwrite').objectStore('s').put(1, 'k'));
    report(list.length);
  });
}).catch(fail);`);
    // The extension's id is the digest of its folder: learn it from a first run with no file.
    const probe = await start([folder]);
    await probe.reports('Broken');
    const extensionId = probe.host.rules()[0]!.extensionId!;
    await probe.host.close();
    const dir = path.join(stateDir, 'extensions', extensionId);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, INDEXED_DB_FILE), 'not a snapshot');

    const { reports } = await start([folder]);
    expect(await reports('Broken')).toBe(0);
    const aside = await until(async () => (await readdir(dir)).find((name) => name.startsWith(`${INDEXED_DB_FILE}.corrupt-`)));
    expect(await readFile(path.join(dir, aside), 'utf8')).toBe('not a snapshot');
  });
});
