/**
 * How tests start the node (or its command line) as a process: `node <NODE_BUILD> …`,
 * the single-file build test/global-setup.ts makes fresh from the working tree before
 * the run (decision 144), the file `npm start` and `npm run node` run.
 */
import { join } from 'node:path';

export const NODE_BUILD = join(import.meta.dirname, '..', '..', 'dist', 'exchange-node.mjs');

/** The arguments before a subcommand: `[process.execPath, ...NODE_PROGRAM, 'start', …]`. */
export const NODE_PROGRAM: readonly string[] = [NODE_BUILD];
