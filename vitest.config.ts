import { defineConfig } from 'vitest/config';

/**
 * The tests in tiers (issue 40; README "Tests"):
 *
 *   - `unit` (npm test, with the typecheck and the import rules): every test that starts
 *     no process, two files at a time. test/setup/no-processes.ts makes starting one an
 *     error there, so a test that needs a real process cannot slip in: it fails until its
 *     file is listed in PROCESS_TESTS.
 *   - `sim` (npm run test:all): the simulator's seed runs, on the simulator's own worker
 *     threads (two).
 *   - `processes` (npm run test:all): node processes over libp2p, the command line run
 *     as the operator runs it, hardhat for the bridge, Chromium for the pages, tar and
 *     mount. One file at a time: a network of six or seven validator processes takes
 *     this machine's two cores, and two networks would starve each other's timeouts.
 *     The single-file build is made fresh first (test/global-setup.ts), and the tail of
 *     every child's output is printed when a test fails (test/setup/process-tails.ts).
 *
 * Each group runs after the one before (groupOrder): the quick tier reports first.
 */

/** Files that start a process (a node, the CLI, hardhat, Chromium, tar, mount). */
export const PROCESS_TESTS = [
  'test/node/**/*.test.ts',
  'test/api/audit-page.test.ts',
  'test/api/docs-page.test.ts',
  'test/audit/cli.test.ts',
  'test/bridge/bridge-contract.test.ts',
  'test/bridge/bridge-node.test.ts',
  'test/bridge/bridge-sets.test.ts',
  'test/bridge/relayer-sets.test.ts',
  'test/bridge/deploy.test.ts',
  'test/bridge/devchain.test.ts',
  'test/bridge/evm.test.ts',
  'test/consensus/privval-durable.test.ts',
  'test/exploits/emitter-spoof.test.ts',
  'test/exploits/forged-queue-network.test.ts',
  'test/exploits/owner-takeover.test.ts',
  'test/exploits/reorg-finality.test.ts',
  'test/exploits/regenesis-replay.test.ts',
  'test/exploits/signature-replay.test.ts',
  'test/exploits/stale-set-queue.test.ts',
  'test/build/*.test.ts',
  'test/cli/child-log.test.ts',
  'test/cli/genesis-new.test.ts',
  'test/cli/gov.test.ts',
  'test/cli/init.test.ts',
  'test/cli/start-home.test.ts',
  'test/cli/validator-ops.test.ts',
  'test/onboarding/boot-bundle.test.ts',
  'test/onboarding/cli.test.ts',
  'test/onboarding/operator-cli.test.ts',
  'test/storage/disk-full.test.ts',
  'test/storage/privval-refusal.test.ts',
  'test/storage/set-aside-mount.test.ts',
];

/** The simulator's seed runs: many seeds each, minutes of CPU. */
export const SIM_TESTS = ['test/consensus/sim*.test.ts'];

const ALL_TESTS = ['test/**/*.test.ts', 'src/**/*.test.ts', 'actors/**/*.test.ts', 'machines/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every reply is checked against its documented response schema (src/api/openapi.ts).
    env: { EXCHANGE_API_CHECK_RESPONSES: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ALL_TESTS,
          exclude: [...PROCESS_TESTS, ...SIM_TESTS, '**/node_modules/**'],
          setupFiles: ['test/setup/no-processes.ts'],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'sim',
          include: SIM_TESTS,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'processes',
          include: PROCESS_TESTS,
          // The node's build, fresh, for the tests that run it as a process (test/helpers/node-program.ts).
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/setup/process-tails.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
