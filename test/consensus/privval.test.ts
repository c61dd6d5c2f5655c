import { describe, expect, it } from 'vitest';
import {
  checkSignRequest,
  decodePrivValState,
  DoubleSignError,
  encodePrivValState,
  LocalPrivValidator,
  SignStep,
  type PrivValState,
} from '../../src/consensus/privval';
import { proposalSigningHash, voteSigningHash } from '../../src/consensus/messages';
import { secp256k1Verifier } from '../../src/consensus/signer';
import { CHAIN_ID, fixture, hash } from './helpers';

const { keys } = fixture([1n, 1n, 1n, 1n], 'privval');
const key = keys[0];
const B = hash('B');
const C = hash('C');
const unsigned = (type: 'prevote' | 'precommit', height: number, round: number, blockHash: Uint8Array | null) => ({ type, height, round, blockHash, validator: key.address });

/** A disk: the last state written, as bytes (what a restart reads back). */
function disk() {
  const d = { bytes: null as Uint8Array | null, writes: 0 };
  const persist = async (s: PrivValState) => {
    d.bytes = encodePrivValState(s);
    d.writes++;
  };
  const load = () => (d.bytes === null ? null : decodePrivValState(d.bytes));
  return { d, persist, load };
}

describe('LocalPrivValidator', () => {
  it('signs, and the signature verifies', async () => {
    const { persist } = disk();
    const pv = new LocalPrivValidator(key, persist, null);
    const v = await pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0, B));
    expect(secp256k1Verifier.verify(voteSigningHash(CHAIN_ID, v), v.signature, key.address)).toBe(true);
    const p = await pv.signProposal(CHAIN_ID, { height: 2, round: 0, polRound: -1, blockHash: B, block: Uint8Array.of(1), proposer: key.address });
    expect(secp256k1Verifier.verify(proposalSigningHash(CHAIN_ID, p), p.signature, key.address)).toBe(true);
  });

  it('releases a signature only after persist has completed', async () => {
    let release!: () => void;
    const order: string[] = [];
    const pv = new LocalPrivValidator(
      key,
      (s) =>
        new Promise<void>((resolve) => {
          order.push(`persist ${s.lastSigned?.height}/${s.lastSigned?.round}/${s.lastSigned?.step}`);
          release = () => {
            order.push('persisted');
            resolve();
          };
        }),
      null,
    );
    let signed = false;
    const pending = pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0, B)).then((v) => {
      signed = true;
      order.push('released');
      return v;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(signed).toBe(false);
    expect(pv.state().lastSigned).toBeNull(); // not even in memory before the disk has it
    release();
    await pending;
    expect(order).toEqual(['persist 1/0/2', 'persisted', 'released']);
  });

  it('a failed persist releases nothing and changes nothing', async () => {
    let fail = true;
    const pv = new LocalPrivValidator(
      key,
      async () => {
        if (fail) throw new Error('disk full');
      },
      null,
    );
    await expect(pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0, B))).rejects.toThrow('disk full');
    expect(pv.state().lastSigned).toBeNull();
    fail = false;
    // Not recorded, so a different value may still be signed at that step.
    await expect(pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0, C))).resolves.toBeDefined();
  });

  it('refuses a conflicting vote at the same (height, round, step); the identical one gets the same signature', async () => {
    const { d, persist } = disk();
    const pv = new LocalPrivValidator(key, persist, null);
    const first = await pv.signVote(CHAIN_ID, unsigned('precommit', 4, 1, B));
    await expect(pv.signVote(CHAIN_ID, unsigned('precommit', 4, 1, C))).rejects.toMatchObject({ reason: 'CONFLICT' });
    await expect(pv.signVote(CHAIN_ID, unsigned('precommit', 4, 1, null))).rejects.toBeInstanceOf(DoubleSignError);
    const again = await pv.signVote(CHAIN_ID, unsigned('precommit', 4, 1, B));
    expect(again.signature).toEqual(first.signature);
    expect(d.writes).toBe(1);
  });

  it('refuses anything below what it last signed: height, round, step', async () => {
    const { persist } = disk();
    const pv = new LocalPrivValidator(key, persist, null);
    await pv.signVote(CHAIN_ID, unsigned('prevote', 5, 2, B));
    await expect(pv.signVote(CHAIN_ID, unsigned('precommit', 4, 9, B))).rejects.toMatchObject({ reason: 'HEIGHT_REGRESSION' });
    await expect(pv.signVote(CHAIN_ID, unsigned('precommit', 5, 1, B))).rejects.toMatchObject({ reason: 'ROUND_REGRESSION' });
    await expect(pv.signProposal(CHAIN_ID, { height: 5, round: 2, polRound: -1, blockHash: B, block: Uint8Array.of(), proposer: key.address })).rejects.toMatchObject({
      reason: 'STEP_REGRESSION',
    });
    await expect(pv.signVote(CHAIN_ID, unsigned('precommit', 5, 2, C))).resolves.toBeDefined(); // later step
    await expect(pv.signVote(CHAIN_ID, unsigned('prevote', 5, 3, null))).resolves.toBeDefined(); // later round
  });

  it('refuses two different proposals for one (height, round)', async () => {
    const { persist } = disk();
    const pv = new LocalPrivValidator(key, persist, null);
    const p = { height: 2, round: 1, polRound: -1, blockHash: B, block: Uint8Array.of(1), proposer: key.address };
    await pv.signProposal(CHAIN_ID, p);
    await expect(pv.signProposal(CHAIN_ID, { ...p, blockHash: C })).rejects.toMatchObject({ reason: 'CONFLICT' });
    await expect(pv.signProposal(CHAIN_ID, { ...p, polRound: 0 })).rejects.toMatchObject({ reason: 'CONFLICT' });
  });

  it('serialises concurrent requests: of two conflicting votes asked at once, exactly one is signed', async () => {
    const { persist } = disk();
    const pv = new LocalPrivValidator(key, persist, null);
    const results = await Promise.allSettled([pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0, B)), pv.signVote(CHAIN_ID, unsigned('prevote', 1, 0, C))]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('survives a restart: the guard and the lock are loaded from what was persisted', async () => {
    const { persist, load } = disk();
    const before = new LocalPrivValidator(key, persist, null);
    await before.signVote(CHAIN_ID, unsigned('prevote', 7, 0, B));
    await before.signVote(CHAIN_ID, unsigned('precommit', 7, 0, B));
    await before.signVote(CHAIN_ID, unsigned('prevote', 7, 1, null));
    // Crash: only the disk is left.
    const after = new LocalPrivValidator(key, persist, load());
    expect(after.state().lock).toEqual({ height: 7, round: 0, blockHash: B, block: null });
    expect(after.state().lastSigned).toMatchObject({ height: 7, round: 1, step: SignStep.Prevote, blockHash: null });
    await expect(after.signVote(CHAIN_ID, unsigned('prevote', 7, 1, C))).rejects.toMatchObject({ reason: 'CONFLICT' });
    await expect(after.signVote(CHAIN_ID, unsigned('precommit', 7, 0, C))).rejects.toMatchObject({ reason: 'ROUND_REGRESSION' });
    const same = await after.signVote(CHAIN_ID, unsigned('prevote', 7, 1, null));
    expect(secp256k1Verifier.verify(voteSigningHash(CHAIN_ID, same), same.signature, key.address)).toBe(true);
  });

  it('remembers the votes of its latest round across a restart, so they can be sent again unchanged', async () => {
    const { persist, load } = disk();
    const before = new LocalPrivValidator(key, persist, null);
    const prevote = await before.signVote(CHAIN_ID, unsigned('prevote', 8, 2, B));
    const precommit = await before.signVote(CHAIN_ID, unsigned('precommit', 8, 2, null));
    const after = new LocalPrivValidator(key, persist, load());
    expect(after.signedVote(8, 2, 'prevote')).toEqual(prevote);
    expect(after.signedVote(8, 2, 'precommit')).toEqual(precommit);
    expect(after.signedVote(8, 1, 'prevote')).toBeNull();
    // A new round forgets the old round's votes.
    await after.signVote(CHAIN_ID, unsigned('prevote', 8, 3, C));
    expect(after.signedVote(8, 2, 'prevote')).toBeNull();
    expect(after.state().roundVotes).toHaveLength(1);
  });

  it('keeps the lock through nil precommits of the height, moves it on a new one, drops it at the next height', async () => {
    const { persist } = disk();
    const pv = new LocalPrivValidator(key, persist, null);
    await pv.signVote(CHAIN_ID, unsigned('precommit', 3, 0, B), Uint8Array.of(0xb));
    await pv.signVote(CHAIN_ID, unsigned('precommit', 3, 1, null));
    expect(pv.state().lock).toEqual({ height: 3, round: 0, blockHash: B, block: Uint8Array.of(0xb) });
    await pv.signVote(CHAIN_ID, unsigned('precommit', 3, 2, B));
    expect(pv.state().lock).toEqual({ height: 3, round: 2, blockHash: B, block: Uint8Array.of(0xb) }); // bytes kept
    await pv.signVote(CHAIN_ID, unsigned('precommit', 3, 3, C), Uint8Array.of(0xc));
    expect(pv.state().lock).toEqual({ height: 3, round: 3, blockHash: C, block: Uint8Array.of(0xc) });
    await pv.signVote(CHAIN_ID, unsigned('prevote', 4, 0, B));
    expect(pv.state().lock).toBeNull();
  });

  it('refuses to sign in someone else\'s name', async () => {
    const pv = new LocalPrivValidator(key, async () => {}, null);
    await expect(pv.signVote(CHAIN_ID, { ...unsigned('prevote', 1, 0, B), validator: keys[1].address })).rejects.toThrow(/names/);
  });

  it('checkSignRequest: the rule on its own', () => {
    const last = { height: 2, round: 1, step: SignStep.Prevote, blockHash: B, signingHash: hash('x'), signature: new Uint8Array(65) };
    const req = (height: number, round: number, step: SignStep, signingHash = hash('y')) => ({ height, round, step, blockHash: null, signingHash });
    expect(checkSignRequest(null, req(1, 0, SignStep.Proposal))).toBeNull();
    expect(checkSignRequest(last, req(3, 0, SignStep.Proposal))).toBeNull();
    expect(checkSignRequest(last, req(2, 2, SignStep.Proposal))).toBeNull();
    expect(checkSignRequest(last, req(2, 1, SignStep.Precommit))).toBeNull();
    expect(checkSignRequest(last, req(2, 1, SignStep.Prevote, hash('x')))).toBe(last.signature);
    expect(() => checkSignRequest(last, req(2, 1, SignStep.Prevote))).toThrow(DoubleSignError);
    expect(() => checkSignRequest(last, req(2, 1, SignStep.Proposal))).toThrow(/STEP_REGRESSION/);
    expect(() => checkSignRequest(last, req(2, 0, SignStep.Precommit))).toThrow(/ROUND_REGRESSION/);
    expect(() => checkSignRequest(last, req(1, 5, SignStep.Precommit))).toThrow(/HEIGHT_REGRESSION/);
  });

  it('persisted state has one canonical encoding', () => {
    const s: PrivValState = {
      lastSigned: { height: 9, round: 2, step: SignStep.Precommit, blockHash: null, signingHash: hash('s'), signature: new Uint8Array(65).fill(3) },
      roundVotes: [
        { step: SignStep.Prevote, blockHash: B, signature: new Uint8Array(65).fill(4) },
        { step: SignStep.Precommit, blockHash: null, signature: new Uint8Array(65).fill(3) },
      ],
      lock: { height: 9, round: 1, blockHash: B, block: Uint8Array.of(1, 2, 3) },
    };
    const bytes = encodePrivValState(s);
    expect(decodePrivValState(bytes)).toEqual(s);
    expect(decodePrivValState(encodePrivValState({ lastSigned: null, roundVotes: [], lock: null }))).toEqual({ lastSigned: null, roundVotes: [], lock: null });
    expect(() => decodePrivValState(Uint8Array.of(...bytes, 0))).toThrow();
  });
});
