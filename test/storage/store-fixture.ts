/**
 * A chain store written by a real Chain (a single-validator devnet, blocks of signed
 * faucet transactions, commits naming their blocks) in a temporary folder, and the faults
 * of a real disk made on it: random bytes in a table file, a log cut short, a MANIFEST gone.
 */
import { readdirSync, statSync, openSync, writeSync, closeSync, truncateSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { blockHash, canonicalCommit, type Commit } from '../../src/codec/block';
import { Chain } from '../../src/chain/chain';
import { faucetTxs, genesis, hash } from '../chain/fixture';
import { DEVNET_KEYS, devnetVrfKey } from '../helpers/devnet';

export { genesis, hash };

/** Opens the chain in `dir` and commits `blocks` blocks of `txsPerBlock` faucet transactions; closes it. */
export async function writeChain(dir: string, blocks: number, txsPerBlock = 20): Promise<{ height: number; stateRoot: Uint8Array }> {
  const chain = await Chain.open({ dataDir: dir, genesis, genesisHash: hash, syncWrites: false });
  let last: Commit | null = null;
  let nonce = BigInt(chain.height * txsPerBlock);
  for (let i = 0; i < blocks; i++) {
    const txs = faucetTxs(Array.from({ length: txsPerBlock }, () => nonce++));
    const block = chain.buildBlock({ txs: txs.map((t) => t.bytes), timestampMs: genesis.genesisTimeMs + 1_000 * (chain.height + 1), proposer: DEVNET_KEYS.validators[0].address, lastCommit: last, vrfKey: devnetVrfKey(0) });
    const commit = canonicalCommit({ height: block.header.height, round: 0, blockHash: blockHash(block.header), signatures: [] });
    await chain.commit(block, commit);
    last = commit;
  }
  const out = { height: chain.height, stateRoot: chain.stateRoot };
  await chain.close();
  return out;
}

/** Reopens and closes the store: LevelDB turns its log into a table file (.ldb). */
export async function flushToTable(dir: string): Promise<void> {
  const chain = await Chain.open({ dataDir: dir, genesis, genesisHash: hash, syncWrites: false });
  await chain.close();
}

const files = (dir: string, re: RegExp) => readdirSync(dir).filter((f) => re.test(f)).sort();

/** 4 KiB of random bytes written into the middle of the newest .ldb (as a bad disk sector would). */
export function corruptNewestTable(dir: string): string {
  const tables = files(dir, /\.ldb$/);
  if (tables.length === 0) throw new Error(`no .ldb in ${dir}`);
  const path = join(dir, tables[tables.length - 1]);
  const fd = openSync(path, 'r+');
  try {
    writeSync(fd, randomBytes(4096), 0, 4096, Math.floor(statSync(path).size / 3));
  } finally {
    closeSync(fd);
  }
  return path;
}

/** Cuts the newest non-empty .log to `fraction` of its length plus 3 bytes (inside a record). */
export function truncateLog(dir: string, fraction = 0.5): string {
  const logs = files(dir, /\.log$/).filter((f) => statSync(join(dir, f)).size > 0);
  if (logs.length === 0) throw new Error(`no non-empty .log in ${dir}`);
  const path = join(dir, logs[logs.length - 1]);
  truncateSync(path, Math.floor(statSync(path).size * fraction) + 3);
  return path;
}

export function deleteManifest(dir: string): void {
  for (const f of files(dir, /^MANIFEST-/)) rmSync(join(dir, f));
}
