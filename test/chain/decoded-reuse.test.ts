/**
 * applyBlock reuses the transactions its caller already decoded (the proposer's pool
 * entries, a replica's validation of the proposal) when they hold the same bytes, and
 * decodes anything else itself. A decoded entry with a wrong hash makes the reuse
 * visible: the block's tx root no longer matches.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalCommit, type Block } from '../../src/codec/block';
import { decodeTx, encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { signFaucet } from '../../src/codec/txs/faucet';
import { Chain } from '../../src/chain/chain';
import { hexToBytes } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, tempDir } from '../helpers/devnet';

const { genesis, hash } = devnetGenesis(1);
const proposer = DEVNET_KEYS.validators[0].address;
const commitOf = (b: Block) => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });

describe('applyBlock and decoded transactions', () => {
  const dirs: { remove(): void }[] = [];
  const chains: Chain[] = [];
  afterEach(async () => {
    for (const c of chains.splice(0)) await c.close();
    for (const d of dirs.splice(0)) d.remove();
  });

  const setup = async () => {
    const dir = tempDir('decoded-reuse-');
    dirs.push(dir);
    const chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: false });
    chains.push(chain);
    const key = hexToBytes(DEVNET_KEYS.faucet.privateKey);
    const txs = [1n, 2n].map((nonce) => encodeTx(genesis.chainId, TxKind.Faucet, signFaucet(genesis.chainId, { to: DEVNET_KEYS.accounts[0].address, usdc: 5n, nativeWei: 0n, nonce }, key)).bytes);
    const block = chain.buildBlock({ txs, timestampMs: genesis.genesisTimeMs + 1_000, proposer, lastCommit: null });
    return { chain, block, txs };
  };
  const wrongHash = (t: Tx): Tx => ({ ...t, hash: new Uint8Array(32).fill(7) });

  it('reuses an entry whose bytes are an equal copy (as a replica decoded them)', async () => {
    const { chain, block, txs } = await setup();
    const decoded = txs.map((b) => decodeTx(b.slice(), 1 << 20));
    expect(decoded[0].bytes).not.toBe(block.txs[0]);
    await expect(chain.commit(block, commitOf(block), undefined, [wrongHash(decoded[0]), decoded[1]])).rejects.toThrow(/tx root mismatch/);
  });

  it('decodes itself where the entry holds other bytes, and the block applies', async () => {
    const { chain, block, txs } = await setup();
    const other = decodeTx(txs[1], 1 << 20);
    const result = await chain.commit(block, commitOf(block), undefined, [wrongHash(other), decodeTx(txs[1], 1 << 20)]);
    expect(result.receipts.map((r) => r.status)).toEqual(['ok', 'ok']);
  });
});
