// The code every extension worker runs: worker/worker-main.ts (the worker's Node side) with the
// bindings script (worker/bindings.ts, which runs inside the extension's realm) and the script of a
// dedicated Worker's thread (worker/dedicated-worker-main.ts, with worker/worker-scope.ts) inlined as text;
// and the DOM a background page's realm runs once it touches the DOM (worker/page-document.ts,
// linkedom), handed only to background pages' workers. The build writes both once to dist/; run
// from the sources (tests, tsx) they are bundled in memory on first use, so never stale there.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { build } from 'esbuild';
import { globalNamesIn } from './worker/captured-globals.js';
import { INDEXED_DB_INTRINSICS } from './worker/indexed-db-contract.js';
import { domGlobalNames } from './worker/page-dom.js';

export const WORKER_SCRIPT_FILE = 'extension-worker.cjs';
export const PAGE_DOM_SCRIPT_FILE = 'extension-page-dom.js';

let cached: Promise<string> | undefined;
let cachedPageDom: Promise<PageDom> | undefined;

/** A background page's DOM: its script, the globals it gives and the ones it uses (WorkerBoot.page). */
export interface PageDom {
  domSource: string;
  globals: string[];
  captured: string[];
}

/** The worker's source text (a CommonJS script, run with `new Worker(code, { eval: true })`). */
export function workerSource(): Promise<string> {
  cached ??= retriedOnFailure(() => builtOrBundled(WORKER_SCRIPT_FILE, 'worker-main.ts', buildWorkerSource), () => (cached = undefined));
  return cached;
}

/** The DOM script for background pages, with the names of the globals it gives. */
export function pageDom(): Promise<PageDom> {
  cachedPageDom ??= retriedOnFailure(async () => {
    const domSource = await builtOrBundled(PAGE_DOM_SCRIPT_FILE, 'page-document.ts', buildPageDomSource);
    const linkedom = (await import('linkedom')) as Record<string, unknown>;
    return { domSource, globals: domGlobalNames(Object.keys(linkedom)), captured: globalNamesIn(domSource, realmGlobalNames()) };
  }, () => (cachedPageDom = undefined));
  return cachedPageDom;
}

/**
 * The script the build wrote beside this module (`file`), or, run from the sources (tests, tsx:
 * `entry` is in worker/ here or under src/), bundled from them now, so never stale there.
 */
async function builtOrBundled(file: string, entry: string, bundle: (workerDir: string) => Promise<string>): Promise<string> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const prebuilt = path.join(here, file);
  if (existsSync(prebuilt) && !existsSync(path.join(here, 'worker', entry))) return readFile(prebuilt, 'utf8');
  return bundle(existsSync(path.join(here, 'worker')) ? path.join(here, 'worker') : path.resolve(here, '../src/engine/extensions/worker'));
}

/** `make()`, whose cache is cleared (`forget`) if it fails, so the next caller tries again. */
function retriedOnFailure<T>(make: () => Promise<T>, forget: () => void): Promise<T> {
  const made = make();
  made.catch(forget);
  return made;
}

/**
 * The names a realm's global object may have: a vm context's (ECMAScript's and V8's) and a Node
 * worker's (the Web globals an extension is given among them), which is what captured-globals.ts
 * looks for in wrtui's own scripts.
 */
function realmGlobalNames(): string[] {
  return [...new Set([...Object.getOwnPropertyNames(vm.runInNewContext('globalThis')), ...Object.getOwnPropertyNames(globalThis)])];
}

/** Bundles the page DOM script from `workerDir` (minified: it is evaluated in each page that uses it). */
export async function buildPageDomSource(workerDir: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(workerDir, 'page-document.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    target: 'node20',
    minify: true,
    logLevel: 'warning',
  });
  return result.outputFiles[0]!.text;
}

/**
 * Bundles IndexedDB for the extension's realm (fake-indexeddb, run on first use: indexed-db-engine.ts),
 * minified. Its `structuredClone` and `globalThis.setImmediate` are wrtui's (indexed-db-shims.ts),
 * and its built-ins are parameters (INDEXED_DB_INTRINSICS).
 */
export async function buildIndexedDbSource(workerDir: string): Promise<string> {
  const result = await build({
    entryPoints: [path.join(workerDir, 'indexed-db-engine.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'node20',
    minify: true,
    inject: [path.join(workerDir, 'indexed-db-shims.ts')],
    define: { 'globalThis.setImmediate': 'wrtuiIndexedDbImmediate' },
    logLevel: 'warning',
  });
  // A function of the built-ins it uses (indexed-db-node.ts calls it with the realm's).
  return `(function (${INDEXED_DB_INTRINSICS.join(', ')}) {\n${result.outputFiles[0]!.text}\n})`;
}

/** Bundles the worker from `workerDir` (the folder holding worker-main.ts and bindings.ts). */
export async function buildWorkerSource(workerDir: string): Promise<string> {
  // A plain script: it runs in a vm context, which has no module system.
  const asScript = (entry: string) => build({ entryPoints: [path.join(workerDir, entry)], bundle: true, write: false, format: 'iife', platform: 'neutral', target: 'node20', logLevel: 'warning' });
  const bindings = await asScript('bindings.ts');
  // A dedicated Worker's thread (worker/dedicated-worker-main.ts), with its global scope's script
  // (worker/worker-scope.ts, run inside the Worker's realm) inlined as the bindings are.
  const workerScope = await asScript('worker-scope.ts');
  const workerThread = await build({
    entryPoints: [path.join(workerDir, 'dedicated-worker-main.ts')],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    define: {
      WRTUI_WORKER_SCOPE_SOURCE: JSON.stringify(workerScope.outputFiles[0]!.text),
      WRTUI_WORKER_SCOPE_GLOBALS: JSON.stringify(globalNamesIn(workerScope.outputFiles[0]!.text, realmGlobalNames())),
    },
    logLevel: 'warning',
  });
  const worker = await build({
    entryPoints: [path.join(workerDir, 'worker-main.ts')],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    define: {
      WRTUI_BINDINGS_SOURCE: JSON.stringify(bindings.outputFiles[0]!.text),
      WRTUI_BINDINGS_GLOBALS: JSON.stringify(globalNamesIn(bindings.outputFiles[0]!.text, realmGlobalNames())),
      WRTUI_WORKER_THREAD_SOURCE: JSON.stringify(workerThread.outputFiles[0]!.text),
      WRTUI_INDEXEDDB_SOURCE: JSON.stringify(await buildIndexedDbSource(workerDir)),
    },
    logLevel: 'warning',
  });
  return worker.outputFiles[0]!.text;
}
