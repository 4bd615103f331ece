// One rule's or extension's realm inside a worker thread (its Node side): a vm context holding a
// browser's globals (no process, require, Buffer or node: imports), wrtui's bindings run in it,
// then the background; and what it needs of the thread: its own outbox to the host, its own
// timers (ended with it), its own fetches and dedicated Workers. A thread holds one realm (an
// extension, a rule with `ownWorker`) or several (rule files sharing a worker: worker-main.ts);
// realms never share a global, a module or a prototype of their own.
import { readlinkSync } from 'node:fs';
import { SourceMap, createRequire, isBuiltin, type SourceMapPayload } from 'node:module';
import { formatWithOptions } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { workerData } from 'node:worker_threads';
import type { HostItem, WorkerBoot, WorkerItem } from '../protocol.js';
import { INSTALL_GLOBAL, type BindingsHandle, type Bridge, type InstallBindings } from './bridge.js';
import type { CanvasKit } from './canvas-kit.js';
import { captureGlobals, withCapturedGlobals } from './captured-globals.js';
import { DedicatedWorkerThreads, type WorkerScript } from './dedicated-worker-threads.js';
import { FetchRelay } from './fetch-relay.js';
import { OwnFiles } from './own-files.js';
import { makeExtensionFetch } from './extension-fetch.js';
import type { HostReply } from './host-calls.js';
import { indexedDbBridge } from './indexed-db-node.js';
import { NetworkFetch, type FetchScope } from './network-fetch.js';
import { firstUserFrame } from './stack-frames.js';
import { webGlobalsSandbox } from './web-globals.js';
import { ownThreadId } from '../thread-clock.js';
import { tellThreadId, tookUp } from '../worker-progress.js';

// The bindings script and the global names it uses, and the script a dedicated Worker's thread
// runs, inlined by the build (see worker-script.ts).
declare const WRTUI_BINDINGS_SOURCE: string;
declare const WRTUI_BINDINGS_GLOBALS: string[];
declare const WRTUI_WORKER_THREAD_SOURCE: string;

// Built-in modules only (packages are bundled into the rule): any base path will do.
const nodeRequire = createRequire(`${process.cwd()}/`);
const NODE_GLOBALS = ['process', 'Buffer', 'global', 'setImmediate', 'clearImmediate', 'require'] as const;
const nodeRefusal = (what: string) =>
  new Error(`this rule uses Node's ${what}: add \`node: true\` to its manifest to give it Node's APIs (a rule sees a browser's globals otherwise)`);

/** What the thread gives a realm: how its batches reach the host, and how it says it runs now. */
export interface RealmThread {
  /** This realm has items for the host: the thread takes them (`take`) with every other realm's, in one message at the end of this turn. */
  due(take: () => WorkerItem[]): void;
  /** Marks this realm as the one running (the host's watchdog blames a stall on it). */
  enter(): void;
}

export class ExtensionRealm {
  readonly boot: WorkerBoot;
  readonly #thread: RealmThread;
  readonly #progress: Int32Array | undefined;
  #outbox: WorkerItem[] = [];
  #due = false;
  #disposed = false;
  readonly #files: OwnFiles;
  /** Where the extension's fetch runs, as the browser names it in a TypeError fetch throws. */
  readonly #fetchScope: FetchScope;
  readonly #network: NetworkFetch;
  readonly #relay: FetchRelay;
  readonly #threads: DedicatedWorkerThreads;
  readonly #context: vm.Context;
  readonly #bindings: BindingsHandle;
  readonly #maps = new Map<string, SourceMap>();
  readonly #userFiles = new Set<string>();
  /** Its timers: a realm that goes leaves none behind in a thread that stays. */
  readonly #timers = new Set<NodeJS.Timeout>();
  #hostCall: ((method: string, args: unknown[]) => Promise<HostReply>) | undefined;
  /** A rule's `node: true`, once its module ran. */
  #nodeAllowed: boolean | undefined;

  constructor(boot: WorkerBoot, thread: RealmThread, progress: Int32Array | undefined) {
    this.boot = boot;
    this.#thread = thread;
    this.#progress = progress;
    if (progress) tellThreadId(progress, ownThreadId(readlinkSync));
    this.#files = new OwnFiles(boot.rootDir, boot.baseUrl);
    const isPage = boot.kind === 'extension' && (boot.page !== undefined || boot.pageHtml !== undefined);
    // Firefox runs an add-on's background scripts in a page (a Window) in both manifest versions.
    this.#fetchScope = boot.persona === 'firefox' ? { browser: 'firefox', scope: 'Window' } : { browser: 'chrome', scope: isPage ? 'Window' : 'WorkerGlobalScope' };
    const inFirefox = () => this.#fetchScope.browser === 'firefox';
    const post = (item: WorkerItem) => this.post(item);
    this.#network = new NetworkFetch(post, () => this.#fetchScope);
    const files = this.#files;
    const sandbox = webGlobalsSandbox({
      fetch: makeExtensionFetch({
        network: this.#network,
        here: () => (this.#context as { location?: { href?: string } }).location?.href,
        origin: () => files.origin,
        folder: () => files.folder,
        inFirefox,
      }),
      origin: () => files.origin,
      inFirefox,
    });
    const context = (this.#context = vm.createContext(sandbox, { name: `wrtui ${boot.kind}` }));
    {
      // The bindings find the globals they use as the realm has them now, before any extension code.
      const realmGlobal = vm.runInContext('globalThis', context) as object;
      const captured = captureGlobals(realmGlobal, WRTUI_BINDINGS_GLOBALS);
      (vm.runInContext(withCapturedGlobals(WRTUI_BINDINGS_SOURCE, captured.params), context, { filename: 'wrtui:bindings', lineOffset: -1 }) as (captured: unknown) => void).call(realmGlobal, captured);
    }
    const install = (context as Record<string, unknown>)[INSTALL_GLOBAL] as InstallBindings;
    delete (context as Record<string, unknown>)[INSTALL_GLOBAL];

    this.#relay = new FetchRelay((item) => post(item as WorkerItem));
    this.#threads = new DedicatedWorkerThreads({
      source: WRTUI_WORKER_THREAD_SOURCE,
      files: () => files,
      browser: () => this.#fetchScope.browser,
      post: (item) => post(item as WorkerItem),
      relay: this.#relay,
      bundle: async (file) => {
        if (!this.#hostCall) throw new Error('the host cannot bundle it');
        const reply = await this.#hostCall('worker.bundle', [file]);
        if (!reply.ok) throw new Error(reply.error);
        return reply.value as WorkerScript;
      },
    });
    const runScript = (code: string, file: string, map?: unknown) => this.#runScript(code, file, map);
    const bridge: Bridge = {
      post,
      format: (args) => formatWithOptions({ colors: false, depth: 6 }, ...args),
      locate: (error) => this.locate(error),
      runScript,
      readFile: (file) => files.read(file),
      runRuleBundle: (code, file, map) => this.#runRuleBundle(code, file, map),
      platform: chromePlatform(),
      setNodeAllowed: (allowed) => {
        this.#nodeAllowed = allowed;
      },
      setTimer: (callback, ms, repeat) => this.#setTimer(callback, ms, repeat),
      clearTimer: (handle) => {
        clearTimeout(handle as NodeJS.Timeout);
        this.#timers.delete(handle as NodeJS.Timeout);
      },
      workers: this.#threads.api(context),
      useHostCalls: (call) => {
        this.#hostCall = call;
      },
      canvas: () => (canvasKit ??= loadCanvasKit()),
      indexedDb: indexedDbBridge(runScript, context as Record<string, unknown>, () => boot.indexedDb),
    };
    this.#bindings = install(bridge, boot);
  }

  /** Runs the background: the scripts, or the rule's module and its default export. */
  start(): void {
    this.#thread.enter();
    this.#bindings.start();
  }

  /** Queues an item for the host; one message per turn of the thread's event loop. */
  post(item: WorkerItem): void {
    if (this.#disposed) return;
    this.#outbox.push(item);
    if (!this.#due) {
      this.#due = true;
      this.#thread.due(this.#take);
    }
  }

  /** One batch from the host. */
  receive(batch: HostItem[]): void {
    if (this.#disposed) return;
    this.#thread.enter();
    for (const item of batch) {
      // Counted as each is taken up, so a listener busy for long shows where it is in the batch.
      if (this.#progress) tookUp(this.#progress);
      if (item[0] === 'ping') this.post(['pong', item[1], v8.getHeapStatistics().used_heap_size]);
      else if (this.#relay.toChild(item)) continue;
      else if (item[0] === 'fetched') this.#network.answered(item[1], item[2], item[3]);
      else if (item[0] === 'fetchBody') this.#network.bodyChunk(item[1], item[2]);
      else if (item[0] === 'fetchEnd') this.#network.bodyEnded(item[1], item[2]);
      else this.#bindings.receive([item]);
    }
  }

  /** `file:line:col` of the first stack frame of `error` in this realm's own code (source-mapped). */
  locate(error: unknown): string | undefined {
    return firstUserFrame(error, this.#userFiles, this.#maps);
  }

  /** The realm goes (a reload, an unload): its timers and dedicated Workers end, nothing of it is kept. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#threads.endAll();
    this.#outbox = [];
  }

  readonly #take = (): WorkerItem[] => {
    this.#due = false;
    const batch = this.#outbox;
    this.#outbox = [];
    return this.#disposed ? [] : batch;
  };

  #setTimer(callback: () => void, ms: number, repeat: boolean): NodeJS.Timeout {
    if (this.#disposed) return setTimeout(() => {}, 0);
    const run = () => {
      if (!repeat) this.#timers.delete(handle);
      this.#thread.enter();
      callback();
    };
    const handle = repeat ? setInterval(run, ms) : setTimeout(run, ms);
    this.#timers.add(handle);
    return handle;
  }

  /** Runs a classic script in the realm; wrtui's own scripts (a page's DOM) are never where the user's mistake is. */
  #runScript(code: string, file: string, map?: unknown): unknown {
    if (!file.startsWith('wrtui:')) this.#userFiles.add(file);
    if (map) this.#maps.set(file, new SourceMap(map as SourceMapPayload));
    return new vm.Script(code, { filename: file }).runInContext(this.#context);
  }

  // A rule that declares `node: true` gets Node's globals and built-in modules; others get nothing
  // of Node's, but a module they merely import is refused only when touched (so the error can say
  // what to do), and the decision is the rule's own manifest's.
  #runRuleBundle(code: string, file: string, map: unknown): Record<string, unknown> {
    const context = this.#context;
    this.#userFiles.add(file);
    if (map) this.#maps.set(file, new SourceMap(map as SourceMapPayload));
    // The CommonJS wrapper opens on its own line, so the bundle's lines keep their numbers.
    const wrapper = new vm.Script(`(function (exports, require, module, __filename, __dirname) {\n${code}\n})`, { filename: file, lineOffset: -1 });
    const module = { exports: {} as Record<string, unknown> };
    const gate = (id: string): unknown => {
      if (!isBuiltin(id)) throw new Error(`Cannot find module '${id}': packages are bundled into the rule; this one could not be`);
      const real = nodeRequire(id) as object;
      const open = () => this.#nodeAllowed ?? (module.exports.manifest as { node?: unknown } | undefined)?.node === true;
      const refuse = (): never => {
        throw nodeRefusal(`"${id}"`);
      };
      // Every way to reach the module's values is refused until the rule is allowed Node: a read,
      // a descriptor (its value), a call or `new`. Names alone are given, as a bundle's import
      // helpers list them at load, before the manifest that decides is known.
      return new Proxy(real, {
        get: (target, property) => (open() ? Reflect.get(target, property) : refuse()),
        getOwnPropertyDescriptor(target, property) {
          const descriptor = Reflect.getOwnPropertyDescriptor(target, property);
          if (open() || !descriptor) return descriptor;
          // A proxy must report a fixed property as it is: fine for a constant (fs.F_OK), not for code.
          if (!descriptor.configurable) return 'value' in descriptor && typeof descriptor.value !== 'function' ? descriptor : refuse();
          return { configurable: true, enumerable: descriptor.enumerable ?? false, get: refuse };
        },
        apply: (target, self, args) => (open() ? Reflect.apply(target as (...args: unknown[]) => unknown, self, args) : refuse()),
        construct: (target, args, newTarget) => (open() ? Reflect.construct(target as new (...args: unknown[]) => object, args, newTarget) : refuse()),
        set: (target, property, value) => (open() ? Reflect.set(target, property, value) : refuse()),
        defineProperty: (target, property, descriptor) => (open() ? Reflect.defineProperty(target, property, descriptor) : refuse()),
      });
    };
    for (const name of NODE_GLOBALS) {
      Object.defineProperty(context, name, {
        configurable: true,
        get: () => (this.#nodeAllowed ? (name === 'require' ? gate : name === 'global' ? context : (globalThis as Record<string, unknown>)[name]) : undefined),
      });
    }
    (wrapper.runInContext(context) as (...args: unknown[]) => void).call(module.exports, module.exports, gate, module, file, file.replace(/\/[^/]*$/, ''));
    return module.exports;
  }
}

/** The thread's one copy of the canvas library (its classes are Node's realm's, as the other Web globals given to realms are). */
let canvasKit: CanvasKit | undefined;

/** Skia's 2D canvas (@napi-rs/canvas), where the host found it (canvas-module.ts). */
function loadCanvasKit(): CanvasKit {
  const where = (workerData as { canvasModule?: string | null } | undefined)?.canvasModule;
  if (!where) throw new Error('wrtui has no 2D canvas here: its @napi-rs/canvas package is not installed');
  const kit = nodeRequire(where) as Omit<CanvasKit, 'CanvasRenderingContext2D'>;
  const context = kit.createCanvas(1, 1).getContext('2d') as object;
  return { createCanvas: kit.createCanvas, Path2D: kit.Path2D, ImageData: kit.ImageData, CanvasRenderingContext2D: Object.getPrototypeOf(context).constructor };
}

/** Node's platform and arch in Chrome's words (runtime.PlatformOs, PlatformArch). */
function chromePlatform(): Bridge['platform'] {
  const os = ({ darwin: 'mac', win32: 'win', linux: 'linux', openbsd: 'openbsd', freebsd: 'linux', android: 'android' } as Record<string, string>)[process.platform] ?? 'linux';
  const arch = ({ x64: 'x86-64', ia32: 'x86-32', arm: 'arm', arm64: 'arm64', mips64el: 'mips64', mipsel: 'mips' } as Record<string, string>)[process.arch] ?? process.arch;
  return { os, arch, nacl_arch: arch === 'arm64' ? 'arm' : arch };
}
