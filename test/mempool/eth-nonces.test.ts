/**
 * Ethereum transfers' nonces at the mempool door (actors/mempool/pool.ts): a sender's
 * transfers sent back to back continue its sequence past the pending ones, also in the
 * window after a block committed some of them (the state's txCount advanced) and before
 * the pool removed them, where the next transfer used to be refused NONCE_TOO_LOW.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { TxPool } from '../../actors/mempool/pool';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { genesisState } from '../../src/state/genesis';
import { TxError } from '../../src/state/errors';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';
import { applyAt } from '../timers/harness';

const { genesis, hash } = devnetGenesis();
const sender = privateKeyToAccount(DEVNET_KEYS.accounts[0].privateKey as `0x${string}`);
const to = DEVNET_KEYS.accounts[1].address as `0x${string}`;

async function transfer(nonce: number): Promise<Tx> {
  const raw = await sender.signTransaction({ chainId: genesis.chainId, nonce, to, value: 1n, gas: 21_000n, gasPrice: genesis.fees.gasPriceWei, type: 'legacy' });
  return encodeTx(genesis.chainId, TxKind.EthTx, { raw: hexToBytes(raw) });
}

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    if (err instanceof TxError) return err.code;
    throw err;
  }
  return 'accepted';
}

describe('Ethereum transfer nonces in the pool', () => {
  it('continue past the pending ones, and past the committed ones before the pool has removed them', async () => {
    const state = genesisState(genesis, hash).state;
    const pool = new TxPool({ maxTxs: 100, maxBytes: 1 << 20, maxTxBytes: genesis.consensus.maxTxBytes }, () => state);
    const [t0, t1, t2, t3] = await Promise.all([0, 1, 2, 3].map(transfer));
    expect(refusal(() => pool.add(t1))).toBe('NONCE_TOO_HIGH');
    pool.add(t0);
    pool.add(t1);
    expect(refusal(() => pool.add(t1))).toBe('DUPLICATE_TX');
    expect(refusal(() => pool.add(t3))).toBe('NONCE_TOO_HIGH');
    // A block commits t0 and t1: the state's txCount is 2 while the pool still holds them.
    const r = applyAt(state, genesis.chainId, [t0, t1], genesis.genesisTimeMs + 1000);
    expect(r.receipts.map((x) => x.status)).toEqual(['ok', 'ok']);
    expect(state.account(sender.address.toLowerCase() as never).txCount).toBe(2);
    expect(refusal(() => pool.add(t0))).not.toBe('accepted');
    pool.add(t2);
    // The pool removes the committed ones; the sequence goes on from the pending t2.
    pool.removeCommitted([bytesToHex(t0.hash), bytesToHex(t1.hash)]);
    pool.add(t3);
    pool.removeCommitted([bytesToHex(t2.hash), bytesToHex(t3.hash)]);
    // Nothing pending: the state's txCount (2, t2 and t3 never committed) is the next nonce again.
    expect(refusal(() => pool.add(t3))).toBe('NONCE_TOO_HIGH');
    expect(refusal(() => pool.add(t2))).toBe('accepted');
  });
});
