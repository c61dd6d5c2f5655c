/**
 * The nonce rule (src/state/accounts/nonces.ts; decision 97; docs/api.md "Nonces"): above the
 * smallest of the signer's (up to) 100 highest accepted nonces, never seen, and a
 * millisecond timestamp within (block time − 2 days, block time + 1 day). Driven through
 * real blocks of a real chain (faucet transactions, whose signer is the faucet), so the
 * block time execution passes is the one judged.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalCommit, type Block, type Commit } from '../../src/codec/block';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signFaucet } from '../../src/codec/txs/faucet';
import { Chain } from '../../src/chain/chain';
import { NONCE_MAX_AGE_MS, NONCE_MAX_AHEAD_MS, nonceRefusal, TIMESTAMP_NONCE_MIN } from '../../src/state/accounts/nonces';
import { hexToBytes } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../helpers/devnet';

const { genesis, hash } = devnetGenesis(1);
const faucetKey = hexToBytes(DEVNET_KEYS.faucet.privateKey);
const faucet = DEVNET_KEYS.faucet.address;
const proposer = DEVNET_KEYS.validators[0].address;
const vrfKey = devnetVrfKey(0);
const to = DEVNET_KEYS.accounts[1].address;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const fakeCommit = (b: Block): Commit => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });

async function openChain(): Promise<Chain> {
  const dir = tempDir();
  const chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: false });
  cleanups.push(() => dir.remove());
  cleanups.push(() => chain.close());
  return chain;
}

/** Commits one block at `timeMs` holding one faucet credit per nonce; the receipts' codes (undefined: the nonce passed). */
async function nonces(chain: Chain, timeMs: number, list: bigint[]): Promise<(string | undefined)[]> {
  const txs = list.map((nonce) => encodeTx(genesis.chainId, TxKind.Faucet, signFaucet(genesis.chainId, { to, usdc: 1n, nativeWei: 0n, nonce }, faucetKey)).bytes);
  const block = chain.buildBlock({ txs, timestampMs: timeMs, proposer, lastCommit: null, vrfKey });
  const r = await chain.commit(block, fakeCommit(block));
  // A nonce that passed is consumed whatever the credit's outcome; only the nonce codes matter here.
  return r.receipts.map((x) => (x.code?.startsWith('NONCE_') ? x.code : undefined));
}

const T0 = genesis.genesisTimeMs;

// Shows contract [D-nonces-window], [D-nonces-used].
describe('nonces (decision 97)', () => {
  it('counters then a timestamp pass (small then large); a counter after the timestamp alone is refused (large then small)', async () => {
    const chain = await openChain();
    const ts = BigInt(T0 + 1);
    expect(await nonces(chain, T0 + 1, [1n, 2n, 3n, ts])).toEqual([undefined, undefined, undefined, undefined]);
    // {1, 2, 3, ts}: 4 is above the smallest (1) and new, so it passes, as on Hyperliquid.
    expect(await nonces(chain, T0 + 2, [4n])).toEqual([undefined]);
    const other = await openChain();
    expect(await nonces(other, T0 + 1, [ts, 5n])).toEqual([undefined, 'NONCE_USED']);
  });

  it('with fewer than 100 stored, a nonce at or below the smallest stored is refused (the mend)', async () => {
    const chain = await openChain();
    expect(await nonces(chain, T0 + 1, [10n, 20n])).toEqual([undefined, undefined]);
    expect(await nonces(chain, T0 + 2, [5n, 10n, 20n, 15n, 9n])).toEqual(['NONCE_USED', 'NONCE_USED', 'NONCE_USED', undefined, 'NONCE_USED']);
    expect(chain.state.nonces.get(faucet)).toEqual([10n, 15n, 20n]);
  });

  it('100 stored: the 101st raises the floor to the second smallest', async () => {
    const chain = await openChain();
    const first = Array.from({ length: 100 }, (_, i) => BigInt(i + 1));
    expect((await nonces(chain, T0 + 1, first)).every((c) => c === undefined)).toBe(true);
    expect(await nonces(chain, T0 + 2, [0n, 1n, 200n, 1n, 2n, 150n])).toEqual(['NONCE_USED', 'NONCE_USED', undefined, 'NONCE_USED', 'NONCE_USED', undefined]);
    const set = chain.state.nonces.get(faucet)!;
    expect(set.length).toBe(100);
    expect(set[0]).toBe(3n);
  });

  it('a timestamp nonce must lie within (block time − 2 days, block time + 1 day); counters have no time bound', async () => {
    const chain = await openChain();
    const block = T0 + 5 * 86_400_000;
    const b = BigInt(block);
    expect(await nonces(chain, block, [b - NONCE_MAX_AGE_MS, b + NONCE_MAX_AHEAD_MS, b - NONCE_MAX_AGE_MS + 1n, b + NONCE_MAX_AHEAD_MS - 1n])).toEqual([
      'NONCE_USED',
      'NONCE_TOO_HIGH',
      undefined,
      undefined,
    ]);
    const counters = await openChain();
    expect(await nonces(counters, block, [1n, TIMESTAMP_NONCE_MIN - 1n])).toEqual([undefined, undefined]);
    // 10^12 is a timestamp (September 2001): far outside any block time of this chain.
    expect(await nonces(counters, block + 1, [TIMESTAMP_NONCE_MIN])).toEqual(['NONCE_USED']);
  });

  it('the door asks the same rule at its own time', async () => {
    const chain = await openChain();
    await nonces(chain, T0 + 1, [BigInt(T0)]);
    expect(nonceRefusal(chain.state, faucet, BigInt(T0), T0 + 1)?.code).toBe('NONCE_USED');
    expect(nonceRefusal(chain.state, faucet, BigInt(T0) + 1n, T0 + 1)).toBeUndefined();
    // The same nonce, judged three days later, is too old.
    expect(nonceRefusal(chain.state, faucet, BigInt(T0) + 1n, T0 + 3 * 86_400_000)?.code).toBe('NONCE_USED');
  });
});
