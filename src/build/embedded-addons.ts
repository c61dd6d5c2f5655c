/**
 * The native addons of the single-file build (decision 77): the build (binary.ts)
 * substitutes this module for src/util/native-addons.ts and embeds the prebuilt
 * binaries of its platform (module `exchange-build:addons`). At first use each is written
 * to the cache folder, named by its sha256, and loaded with process.dlopen; the sha256
 * of what is on disk is checked before every load, so a truncated or altered file is
 * rewritten, never loaded.
 *
 * The cache folder: $EXCHANGE_NODE_CACHE, else $XDG_CACHE_HOME/exchange-node, else
 * ~/.cache/exchange-node (the folder of the binary may be read-only).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { addons, platform } from 'exchange-build:addons';
import secp256k1Lib from 'secp256k1/lib/index.js';
import type * as Secp256k1Native from 'secp256k1';
import type { AddonName } from '../util/native-addons';

export type { AddonName } from '../util/native-addons';

export function addonCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.EXCHANGE_NODE_CACHE) return env.EXCHANGE_NODE_CACHE;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'exchange-node');
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The path of the addon `bytes` in `dir`, written there unless a file of the same sha256
 * is already present. Written to a temporary name and renamed, so two nodes starting
 * at once never load a half-written file.
 */
export function materializeAddon(dir: string, name: string, file: string, bytes: Uint8Array, sha256: string): string {
  if (sha256Hex(bytes) !== sha256) throw new Error(`embedded addon ${name}: its bytes do not match their sha256 ${sha256} (a damaged binary)`);
  const folder = join(dir, 'addons', sha256);
  const path = join(folder, file);
  const present = readIfPresent(path);
  if (present && sha256Hex(present) === sha256) return path;
  mkdirSync(folder, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes, { mode: 0o755 });
  renameSync(tmp, path);
  const written = readIfPresent(path);
  if (!written || sha256Hex(written) !== sha256) throw new Error(`addon ${name}: ${path} does not hold the sha256 ${sha256} after writing it`);
  return path;
}

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
