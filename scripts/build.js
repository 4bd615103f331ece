#!/usr/bin/env node
// Builds dist/cli.js from src/ with esbuild: one ESM file, dependencies left as imports.
// `npm ci` runs it (the "prepare" script), so `npx wrtui` works right after install.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli.ts'],
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
