import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CodecError } from '../../src/codec/binary';
import { precommitSigningHash, ZERO_HASH } from '../../src/codec/block';
import {
  decodeMessage,
  decodeProposal,
  decodeVote,
  encodeMessage,
  encodeProposal,
  encodeVote,
  proposalSigningHash,
  voteSigningHash,
  type ConsensusMessage,
} from '../../src/consensus/messages';
import { checkConsensusLimits, CONSENSUS_MESSAGE_OVERHEAD_BYTES, VALIDATORS_MAX, voteCertificateBytesMax } from '../../src/consensus/limits';
import { bytesToHex } from '../../src/util/bytes';
import { CHAIN_ID, fixture, hash, proposal, vote } from './helpers';

const { keys } = fixture([1n, 1n, 1n, 1n]);
const B = hash('B');

describe('signing hashes', () => {
  it('a precommit signs exactly precommitSigningHash of block.ts', () => {
    expect(voteSigningHash(CHAIN_ID, { type: 'precommit', height: 9, round: 3, blockHash: B })).toEqual(precommitSigningHash(CHAIN_ID, 9, 3, B));
    expect(voteSigningHash(CHAIN_ID, { type: 'precommit', height: 9, round: 3, blockHash: null })).toEqual(precommitSigningHash(CHAIN_ID, 9, 3, ZERO_HASH));
  });

  it('is separated by type, chain, height, round, value and polRound', () => {
    const base = { type: 'prevote' as const, height: 9, round: 3, blockHash: B };
    const all = [
      voteSigningHash(CHAIN_ID, base),
      voteSigningHash(CHAIN_ID, { ...base, type: 'precommit' }),
      voteSigningHash(CHAIN_ID + 1, base),
      voteSigningHash(CHAIN_ID, { ...base, height: 10 }),
      voteSigningHash(CHAIN_ID, { ...base, round: 4 }),
      voteSigningHash(CHAIN_ID, { ...base, blockHash: null }),
      proposalSigningHash(CHAIN_ID, { height: 9, round: 3, polRound: -1, blockHash: B }),
      proposalSigningHash(CHAIN_ID, { height: 9, round: 3, polRound: 0, blockHash: B }),
    ].map(bytesToHex);
    expect(new Set(all).size).toBe(all.length);
  });
});

describe('canonical encodings', () => {
  it('round-trips votes, proposals, status and certificates through one envelope', () => {
    const v = vote(keys[0], 'prevote', 3, 1, B);
    const nil = vote(keys[1], 'precommit', 3, 1, null);
    const p = proposal(keys[2], 3, 2, new Uint8Array([1, 2, 3]), 1);
    const commit = { height: 3, round: 1, blockHash: B, signatures: [{ validator: keys[0].address, signature: v.signature }] };
    const messages: ConsensusMessage[] = [
      { kind: 'vote', vote: v },
      { kind: 'vote', vote: nil },
      { kind: 'proposal', proposal: p },
      { kind: 'status', status: { height: 3, round: 2, hasProposal: true, prevotes: Uint8Array.of(5), precommits: Uint8Array.of(0), polRound: 1, polPrevotes: Uint8Array.of(7) } },
      { kind: 'certificate', certificate: { height: 3, block: Uint8Array.of(9, 9), commit } },
      { kind: 'votes', votes: [v, vote(keys[1], 'prevote', 3, 1, null), vote(keys[2], 'prevote', 3, 1, B)] },
    ];
    for (const m of messages) {
      const bytes = encodeMessage(m);
      expect(decodeMessage(bytes)).toEqual(m);
      expect(encodeMessage(decodeMessage(bytes))).toEqual(bytes);
    }
    expect(decodeVote(encodeVote(v))).toEqual(v);
    expect(decodeProposal(encodeProposal(p))).toEqual(p);
  });

  it('rejects trailing bytes, the zero hash as a block, bad polRound, unknown kinds and oversized blocks', () => {
    const v = vote(keys[0], 'prevote', 3, 1, B);
    const bytes = encodeMessage({ kind: 'vote', vote: v });
    expect(() => decodeMessage(Uint8Array.of(...bytes, 0))).toThrow(CodecError);
    expect(() => encodeVote({ ...v, blockHash: new Uint8Array(32) })).toThrow(/zero hash/);
    expect(() => encodeProposal({ ...proposal(keys[0], 3, 1, Uint8Array.of(1)), polRound: 1 })).toThrow(/polRound/);
    expect(() => proposalSigningHash(CHAIN_ID, { height: 1, round: 0, polRound: 0, blockHash: B })).toThrow(/polRound/);
    const badKind = Uint8Array.from(bytes);
    badKind[1] = 9;
    expect(() => decodeMessage(badKind)).toThrow(/kind/);
    const big = encodeMessage({ kind: 'proposal', proposal: proposal(keys[0], 3, 0, new Uint8Array(2048)) });
    expect(() => decodeMessage(big, { maxBlockBytes: 1024 })).toThrow(CodecError);
  });

  it('a vote certificate holds 1 to VALIDATORS_MAX votes of one step, and its largest fits the overhead limit', () => {
    const v = vote(keys[0], 'prevote', 3, 1, B);
    expect(() => encodeMessage({ kind: 'votes', votes: [] })).toThrow(/1 to/);
    for (const other of [vote(keys[1], 'precommit', 3, 1, B), vote(keys[1], 'prevote', 4, 1, B), vote(keys[1], 'prevote', 3, 2, B)]) {
      expect(() => encodeMessage({ kind: 'votes', votes: [v, other] })).toThrow(/differ/);
    }
    // Forged on the wire: a count of zero, and votes of two rounds.
    expect(() => decodeMessage(Uint8Array.of(1, 5, 0, 0))).toThrow(/1 to/);
    const two = encodeMessage({ kind: 'votes', votes: [v, vote(keys[1], 'prevote', 3, 1, B)] });
    const mixed = Uint8Array.from(two);
    const secondRound = 4 + encodeVote(v).length + 1 + 8 + 3; // last byte of the second vote's u32 round
    mixed[secondRound] = 2;
    expect(() => decodeMessage(mixed)).toThrow(/differ/);
    // The largest: one vote per validator, every one for a block.
    const n = 21;
    const full = encodeMessage({ kind: 'votes', votes: Array.from({ length: n }, () => v) });
    expect(full.length).toBe(voteCertificateBytesMax(n));
    // checkConsensusLimits passes sets up to 255 (the next-height buffer binds first); their certificates fit.
    expect(() => checkConsensusLimits({ validators: 255 })).not.toThrow();
    expect(voteCertificateBytesMax(255)).toBeLessThanOrEqual(CONSENSUS_MESSAGE_OVERHEAD_BYTES);
    expect(voteCertificateBytesMax(VALIDATORS_MAX)).toBeGreaterThan(CONSENSUS_MESSAGE_OVERHEAD_BYTES);
  });

  it('property: decode(encode(vote)) = vote for any field values', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('prevote' as const, 'precommit' as const),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.option(fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((h) => h.some((b) => b !== 0))),
        fc.uint8Array({ minLength: 65, maxLength: 65 }),
        (type, height, round, blockHash, signature) => {
          const v = { type, height, round, blockHash, validator: keys[0].address, signature };
          expect(decodeVote(encodeVote(v))).toEqual(v);
        },
      ),
    );
  });
});
