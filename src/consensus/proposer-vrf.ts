/**
 * The VRF seed chain of the proposer draw (issue 20 item 5, decision 70). Pure: no I/O.
 *
 *   seed(0)  = keccak256("exchange-chain/vrf-seed/genesis/v1" | genesis hash)
 *   alpha(h) = "exchange-chain/proposer-vrf/v1" | u32 chainId | u64 h | seed(h - 1)
 *   block h carries pi_h = ECVRF_prove(proposer's VRF key, alpha(h))   (RFC 9381, src/crypto/vrf.ts)
 *   seed(h)  = keccak256("exchange-chain/vrf-seed/v1" | beta(pi_h))    beta = ECVRF_proof_to_hash
 *
 * and the proposer of (h, round) is ValidatorSet.proposer(h, round, seed(h - 1)). Every
 * node checks pi_h against the proposer's registered VRF public key and the alpha it
 * computes itself (`checkProposerProof`) before it accepts block h; the seed is derived
 * from beta, never from the bytes of pi, which are not unique (decision 67).
 *
 * The round is not in alpha: a validator has exactly one possible output per height,
 * whichever round it proposes in, so it cannot try several by letting rounds fail.
 *
 * The VRF itself is a `VrfScheme`: ECVRF (`ECVRF`) on every node; the simulator swaps in
 * a cheap stand-in for its many thousands of blocks, as it does for signatures
 * (sim/fast-vrf.ts), and runs the real one with `--crypto real`.
 */
import { Writer } from '../codec/binary';
import { VRF_PROOF_LENGTH, type BlockHeader } from '../codec/block';
import { keccak256 } from '../crypto/keccak';
import { vrfProofToHash, vrfProve, vrfVerify } from '../crypto/vrf';
import type { Address } from '../util/bytes';

export const SEED_BYTES = 32;
const GENESIS_SEED_DOMAIN = 'exchange-chain/vrf-seed/genesis/v1';
const SEED_DOMAIN = 'exchange-chain/vrf-seed/v1';
const ALPHA_DOMAIN = 'exchange-chain/proposer-vrf/v1';

/** A verifiable random function with RFC 9381's interface (proofs of VRF_PROOF_LENGTH bytes). */
export interface VrfScheme {
  /** The proof of `alpha` under the 32-byte secret seed. */
  prove(secretSeed: Uint8Array, alpha: Uint8Array): Uint8Array;
  /** The output beta if `proof` proves `alpha` under `publicKey`, else null. Never throws. */
  verify(publicKey: Uint8Array, alpha: Uint8Array, proof: Uint8Array): Uint8Array | null;
  /** The output beta of a proof already verified (or one's own). */
  proofToHash(proof: Uint8Array): Uint8Array;
}

/** ECVRF-EDWARDS25519-SHA512-TAI (src/crypto/vrf.ts): what every node runs. */
export const ECVRF: VrfScheme = Object.freeze({ prove: vrfProve, verify: vrfVerify, proofToHash: vrfProofToHash });

/** A validator's 32-byte VRF public key, or null when the address has none on record. */
export type VrfKeyOf = (validator: Address) => Uint8Array | null;

/** seed(0): the draw of height 1, from the genesis hash. */
export function genesisSeed(genesisHash: Uint8Array): Uint8Array {
  return keccak256(new Writer(80).string(GENESIS_SEED_DOMAIN).fixed(genesisHash, 32).finish());
}

/** alpha(h): what the proposer of `height` proves, over the seed of `height - 1`. */
export function proposerAlpha(chainId: number, height: number, prevSeed: Uint8Array): Uint8Array {
  return new Writer(96).string(ALPHA_DOMAIN).u32(chainId).u64(height).fixed(prevSeed, SEED_BYTES).finish();
}

/** seed(h) from the VRF output beta of block h's proof. */
export function seedOfOutput(beta: Uint8Array): Uint8Array {
  return keccak256(new Writer(96).string(SEED_DOMAIN).bytes(beta).finish());
}

/** seed(h) from block h's proof, which consensus or block sync has already checked. */
export function seedOfProof(vrf: VrfScheme, proof: Uint8Array): Uint8Array {
  return seedOfOutput(vrf.proofToHash(proof));
}

/** The proof the proposer of `height` puts in its block. */
export function proveProposer(vrf: VrfScheme, secretSeed: Uint8Array, chainId: number, height: number, prevSeed: Uint8Array): Uint8Array {
  return vrf.prove(secretSeed, proposerAlpha(chainId, height, prevSeed));
}

/**
 * null when `header`'s VRF proof proves alpha(header.height) over `prevSeed` under its
 * proposer's VRF key; otherwise why not. The header's chain id is the one in alpha: the
 * caller has checked it is its own chain's.
 */
export function checkProposerProof(vrf: VrfScheme, keyOf: VrfKeyOf, header: BlockHeader, prevSeed: Uint8Array): string | null {
  if (header.vrfProof.length !== VRF_PROOF_LENGTH) return `VRF proof of ${header.vrfProof.length} bytes`;
  const key = keyOf(header.proposer);
  if (key === null) return `proposer ${header.proposer} has no VRF key on record`;
  const beta = vrf.verify(key, proposerAlpha(header.chainId, header.height, prevSeed), header.vrfProof);
  return beta === null ? `VRF proof of block ${header.height} does not verify under ${header.proposer}'s key over the previous seed` : null;
}
