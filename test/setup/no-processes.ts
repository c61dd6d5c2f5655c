/**
 * Setup of the fast tier (`npm test`, vitest project `unit`): a test there starts no
 * process. Every way node:child_process starts one (spawn, exec, execFile, fork and
 * their Sync forms) throws here instead, naming the rule, so a test that needs a real
 * process (a node, the command line, hardhat, Chromium, tar, mount) cannot slip into the
 * tier that must stay quick: it fails until it is listed among the full tier's files in
 * vitest.config.ts. Worker threads are not processes and stay allowed (the snapshot
 * worker, the simulator's seed runner).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of STARTERS) {
  (childProcess as unknown as Record<string, unknown>)[name] = (command: unknown) => {
    throw new Error(
      `child_process.${name}(${JSON.stringify(String(command))}): this test starts a process, and the fast tier (npm test) starts none. ` +
        'List its file in vitest.config.ts PROCESS_TESTS: it then runs in npm run test:all.',
    );
  };
}
// ES module imports of node:child_process (`import { spawn } from …`) see the replacements too.
syncBuiltinESMExports();
