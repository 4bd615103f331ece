// chrome.storage.local and chrome.storage.session of one extension, on the proxy thread so that
// they outlive a restarted worker (as they outlive a restarted service worker in Chrome).
// local persists in `<state-dir>/extensions/<extension id>/storage.json` (lowdb over the same
// atomic, 0600 adapter as the cookie store; a burst of changes is one write); session lives in
// memory and is emptied when the extension is reloaded (as Chrome empties it on an update).
// Values are JSON data, as Chrome stores them; a change reports {oldValue, newValue} per key.
// The file is also the user's way in (an extension's options page does not run in wrtui): an edit
// of it while wrtui runs is read back (`reloadLocal`), the file's items win, and the extension's
// storage.onChanged hears what changed. wrtui's own writes are told apart by their text.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { AtomicJsonFile, CorruptJsonFileError, setAside } from '../cookies/atomic-json-file.js';

export type StorageAreaName = 'local' | 'session';
type Items = Record<string, unknown>;
export type StorageChanges = Record<string, { oldValue?: unknown; newValue?: unknown }>;

/** chrome.storage.local.QUOTA_BYTES and session's (Chrome 112+), in bytes of key + JSON value. */
export const STORAGE_QUOTA_BYTES = 10_485_760;

/** The limits of an area: local's, or sync's smaller ones (QUOTA_BYTES_PER_ITEM, MAX_ITEMS). */
export interface StorageQuota {
  bytes: number;
  bytesPerItem?: number;
  maxItems?: number;
}

/** A quota an area's change would exceed; the persona words it (surface-dialects.ts). */
export class StorageQuotaError extends Error {
  readonly kind: 'bytes' | 'bytesPerItem' | 'maxItems';
  constructor(kind: 'bytes' | 'bytesPerItem' | 'maxItems') {
    super(`${kind === 'bytes' ? 'QUOTA_BYTES' : kind === 'bytesPerItem' ? 'QUOTA_BYTES_PER_ITEM' : 'MAX_ITEMS'} quota exceeded`);
    this.name = 'StorageQuotaError';
    this.kind = kind;
  }
}

/** chrome.storage.sync's quotas (Chrome and Firefox): 100 KiB, 8 KiB an item, 512 items. */
export const SYNC_QUOTA: StorageQuota = { bytes: 102_400, bytesPerItem: 8_192, maxItems: 512 };
const WRITE_DELAY_MS = 50;

export class StorageAreas {
  readonly #local: Low<Items> | undefined;
  #localItems: Items;
  #session: Items = {};
  #writeTimer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly #onProblem: (message: string) => void;
  /** The texts of wrtui's latest writes of the file: seeing one of them again is no edit. */
  readonly #ownTexts: string[] = [];
  /** storage.local's file (undefined without a state dir). */
  readonly file: string | undefined;
  readonly #quota: StorageQuota;

  private constructor(local: Low<Items> | undefined, items: Items, onProblem: (message: string) => void, file: string | undefined, quota: StorageQuota) {
    this.#local = local;
    this.#localItems = items;
    this.#onProblem = onProblem;
    this.file = file;
    this.#quota = quota;
    if (local) this.#ownTexts.push(fileText(items));
  }

  /** How many items each area holds. */
  get counts(): { local: number; session: number } {
    return { local: Object.keys(this.#localItems).length, session: Object.keys(this.#session).length };
  }

  /**
   * Reads the file again after someone edited it: its items replace local's (a change of
   * wrtui's own still waiting to be written is dropped: the file is what the user sees). Returns
   * what changed; undefined when the file is wrtui's own latest write, gone, or not valid JSON
   * (said through onProblem; the items stay as they were).
   */
  async reloadLocal(): Promise<StorageChanges | undefined> {
    if (!this.#local || !this.file) return undefined;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return undefined;
    }
    if (this.#ownTexts.includes(text)) return undefined;
    let items: unknown;
    try {
      items = JSON.parse(text);
    } catch (error) {
      this.#onProblem(`${this.file} is not valid JSON (${(error as Error).message}); storage.local keeps its items until the file is fixed`);
      return undefined;
    }
    if (typeof items !== 'object' || items === null || Array.isArray(items)) {
      this.#onProblem(`${this.file} does not hold an object of items; storage.local keeps its items until the file is fixed`);
      return undefined;
    }
    clearTimeout(this.#writeTimer);
    this.#writeTimer = undefined;
    const before = this.#localItems;
    const after = items as Items;
    const changes: StorageChanges = {};
    for (const [key, value] of Object.entries(after)) {
      if (!(key in before)) changes[key] = { newValue: value };
      else if (JSON.stringify(before[key]) !== JSON.stringify(value)) changes[key] = { oldValue: before[key], newValue: value };
    }
    for (const key of Object.keys(before)) if (!(key in after)) changes[key] = { oldValue: before[key] };
    this.#localItems = after;
    this.#local.data = after;
    this.#ownTexts.push(text);
    if (this.#ownTexts.length > 4) this.#ownTexts.shift();
    return changes;
  }

  /**
   * Opens the areas of `extensionId`; without a state dir, local lives in memory too. `options`:
   * another file and quota for the persisted area (storage.sync, which wrtui keeps on this machine,
   * as Chrome does for a browser that is not signed in).
   */
  static async open(stateDir: string | undefined, extensionId: string, onProblem: (message: string) => void, options: { fileName?: string; quota?: StorageQuota } = {}): Promise<StorageAreas> {
    const quota = options.quota ?? { bytes: STORAGE_QUOTA_BYTES };
    if (!stateDir) return new StorageAreas(undefined, {}, onProblem, undefined, quota);
    const file = path.join(path.dirname(storageFileOf(stateDir, extensionId)), options.fileName ?? 'storage.json');
    const db = new Low<Items>(new AtomicJsonFile<Items>(file), {});
    try {
      await db.read();
    } catch (error) {
      if (!(error instanceof CorruptJsonFileError)) throw error;
      // Never overwrite what the user may want back: set it aside and start empty.
      const aside = await setAside(file);
      onProblem(`${file} could not be read (${error.message}); it was kept as ${aside} and storage.local starts empty`);
      db.data = {};
    }
    if (!db.data || typeof db.data !== 'object' || Array.isArray(db.data)) {
      const aside = await setAside(file);
      onProblem(`${file} did not hold an object of items; it was kept as ${aside} and storage.local starts empty`);
      db.data = {};
    }
    return new StorageAreas(db, db.data, onProblem, file, quota);
  }

  /** storage.<area>.<method>(...args): what the call answers (for set/remove/clear: the changes). */
  handle(method: string, area: StorageAreaName, args: unknown[]): unknown {
    const items = area === 'local' ? this.#localItems : this.#session;
    switch (method) {
      case 'get':
        return pick(items, args[0]);
      case 'getBytesInUse':
        return bytesInUse(items, args[0] === undefined || args[0] === null ? Object.keys(items) : keyList(args[0]));
      case 'set':
        return { changes: this.#set(area, items, args[0]) };
      case 'remove':
        return { changes: this.#remove(area, items, keyList(args[0])) };
      case 'clear':
        return { changes: this.#remove(area, items, Object.keys(items)) };
      default:
        throw new Error(`storage.${area}.${method} is not supported`);
    }
  }

  /** The extension was reloaded: session storage starts over. */
  clearSession(): void {
    this.#session = {};
  }

  /** Writes a pending change of local now. */
  async flush(): Promise<void> {
    if (this.#writeTimer) {
      clearTimeout(this.#writeTimer);
      this.#writeTimer = undefined;
      this.#write();
    }
    await this.#writing;
  }

  #set(area: StorageAreaName, items: Items, input: unknown): StorageChanges {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new TypeError('storage.set needs an object of items');
    const incoming: Items = {};
    for (const [key, value] of Object.entries(input)) {
      if (value === undefined) continue;
      incoming[key] = JSON.parse(JSON.stringify(value) ?? 'null');
    }
    const after = { ...items, ...incoming };
    const quota = area === 'session' ? { bytes: STORAGE_QUOTA_BYTES } : this.#quota;
    if (quota.bytesPerItem !== undefined && Object.keys(incoming).some((key) => bytesInUse(incoming, [key]) > quota.bytesPerItem!)) throw new StorageQuotaError('bytesPerItem');
    if (quota.maxItems !== undefined && Object.keys(after).length > quota.maxItems) throw new StorageQuotaError('maxItems');
    if (bytesInUse(after, Object.keys(after)) > quota.bytes) throw new StorageQuotaError('bytes');
    const changes: StorageChanges = {};
    for (const [key, value] of Object.entries(incoming)) {
      const old = items[key];
      if (old !== undefined && JSON.stringify(old) === JSON.stringify(value)) continue;
      changes[key] = old === undefined ? { newValue: value } : { oldValue: old, newValue: value };
      items[key] = value;
    }
    if (area === 'local' && Object.keys(changes).length > 0) this.#scheduleWrite();
    return changes;
  }

  #remove(area: StorageAreaName, items: Items, keys: string[]): StorageChanges {
    const changes: StorageChanges = {};
    for (const key of keys) {
      if (!(key in items)) continue;
      changes[key] = { oldValue: items[key] };
      delete items[key];
    }
    if (area === 'local' && Object.keys(changes).length > 0) this.#scheduleWrite();
    return changes;
  }

  #scheduleWrite(): void {
    if (!this.#local || this.#writeTimer) return;
    this.#writeTimer = setTimeout(() => {
      this.#writeTimer = undefined;
      this.#write();
    }, WRITE_DELAY_MS);
    this.#writeTimer.unref();
  }

  #write(): void {
    const db = this.#local!;
    db.data = this.#localItems;
    this.#ownTexts.push(fileText(this.#localItems));
    if (this.#ownTexts.length > 4) this.#ownTexts.shift();
    this.#writing = this.#writing.then(() => db.write()).catch((error: unknown) => this.#onProblem(`writing storage.local failed: ${String(error)}`));
  }
}

/** The text AtomicJsonFile writes for `items`. */
function fileText(items: Items): string {
  return `${JSON.stringify(items, null, 2)}\n`;
}

export function storageFileOf(stateDir: string, extensionId: string): string {
  return path.join(stateDir, 'extensions', extensionId, 'storage.json');
}

/** get's keys: null (everything), a key, a list of keys, or an object of keys with default values. */
function pick(items: Items, keys: unknown): Items {
  if (keys === undefined || keys === null) return { ...items };
  if (typeof keys === 'string' || Array.isArray(keys)) {
    const out: Items = {};
    for (const key of keyList(keys)) if (key in items) out[key] = items[key];
    return out;
  }
  if (typeof keys === 'object') {
    const out: Items = {};
    for (const [key, fallback] of Object.entries(keys)) out[key] = key in items ? items[key] : fallback;
    return out;
  }
  throw new TypeError('storage.get takes a key, a list of keys, an object of defaults, or nothing');
}

function keyList(keys: unknown): string[] {
  if (typeof keys === 'string') return [keys];
  if (Array.isArray(keys) && keys.every((key) => typeof key === 'string')) return keys as string[];
  throw new TypeError('keys must be a string or a list of strings');
}

function bytesInUse(items: Items, keys: string[]): number {
  let total = 0;
  for (const key of keys) if (key in items) total += key.length + JSON.stringify(items[key]).length;
  return total;
}
