// The code every extension worker runs: worker/worker-main.ts (the worker's Node side) with the
// bindings script (worker/bindings.ts, which runs inside the extension's realm) inlined as text.
// The build writes it once to dist/extension-worker.cjs; run from the sources (tests, tsx) it is
// bundled in memory on first use, so it is never stale there.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const WORKER_SCRIPT_FILE = 'extension-worker.cjs';

let cached: Promise<string> | undefined;

/** The worker's source text (a CommonJS script, run with `new Worker(code, { eval: true })`). */
export function workerSource(): Promise<string> {
  cached ??= (async () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const prebuilt = path.join(here, WORKER_SCRIPT_FILE);
    if (existsSync(prebuilt) && !existsSync(path.join(here, 'worker', 'worker-main.ts'))) return readFile(prebuilt, 'utf8');
    const sources = existsSync(path.join(here, 'worker')) ? path.join(here, 'worker') : path.resolve(here, '../src/engine/extensions/worker');
    return buildWorkerSource(sources);
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}

/** Bundles the worker from `workerDir` (the folder holding worker-main.ts and bindings.ts). */
export async function buildWorkerSource(workerDir: string): Promise<string> {
  const bindings = await build({
    entryPoints: [path.join(workerDir, 'bindings.ts')],
    bundle: true,
    write: false,
    // A plain script: it runs in a vm context, which has no module system.
    format: 'iife',
    platform: 'neutral',
    target: 'node20',
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
    define: { WRTUI_BINDINGS_SOURCE: JSON.stringify(bindings.outputFiles[0]!.text) },
    logLevel: 'warning',
  });
  return worker.outputFiles[0]!.text;
}
