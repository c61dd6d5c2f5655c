/** Shared fixtures: validators with real secp256k1 keys, signed votes and proposals. */
import { keccak256 } from '../../src/crypto/keccak';
import {
  proposalSigningHash,
  voteSigningHash,
  type Proposal,
  type Vote,
  type VoteType,
} from '../../src/consensus/messages';
import { Secp256k1Signer, secp256k1Verifier, type SignatureVerifier } from '../../src/consensus/signer';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { utf8 } from '../../src/util/bytes';

export const CHAIN_ID = 713799;

export function signers(n: number, tag = 'consensus-test'): Secp256k1Signer[] {
  return Array.from({ length: n }, (_, i) => new Secp256k1Signer(keccak256(utf8.encode(`${tag}-${i}`))));
}

/** Validators in the set's (address) order, so index i is validators.at(i). */
export function fixture(powers: bigint[], tag?: string): { set: ValidatorSet; keys: Secp256k1Signer[] } {
  const keys = signers(powers.length, tag);
  const set = new ValidatorSet(keys.map((k, i) => ({ address: k.address, power: powers[i] })));
  keys.sort((a, b) => set.indexOf(a.address) - set.indexOf(b.address));
  return { set, keys: keys.map((k) => k) };
}

export function hash(tag: string): Uint8Array {
  return keccak256(utf8.encode(tag));
}

export function vote(key: Secp256k1Signer, type: VoteType, height: number, round: number, blockHash: Uint8Array | null, chainId = CHAIN_ID): Vote {
  const unsigned = { type, height, round, blockHash, validator: key.address };
  return { ...unsigned, signature: key.sign(voteSigningHash(chainId, unsigned)) };
}

export function proposal(key: Secp256k1Signer, height: number, round: number, block: Uint8Array, polRound = -1, chainId = CHAIN_ID): Proposal {
  const unsigned = { height, round, polRound, blockHash: keccak256(block), block, proposer: key.address };
  return { ...unsigned, signature: key.sign(proposalSigningHash(chainId, unsigned)) };
}

/** Counts verifications, to show each signature is verified once. */
export class CountingVerifier implements SignatureVerifier {
  calls = 0;
  constructor(private readonly inner: SignatureVerifier = secp256k1Verifier) {}
  verify(digest: Uint8Array, signature: Uint8Array, signer: `0x${string}`): boolean {
    this.calls++;
    return this.inner.verify(digest, signature, signer);
  }
}
