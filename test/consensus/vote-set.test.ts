import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCommit, encodeCommit, precommitSigningHash } from '../../src/codec/block';
import { checkEvidence, decodeEvidence, encodeEvidence } from '../../src/consensus/evidence';
import { secp256k1Verifier } from '../../src/consensus/signer';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { MAX_VARIANTS, VoteSet } from '../../src/consensus/vote-set';
import { verifySigner } from '../../src/crypto/secp256k1';
import { CHAIN_ID, CountingVerifier, fixture, hash, vote } from './helpers';

const B = hash('block B');
const C = hash('block C');

describe('quorum arithmetic', () => {
  it('exactly 2/3 is a quorum, less is not', () => {
    const set = new ValidatorSet([
      { address: '0x' + '11'.repeat(20) as `0x${string}`, power: 1n },
      { address: '0x' + '22'.repeat(20) as `0x${string}`, power: 1n },
      { address: '0x' + '33'.repeat(20) as `0x${string}`, power: 1n },
    ]);
    expect(set.hasQuorum(1n)).toBe(false);
    expect(set.hasQuorum(2n)).toBe(true); // 2 of 3 = exactly 2/3
    expect(set.quorumPower).toBe(2n);
  });

  it('6 equal validators: 4 of 6 (exactly 2/3) is a quorum, 3 is not; more than 1/3 is 3', () => {
    const { set } = fixture([10n, 10n, 10n, 10n, 10n, 10n]);
    expect(set.totalPower).toBe(60n);
    expect(set.hasQuorum(39n)).toBe(false);
    expect(set.hasQuorum(40n)).toBe(true);
    expect(set.quorumPower).toBe(40n);
    expect(set.hasOneThird(20n)).toBe(false);
    expect(set.hasOneThird(21n)).toBe(true);
  });

  it('4 and 7 equal validators: the same quorum as strictly more than 2/3 (3 and 5)', () => {
    expect(fixture([1n, 1n, 1n, 1n]).set.quorumPower).toBe(3n);
    expect(fixture([1n, 1n, 1n, 1n, 1n, 1n, 1n]).set.quorumPower).toBe(5n);
  });

  it('property: hasQuorum(p) iff 3p >= 2T, and quorumPower is the least such p; any two quorums overlap in more than any faulty power below 1/3', () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 1n, max: 10n ** 24n }), { minLength: 1, maxLength: 21 }), fc.bigInt({ min: 0n, max: 10n ** 26n }), (powers, p) => {
        const set = new ValidatorSet(powers.map((power, i) => ({ address: `0x${(i + 1).toString(16).padStart(40, '0')}` as `0x${string}`, power })));
        const total = powers.reduce((a, b) => a + b, 0n);
        expect(set.hasQuorum(p)).toBe(3n * p >= 2n * total);
        expect(set.hasQuorum(set.quorumPower)).toBe(true);
        expect(set.hasQuorum(set.quorumPower - 1n)).toBe(false);
        // Two quorums share at least 2q - T; the largest faulty power the model allows is
        // the largest f with 3f < T. The overlap must exceed it.
        const maxFaulty = (total - 1n) / 3n;
        expect(2n * set.quorumPower - total > maxFaulty).toBe(true);
        expect(set.hasOneThird(p)).toBe(3n * p > total);
      }),
    );
  });
});

describe('VoteSet', () => {
  const { set, keys } = fixture([10n, 10n, 10n, 10n, 10n, 10n]);
  const newSet = (type: 'prevote' | 'precommit' = 'prevote', verifier = secp256k1Verifier) => new VoteSet(CHAIN_ID, 5, 2, type, set, verifier);

  it('reports +2/3 for a block from exactly 2/3 of the power on', () => {
    const vs = newSet();
    for (let i = 0; i < 3; i++) expect(vs.add(vote(keys[i], 'prevote', 5, 2, B)).status).toBe('added');
    expect(vs.powerFor(B)).toBe(30n);
    expect(vs.hasTwoThirdsFor(B)).toBe(false);
    expect(vs.hasTwoThirdsAny()).toBe(false);
    expect(vs.twoThirdsMajority()).toBeUndefined();
    vs.add(vote(keys[3], 'prevote', 5, 2, B));
    expect(vs.hasTwoThirdsFor(B)).toBe(true); // 40 of 60: exactly 2/3
    expect(vs.twoThirdsMajority()?.blockHash).toEqual(B);
  });

  it('tallies nil separately and reports +2/3 any across values', () => {
    const vs = newSet();
    vs.add(vote(keys[0], 'prevote', 5, 2, B));
    vs.add(vote(keys[1], 'prevote', 5, 2, C));
    vs.add(vote(keys[2], 'prevote', 5, 2, null));
    expect(vs.hasTwoThirdsAny()).toBe(false);
    vs.add(vote(keys[3], 'prevote', 5, 2, null));
    expect(vs.hasTwoThirdsAny()).toBe(true);
    expect(vs.powerFor(null)).toBe(20n);
    expect(vs.twoThirdsMajority()).toBeUndefined();
    vs.add(vote(keys[4], 'prevote', 5, 2, null));
    expect(vs.powerFor(null)).toBe(30n);
    expect(vs.twoThirdsMajority()).toBeUndefined(); // 3 nil of 6 is half
  });

  it('weighted: a quorum is about power, not heads', () => {
    const w = fixture([70n, 10n, 10n, 10n], 'weighted');
    const big = w.set.validators.findIndex((v) => v.power === 70n);
    const only = new VoteSet(CHAIN_ID, 1, 0, 'precommit', w.set, secp256k1Verifier);
    only.add(vote(w.keys[big], 'precommit', 1, 0, B));
    expect(only.hasTwoThirdsFor(B)).toBe(true); // 70 of 100
  });

  it('verifies each signature once; identical duplicates are dropped unverified', () => {
    const verifier = new CountingVerifier();
    const vs = newSet('prevote', verifier);
    const v = vote(keys[0], 'prevote', 5, 2, B);
    expect(vs.add(v).status).toBe('added');
    expect(vs.add(v).status).toBe('duplicate');
    expect(vs.add({ ...v }).status).toBe('duplicate');
    expect(verifier.calls).toBe(1);
    expect(vs.powerFor(B)).toBe(10n);
  });

  it('refuses bad signatures, strangers, and votes of another (height, round, type)', () => {
    const vs = newSet();
    const good = vote(keys[0], 'prevote', 5, 2, B);
    expect(vs.add({ ...good, blockHash: C }).status).toBe('invalid'); // signature over B
    expect(vs.add(vote(fixture([1n], 'stranger').keys[0], 'prevote', 5, 2, B)).status).toBe('invalid');
    expect(vs.add(vote(keys[0], 'prevote', 5, 3, B)).status).toBe('invalid');
    expect(vs.add(vote(keys[0], 'precommit', 5, 2, B)).status).toBe('invalid');
    expect(vs.add(vote(keys[0], 'prevote', 5, 2, B, CHAIN_ID + 1)).status).toBe('invalid'); // other chain
    expect(vs.count).toBe(0);
  });

  it('a double vote gives evidence once and is not counted twice towards +2/3 any', () => {
    const vs = newSet('precommit');
    const first = vote(keys[0], 'precommit', 5, 2, B);
    const second = vote(keys[0], 'precommit', 5, 2, C);
    expect(vs.add(first).status).toBe('added');
    const res = vs.add(second);
    expect(res.status).toBe('conflict');
    if (res.status !== 'conflict' || res.evidence === undefined) throw new Error('expected evidence');
    expect(res.evidence.voteA.validator).toBe(keys[0].address);
    expect(checkEvidence(CHAIN_ID, set, secp256k1Verifier, res.evidence)).toBeNull();
    expect(decodeEvidence(encodeEvidence(res.evidence))).toEqual(res.evidence);
    expect(vs.power).toBe(10n); // one validator, counted once
    expect(vs.count).toBe(1);
    const third = vote(keys[0], 'precommit', 5, 2, null);
    const again = vs.add(third);
    expect(again.status === 'conflict' && again.evidence === undefined).toBe(true); // reported once
    expect(vs.add(second).status).toBe('duplicate');
  });

  it('a double voter is not counted twice for +2/3 any, but its signature for B still proves B', () => {
    const vs = newSet('precommit');
    vs.add(vote(keys[0], 'precommit', 5, 2, C)); // the equivocator's first vote
    for (let i = 1; i < 4; i++) vs.add(vote(keys[i], 'precommit', 5, 2, B));
    expect(vs.hasTwoThirdsFor(B)).toBe(false); // 30: three honest are half
    expect(vs.add(vote(keys[0], 'precommit', 5, 2, B)).status).toBe('conflict');
    expect(vs.power).toBe(40n); // 4 validators once each
    expect(vs.hasTwoThirdsFor(B)).toBe(true); // 4 signatures for B
    const commit = vs.makeCommit(B);
    expect(commit?.signatures.length).toBe(4);
  });

  it('bounds what an equivocator can make it hold, but keeps its votes for values that matter', () => {
    const verifier = new CountingVerifier();
    const vs = newSet('prevote', verifier);
    for (let i = 0; i < MAX_VARIANTS + 5; i++) vs.add(vote(keys[0], 'prevote', 5, 2, hash(`x${i}`)));
    expect(vs.votes().length).toBe(MAX_VARIANTS);
    expect(verifier.calls).toBe(MAX_VARIANTS);
    // Past the bound, a vote for a value someone else voted for still counts...
    vs.add(vote(keys[1], 'prevote', 5, 2, B));
    expect(vs.add(vote(keys[0], 'prevote', 5, 2, B)).status).toBe('conflict');
    expect(vs.hasVoteFor(0, B)).toBe(true);
    // ...and so does one for a value a proof-of-lock claims, even before anyone else's vote.
    expect(vs.add(vote(keys[0], 'prevote', 5, 2, C)).status).toBe('duplicate');
    expect(vs.claim(C)).toBe(true);
    expect(vs.add(vote(keys[0], 'prevote', 5, 2, C)).status).toBe('conflict');
    expect(vs.powerFor(C)).toBe(10n);
  });

  it('turns +2/3 precommits into a canonical Commit that block.ts carries and verifies', () => {
    const vs = newSet('precommit');
    for (const i of [4, 2, 0, 3, 1]) vs.add(vote(keys[i], 'precommit', 5, 2, B));
    vs.add(vote(keys[5], 'precommit', 5, 2, null));
    const commit = vs.makeCommit(B);
    if (!commit) throw new Error('no commit');
    expect(commit).toMatchObject({ height: 5, round: 2, blockHash: B });
    expect(commit.signatures.map((s) => s.validator)).toEqual([...commit.signatures.map((s) => s.validator)].sort());
    expect(decodeCommit(encodeCommit(commit))).toEqual(commit);
    for (const s of commit.signatures) expect(verifySigner(precommitSigningHash(CHAIN_ID, 5, 2, B), s.signature, s.validator)).toBe(true);
    expect(vs.makeCommit(C)).toBeUndefined();
    expect(newSet('prevote').makeCommit(B)).toBeUndefined();
  });

  describe('late votes (first votes after the quorum)', () => {
    const quorum = (vs: VoteSet) => {
      for (let i = 0; i < 4; i++) expect(vs.add(vote(keys[i], 'prevote', 5, 2, B)).status).toBe('added');
      expect(vs.twoThirdsMajority()?.blockHash).toEqual(B);
    };

    it('are kept unchecked and uncounted, never in votes() or a commit', () => {
      const counting = new CountingVerifier();
      const vs = newSet('precommit', counting);
      for (let i = 0; i < 4; i++) expect(vs.add(vote(keys[i], 'precommit', 5, 2, B)).status).toBe('added');
      expect(counting.calls).toBe(4);
      const late = vote(keys[5], 'precommit', 5, 2, B);
      expect(vs.add(late).status).toBe('late');
      expect(vs.add(late).status).toBe('duplicate');
      expect(vs.add(vote(keys[4], 'precommit', 5, 2, B)).status).toBe('late');
      expect(counting.calls).toBe(4); // not checked
      expect(vs.count).toBe(4);
      expect(vs.powerFor(B)).toBe(40n);
      expect(vs.lateCount).toBe(2);
      expect(vs.votes()).toHaveLength(4);
      const signers = vs.makeCommit(B)!.signatures.map((x) => x.validator);
      expect(signers).not.toContain(keys[5].address);
      expect(signers).not.toContain(keys[4].address);
    });

    it('a bad signature after the quorum costs nothing and counts for nothing', () => {
      const counting = new CountingVerifier();
      const vs = newSet('prevote', counting);
      quorum(vs);
      const forged = { ...vote(keys[5], 'prevote', 5, 2, C), signature: vote(keys[4], 'prevote', 5, 2, C).signature };
      expect(vs.add(forged).status).toBe('late');
      expect(counting.calls).toBe(4);
      expect(vs.powerFor(C)).toBe(0n);
    });

    it('a validator that signs a second value after its late vote still becomes evidence', () => {
      const counting = new CountingVerifier();
      const vs = newSet('prevote', counting);
      quorum(vs);
      expect(vs.add(vote(keys[5], 'prevote', 5, 2, B)).status).toBe('late');
      const res = vs.add(vote(keys[5], 'prevote', 5, 2, C));
      expect(res.status).toBe('conflict');
      expect(counting.calls).toBe(6); // both checked now
      const ev = (res as { evidence: Parameters<typeof encodeEvidence>[0] }).evidence;
      expect(checkEvidence(CHAIN_ID, set, secp256k1Verifier, decodeEvidence(encodeEvidence(ev)))).toBeNull();
      expect(vs.lateCount).toBe(0);
      expect(vs.powerFor(B)).toBe(50n); // the late vote counted once checked
      expect(vs.powerFor(C)).toBe(10n);
    });

    it('a forged late vote does not become evidence: the next, validly signed vote takes its place', () => {
      const vs = newSet('prevote');
      quorum(vs);
      const forged = { ...vote(keys[5], 'prevote', 5, 2, C), signature: vote(keys[4], 'prevote', 5, 2, C).signature };
      expect(vs.add(forged).status).toBe('late');
      expect(vs.add(vote(keys[5], 'prevote', 5, 2, B)).status).toBe('late');
      expect(vs.lateCount).toBe(1);
      expect(vs.powerFor(C)).toBe(0n);
      expect(vs.powerFor(B)).toBe(40n);
    });

    it('before the quorum every vote is checked', () => {
      const counting = new CountingVerifier();
      const vs = newSet('prevote', counting);
      const forged = { ...vote(keys[1], 'prevote', 5, 2, B), signature: vote(keys[0], 'prevote', 5, 2, B).signature };
      expect(vs.add(forged).status).toBe('invalid');
      for (let i = 0; i < 3; i++) expect(vs.add(vote(keys[i], 'prevote', 5, 2, B)).status).toBe('added');
      expect(counting.calls).toBe(4);
      expect(vs.lateCount).toBe(0);
      expect(vs.add(vote(keys[3], 'prevote', 5, 2, B)).status).toBe('added'); // the vote that makes the quorum is checked too
      expect(counting.calls).toBe(5);
    });
  });
});
