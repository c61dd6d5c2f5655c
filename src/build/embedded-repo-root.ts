/**
 * src/util/repo-root.ts in the single-file build (binary.ts): the folder above the one
 * holding the file, so dist/exchange-node.mjs of a checkout names the checkout. Only a
 * build run from dist/ of a checkout finds the bridge's contracts and hardhat there; a
 * copy elsewhere has no repository (and needs none to run a node).
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
