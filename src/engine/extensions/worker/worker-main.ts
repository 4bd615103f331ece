// The entry point of one extension's worker thread (its Node side). It makes the extension's realm
// (a vm context holding a browser's globals: no process, require, Buffer or node: imports), runs
// the bindings script in it, then the extension's background, and carries batches of items between
// the host and the bindings. Pings are answered here, and every item taken up is counted in memory
// the host reads (worker-progress.ts), with this thread's id for the host to read its own time:
// the host's watchdog judges the worker by what it does, not by how late its answers arrive.
import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { SourceMap, createRequire, isBuiltin, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { formatWithOptions } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { HostItem, WorkerBoot, WorkerItem } from '../protocol.js';
import { INSTALL_GLOBAL, type BindingsHandle, type Bridge, type InstallBindings } from './bridge.js';
import { extensionRelativePath, readExtensionFile } from '../extension-files.js';
import { lockDownHostRealm } from './host-realm-lockdown.js';
import { NetworkFetch, type FetchScope } from './network-fetch.js';
import { firstUserFrame } from './stack-frames.js';
import { ownThreadId } from '../thread-clock.js';
import { tellThreadId, tookUp } from '../worker-progress.js';

// The bindings script, inlined by the build (see worker-script.ts).
declare const WRTUI_BINDINGS_SOURCE: string;

const port = parentPort!;
/** The extension's folder and origin (chrome-extension://id), once the worker knows its extension. */
let ownFolder: string | undefined;
let ownOrigin: string | undefined;
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
// Web platform globals Node's workers have, as a browser's worker scope has them.
const WEB_GLOBALS = [
  'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'atob', 'btoa', 'fetch', 'Request', 'Response', 'Headers', 'FormData',
  'AbortController', 'AbortSignal', 'Event', 'EventTarget', 'MessageChannel', 'MessagePort', 'MessageEvent', 'BroadcastChannel', 'Blob', 'File',
  'DOMException', 'structuredClone', 'crypto', 'Crypto', 'CryptoKey', 'SubtleCrypto', 'performance', 'queueMicrotask', 'ReadableStream', 'WritableStream',
  'TransformStream', 'TextEncoderStream', 'TextDecoderStream', 'CompressionStream', 'DecompressionStream', 'WebAssembly',
] as const;
/** The Web globals whose Node versions an extension must not get as they are: its own instead (below). */
const OWN_GLOBALS: Partial<Record<(typeof WEB_GLOBALS)[number], () => unknown>> = {
  BroadcastChannel: () => originBroadcastChannel(),
  fetch: () => extensionFetch,
  AbortController: () => browserAbortController(),
  AbortSignal: () => browserAbortSignal(),
};
/**
 * The AbortError an abort() without a reason gives, in the persona's browser's words (Chromium 156:
 * "signal is aborted without reason"; Firefox ESR 153.7: "The operation was aborted. "; Node: "This
 * operation was aborted"), compared in the extension-network and firefox-network tests.
 */
const defaultAbortReason = () => new DOMException(inFirefox() ? 'The operation was aborted. ' : 'signal is aborted without reason', 'AbortError');
function browserAbortController(): typeof AbortController {
  return class AbortController extends globalThis.AbortController {
    override abort(reason?: unknown): void {
      super.abort(reason === undefined ? defaultAbortReason() : reason);
    }
  };
}
function browserAbortSignal(): typeof AbortSignal {
  const NodeAbortSignal = globalThis.AbortSignal;
  // Not constructible, as in a browser; `instanceof` and the prototype are Node's signal's.
  const AbortSignal = function AbortSignal() {
    throw new TypeError('Illegal constructor');
  } as unknown as typeof globalThis.AbortSignal;
  Object.defineProperties(AbortSignal, {
    prototype: { value: NodeAbortSignal.prototype },
    abort: { value: (reason?: unknown) => NodeAbortSignal.abort(reason === undefined ? defaultAbortReason() : reason), writable: true, configurable: true },
    timeout: { value: (ms: number) => NodeAbortSignal.timeout(ms), writable: true, configurable: true },
    any: { value: (signals: AbortSignal[]) => NodeAbortSignal.any(signals), writable: true, configurable: true },
  });
  return AbortSignal;
}
const sandbox: Record<string, unknown> = {};
for (const name of WEB_GLOBALS) {
  // Node makes most of these on first use (fetch loads undici; CompressionStream, zlib): each is
  // taken from Node's global only when the extension first touches it, so a worker that never does
  // starts without them. Writable, as a browser's globals are (extensions do wrap fetch).
  if (!(name in globalThis)) continue;
  const settle = (value: unknown) => Object.defineProperty(sandbox, name, { value, writable: true, configurable: true, enumerable: true });
  Object.defineProperty(sandbox, name, {
    get: () => {
      const value = name in OWN_GLOBALS ? OWN_GLOBALS[name]!() : (globalThis as Record<string, unknown>)[name];
      settle(value);
      return value;
    },
    set: settle,
    configurable: true,
    enumerable: true,
  });
}
/**
 * A browser's BroadcastChannel reaches the pages of one origin; Node's reaches every thread of the
 * process, so every extension's worker. Each extension's channels are its origin's alone.
 */
function originBroadcastChannel(): typeof BroadcastChannel {
  return class extends BroadcastChannel {
    readonly #name: string;
    constructor(name: string) {
      super(`${ownOrigin ?? 'wrtui:unbooted'} ${String(name)}`);
      this.#name = String(name);
    }
    // @ts-expect-error Node's typings say a property; it is an accessor (as in browsers), and so is this.
    override get name(): string {
      return this.#name;
    }
  };
}

const network = new NetworkFetch(post, () => fetchScope);

/**
 * fetch as an extension has it: a URL relative to its page or service worker, or on its own origin,
 * is its own packaged file (`fetch('data/rules.json')`, how extensions load their data; Node's
 * fetch knows neither), and a file that is not there fails as Chrome's does. An http(s) URL goes
 * out through the proxy (network-fetch.ts). Anything else (data:, blob:) is Node's fetch.
 */
async function extensionFetch(input: unknown, init?: unknown): Promise<Response> {
  const given = typeof input === 'object' && input !== null && typeof (input as { url?: unknown }).url === 'string' ? (input as { url: string }).url : String(input);
  const here = (context as { location?: { href?: string } }).location?.href ?? (ownOrigin === undefined ? undefined : `${ownOrigin}/`);
  let url: URL | undefined;
  try {
    url = new URL(given, here);
  } catch {
    url = undefined;
  }
  const nodeFetch = () => fetch((url && typeof input === 'string' ? url.href : input) as Parameters<typeof fetch>[0], init as Parameters<typeof fetch>[1]);
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return network.fetch(url, input, init as RequestInit | undefined, nodeFetch);
  if (!url || ownOrigin === undefined || ownFolder === undefined || `${url.protocol}//${url.host}` !== ownOrigin) return nodeFetch();
  // Whatever the method: Chromium 156 answers a POST, and a HEAD with the body too.
  const relative = extensionRelativePath(url);
  const file = relative === undefined ? undefined : await readExtensionFile(ownFolder, relative);
  if (!file) {
    if (!inFirefox()) throw new TypeError('Failed to fetch');
    // Firefox ESR 153.7 answers 200, and reading the body fails (test/personas/firefox-identity.test.ts).
    const aborted = new ReadableStream({ start: (controller) => controller.error(new DOMException('The operation was aborted. ', 'AbortError')) });
    return new Response(aborted, { status: 200 });
  }
  const response = new Response(file.bytes, { status: 200, headers: { 'Content-Type': file.type, 'Content-Length': String(file.bytes.byteLength) } });
  // A Response made here has no URL of its own; the extension's says where it came from.
  Object.defineProperty(response, 'url', { value: url.href.replace(/#.*$/, ''), enumerable: true });
  return response;
}

// The realm and wrtui's bindings in it are made before the worker knows its extension (a pooled
// worker does this while it waits): nothing here depends on which extension it will run.
// Nothing of this realm may be handed to the extension's before it is locked down.
lockDownHostRealm();
const context = vm.createContext(sandbox, { name: 'wrtui extension' });
vm.runInContext(WRTUI_BINDINGS_SOURCE, context, { filename: 'wrtui:bindings' });
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

/**
 * A file of the extension's own (importScripts, its background scripts), never one outside its
 * folder: a URL keeps `%2f` as it is, so `importScripts('..%2f..%2fsecret')` stays on the
 * extension's origin and decodes to a path that climbs out of it.
 */
function readOwnFile(file: string): string {
  // Resolved through symbolic links too, as its fetch is (extension-files.ts); ownFolder is already.
  const resolved = realpathSync(file);
  if (ownFolder !== undefined && resolved !== ownFolder && !resolved.startsWith(ownFolder + path.sep)) throw new Error(`${file} is outside the extension's folder`);
  return readFileSync(resolved, 'utf8');
}

/** `folder` with its symbolic links resolved (as it is, if it cannot be). */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

// ── source maps: locations in the files the user wrote ─────────────────────
const maps = new Map<string, SourceMap>();
const userFiles = new Set<string>();
const locate = (error: unknown): string | undefined => firstUserFrame(error, userFiles, maps);

function runScript(code: string, file: string, map?: unknown): unknown {
  // wrtui's own scripts (a page's DOM) are never where the user's mistake is.
  if (!file.startsWith('wrtui:')) userFiles.add(file);
  if (map) maps.set(file, new SourceMap(map as SourceMapPayload));
  return new vm.Script(code, { filename: file }).runInContext(context);
}

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
};

/**
 * Runs the extension this worker is for: wrtui's bindings given its boot, then its background.
 * `progress`: the counters the host's watchdog reads (worker-progress.ts).
 */
function start(boot: WorkerBoot, progress?: Int32Array): void {
  if (progress) tellThreadId(progress, ownThreadId(readlinkSync));
  ownFolder = realFolder(boot.rootDir);
  ownOrigin = boot.baseUrl.replace(/\/+$/, '');
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
