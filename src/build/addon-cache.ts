/**
 * Where the single-file build's native addons are written before process.dlopen loads
 * them (decision 77), and the writing itself: each addon in a folder named by its
 * sha256, written once, the sha256 of what is on disk checked before it is used. Apart
 * from embedded-addons.ts (which only the build can load) so that it can be tested.
 *
 * The cache folder: $EXCHANGE_NODE_CACHE, else $XDG_CACHE_HOME/exchange-node, else
 * ~/.cache/exchange-node (the folder of the binary may be read-only).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

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

