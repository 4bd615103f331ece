// What an extension's worker may ask of the engine, answered on the proxy thread for one
// extension: cookies (through the same CookiesApi the in-process namespace uses, so host
// permissions, Chrome's checks and messages are identical), handlerBehaviorChanged under the
// extension's quota, storage.local / storage.session, alarms. The services outlive the extension's
// workers: a restarted worker finds its storage and alarms as it left them.
import { CookiesApi } from '../cookies/cookies-api.js';
import type { Engine } from '../engine.js';
import type { Owner } from '../owner.js';
import type { Cookie } from '../types.js';
import type { Alarm } from './alarm-scheduler.js';
import { AlarmScheduler } from './alarm-scheduler.js';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { STATE_DIR_MODE } from '../cookies/atomic-json-file.js';
import { FolderWatch } from './extension-folders.js';
import { SurfaceNotes } from './surface-notes.js';
import { IndexedDbFile } from './indexed-db-file.js';
import { actOnTabs, answerTabs } from './known-tabs.js';
import type { WebStorageChange } from './worker/web-storage.js';
import { StorageAreas, StorageQuotaError, SYNC_QUOTA, type StorageAreaName, type StorageChanges } from './storage-areas.js';

export class ExtensionServices {
  readonly storage: StorageAreas;
  /** storage.sync: kept on this machine, in its own file, with sync's quotas. */
  readonly syncStorage: StorageAreas;
  /** A background page's localStorage (web-storage.ts), in its own file; the worker enforces its quota. */
  readonly webStorage: StorageAreas;
  readonly alarms: AlarmScheduler;
  /** IndexedDB's databases, as the extension's worker last sent them (indexed-db-file.ts). */
  readonly indexedDb: IndexedDbFile;
  /** The requests the extension made itself through the proxy, across its workers (the rules view shows them). */
  readonly ownRequests = { made: 0, failed: 0 };
  /** What its calls to the browser's own surfaces did here: said once, across its workers (surface-notes.ts). */
  readonly surfaceNotes = new SurfaceNotes();
  /** Told of every call before it runs (replay's fast path: a call it cannot predict hands the run to the slow path). */
  callObserver: ((owner: Owner, method: string) => void) | undefined;
  readonly #engine: Engine;
  readonly #extensionId: string;
  readonly #cookieApis = new WeakMap<Owner, CookiesApi>();
  #storageWatch: FolderWatch | undefined;
  #watching = false;
  #closed = false;

  private constructor(engine: Engine, extensionId: string, storage: StorageAreas, syncStorage: StorageAreas, webStorage: StorageAreas, indexedDb: IndexedDbFile, onAlarm: (alarm: Alarm) => void) {
    this.#engine = engine;
    this.#extensionId = extensionId;
    this.storage = storage;
    this.syncStorage = syncStorage;
    this.webStorage = webStorage;
    this.indexedDb = indexedDb;
    this.alarms = new AlarmScheduler(onAlarm);
  }

  static async open(engine: Engine, options: { stateDir: string | undefined; extensionId: string; name: string; onAlarm: (alarm: Alarm) => void }): Promise<ExtensionServices> {
    const onProblem = (message: string) => engine.journal.append({ kind: 'log', level: 'warn', source: options.name, message });
    const storage = await StorageAreas.open(options.stateDir, options.extensionId, onProblem);
    const syncStorage = await StorageAreas.open(options.stateDir, options.extensionId, onProblem, { fileName: 'storage-sync.json', quota: SYNC_QUOTA });
    const webStorage = await StorageAreas.open(options.stateDir, options.extensionId, onProblem, { fileName: 'local-storage.json', quota: { bytes: Number.MAX_SAFE_INTEGER } });
    const indexedDb = new IndexedDbFile(options.stateDir, options.extensionId, onProblem);
    return new ExtensionServices(engine, options.extensionId, storage, syncStorage, webStorage, indexedDb, options.onAlarm);
  }

  /** Runs `method(args)` for `owner`; throws an Error whose message the extension sees (lastError or a rejection). */
  async call(owner: Owner, method: string, args: unknown[]): Promise<unknown> {
    this.callObserver?.(owner, method);
    const [namespace, fn] = method.split('.', 2) as [string, string];
    switch (namespace) {
      case 'cookies': {
        if (!owner.permissions.has('cookies')) throw new Error('the "cookies" permission is missing');
        const api = this.cookiesApi(owner);
        const outcome =
          fn === 'get' ? api.get(args[0] as never)
          : fn === 'getAll' ? api.getAll(args[0] as never)
          : fn === 'set' ? api.set(args[0] as never)
          : fn === 'remove' ? api.remove(args[0] as never)
          : fn === 'getAllCookieStores' ? api.getAllCookieStores()
          : undefined;
        if (!outcome) throw new Error(`cookies.${fn} is not supported`);
        if (!outcome.ok) throw new Error(outcome.error);
        return outcome.value;
      }
      case 'webRequest':
        if (!owner.permissions.has('webRequest')) throw new Error(`${method} is not supported`);
        if (fn === 'getSecurityInfo' && owner.persona.hasSecurityInfo) {
          const [requestId, options] = args as [string, { certificateChain?: boolean; rawDER?: boolean }];
          return this.#engine.lifecycle.securityInfo(owner.id, requestId, options ?? {});
        }
        if (fn !== 'handlerBehaviorChanged') throw new Error(`${method} is not supported`);
        this.#engine.handlerBehaviorChanged(owner);
        return undefined;
      case 'storage':
        if (!owner.permissions.has('storage')) throw new Error('the "storage" permission is missing');
        if (args[0] === 'sync') {
          try {
            return this.syncStorage.handle(fn, 'local', args.slice(1));
          } catch (error) {
            // In the persona's words: Chromium 156 and Firefox word a quota differently.
            throw error instanceof StorageQuotaError ? new Error(owner.persona.surfaces.syncQuotaError(error.kind)) : error;
          }
        }
        return this.storage.handle(fn, args[0] as StorageAreaName, args.slice(1));
      case 'webStorage':
        // A background page's localStorage changes, in order (the page itself has them already).
        for (const change of args[0] as WebStorageChange[]) {
          if (change[0] === 'set') this.webStorage.handle('set', 'local', [{ [change[1]]: change[2] }]);
          else if (change[0] === 'remove') this.webStorage.handle('remove', 'local', [change[1]]);
          else this.webStorage.handle('clear', 'local', []);
        }
        return undefined;
      case 'indexedDB':
        // A snapshot of its databases (bytes its worker serialised), or word that it could not read the last one.
        if (fn === 'write' && args[0] instanceof Uint8Array) return void this.indexedDb.write(args[0]);
        if (fn === 'unreadable') return this.indexedDb.unreadable(String(args[0]));
        if (fn === 'saved') return void this.indexedDb.savedByWorker();
        throw new Error(`${method} is not supported`);
      case 'tabs':
        if (fn === 'create' || fn === 'update' || fn === 'remove' || fn === 'reload') return actOnTabs(this.#engine.lifecycle.tabControl, this.#engine.lifecycle.documents, owner, owner.persona.surfaces, fn, args);
        return answerTabs(this.#engine.lifecycle.documents, owner, owner.persona.surfaces, fn, args);
      case 'alarms':
        if (!owner.permissions.has('alarms')) throw new Error('the "alarms" permission is missing');
        return this.alarms.handle(fn, args);
      case 'declarativeNetRequest':
        if (!owner.permissions.has('declarativeNetRequest') && !owner.permissions.has('declarativeNetRequestWithHostAccess')) throw new Error('the "declarativeNetRequest" permission is missing');
        if (fn === 'getMatchedRules' && !owner.permissions.has('declarativeNetRequestFeedback')) throw new Error('The extension must have the declarativeNetRequestFeedback permission to call getMatchedRules.');
        return this.#engine.dnr.call(this.#extensionId, fn, args);
      default:
        throw new Error(`${method} is not supported`);
    }
  }

  /** The cookies API as `owner` sees it (one per owner: it keeps Chrome's access order). */
  cookiesApi(owner: Owner): CookiesApi {
    let api = this.#cookieApis.get(owner);
    if (!api) {
      api = new CookiesApi(this.#engine.cookies, owner, {
        onSetRefused: (_details, reason) => this.#engine.journal.append({ kind: 'log', level: 'info', source: owner.id, message: `cookies.set refused: ${reason}` }),
      });
      this.#cookieApis.set(owner, api);
    }
    return api;
  }

  mayAccess(owner: Owner, cookie: Cookie): boolean {
    return this.cookiesApi(owner).mayAccess(cookie);
  }

  /** The extension was reloaded (an update, in Chrome's terms): session storage and alarms start over. */
  reloaded(): void {
    this.storage.clearSession();
    this.alarms.clearAll();
  }

  /**
   * Watches storage.local's file for the user's edits (how an extension is configured without its
   * options page): `onEdited` gets what changed, once the file holds valid JSON.
   */
  async watchStorage(options: { debounceMs?: number; onEdited: (changes: StorageChanges) => void; onError: (message: string) => void }): Promise<void> {
    const file = this.storage.file;
    if (!file || this.#watching || this.#closed) return;
    this.#watching = true;
    await mkdir(path.dirname(file), { recursive: true, mode: STATE_DIR_MODE });
    const watch = await FolderWatch.start(path.dirname(file), {
      ...(options.debounceMs !== undefined && { debounceMs: options.debounceMs }),
      onChange: (changed) => {
        if (path.resolve(changed) !== path.resolve(file)) return;
        void this.storage.reloadLocal().then((changes) => {
          if (changes && Object.keys(changes).length > 0) options.onEdited(changes);
        });
      },
      onError: (error) => options.onError(`watching ${file}: ${error.message}`),
      onAppeared: () => {},
    });
    // Closed while the watcher started: it must not outlive the services (it would keep wrtui running).
    if (this.#closed) await watch.close();
    else this.#storageWatch = watch;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.surfaceNotes.flush();
    await this.#storageWatch?.close();
    this.alarms.clearAll();
    await this.storage.flush();
    await this.syncStorage.flush();
    await this.webStorage.flush();
    await this.indexedDb.flush();
  }
}
