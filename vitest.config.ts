import { defineConfig } from 'vitest/config';

/**
 * Two groups, one after the other: everything in-process first (two files at a time),
 * then the tests of real node processes (test/node: six or seven validators each on this
 * machine's two cores), one file at a time, so two networks of processes never share
 * the CPU and starve each other's timeouts.
 */
const PROCESS_TESTS = 'test/node/**/*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The node's build, fresh, for the tests that run it as a process (test/helpers/node-program.ts).
    globalSetup: ['test/global-setup.ts'],
    // Every reply is checked against its documented response schema (src/api/openapi.ts).
    env: { EXCHANGE_API_CHECK_RESPONSES: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'actors/**/*.test.ts', 'machines/**/*.test.ts'],
          exclude: [PROCESS_TESTS, '**/node_modules/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: [PROCESS_TESTS],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
