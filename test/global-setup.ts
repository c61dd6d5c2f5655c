/**
 * Once per test run, before any test file: the node's single-file build
 * (dist/exchange-node.mjs) is made fresh from the working tree, as `npm start` makes it
 * (`src/build/run.mjs --if-stale`: rebuilt only when an input changed). Tests that run
 * the node or its command line as a process run that file (test/helpers/node-program.ts):
 * the program an operator runs, and it starts in a fraction of the time the source tree
 * takes through tsx (decision 144).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export default function setup(): void {
  const root = join(import.meta.dirname, '..');
  execFileSync(process.execPath, [join(root, 'src/build/run.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
}
