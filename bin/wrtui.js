#!/usr/bin/env node
// The installed command: runs the build that `npm ci` / `npm install` made (the "prepare" script).
import { existsSync } from 'node:fs';

// React's development build makes every TUI frame slower and keeps a timing entry per render.
process.env.NODE_ENV ??= 'production';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('wrtui: dist/cli.js is missing; run `npm run build` (npm ci runs it for you).');
  process.exit(1);
}
await import(cli.href);
