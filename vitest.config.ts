import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          environment: 'node',
          include: ['test/unit/**/*.test.ts', 'test/property/**/*.test.ts'],
          // Property tests run hundreds of cases; on CI's 2 cores, with the suite's other
          // files in parallel, one that takes 2 s alone took 9 s (url-verdict-memo, stop 24).
          // A hung test still fails, at 60 s instead of 5 s.
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['test/e2e/**/*.test.ts'],
          // Real browsers: one file at a time in one fork, generous timeouts.
          pool: 'forks',
          maxWorkers: 1,
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
