/**
 * The VRF seed chain of the proposer draw (src/consensus/proposer-vrf.ts, decision 70):
 * its definition, what alpha binds, which proofs checkProposerProof refuses, and that the
 * draw follows the seed.
 */
import { describe, expect, it } from 'vitest';
import { Writer } from '../../src/codec/binary';
import type { BlockHeader } from '../../src/codec/block';
import { checkProposerProof, ECVRF, genesisSeed, proposerAlpha, proveProposer, seedOfOutput, seedOfProof, type VrfKeyOf } from '../../src/consensus/proposer-vrf';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { keccak256 } from '../../src/crypto/keccak';
import { vrfProofToHash, vrfPublicKey, vrfVerify } from '../../src/crypto/vrf';
import type { Address } from '../../src/util/bytes';
import { devnetGenesis, devnetVrfKey } from '../helpers/devnet';

const { genesis, hash } = devnetGenesis(6);
const validators = ValidatorSet.fromGenesis(genesis.validators);
const keyOf: VrfKeyOf = (a) => {
  const i = genesis.validators.findIndex((v) => v.address === a);
  return i < 0 ? null : vrfPublicKey(devnetVrfKey(i));
};
const secretOf = (a: Address) => devnetVrfKey(genesis.validators.findIndex((v) => v.address === a));

/** A header of `height` by `proposer` carrying `vrfProof` (the other fields do not enter the check). */
function header(height: number, proposer: Address, vrfProof: Uint8Array, chainId = genesis.chainId): BlockHeader {
  const z = new Uint8Array(32);
  return { chainId, height, timestampMs: 1, round: 0, parentHash: z, parentStateRoot: z, validatorsHash: z, proposer, vrfProof, txRoot: z, txCount: 0, lastCommitHash: z };
}

// Shows contract [D-validators-vrf].
describe('the VRF seed chain', () => {
  it('is the documented definition, and the same for everyone who follows the same blocks', () => {
    const seed0 = genesisSeed(hash);
    expect(seed0).toEqual(keccak256(new Writer(80).string('exchange-chain/vrf-seed/genesis/v1').fixed(hash, 32).finish()));
    expect(seed0).not.toEqual(hash);
    expect(proposerAlpha(genesis.chainId, 1, seed0)).toEqual(
      new Writer(96).string('exchange-chain/proposer-vrf/v1').u32(genesis.chainId).u64(1).fixed(seed0, 32).finish(),
    );
    // Five heights, each proposed by the validator the previous seed draws: a second
    // "node" recomputing from the proofs alone gets the same seeds and proposers.
    const seeds = [seed0];
    const proofs: Uint8Array[] = [];
    for (let h = 1; h <= 5; h++) {
      const proposer = validators.proposer(h, 0, seeds[h - 1]).address;
      const proof = proveProposer(ECVRF, secretOf(proposer), genesis.chainId, h, seeds[h - 1]);
      proofs.push(proof);
      const beta = vrfVerify(keyOf(proposer)!, proposerAlpha(genesis.chainId, h, seeds[h - 1]), proof)!;
      expect(beta).not.toBeNull();
      seeds.push(seedOfOutput(beta));
      expect(seedOfProof(ECVRF, proof)).toEqual(seeds[h]);
      expect(seeds[h]).toEqual(keccak256(new Writer(96).string('exchange-chain/vrf-seed/v1').bytes(vrfProofToHash(proof)).finish()));
    }
    let seed = genesisSeed(hash);
    for (const [i, proof] of proofs.entries()) {
      const h = i + 1;
      expect(checkProposerProof(ECVRF, keyOf, header(h, validators.proposer(h, 0, seed).address, proof), seed)).toBeNull();
      seed = seedOfProof(ECVRF, proof);
      expect(seed).toEqual(seeds[h]);
    }
    expect(new Set(seeds.map((s) => Buffer.from(s).toString('hex'))).size).toBe(6);
  });

  it('refuses a bad proof, a proof by another key, over another seed, height or chain, a missing proof, and an unknown proposer', () => {
    const seed = genesisSeed(hash);
    const proposer = validators.proposer(1, 0, seed).address;
    const other = validators.validators.find((v) => v.address !== proposer)!.address;
    const good = proveProposer(ECVRF, secretOf(proposer), genesis.chainId, 1, seed);
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, good), seed)).toBeNull();
    const flipped = good.slice();
    flipped[40] ^= 1;
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, flipped), seed)).toMatch(/does not verify/);
    // Another validator's key, claimed as the proposer's; and the other validator's own proof under its name is fine.
    const byOther = proveProposer(ECVRF, secretOf(other), genesis.chainId, 1, seed);
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, byOther), seed)).toMatch(/does not verify/);
    expect(checkProposerProof(ECVRF, keyOf, header(1, other, byOther), seed)).toBeNull();
    // Over another seed (the block hash, as the draw used to be seeded), height or chain.
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, proveProposer(ECVRF, secretOf(proposer), genesis.chainId, 1, hash)), seed)).toMatch(/does not verify/);
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, good), hash)).toMatch(/does not verify/);
    expect(checkProposerProof(ECVRF, keyOf, header(2, proposer, good), seed)).toMatch(/does not verify/);
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, good, genesis.chainId + 1), seed)).toMatch(/does not verify/);
    // Missing: no bytes, or 80 zero bytes.
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, new Uint8Array(0)), seed)).toMatch(/0 bytes/);
    expect(checkProposerProof(ECVRF, keyOf, header(1, proposer, new Uint8Array(80)), seed)).toMatch(/does not verify/);
    // A proposer without a VRF key on record.
    const stranger = '0x00000000000000000000000000000000000000aa' as Address;
    expect(checkProposerProof(ECVRF, keyOf, header(1, stranger, good), seed)).toMatch(/no VRF key/);
  });

  it('the proposer draw follows the seed: the VRF seed and the block hash draw different orders', () => {
    const seed0 = genesisSeed(hash);
    const byVrf = validators.proposerOrder(1, seed0).map((v) => v.address);
    const byHash = validators.proposerOrder(1, hash).map((v) => v.address);
    expect(new Set(byVrf).size).toBe(6);
    expect(byVrf).not.toEqual(byHash);
    // The devnet's height-1 order, pinned: a change here is a consensus change.
    const index = (a: Address) => genesis.validators.findIndex((v) => v.address === a) + 1;
    expect(byVrf.map(index)).toEqual(DEVNET_HEIGHT_1_ORDER);
    expect(byHash.map(index)).toEqual(DEVNET_HEIGHT_1_ORDER_BY_HASH);
  });
});

/** Devnet validators (1-based, genesis order) in the proposer order of height 1 under seed(0) (docs/consensus.md). */
const DEVNET_HEIGHT_1_ORDER = [2, 6, 3, 5, 1, 4];
/** The same under the genesis hash, the seed before decision 70. */
const DEVNET_HEIGHT_1_ORDER_BY_HASH = [1, 6, 3, 2, 4, 5];
