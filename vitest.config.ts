import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Real sockets and files: keep workers few on 2-core machines.
    pool: 'forks',
    maxWorkers: 2,
  },
});
