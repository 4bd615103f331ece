// The entry point of a dedicated Worker's own thread (its Node side), started by the thread that
// created it (dedicated-worker-threads.ts). As the extension's worker does (worker-main.ts): this
// thread's realm is locked down, then the worker's realm is made (a vm context with the Web globals:
// no process, require, Buffer or node: imports) with its global scope (worker-scope.ts), and its
// script runs there once the creating thread sends it. Its console, uncaught errors and requests
// to the network go up the control port, as the extension's own.
import { SourceMap, type SourceMapPayload } from 'node:module';
import { formatWithOptions } from 'node:util';
import vm from 'node:vm';
import { moveMessagePortToContext, workerData } from 'node:worker_threads';
import { captureGlobals, withCapturedGlobals } from './captured-globals.js';
import { INSTALL_WORKER_SCOPE_GLOBAL, type InstallWorkerScope, type RealmPort, type WorkerScopeHandle } from './dedicated-worker-api.js';
import { DedicatedWorkerThreads, type FromWorkerThread, type ThreadBoot, type ToWorkerThread, type WorkerScript } from './dedicated-worker-threads.js';
import { makeExtensionFetch } from './extension-fetch.js';
import { FetchRelay } from './fetch-relay.js';
import { lockDownHostRealm } from './host-realm-lockdown.js';
import { NetworkFetch } from './network-fetch.js';
import { OwnFiles } from './own-files.js';
import { firstUserFrame } from './stack-frames.js';
import { webGlobalsSandbox } from './web-globals.js';

// The worker scope's script and the global names it uses, inlined by the build (see worker-script.ts).
declare const WRTUI_WORKER_SCOPE_SOURCE: string;
declare const WRTUI_WORKER_SCOPE_GLOBALS: string[];

const boot = workerData as ThreadBoot;
const control = boot.control;
const toParent = (message: FromWorkerThread) => control.postMessage(message);
/** An item for the host, as the extension's worker would send it. */
const up = (item: unknown[]) => toParent(['item', item]);
const inFirefox = () => boot.browser === 'firefox';
const files = new OwnFiles(boot.root, boot.origin);

// ── the worker's realm ─────────────────────────────────────────────────────
const network = new NetworkFetch(up as ConstructorParameters<typeof NetworkFetch>[0], () => ({ browser: boot.browser, scope: 'WorkerGlobalScope' }));
const sandbox = webGlobalsSandbox({
  fetch: makeExtensionFetch({ network, here: () => boot.options.url, origin: () => files.origin, folder: () => files.folder, inFirefox }),
  origin: () => files.origin,
  inFirefox,
});
lockDownHostRealm();
const context = vm.createContext(sandbox, { name: `wrtui worker ${boot.options.url}` });

const maps = new Map<string, SourceMap>();
const userFiles = new Set<string>();
const locate = (error: unknown): string | undefined => firstUserFrame(error, userFiles, maps);
const runScript = (code: string, file: string, map?: unknown): unknown => {
  userFiles.add(file);
  if (map) maps.set(file, new SourceMap(map as SourceMapPayload));
  return new vm.Script(code, { filename: file }).runInContext(context);
};

// The Workers it makes in turn: their module scripts are bundled on the host, asked through here.
let nextBundle = 1;
const bundles = new Map<number, { resolve: (script: WorkerScript) => void; reject: (error: Error) => void }>();
const relay = new FetchRelay(up);
const threads = new DedicatedWorkerThreads({
  source: boot.source,
  files: () => files,
  browser: () => boot.browser,
  post: up,
  relay,
  bundle: (file) =>
    new Promise((resolve, reject) => {
      const id = nextBundle++;
      bundles.set(id, { resolve, reject });
      toParent(['bundle', id, file]);
    }),
});

let scope: WorkerScopeHandle;
{
  const global = vm.runInContext('globalThis', context) as Record<string, unknown>;
  const captured = captureGlobals(global, WRTUI_WORKER_SCOPE_GLOBALS);
  (vm.runInContext(withCapturedGlobals(WRTUI_WORKER_SCOPE_SOURCE, captured.params), context, { filename: 'wrtui:worker-scope', lineOffset: -1 }) as (captured: unknown) => void).call(global, captured);
  const install = global[INSTALL_WORKER_SCOPE_GLOBAL] as InstallWorkerScope;
  delete global[INSTALL_WORKER_SCOPE_GLOBAL];
  scope = install(
    {
      post: up,
      format: (args) => formatWithOptions({ colors: false, depth: 6 }, ...args),
      locate,
      setTimer: (callback, ms, repeat) => (repeat ? setInterval(callback, ms) : setTimeout(callback, ms)),
      clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
      runScript,
      fileOf: (url) => files.fileOf(url),
      readFile: (file) => files.read(file),
      urlOf: (file) => files.urlOf(file),
      close: () => {
        scope.shutdown();
        // Once this task is over: what it posts until then still goes (its creator then ends the thread).
        setImmediate(() => toParent(['close']));
      },
      workers: threads.api(context),
    },
    { ...boot.options, origin: files.origin, browser: boot.browser, port: moveMessagePortToContext(boot.port, context) as unknown as RealmPort },
  );
}

// A throw in a Node event's listener (FileReader's) is the worker's own uncaught error; an
// unhandled rejection is logged as a browser logs it, and the worker goes on.
process.on('uncaughtException', (error) => scope.report(error));
process.on('unhandledRejection', (reason) => {
  const location = locate(reason);
  const text = typeof reason === 'object' && reason !== null && 'message' in reason ? `${(reason as Error).name ?? 'Error'}: ${(reason as Error).message}` : formatWithOptions({ colors: false }, reason);
  up(location === undefined ? ['uncaught', 'rejection', `Uncaught (in promise) ${text}`] : ['uncaught', 'rejection', `Uncaught (in promise) ${text}`, location]);
});

control.on('message', (message: ToWorkerThread) => {
  switch (message[0]) {
    case 'run':
      scope.run(message[1].code, message[1].file, message[1].map);
      return;
    case 'item': {
      const item = message[1];
      if (relay.toChild(item)) return;
      if (item[0] === 'fetched') network.answered(item[1] as number, item[2] as never, item[3] as string | undefined);
      else if (item[0] === 'fetchBody') network.bodyChunk(item[1] as number, item[2] as Uint8Array);
      else if (item[0] === 'fetchEnd') network.bodyEnded(item[1] as number, item[2] as never);
      return;
    }
    case 'bundled': {
      const [, id, ok, value] = message;
      const waiting = bundles.get(id);
      bundles.delete(id);
      if (ok) waiting?.resolve(value as WorkerScript);
      else waiting?.reject(new Error(String(value)));
      return;
    }
  }
});
