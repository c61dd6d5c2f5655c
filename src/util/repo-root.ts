/**
 * The repository's root folder, for what a node of the source tree finds beside its
 * source (the bridge's contracts, the hardhat CLI in node_modules, data/bridge). This file
 * is src/util/repo-root.ts; the single-file build replaces it with
 * src/build/embedded-repo-root.ts (the folder above the build's, dist/.. ).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
