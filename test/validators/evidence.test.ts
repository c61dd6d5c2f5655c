/**
 * Double-sign evidence in blocks (contract [D-validators-evidence], [C-state-validator]
 * → tombstoned, [C-limits-slashing]; decision 72): two conflicting votes signed with a
 * real validator key, carried by a DoubleSignEvidence transaction, admitted by the real
 * mempool (actors/mempool/pool.ts) and executed by applyBlock. Valid evidence tombstones
 * the signer with 5% slashed and burned; forged, too old, future, outsider's and
 * repeated evidence is refused with its code, at the door and in the block, and
 * changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { TxPool } from '../../actors/mempool/pool';
import { decodeTx, encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import type { DoubleSignEvidenceBody } from '../../src/codec/txs/evidence';
import { duplicateVoteEvidence, type DuplicateVoteEvidence } from '../../src/consensus/evidence';
import { voteSigningHash, type Vote, type VoteType } from '../../src/consensus/messages';
import { privateKeyToAddress, sign } from '../../src/crypto/secp256k1';
import { TxError } from '../../src/state/errors';
import { findEvent } from '../../src/state/events';
import type { State } from '../../src/state/state';
import { validatorRecord } from '../../src/state/validators/records';
import { activeValidators } from '../../src/state/validators/set';
import { hexToBytes } from '../../src/util/bytes';
import { buildGenesis } from '../../src/genesis/build';
import { parseGenesis } from '../../src/genesis/load';
import { evidenceMaxAgeBlocks } from '../../src/state/validators/signing-sets';
import { applyNext, applyTo, CANDIDATES, chainId, DEVNET_KEYS, EPOCH, freshState, register, testGenesis, TOKEN } from './harness';

const BOND = 50_000n * TOKEN;
const [a, b] = CANDIDATES;
const G0 = hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey);
const hash = (n: number) => new Uint8Array(32).fill(n);

function vote(key: Uint8Array, fields: { type?: VoteType; height: number; round?: number; blockHash: Uint8Array | null }): Vote {
  const unsigned = { type: fields.type ?? 'precommit', height: fields.height, round: fields.round ?? 0, blockHash: fields.blockHash, validator: privateKeyToAddress(key) };
  return { ...unsigned, signature: sign(voteSigningHash(chainId, unsigned), key) };
}

function evidenceTx(evidence: DuplicateVoteEvidence): Tx<DoubleSignEvidenceBody> {
  return encodeTx(chainId, TxKind.DoubleSignEvidence, { evidence });
}

/** Two precommits of `key` at `height`, round 0, for different blocks. */
function doubleSign(key: Uint8Array, height: number): Tx<DoubleSignEvidenceBody> {
  return evidenceTx(duplicateVoteEvidence(vote(key, { height, blockHash: hash(1) }), vote(key, { height, blockHash: hash(2) })));
}

/** a registered with BOND at block 1 and seated at EPOCH: in the set of heights EPOCH + 1 on. */
function seated(consensus: Parameters<typeof testGenesis>[0] = {}): State {
  const state = freshState(testGenesis(consensus));
  applyNext(state, [register(a, { bond: BOND })]);
  applyTo(state, EPOCH + 2);
  expect(activeValidators(state).byAddress.has(a.address)).toBe(true);
  return state;
}

const pool = (state: State) => new TxPool({ maxTxs: 100, maxBytes: 1 << 20, maxTxBytes: state.params().consensus.maxTxBytes }, () => state);

/** What a refusal must leave as it was. */
function snapshot(state: State) {
  return { validators: [...state.validators.entries()], supply: state.supply(), set: activeValidators(state).validators, downtime: [...state.downtime.entries()] };
}

function refusedAtDoor(state: State, tx: Tx): TxError {
  try {
    pool(state).addBytes(tx.bytes);
  } catch (err) {
    expect(err).toBeInstanceOf(TxError);
    return err as TxError;
  }
  throw new Error('the mempool admitted it');
}

describe('consensus.evidenceMaxAgeBlocks', () => {
  it('is optional in a genesis file (one epoch when absent), and refused outside 1..10,000,000', () => {
    const g = buildGenesis('devnet');
    expect('evidenceMaxAgeBlocks' in g.consensus).toBe(false);
    expect(evidenceMaxAgeBlocks(parseGenesis(g))).toBe(g.consensus.epochLengthBlocks);
    const withAge = (v: unknown) => ({ ...g, consensus: { ...g.consensus, evidenceMaxAgeBlocks: v } });
    expect(evidenceMaxAgeBlocks(parseGenesis(withAge(42)))).toBe(42);
    expect(() => parseGenesis(withAge(0))).toThrow(/genesis\.consensus\.evidenceMaxAgeBlocks/);
    expect(() => parseGenesis(withAge('7'))).toThrow(/genesis\.consensus\.evidenceMaxAgeBlocks/);
  });
});

describe('double-sign evidence', () => {
  it('valid evidence is admitted, tombstones the signer with 5% of its bond slashed and burned, and unseats it for good', () => {
    const state = seated();
    const tx = doubleSign(a.privateKey, EPOCH + 2);
    expect(decodeTx(tx.bytes, 1 << 14).hash).toEqual(tx.hash);
    expect(pool(state).addBytes(tx.bytes).signer).toBe(a.address);
    const supplyBefore = state.supply().nativeWei;
    const [r] = applyNext(state, [tx]).receipts;
    expect(r).toMatchObject({ status: 'ok', kind: 'DoubleSignEvidence', signer: a.address });
    expect(findEvent(r.events, 'ValidatorTombstoned')).toEqual({ type: 'ValidatorTombstoned', validator: a.address, height: EPOCH + 2, slashedWei: BOND / 20n, burnedWei: BOND / 20n });
    const rec = validatorRecord(state, a.address)!;
    expect(rec.status).toBe('tombstoned');
    expect(rec.context).toMatchObject({ bondWei: BOND - BOND / 20n, lockedWei: BOND - BOND / 20n });
    expect(state.supply().nativeWei).toBe(supplyBefore - BOND / 20n);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    // Never seated again.
    applyTo(state, 4 * EPOCH);
    expect(activeValidators(state).byAddress.has(a.address)).toBe(false);
    expect(validatorRecord(state, a.address)!.status).toBe('tombstoned');
  });

  it('a prevote pair and a nil-versus-block pair are evidence too; a genesis validator loses power, with nothing locked to burn', () => {
    const state = seated();
    const e = duplicateVoteEvidence(vote(G0, { type: 'prevote', height: 3, round: 1, blockHash: null }), vote(G0, { type: 'prevote', height: 3, round: 1, blockHash: hash(7) }));
    const supplyBefore = state.supply().nativeWei;
    const [r] = applyNext(state, [evidenceTx(e)]).receipts;
    expect(r.status).toBe('ok');
    const g0 = privateKeyToAddress(G0);
    expect(validatorRecord(state, g0)!.status).toBe('tombstoned');
    expect(findEvent(r.events, 'ValidatorTombstoned')).toMatchObject({ validator: g0, height: 3, slashedWei: (10_000n * TOKEN) / 20n, burnedWei: 0n });
    expect(state.supply().nativeWei).toBe(supplyBefore);
  });

  describe('refusals: each with its code, at the door and in the block, changing nothing', () => {
    const h = EPOCH + 2;
    const good = () => duplicateVoteEvidence(vote(a.privateKey, { height: h, blockHash: hash(1) }), vote(a.privateKey, { height: h, blockHash: hash(2) }));
    const cases: { name: string; tx: (state: State) => Tx; status: number; code: string; message: RegExp; consensus?: Parameters<typeof testGenesis>[0]; before?: (state: State) => void }[] = [
      {
        name: 'a signature by another key',
        tx: () => {
          const e = good();
          return evidenceTx({ ...e, voteB: { ...e.voteB, signature: vote(b.privateKey, { height: h, blockHash: e.voteB.blockHash }).signature } });
        },
        status: 401,
        code: 'INVALID_SIGNATURE',
        message: /second vote does not recover/,
      },
      {
        name: 'a vote changed after signing',
        tx: () => {
          const e = good();
          return evidenceTx({ ...e, voteB: { ...e.voteB, blockHash: hash(3) } });
        },
        status: 401,
        code: 'INVALID_SIGNATURE',
        message: /second vote does not recover/,
      },
      {
        name: 'the same block hash twice',
        tx: () => {
          const v = vote(a.privateKey, { height: h, blockHash: hash(1) });
          return evidenceTx({ kind: 'duplicateVote', voteA: v, voteB: v });
        },
        status: 400,
        code: 'INVALID_EVIDENCE',
        message: /do not conflict/,
      },
      {
        name: 'different rounds',
        tx: () => evidenceTx(duplicateVoteEvidence(vote(a.privateKey, { height: h, round: 0, blockHash: hash(1) }), vote(a.privateKey, { height: h, round: 1, blockHash: hash(2) }))),
        status: 400,
        code: 'INVALID_EVIDENCE',
        message: /different \(height, round, type\)/,
      },
      {
        name: 'different steps',
        tx: () => evidenceTx(duplicateVoteEvidence(vote(a.privateKey, { type: 'prevote', height: h, blockHash: hash(1) }), vote(a.privateKey, { height: h, blockHash: hash(2) }))),
        status: 400,
        code: 'INVALID_EVIDENCE',
        message: /different \(height, round, type\)/,
      },
      {
        name: 'different heights',
        tx: () => evidenceTx(duplicateVoteEvidence(vote(a.privateKey, { height: h, blockHash: hash(1) }), vote(a.privateKey, { height: h - 1, blockHash: hash(2) }))),
        status: 400,
        code: 'INVALID_EVIDENCE',
        message: /different \(height, round, type\)/,
      },
      {
        name: 'votes of two validators',
        tx: () => evidenceTx(duplicateVoteEvidence(vote(a.privateKey, { height: h, blockHash: hash(1) }), vote(G0, { height: h, blockHash: hash(2) }))),
        status: 400,
        code: 'INVALID_EVIDENCE',
        message: /different validators/,
      },
      {
        name: 'the votes out of canonical order',
        tx: () => {
          const e = good();
          return evidenceTx({ kind: 'duplicateVote', voteA: e.voteB, voteB: e.voteA });
        },
        status: 400,
        code: 'INVALID_EVIDENCE',
        message: /canonical order/,
      },
      {
        name: 'a signer that is no validator (registered, never seated)',
        before: (state) => void applyNext(state, [register(b, { bond: 1_000n * TOKEN, vrfPubkey: CANDIDATES[5].vrfPubkey })]),
        tx: () => doubleSign(b.privateKey, h),
        status: 403,
        code: 'NOT_VALIDATOR',
        message: /was not in the validator set of height 7/,
      },
      {
        name: 'a validator of today for a height before it was seated',
        tx: () => doubleSign(a.privateKey, EPOCH),
        status: 403,
        code: 'NOT_VALIDATOR',
        message: /was not in the validator set of height 5/,
      },
      {
        name: 'evidence older than evidenceMaxAgeBlocks',
        consensus: { evidenceMaxAgeBlocks: 3 },
        before: (state) => applyTo(state, h + 4),
        tx: () => doubleSign(a.privateKey, h),
        status: 422,
        code: 'EVIDENCE_TOO_OLD',
        message: /5 blocks below block 12, more than 3/,
      },
      {
        name: 'evidence about a height above the block',
        tx: () => doubleSign(a.privateKey, h + 5),
        status: 422,
        code: 'EVIDENCE_IN_FUTURE',
        message: /above this block/,
      },
      {
        name: 'evidence against an offender already tombstoned',
        before: (state) => expect(applyNext(state, [doubleSign(a.privateKey, h)]).receipts[0].status).toBe('ok'),
        tx: () => evidenceTx(duplicateVoteEvidence(vote(a.privateKey, { type: 'prevote', height: h, blockHash: hash(3) }), vote(a.privateKey, { type: 'prevote', height: h, blockHash: hash(4) }))),
        status: 409,
        code: 'ALREADY_TOMBSTONED',
        message: /already tombstoned/,
      },
    ];

    for (const c of cases) {
      it(c.name, () => {
        const state = seated(c.consensus);
        c.before?.(state);
        const tx = c.tx(state);
        const door = refusedAtDoor(state, tx);
        expect([door.status, door.code]).toEqual([c.status, c.code]);
        expect(door.message).toMatch(c.message);
        const before = snapshot(state);
        const [r] = applyNext(state, [tx]).receipts;
        expect([r.status, r.errorStatus, r.code]).toEqual(['failed', c.status, c.code]);
        expect(r.message).toMatch(c.message);
        expect(r.events).toEqual([]);
        expect(snapshot(state)).toEqual(before);
      });
    }

    it('evidence exactly evidenceMaxAgeBlocks old is still taken', () => {
      const state = seated({ evidenceMaxAgeBlocks: 3 });
      applyTo(state, h + 2); // the next block, h + 3, is 3 above the votes
      expect(applyNext(state, [doubleSign(a.privateKey, h)]).receipts[0].status).toBe('ok');
      expect(validatorRecord(state, a.address)!.status).toBe('tombstoned');
    });

    it('the same evidence twice in one block: the second copy is refused', () => {
      const state = seated();
      const tx = doubleSign(a.privateKey, h);
      const rs = applyNext(state, [tx, tx]).receipts;
      expect(rs.map((r) => [r.status, r.code])).toEqual([
        ['ok', undefined],
        ['failed', 'ALREADY_TOMBSTONED'],
      ]);
    });
  });
});
