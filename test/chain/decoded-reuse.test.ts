/**
 * applyBlock reuses the transactions its caller already decoded (the proposer's pool
 * entries, a replica's validation of the proposal) when they hold the same bytes, and
 * decodes anything else itself. A decoded entry with a wrong hash makes the reuse
 * visible: the block's tx root no longer matches.
 */
import { describe, expect, it } from 'vitest';
import { decodeTx, type Tx } from '../../src/codec/tx';
import { commitOf, faucetTxs, useTempChains } from './fixture';

describe('applyBlock and decoded transactions', () => {
  const chains = useTempChains('decoded-reuse-');
  const setup = async () => {
    const txs = faucetTxs([1n, 2n]);
    const { chain, block } = await chains.open(txs);
    return { chain, block, txs: txs.map((t) => t.bytes) };
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
