/**
 * The native addons of the single-file build (decision 77): the build (binary.ts)
 * substitutes this module for src/util/native-addons.ts and embeds the prebuilt
 * binaries of its platform (module `exchange-build:addons`). At first use each is written
 * to the cache folder, named by its sha256, and loaded with process.dlopen; the sha256
 * of what is on disk is checked before every load, so a truncated or altered file is
 * rewritten, never loaded.
 *
 * The cache folder and the checked writing: addon-cache.ts.
 */
import { addons, platform } from 'exchange-build:addons';
import secp256k1Lib from 'secp256k1/lib/index.js';
import type * as Secp256k1Native from 'secp256k1';
import type { AddonName, SodiumBinding } from '../util/native-addons';
import { addonCacheDir, materializeAddon } from './addon-cache';

export type { AddonName, SodiumBinding } from '../util/native-addons';

const loaded = new Map<string, unknown>();

export function loadAddon(name: AddonName): unknown {
  const hit = loaded.get(name);
  if (hit) return hit;
  const here = `${process.platform}-${process.arch}`;
  if (here !== platform) throw new Error(`this build of the node embeds native addons for ${platform}; this machine is ${here}: use the build for ${here}`);
  const entry = addons[name];
  if (!entry) throw new Error(`this build embeds no native addon ${name}`);
  const path = materializeAddon(addonCacheDir(), name, entry.file, Buffer.from(entry.base64, 'base64'), entry.sha256);
  const mod = { exports: {} as unknown };
  process.dlopen(mod, path);
  loaded.set(name, mod.exports);
  return mod.exports;
}

export function secp256k1Native(): typeof Secp256k1Native {
  const addon = loadAddon('secp256k1') as { Secp256k1: new () => unknown };
  return secp256k1Lib(new addon.Secp256k1()) as typeof Secp256k1Native;
}

export function sodiumNative(): SodiumBinding {
  return loadAddon('sodium-native') as SodiumBinding;
}
