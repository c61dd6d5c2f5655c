/** Test fixtures: the committed devnet genesis (trimmed to N validators), its public dev keys, temp folders, nodes. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trimValidators } from '../../src/cli/devnet';
import { genesisHash, loadGenesisFile } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { Node } from '../../src/node/node';
import type { NodeConfig } from '../../src/config/node-config';
import { hexToBytes } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { RATE_LIMIT_OFF } from '../../src/api/rate-limit';

export const ROOT = join(import.meta.dirname, '..', '..');
export const DEVNET_KEYS = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet-keys.json'), 'utf8')) as {
  validators: { address: `0x${string}`; ecdsaPrivateKey: `0x${string}`; vrfPrivateKey: `0x${string}` }[];
  accounts: { address: `0x${string}`; privateKey: `0x${string}` }[];
  faucet: { address: `0x${string}`; privateKey: `0x${string}` };
  /** owner-1 is also the devnet's operator (genesis owners.operator, decision 159). */
  owners: { name: string; address: `0x${string}`; privateKey: `0x${string}` }[];
};

/** Devnet validator `index`'s VRF secret key (32 bytes): what its blocks' proofs are made with. */
export function devnetVrfKey(index = 0): Uint8Array {
  return hexToBytes(DEVNET_KEYS.validators[index].vrfPrivateKey);
}

export function devnetGenesis(validators = 1): { genesis: Genesis; hash: Uint8Array } {
  const genesis = trimValidators(loadGenesisFile(join(ROOT, 'genesis/devnet.json')), validators);
  return { genesis, hash: genesisHash(genesis) };
}

export function tempDir(prefix = 'exchain-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function nodeConfig(dataDir: string, overrides: Partial<NodeConfig> = {}): NodeConfig {
  const { genesis, hash } = devnetGenesis(1);
  return {
    dataDir,
    genesis,
    genesisHash: hash,
    validatorKey: hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey),
    vrfKey: devnetVrfKey(0),
    api: { host: '127.0.0.1', port: 0 },
    blockTimeMs: genesis.consensus.blockTimeMs,
    syncWrites: true,
    mempool: { maxTxs: 10_000, maxBytes: 64 * 1024 * 1024 },
    finalityTimeoutMs: 10_000,
    // The suites send many requests from 127.0.0.1: no rate limits unless a test asks (test/api/rate-limit.test.ts).
    rateLimit: RATE_LIMIT_OFF,
    ...overrides,
  };
}

/** Starts an in-process single-validator devnet node on a free port. */
export async function startNode(dataDir: string, overrides: Partial<NodeConfig> = {}): Promise<{ node: Node; url: string }> {
  const node = new Node(nodeConfig(dataDir, overrides), createLogger({ destination: 'silent' }));
  await node.start();
  return { node, url: node.apiAddress! };
}

export async function waitFor<T>(fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * One in-process node for a test file: started before its tests, stopped and its folder
 * removed after. The returned object's `node` and `url` are set once it started.
 */
export function useDevnetNode(overrides: Partial<NodeConfig> = {}): { node: Node; url: string } {
  const ctx = {} as { node: Node; url: string };
  const dir = tempDir();
  beforeAll(async () => {
    Object.assign(ctx, await startNode(dir.path, overrides));
  });
  afterAll(async () => {
    await ctx.node?.stop();
    dir.remove();
  });
  return ctx;
}
