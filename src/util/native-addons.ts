/**
 * The native addons the node runs on: LevelDB (classic-level), libsecp256k1 (secp256k1),
 * XKCP Keccak (keccak) and libsodium (sodium-native: its ed25519 group operations, for
 * the VRF, decision 116). From the source tree each is what node-gyp-build finds in its
 * package folder (a prebuild or a local build; sodium-native ships prebuilds only). The single-file build
 * (src/build/binary.ts, decision 77) replaces this module with one that loads the
 * prebuilt binaries embedded in the bundle (src/build/embedded-addons.ts): the two
 * modules export the same functions, so callers do not know which one they run on.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type * as Secp256k1Native from 'secp256k1';

export type AddonName = 'classic-level' | 'secp256k1' | 'keccak' | 'sodium-native';

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

/**
 * The functions of sodium-native's raw binding (its .node file, without the package's
 * index.js, which only adds argument asserts and turns a status into a throw) that the
 * VRF uses (src/crypto/ed25519-sodium.ts). Each returns libsodium's status: 0 done, -1
 * refused. Every buffer must have the length libsodium expects (32 bytes for points and
 * scalars, 64 for a SHA-512 output): the binding asserts it rather than report a status.
 */
export interface SodiumBinding {
  crypto_scalarmult_ed25519_noclamp(q: Uint8Array, n: Uint8Array, p: Uint8Array): number;
  crypto_scalarmult_ed25519_base_noclamp(q: Uint8Array, n: Uint8Array): number;
  crypto_core_ed25519_add(r: Uint8Array, p: Uint8Array, q: Uint8Array): number;
  crypto_core_ed25519_sub(r: Uint8Array, p: Uint8Array, q: Uint8Array): number;
  crypto_hash_sha512(out: Uint8Array, input: Uint8Array): number;
}

/** libsodium through sodium-native's prebuilt binding. Throws when it does not load. */
export function sodiumNative(): SodiumBinding {
  return loadAddon('sodium-native') as SodiumBinding;
}
