import { describe, expect, it } from 'vitest';
import { refusalCode } from '../helpers/refusal';
import { TxPool } from '../../actors/mempool/pool';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { TableId } from '../../src/state/records';
import { applyAt, chainId, freshState, observation, observationBody, px, signers, STALE_MS, T0 } from './harness';

const POWER = 10n ** 25n;
const outsider = new Secp256k1Signer(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0x42 : i)));

describe('OracleObservation execution', () => {
  it('a validator’s observation is accepted and stored as its latest; no nonce is consumed', () => {
    const state = freshState([POWER, POWER, POWER]);
    const r = applyAt(state, [observation(signers[1], T0 + 900, px([1, 3_000_000_000n], [2, 90_000_000_000n]))], T0 + 1000);
    expect(r.receipts[0]).toMatchObject({ status: 'ok', kind: 'OracleObservation', signer: signers[1].address });
    expect(r.receipts[0].events).toEqual([{ type: 'OracleObservation', validator: signers[1].address, timestampMs: T0 + 900, prices: 2 }]);
    expect(state.oracleObservations.get(signers[1].address)).toEqual({ timestampMs: T0 + 900, prices: px([1, 3_000_000_000n], [2, 90_000_000_000n]) });
    expect(state.nonces.get(signers[1].address)).toBeUndefined();
    // The next one replaces it.
    applyAt(state, [observation(signers[1], T0 + 1900, px([1, 3_001_000_000n]))], T0 + 2000);
    expect(state.oracleObservations.get(signers[1].address)).toEqual({ timestampMs: T0 + 1900, prices: px([1, 3_001_000_000n]) });
  });

  it('refuses a signer outside the validator set (403 NOT_VALIDATOR), and stores nothing', () => {
    const state = freshState([POWER, POWER]);
    const r = applyAt(state, [observation(outsider, T0 + 500, px([1, 1n])), observation(signers[2], T0 + 500, px([1, 1n]))], T0 + 1000);
    expect(r.receipts.map((x) => [x.status, x.code, x.errorStatus])).toEqual([
      ['failed', 'NOT_VALIDATOR', 403],
      ['failed', 'NOT_VALIDATOR', 403], // devnet validator 3 is not in this two-validator set
    ]);
    expect(state.oracleObservations.size).toBe(0);
  });

  it('refuses a bad signature (401): another key claiming the validator, or a price changed after signing', () => {
    const state = freshState([POWER, POWER]);
    const forged = { ...observationBody(outsider, T0 + 500, px([1, 100n])), validator: signers[0].address };
    const signed = observationBody(signers[0], T0 + 500, px([1, 100n]));
    const tampered = { ...signed, prices: px([1, 101n]) };
    const r = applyAt(state, [encodeTx(chainId, TxKind.OracleObservation, forged), encodeTx(chainId, TxKind.OracleObservation, tampered)], T0 + 1000);
    expect(r.receipts.map((x) => [x.code, x.errorStatus])).toEqual([
      ['INVALID_SIGNATURE', 401],
      ['INVALID_SIGNATURE', 401],
    ]);
    expect(state.oracleObservations.size).toBe(0);
  });

  it('refuses a timestamp after the block time (422) and one older than the staleness bound (422); the bounds themselves pass', () => {
    const state = freshState([POWER, POWER, POWER]);
    const block = T0 + 100_000;
    const r = applyAt(
      state,
      [
        observation(signers[0], block + 1, px([1, 1n])),
        observation(signers[1], block - STALE_MS - 1, px([1, 1n])),
        observation(signers[1], block - STALE_MS, px([1, 1n])),
        observation(signers[2], block, px([1, 1n])),
      ],
      block,
    );
    expect(r.receipts.map((x) => x.code ?? x.status)).toEqual(['OBSERVATION_IN_FUTURE', 'OBSERVATION_STALE', 'ok', 'ok']);
    expect(r.receipts[0].errorStatus).toBe(422);
    expect(state.oracleObservations.has(signers[0].address)).toBe(false);
  });

  it('refuses a replay and anything not strictly newer than the validator’s last observation (409)', () => {
    const state = freshState([POWER, POWER]);
    const first = observation(signers[0], T0 + 2000, px([1, 10n]));
    applyAt(state, [first], T0 + 2500);
    const r = applyAt(state, [first, observation(signers[0], T0 + 1999, px([1, 11n])), observation(signers[0], T0 + 2000, px([1, 12n]))], T0 + 3000);
    expect(r.receipts.map((x) => [x.code, x.errorStatus])).toEqual([
      ['OBSERVATION_NOT_NEWER', 409],
      ['OBSERVATION_NOT_NEWER', 409],
      ['OBSERVATION_NOT_NEWER', 409],
    ]);
    expect(state.oracleObservations.get(signers[0].address)).toEqual({ timestampMs: T0 + 2000, prices: px([1, 10n]) });
    // The same observation twice in one block: the second is the replay.
    const again = observation(signers[1], T0 + 3500, px([1, 10n]));
    const r2 = applyAt(state, [again, again], T0 + 4000);
    expect(r2.receipts.map((x) => x.code ?? x.status)).toEqual(['ok', 'OBSERVATION_NOT_NEWER']);
  });

  it('refuses a price for a pair the chain does not have (400 UNKNOWN_PAIR)', () => {
    const state = freshState([POWER]);
    const r = applyAt(state, [observation(signers[0], T0 + 500, px([1, 10n], [999, 10n]))], T0 + 1000);
    expect([r.receipts[0].code, r.receipts[0].errorStatus]).toEqual(['UNKNOWN_PAIR', 400]);
    expect(state.oracleObservations.size).toBe(0);
  });

  it('a refused observation writes nothing: the block changes what an empty block at that time changes', () => {
    const a = freshState([POWER, POWER]);
    const b = freshState([POWER, POWER]);
    const ra = applyAt(a, [observation(outsider, T0 + 500, px([1, 1n])), observation(signers[0], T0 + 5000, px([1, 1n]))], T0 + 1000);
    const rb = applyAt(b, [], T0 + 1000);
    expect(ra.receipts.map((x) => x.status)).toEqual(['failed', 'failed']);
    // Only the head differs (its block hash covers the transactions).
    const notHead = (r: typeof ra) => r.changes.filter((c) => !(c.key[0] === TableId.Meta && new TextDecoder().decode(c.key.subarray(1)) === 'head'));
    expect(notHead(ra)).toEqual(notHead(rb));
    expect(ra.changes.length).toBe(rb.changes.length);
    expect(ra.changes.some((c) => c.key[0] === TableId.OracleObservation || c.key[0] === TableId.OracleMedian)).toBe(false);
  });

  it('the mempool refuses at the door what cannot succeed: an outsider, a bad signature, a replay, a stale timestamp', () => {
    const state = freshState([POWER, POWER]);
    applyAt(state, [observation(signers[0], T0 + 2000, px([1, 10n]))], T0 + 2500);
    const pool = new TxPool({ maxTxs: 100, maxBytes: 1 << 20, maxTxBytes: 16_384 }, () => state);
    const refusal = refusalCode;
    expect(refusal(() => pool.add(observation(outsider, T0 + 2400, px([1, 1n]))))).toBe('NOT_VALIDATOR');
    const tampered = { ...observationBody(signers[1], T0 + 2400, px([1, 1n])), prices: px([1, 2n]) };
    expect(refusal(() => pool.add(encodeTx(chainId, TxKind.OracleObservation, tampered)))).toBe('INVALID_SIGNATURE');
    expect(refusal(() => pool.add(observation(signers[0], T0 + 2000, px([1, 11n]))))).toBe('OBSERVATION_NOT_NEWER');
    expect(refusal(() => pool.add(observation(signers[1], T0 + 2500 - STALE_MS - 1, px([1, 1n]))))).toBe('OBSERVATION_STALE');
    expect(refusal(() => pool.add(observation(signers[1], T0 + 2400, px([1, 1n]))))).toBe('admitted');
    expect(pool.size).toBe(1);
  });
});
