import { defineConfig } from 'vitest/config';

/**
 * Tests that load the machine on purpose (busy loops on every CPU, bounded in time): they run
 * after the rest, one file at a time, so that no other test's timing suffers their load.
 */
const LOADS_THE_MACHINE = ['test/extensions/loaded-machine.test.ts', 'test/real-extensions/ublock-origin-firefox.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Real sockets and files: keep workers few on 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts', 'test/**/*.test.tsx'], exclude: LOADS_THE_MACHINE } },
      { extends: true, test: { name: 'loaded machine', include: LOADS_THE_MACHINE, sequence: { groupOrder: 1 }, fileParallelism: false } },
    ],
  },
});
