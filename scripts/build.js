#!/usr/bin/env node
// Builds dist/ from src/ with esbuild: dist/cli.js (one ESM file, dependencies left as imports) and
// dist/extension-worker.cjs, the script every rule's and extension's worker runs.
// `npm ci` runs it (the "prepare" script), so `npx wrtui` works right after install.
import { writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'src/cli.ts', 'worker-script': 'src/engine/extensions/worker-script.ts' },
  outdir: 'dist',
  // The TUI (React, Ink) is its own chunk: headless, replay and ca never load it.
  splitting: true,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  jsx: 'automatic',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// The worker's script is built once here, so a running wrtui never bundles it (worker-script.ts).
const { buildWorkerSource, buildPageDomSource, WORKER_SCRIPT_FILE, PAGE_DOM_SCRIPT_FILE } = await import('../dist/worker-script.js');
await writeFile(`dist/${WORKER_SCRIPT_FILE}`, await buildWorkerSource('src/engine/extensions/worker'));
await writeFile(`dist/${PAGE_DOM_SCRIPT_FILE}`, await buildPageDomSource('src/engine/extensions/worker'));

// Declarations for rule and extension authors (`wrtui/rules`, `wrtui/extension` in package.json's
// exports). TypeScript is a development dependency: a published package ships them prebuilt.
const ts = await import('typescript').then((module) => module.default, () => undefined);
if (ts) {
  const program = ts.createProgram(['src/engine/rules/author-types.ts', 'src/engine/extensions/extension-globals.ts'], {
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: 'src',
    outDir: 'dist/types',
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  });
  const { diagnostics } = program.emit();
  if (diagnostics.length > 0) {
    console.error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => process.cwd(), getNewLine: () => '\n' }));
    process.exit(1);
  }
}
