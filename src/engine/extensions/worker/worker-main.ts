// The entry point of one extension's worker thread (its Node side). It makes the extension's realm
// (a vm context holding a browser's globals: no process, require, Buffer or node: imports), runs
// the bindings script in it, then the extension's background, and carries batches of items between
// the host and the bindings. Pings are answered here, and every item taken up is counted in memory
// the host reads (worker-progress.ts), with this thread's id for the host to read its own time:
// the host's watchdog judges the worker by what it does, not by how late its answers arrive.
import { readlinkSync } from 'node:fs';
import { SourceMap, createRequire, isBuiltin, type SourceMapPayload } from 'node:module';
import { formatWithOptions } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { HostItem, WorkerBoot, WorkerItem } from '../protocol.js';
import { INSTALL_GLOBAL, type BindingsHandle, type Bridge, type InstallBindings } from './bridge.js';
import type { CanvasKit } from './canvas-kit.js';
import { captureGlobals, withCapturedGlobals } from './captured-globals.js';
import { lockDownHostRealm } from './host-realm-lockdown.js';
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

const port = parentPort!;
/** The extension's files, folder and origin (chrome-extension://id), once the worker knows its extension. */
let files: OwnFiles | undefined;
/** Where the extension's fetch runs, as the browser names it in a TypeError fetch throws; Firefox's fetch also answers a missing file of its own differently (below). */
let fetchScope: FetchScope = { browser: 'chrome', scope: 'WorkerGlobalScope' };
const inFirefox = () => fetchScope.browser === 'firefox';

// ── outgoing: one message per turn ─────────────────────────────────────────
let outbox: WorkerItem[] = [];
let flushScheduled = false;
const flush = () => {
  flushScheduled = false;
  const batch = outbox;
  outbox = [];
  try {
    port.postMessage(batch);
  } catch (error) {
    // Something in the batch could not be cloned: send what can be, and say what could not.
    for (const item of batch) {
      try {
        port.postMessage([item]);
      } catch {
        port.postMessage([['log', 'error', `wrtui could not pass a ${String(item[0])} message to the proxy: ${String(error)}`]]);
      }
    }
  }
};
const post = (item: WorkerItem) => {
  outbox.push(item);
  if (!flushScheduled) {
    flushScheduled = true;
    // setImmediate, not a microtask: answers of Promise listeners settled in this turn join the batch.
    setImmediate(flush);
  }
};

// ── the extension's realm ──────────────────────────────────────────────────
const network = new NetworkFetch(post, () => fetchScope);
const sandbox = webGlobalsSandbox({
  fetch: makeExtensionFetch({
    network,
    here: () => (context as { location?: { href?: string } }).location?.href,
    origin: () => files?.origin,
    folder: () => files?.folder,
    inFirefox,
  }),
  origin: () => files?.origin,
  inFirefox,
});

// The realm and wrtui's bindings in it are made before the worker knows its extension (a pooled
// worker does this while it waits): nothing here depends on which extension it will run.
// Nothing of this realm may be handed to the extension's before it is locked down.
lockDownHostRealm();
const context = vm.createContext(sandbox, { name: 'wrtui extension' });
{
  // The bindings find the globals they use as the realm has them now, before any extension code.
  const realmGlobal = vm.runInContext('globalThis', context) as object;
  const captured = captureGlobals(realmGlobal, WRTUI_BINDINGS_GLOBALS);
  (vm.runInContext(withCapturedGlobals(WRTUI_BINDINGS_SOURCE, captured.params), context, { filename: 'wrtui:bindings', lineOffset: -1 }) as (captured: unknown) => void).call(realmGlobal, captured);
}
const install = (context as Record<string, unknown>)[INSTALL_GLOBAL] as InstallBindings;
delete (context as Record<string, unknown>)[INSTALL_GLOBAL];
// Built-in modules only (packages are bundled into the rule): any base path will do.
const nodeRequire = createRequire(`${process.cwd()}/`);

// A rule that declares `node: true` gets Node's globals and built-in modules; others get nothing
// of Node's, but a module they merely import is refused only when touched (so the error can say
// what to do), and the decision is the rule's own manifest's.
let nodeAllowed: boolean | undefined;
const NODE_GLOBALS = ['process', 'Buffer', 'global', 'setImmediate', 'clearImmediate', 'require'] as const;
const nodeRefusal = (what: string) =>
  new Error(`this rule uses Node's ${what}: add \`node: true\` to its manifest to give it Node's APIs (a rule sees a browser's globals otherwise)`);

// ── the extension's files ──────────────────────────────────────────────────

/** A file of the extension's own (importScripts, its background scripts), never one outside its folder (own-files.ts). */
function readOwnFile(file: string): string {
  if (!files) throw new Error(`${file}: the worker does not know its extension yet`);
  return files.read(file);
}

// ── source maps: locations in the files the user wrote ─────────────────────
const maps = new Map<string, SourceMap>();
const userFiles = new Set<string>();
const locate = (error: unknown): string | undefined => firstUserFrame(error, userFiles, maps);

/** Runs a classic script in `realm` (the extension's, or a dedicated Worker's). */
function runScriptIn(realm: vm.Context, code: string, file: string, map?: unknown): unknown {
  // wrtui's own scripts (a page's DOM) are never where the user's mistake is.
  if (!file.startsWith('wrtui:')) userFiles.add(file);
  if (map) maps.set(file, new SourceMap(map as SourceMapPayload));
  return new vm.Script(code, { filename: file }).runInContext(realm);
}
const runScript = (code: string, file: string, map?: unknown) => runScriptIn(context, code, file, map);

// ── dedicated Workers: threads of their own (dedicated-worker-threads.ts) ──
let hostCall: ((method: string, args: unknown[]) => Promise<HostReply>) | undefined;
/** Its Workers' requests to the network go to the host as if they were its own (under ids of their own). */
const relay = new FetchRelay((item) => post(item as WorkerItem));
const threads = new DedicatedWorkerThreads({
  source: WRTUI_WORKER_THREAD_SOURCE,
  files: () => files ?? new OwnFiles('.', 'chrome-extension://wrtui-unbooted'),
  browser: () => fetchScope.browser,
  post: (item) => post(item as WorkerItem),
  relay,
  bundle: async (file) => {
    if (!hostCall) throw new Error('the host cannot bundle it');
    const reply = await hostCall('worker.bundle', [file]);
    if (!reply.ok) throw new Error(reply.error);
    return reply.value as WorkerScript;
  },
});

function runRuleBundle(code: string, file: string, map: unknown): Record<string, unknown> {
  userFiles.add(file);
  if (map) maps.set(file, new SourceMap(map as SourceMapPayload));
  // The CommonJS wrapper opens on its own line, so the bundle's lines keep their numbers.
  const wrapper = new vm.Script(`(function (exports, require, module, __filename, __dirname) {\n${code}\n})`, { filename: file, lineOffset: -1 });
  const module = { exports: {} as Record<string, unknown> };
  const gate = (id: string): unknown => {
    if (!isBuiltin(id)) throw new Error(`Cannot find module '${id}': packages are bundled into the rule; this one could not be`);
    const real = nodeRequire(id) as object;
    const open = () => nodeAllowed ?? (module.exports.manifest as { node?: unknown } | undefined)?.node === true;
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
      get: () => (nodeAllowed ? (name === 'require' ? gate : name === 'global' ? context : (globalThis as Record<string, unknown>)[name]) : undefined),
    });
  }
  (wrapper.runInContext(context) as (...args: unknown[]) => void).call(module.exports, module.exports, gate, module, file, file.replace(/\/[^/]*$/, ''));
  return module.exports;
}

/** Node's platform and arch in Chrome's words (runtime.PlatformOs, PlatformArch). */
function chromePlatform(): Bridge['platform'] {
  const os = ({ darwin: 'mac', win32: 'win', linux: 'linux', openbsd: 'openbsd', freebsd: 'linux', android: 'android' } as Record<string, string>)[process.platform] ?? 'linux';
  const arch = ({ x64: 'x86-64', ia32: 'x86-32', arm: 'arm', arm64: 'arm64', mips64el: 'mips64', mipsel: 'mips' } as Record<string, string>)[process.arch] ?? process.arch;
  return { os, arch, nacl_arch: arch === 'arm64' ? 'arm' : arch };
}

const bridge: Bridge = {
  post,
  format: (args) => formatWithOptions({ colors: false, depth: 6 }, ...args),
  locate,
  runScript,
  readFile: readOwnFile,
  runRuleBundle,
  platform: chromePlatform(),
  setNodeAllowed: (allowed) => {
    nodeAllowed = allowed;
  },
  setTimer: (callback, ms, repeat) => (repeat ? setInterval(callback, ms) : setTimeout(callback, ms)),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
  workers: threads.api(context),
  useHostCalls: (call) => {
    hostCall = call;
  },
  canvas: () => (canvasKit ??= loadCanvasKit()),
  indexedDb: indexedDbBridge(runScript, context as Record<string, unknown>, () => keptIndexedDb),
};

let canvasKit: CanvasKit | undefined;

/** Skia's 2D canvas (@napi-rs/canvas), where the host found it (canvas-module.ts). */
function loadCanvasKit(): CanvasKit {
  const where = (workerData as { canvasModule?: string | null } | undefined)?.canvasModule;
  if (!where) throw new Error('wrtui has no 2D canvas here: its @napi-rs/canvas package is not installed');
  const kit = nodeRequire(where) as Omit<CanvasKit, 'CanvasRenderingContext2D'>;
  const context = kit.createCanvas(1, 1).getContext('2d') as object;
  return { createCanvas: kit.createCanvas, Path2D: kit.Path2D, ImageData: kit.ImageData, CanvasRenderingContext2D: Object.getPrototypeOf(context).constructor };
}

/** The databases the host kept for IndexedDB (WorkerBoot.indexedDb). */
let keptIndexedDb: Uint8Array | undefined;

/**
 * Runs the extension this worker is for: wrtui's bindings given its boot, then its background.
 * `progress`: the counters the host's watchdog reads (worker-progress.ts).
 */
function start(boot: WorkerBoot, progress?: Int32Array): void {
  if (progress) tellThreadId(progress, ownThreadId(readlinkSync));
  files = new OwnFiles(boot.rootDir, boot.baseUrl);
  keptIndexedDb = boot.indexedDb;
  const isPage = boot.kind === 'extension' && (boot.page !== undefined || boot.pageHtml !== undefined);
  // Firefox runs an add-on's background scripts in a page (a Window) in both manifest versions.
  fetchScope = boot.persona === 'firefox' ? { browser: 'firefox', scope: 'Window' } : { browser: 'chrome', scope: isPage ? 'Window' : 'WorkerGlobalScope' };
  const bindings: BindingsHandle = install(bridge, boot);

  // A browser logs these and the worker goes on; so does wrtui, and the journal says where.
  process.on('uncaughtException', (error) => {
    const location = locate(error);
    post(['uncaught', 'exception', String((error as Error)?.stack?.split('\n')[0] ?? error), ...(location ? [location] : [])] as WorkerItem);
  });
  process.on('unhandledRejection', (reason) => {
    const location = locate(reason);
    const text = reason instanceof Error || (typeof reason === 'object' && reason !== null && 'message' in reason) ? `${(reason as Error).name ?? 'Error'}: ${(reason as Error).message}` : formatWithOptions({ colors: false }, reason);
    post(['uncaught', 'rejection', `Uncaught (in promise) ${text}`, ...(location ? [location] : [])] as WorkerItem);
  });

  port.on('message', (batch: HostItem[]) => {
    for (const item of batch) {
      // Counted as each is taken up, so a listener busy for long shows where it is in the batch.
      if (progress) tookUp(progress);
      if (item[0] === 'ping') post(['pong', item[1], v8.getHeapStatistics().used_heap_size]);
      else if (relay.toChild(item)) continue;
      else if (item[0] === 'fetched') network.answered(item[1], item[2], item[3]);
      else if (item[0] === 'fetchBody') network.bodyChunk(item[1], item[2]);
      else if (item[0] === 'fetchEnd') network.bodyEnded(item[1], item[2]);
      else bindings.receive([item]);
    }
  });

  bindings.start();
}

// A worker from a pool (worker-pool.ts) was started before anyone knew which extension it would
// run: its first message says. Either way it runs one extension, once.
const given = workerData as WorkerBoot | { waitsForBoot: true };
if ('waitsForBoot' in given) port.once('message', (first: { boot: WorkerBoot; progress?: Int32Array }) => start(first.boot, first.progress));
else start(given);
