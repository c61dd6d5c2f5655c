/**
 * The set that signs each height follows the executed state (issue 20): a candidate
 * registered in block 1 is seated by the epoch boundary at block 5 and signs from block
 * 6. The Chain knows the head's set and the next one (also after a restart); the
 * consensus app draws a block's proposer from its height's set and checks its lastCommit
 * against the parent's; block sync checks each block against its own height's set, so
 * it takes an honest chain across the change and refuses a commit that only the old set
 * would have accepted. Real chains on disk, real signatures, real execution.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockHash, canonicalCommit, encodeBlock, type Block, type Commit } from '../../src/codec/block';
import { Chain } from '../../src/chain/chain';
import { ChainConsensusApp } from '../../src/chain/consensus-app';
import { applySyncResponse, checkSyncResponse, decodeSyncResponse, serveSync } from '../../src/chain/sync';
import { voteSigningHash } from '../../src/consensus/messages';
import { Secp256k1Signer, secp256k1Verifier } from '../../src/consensus/signer';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { genesisHash } from '../../src/genesis/load';
import type { Address } from '../../src/util/bytes';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { tempDir } from '../helpers/devnet';
import { approve, CANDIDATES, DEVNET_KEYS, EPOCH, register, T0, testGenesis, TOKEN } from '../validators/harness';

const genesis = testGenesis();
const gHash = genesisHash(genesis);
const alice = CANDIDATES[0];
/** The four genesis validators' keys, then alice's (seated at the boundary of block 5). */
const keys = new Map<Address, Secp256k1Signer>([
  ...DEVNET_KEYS.validators.slice(0, 4).map((v) => [v.address.toLowerCase() as Address, new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey))] as const),
  [alice.address, new Secp256k1Signer(alice.privateKey)],
]);
/** Their VRF keys: whoever is drawn proves the block. */
const vrfKeys = new Map<Address, Uint8Array>([
  ...DEVNET_KEYS.validators.slice(0, 4).map((v) => [v.address.toLowerCase() as Address, hexToBytes(v.vrfPrivateKey)] as const),
  [alice.address, alice.vrfPrivateKey],
]);
const GENESIS_SET = ValidatorSet.fromGenesis(genesis.validators);
const HEAD = 8;

const dirs = [tempDir('exchain-sets-'), tempDir('exchain-sets-'), tempDir('exchain-sets-')];
let server: Chain;
const commits: Commit[] = [];

/** A commit of `block` signed by `who` (addresses). */
function commitBy(block: Block, who: readonly Address[]): Commit {
  const h = block.header;
  const hash = blockHash(h);
  const signatures = who.map((validator) => ({
    validator,
    signature: keys.get(validator)!.sign(voteSigningHash(genesis.chainId, { type: 'precommit', height: h.height, round: 0, blockHash: hash })),
  }));
  return canonicalCommit({ height: h.height, round: 0, blockHash: hash, signatures });
}

function nextBlock(chain: Chain, lastCommit: Commit | null, over: { proposer?: Address; round?: number; txs?: Uint8Array[] } = {}): Block {
  const height = chain.height + 1;
  const round = over.round ?? 0;
  const proposer = over.proposer ?? chain.validatorsAt(height).proposer(height, round, chain.seed).address;
  return chain.buildBlock({ txs: over.txs ?? [], timestampMs: T0 + height * 1000, proposer, round, lastCommit, vrfKey: vrfKeys.get(proposer)! });
}

const members = (set: ValidatorSet) => set.validators.map((v) => v.address);
const genesisThree = members(GENESIS_SET).slice(0, 3);

beforeAll(async () => {
  // The serving chain: alice registers in block 1 with 50,000 tokens; every block is
  // committed by every member of its height's set.
  server = await Chain.open({ dataDir: dirs[0].path, genesis, genesisHash: gHash, syncWrites: false });
  for (let h = 1; h <= HEAD; h++) {
    const txs = h === 1 ? [approve(alice.address).bytes, register(alice, { bond: 50_000n * TOKEN }).bytes] : [];
    const block = nextBlock(server, commits.at(-1) ?? null, { txs });
    const commit = commitBy(block, members(server.validatorsAt(h)));
    await server.commit(block, commit);
    commits.push(commit);
  }
});
afterAll(async () => {
  await server.close();
  for (const d of dirs) d.remove();
});

describe('the validator set of each height', () => {
  it('the Chain holds the head’s set and the next one, from the state, and keeps the head’s across a restart', async () => {
    const chain = await Chain.open({ dataDir: dirs[1].path, genesis, genesisHash: gHash, syncWrites: false });
    try {
      expect(chain.validatorsAt(1)).toEqual(GENESIS_SET);
      for (let h = 1; h <= EPOCH; h++) {
        const block = nextBlock(chain, h === 1 ? null : commits[h - 2], { txs: h === 1 ? [approve(alice.address).bytes, register(alice, { bond: 50_000n * TOKEN }).bytes] : [] });
        await chain.commit(block, commits[h - 1]);
      }
      // Block 5 was signed by the genesis set; block 6 is signed by the set the boundary fixed.
      expect(members(chain.validatorsAt(EPOCH))).toEqual(members(GENESIS_SET));
      const seated = chain.validatorsAt(EPOCH + 1);
      expect(seated.has(alice.address)).toBe(true);
      expect(seated.size).toBe(5);
      // Five members share at most a fifth each (decision 158): alice's 50,000 comes down to the others' 10,000.
      expect(seated.powerOf(alice.address)).toBe(10_000n * TOKEN);
      expect(seated.totalPower).toBe(50_000n * TOKEN);
      expect(() => chain.validatorsAt(EPOCH - 1)).toThrow(/not known/);
    } finally {
      await chain.close();
    }
    const reopened = await Chain.open({ dataDir: dirs[1].path, genesis, genesisHash: gHash, syncWrites: false });
    try {
      expect(members(reopened.validatorsAt(EPOCH))).toEqual(members(GENESIS_SET));
      expect(reopened.validatorsAt(EPOCH).totalPower).toBe(GENESIS_SET.totalPower);
      expect(reopened.validatorsAt(EPOCH + 1).has(alice.address)).toBe(true);
    } finally {
      await reopened.close();
    }
  });

  it('the app draws the proposer from the block’s height’s set and checks its lastCommit against the parent’s', async () => {
    const chain = await Chain.open({ dataDir: dirs[1].path, genesis, genesisHash: gHash, syncWrites: false });
    try {
      expect(chain.height).toBe(EPOCH);
      const app = new ChainConsensusApp(() => chain, { validators: (h) => chain.validatorsAt(h), verifier: secp256k1Verifier, vrfKeyOf: chain.vrfKeyOf, requestBlock: () => undefined, now: Date.now });
      const height = EPOCH + 1;
      const seed = chain.seed;
      const newSet = chain.validatorsAt(height);
      // A round whose proposer under the genesis set differs from the one the new set draws.
      const round = [...Array(16).keys()].find((r) => GENESIS_SET.proposer(height, r, seed).address !== newSet.proposer(height, r, seed).address)!;
      expect(round).toBeDefined();
      // The lastCommit of block 5 by three genesis validators: 30,000 of block 5's 40,000
      // (a quorum there), though only 30,000 of the 53,500 of the set that signs block 6.
      const lastCommit = commitBy((await chain.store.getBlock(EPOCH))!, genesisThree);
      const drawn = nextBlock(chain, lastCommit, { round });
      expect(app.validate(encodeBlock(drawn))?.hash).toEqual(blockHash(drawn.header));
      // The proposer the old (genesis) set would have drawn for that round: refused.
      const stale = nextBlock(chain, lastCommit, { round, proposer: GENESIS_SET.proposer(height, round, seed).address });
      expect(app.validate(encodeBlock(stale))).toBeNull();
      // The lastCommit of block 5 signed with alice, who was not in block 5's set: refused.
      const withAlice = nextBlock(chain, commitBy((await chain.store.getBlock(EPOCH))!, [...genesisThree, alice.address]), { round });
      expect(app.validate(encodeBlock(withAlice))).toBeNull();
    } finally {
      await chain.close();
    }
  });

  it('block sync checks each block against its own height’s set: an honest chain across the change is taken, a commit of the old set where the new one applies is refused', async () => {
    const max = genesis.consensus.maxBlockBytes;
    const honest = decodeSyncResponse(await serveSync(server.store, server.height, { fromHeight: 1, maxBlocks: HEAD }), max);
    // One set for every height (the genesis one) cannot take it: block 6 is signed by alice too.
    expect(checkSyncResponse(genesis.chainId, GENESIS_SET, secp256k1Verifier, 1, honest).refused).toMatch(/^block 6: .*not a validator/);

    const follower = await Chain.open({ dataDir: dirs[2].path, genesis, genesisHash: gHash, syncWrites: false });
    try {
      const apply = async (b: { block: Block; commit: Commit }) => {
        await follower.commit(b.block, b.commit);
      };
      // A peer whose blocks carry commits of three genesis validators: a quorum of the
      // genesis set (blocks 1-5), not of the set that signs block 6.
      const weak = { ...honest, blocks: honest.blocks.map((b) => ({ ...b, commit: commitBy(b.block, genesisThree) })) };
      const refused = await applySyncResponse(genesis.chainId, (h) => follower.validatorsAt(h), secp256k1Verifier, 1, weak, apply);
      expect(refused.applied).toBe(EPOCH);
      expect(refused.refused).toMatch(/^block 6: .*less than 2\/3/);
      expect(follower.height).toBe(EPOCH);
      // The honest peer's answer from there on is taken, each block checked against its own set.
      const rest = decodeSyncResponse(await serveSync(server.store, server.height, { fromHeight: EPOCH + 1, maxBlocks: HEAD }), max);
      expect(await applySyncResponse(genesis.chainId, (h) => follower.validatorsAt(h), secp256k1Verifier, EPOCH + 1, rest, apply)).toEqual({ applied: HEAD - EPOCH, refused: null });
      expect(follower.height).toBe(HEAD);
      expect(bytesToHex(follower.stateRoot)).toBe(bytesToHex(server.stateRoot));
      expect(follower.validatorsAt(HEAD + 1).has(alice.address)).toBe(true);
    } finally {
      await follower.close();
    }
  });
});
