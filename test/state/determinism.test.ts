/**
 * Two independent node instances (separate LevelDB folders, separate memory) fed the
 * same blocks must reach the same state root at every height, including blocks with
 * failing transactions; and a reopened instance resumes with the same root.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalCommit, type Block, type Commit } from '../../src/codec/block';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signFaucet } from '../../src/codec/txs/faucet';
import { Chain } from '../../src/chain/chain';
import { InvariantError } from '../../src/state/state';
import { bytesToHex, hexToBytes, type Address } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../helpers/devnet';

const { genesis, hash } = devnetGenesis(1);
const faucetKey = hexToBytes(DEVNET_KEYS.faucet.privateKey);
const proposer = DEVNET_KEYS.validators[0].address;
const vrfKey = devnetVrfKey(0);
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function openChain(): Promise<{ chain: Chain; dir: string }> {
  const dir = tempDir();
  const chain = await Chain.open({ dataDir: dir.path, genesis, genesisHash: hash, syncWrites: false });
  cleanups.push(() => dir.remove());
  cleanups.push(() => closeIfOpen(chain));
  return { chain, dir: dir.path };
}

/** Tests close chains themselves to reopen them; cleanup closes whatever is still open. */
async function closeIfOpen(chain: Chain): Promise<void> {
  if (chain.store.db.status === 'open') await chain.close();
}

function faucetTx(to: Address, usdc: bigint, nonce: bigint, key = faucetKey): Uint8Array {
  return encodeTx(genesis.chainId, TxKind.Faucet, signFaucet(genesis.chainId, { to, usdc, nativeWei: 0n, nonce }, key)).bytes;
}

const fakeCommit = (b: Block): Commit => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });

// A random tx stream over a few addresses: valid credits, over-limit credits (fail in
// execution), replayed nonces (fail), and a foreign signer (fails: not the faucet).
const txArb = fc.record({
  to: fc.constantFrom(...DEVNET_KEYS.accounts.slice(0, 4).map((a) => a.address)),
  usdc: fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 11n }), fc.constant(2n * 10n ** 12n)),
  nonce: fc.bigInt({ min: 1n, max: 300n }),
  foreign: fc.boolean(),
});

describe('deterministic state transition', () => {
  // Shows contract [D-envelope-bigint].
  it('two independent instances reach the same state root at every height; a reopened one resumes with it', async () => {
    const blocksArb = fc.array(fc.array(txArb, { maxLength: 6 }), { minLength: 5, maxLength: 15 });
    const stream = fc.sample(blocksArb, { numRuns: 1, seed: 42 })[0];
    const a = await openChain();
    const b = await openChain();
    expect(a.chain.stateRoot).toEqual(b.chain.stateRoot);
    const roots: string[] = [];
    let time = genesis.genesisTimeMs;
    let failures = 0;
    for (const txSpecs of stream) {
      const txs = txSpecs.map((t) => faucetTx(t.to, t.usdc, t.nonce, t.foreign ? hexToBytes(DEVNET_KEYS.accounts[9].privateKey) : faucetKey));
      time += 22;
      const block = a.chain.buildBlock({ txs, timestampMs: time, proposer, lastCommit: null, vrfKey });
      const ra = await a.chain.commit(block, fakeCommit(block));
      const rb = await b.chain.commit(block, fakeCommit(block));
      failures += ra.receipts.filter((r) => r.status === 'failed').length;
      expect(bytesToHex(rb.stateRoot)).toBe(bytesToHex(ra.stateRoot));
      expect(rb.receipts).toEqual(ra.receipts);
      roots.push(bytesToHex(ra.stateRoot));
    }
    expect(failures).toBeGreaterThan(0); // the stream did exercise rollbacks
    expect(new Set(roots).size).toBe(roots.length); // every block changed the state (its head at least)

    // Reopen instance A from disk: same height, same root.
    const height = a.chain.height;
    await a.chain.close();
    const reopened = await Chain.open({ dataDir: a.dir, genesis, genesisHash: hash });
    cleanups.push(() => closeIfOpen(reopened));
    expect(reopened.height).toBe(height);
    expect(bytesToHex(reopened.stateRoot)).toBe(roots.at(-1));
  });

  // Shows contract [D-nonces-inclusion].
  it('a failing transaction changes nothing but its nonce; an included replay fails with NONCE_USED', async () => {
    const { chain } = await openChain();
    const to = DEVNET_KEYS.accounts[1].address;
    const before = chain.state.account(to);
    const over = genesis.faucet!.maxUsdcPerAddress + 1n;
    let block = chain.buildBlock({ txs: [faucetTx(to, over, 7n)], timestampMs: genesis.genesisTimeMs + 1, proposer, lastCommit: null, vrfKey });
    let r = await chain.commit(block, fakeCommit(block));
    expect(r.receipts[0]).toMatchObject({ status: 'failed', code: 'INVALID_AMOUNT' });
    expect(chain.state.account(to)).toEqual(before);
    expect(chain.state.faucetClaims.get(to)).toBeUndefined();
    expect(chain.state.nonces.get(DEVNET_KEYS.faucet.address)).toEqual([7n]);

    block = chain.buildBlock({ txs: [faucetTx(to, 5n, 8n), faucetTx(to, 6n, 8n)], timestampMs: genesis.genesisTimeMs + 2, proposer, lastCommit: null, vrfKey });
    r = await chain.commit(block, fakeCommit(block));
    expect(r.receipts.map((x) => x.status)).toEqual(['ok', 'failed']);
    expect(r.receipts[1].code).toBe('NONCE_USED');
    expect(chain.state.account(to).usdcFree).toBe(before.usdcFree + 5n);
  });

  it('a block whose parent state root differs from this node\'s halts with a clear message', async () => {
    const a = await openChain();
    const b = await openChain();
    // A diverges: it applies a block B never sees.
    const block1 = a.chain.buildBlock({ txs: [faucetTx(DEVNET_KEYS.accounts[2].address, 1n, 1n)], timestampMs: genesis.genesisTimeMs + 1, proposer, lastCommit: null, vrfKey });
    await a.chain.commit(block1, fakeCommit(block1));
    const block1b = b.chain.buildBlock({ txs: [], timestampMs: genesis.genesisTimeMs + 1, proposer, lastCommit: null, vrfKey });
    await b.chain.commit(block1b, fakeCommit(block1b));
    const block2 = a.chain.buildBlock({ txs: [], timestampMs: genesis.genesisTimeMs + 2, proposer, lastCommit: null, vrfKey });
    // Same height, but B's parent is block1b: rejected before any state is touched.
    await expect(b.chain.commit(block2, fakeCommit(block2))).rejects.toThrow(InvariantError);
    const forged = { ...block2, header: { ...block2.header, parentHash: b.chain.lastBlockHash } };
    await expect(b.chain.commit(forged, fakeCommit(forged))).rejects.toThrow(/expects parent state root/);
  });

  it('refuses to open a data folder of another genesis', async () => {
    const { chain, dir } = await openChain();
    await chain.close();
    const other = devnetGenesis(2);
    await expect(Chain.open({ dataDir: dir, genesis: other.genesis, genesisHash: other.hash })).rejects.toThrow(/belongs to genesis/);
  });
});
