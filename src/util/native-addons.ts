/**
 * The native addons the node runs on: LevelDB (classic-level), libsecp256k1 (secp256k1)
 * and XKCP Keccak (keccak). From the source tree each is what node-gyp-build finds in its
 * package folder (a prebuild or a local build). The single-file build
 * (src/build/binary.ts, decision 77) replaces this module with one that loads the
 * prebuilt binaries embedded in the bundle (src/build/embedded-addons.ts): the two
 * modules export the same functions, so callers do not know which one they run on.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type * as Secp256k1Native from 'secp256k1';

export type AddonName = 'classic-level' | 'secp256k1' | 'keccak';

const require = createRequire(import.meta.url);

/** The raw addon of package `name` (the object node-gyp-build loads). Throws when it does not load. */
export function loadAddon(name: AddonName): unknown {
  return require('node-gyp-build')(dirname(require.resolve(`${name}/package.json`)));
}

/**
 * secp256k1's API over its native addon only. `secp256k1` (index.js) silently falls back
 * to the `elliptic` JS implementation when the addon does not load; its `bindings`
 * module is the addon alone, so a missing build fails here instead.
 */
export function secp256k1Native(): typeof Secp256k1Native {
  return require('secp256k1/bindings') as typeof Secp256k1Native;
}
