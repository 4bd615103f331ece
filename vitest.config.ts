import { defineConfig } from 'vitest/config';
import { endToEndTestFiles } from './scripts/test-parts.js';

/**
 * Tests that load the machine on purpose (busy loops on every CPU, bounded in time): they run
 * after the rest, one file at a time, so that no other test's timing suffers their load.
 */
const LOADS_THE_MACHINE = ['test/extensions/loaded-machine.test.ts', 'test/real-extensions/ublock-origin-firefox.test.ts'];

/** Tests that run the built CLI, tmux, a browser or Debian's extensions (scripts/test-parts.ts). */
const END_TO_END = endToEndTestFiles(import.meta.dirname).filter((file) => !LOADS_THE_MACHINE.includes(file));

const ALL_TESTS = ['test/**/*.test.ts', 'test/**/*.test.tsx'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Real sockets and files: keep workers few on 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    // `npm run test:fast` runs "fast", `npm run test:e2e` the other two; `npm test` all three.
    projects: [
      { extends: true, test: { name: 'fast', include: ALL_TESTS, exclude: [...LOADS_THE_MACHINE, ...END_TO_END] } },
      { extends: true, test: { name: 'e2e', include: END_TO_END } },
      { extends: true, test: { name: 'loaded machine', include: LOADS_THE_MACHINE, sequence: { groupOrder: 1 }, fileParallelism: false } },
    ],
  },
});
