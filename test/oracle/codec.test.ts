import { describe, expect, it } from 'vitest';
import { CodecError, Writer } from '../../src/codec/binary';
import { decodeTx, encodeTx, TX_VERSION, TxKind } from '../../src/codec/tx';
import { MAX_OBSERVATION_PRICES, observationSigningHash, type OracleObservationBody } from '../../src/codec/txs/oracle';
import { recoverSigner } from '../../src/crypto/secp256k1';
import { chainId, observationBody, px, signers, T0 } from './harness';

const MAX_TX = 16_384;

/** Envelope bytes of an observation written field by field, bypassing the encoder's checks. */
function rawObservation(p: { validator?: string; timestampMs?: number; prices: [number, bigint][]; signature?: Uint8Array; trailing?: boolean }): Uint8Array {
  const sig = p.signature ?? Uint8Array.from({ length: 65 }, (_, i) => (i === 64 ? 27 : 1));
  const w = new Writer().u8(TX_VERSION).u32(chainId).u8(TxKind.OracleObservation);
  w.address(p.validator ?? signers[0].address).u64(p.timestampMs ?? T0).u32(p.prices.length);
  for (const [id, price] of p.prices) w.u32(id).big(price);
  w.fixed(sig, 65);
  if (p.trailing) w.u8(0);
  return w.finish();
}

function decodeError(bytes: Uint8Array): string {
  try {
    decodeTx(bytes, MAX_TX);
  } catch (err) {
    expect(err).toBeInstanceOf(CodecError);
    return (err as CodecError).code;
  }
  throw new Error('decoded');
}

describe('OracleObservation codec', () => {
  it('round-trips: decode(encode(x)) is x, with the same bytes and hash', () => {
    const body = observationBody(signers[1], T0 + 12_345, px([1, 3_000_000_000n], [2, 90_000_000_000n], [15, 1n]));
    const tx = encodeTx(chainId, TxKind.OracleObservation, body);
    const back = decodeTx(tx.bytes, MAX_TX);
    expect(back.kind).toBe(TxKind.OracleObservation);
    expect(back.body).toEqual(body);
    expect(back.hash).toEqual(tx.hash);
    expect(encodeTx(chainId, TxKind.OracleObservation, back.body as OracleObservationBody).bytes).toEqual(tx.bytes);
  });

  it('the signature is the validator key over the signing hash, which binds chain id and every field', () => {
    const body = observationBody(signers[2], T0 + 1000, px([1, 5n], [2, 7n]));
    const unsigned = { validator: body.validator, timestampMs: body.timestampMs, prices: body.prices };
    expect(recoverSigner(observationSigningHash(chainId, unsigned), body.signature)).toBe(signers[2].address);
    const h = observationSigningHash(chainId, unsigned);
    expect(observationSigningHash(chainId + 1, unsigned)).not.toEqual(h);
    expect(observationSigningHash(chainId, { ...unsigned, timestampMs: unsigned.timestampMs + 1 })).not.toEqual(h);
    expect(observationSigningHash(chainId, { ...unsigned, prices: px([1, 5n], [2, 8n]) })).not.toEqual(h);
    expect(observationSigningHash(chainId, { ...unsigned, prices: px([1, 5n], [3, 7n]) })).not.toEqual(h);
    expect(observationSigningHash(chainId, { ...unsigned, validator: signers[3].address })).not.toEqual(h);
  });

  it('hand-written canonical bytes decode', () => {
    const tx = decodeTx(rawObservation({ prices: [[1, 10n], [2, 20n]] }), MAX_TX);
    expect((tx.body as OracleObservationBody).prices).toEqual(px([1, 10n], [2, 20n]));
  });

  it('refuses pair ids out of order, duplicated, an empty list, a zero price, too many prices', () => {
    expect(decodeError(rawObservation({ prices: [[2, 10n], [1, 20n]] }))).toBe('NON_CANONICAL');
    expect(decodeError(rawObservation({ prices: [[1, 10n], [1, 20n]] }))).toBe('NON_CANONICAL');
    expect(decodeError(rawObservation({ prices: [] }))).toBe('RANGE');
    expect(decodeError(rawObservation({ prices: [[1, 0n]] }))).toBe('NON_CANONICAL');
    const tooMany = Array.from({ length: MAX_OBSERVATION_PRICES + 1 }, (_, i) => [i, 1n] as [number, bigint]);
    expect(decodeError(rawObservation({ prices: tooMany }))).toBe('RANGE');
  });

  it('refuses trailing bytes, a truncated signature, a signature v other than 27/28', () => {
    expect(decodeError(rawObservation({ prices: [[1, 10n]], trailing: true }))).toBe('TRAILING');
    const ok = rawObservation({ prices: [[1, 10n]] });
    expect(decodeError(ok.subarray(0, ok.length - 1))).toBe('TRUNCATED');
    const v0 = Uint8Array.from({ length: 65 }, (_, i) => (i === 64 ? 0 : 1));
    expect(decodeError(rawObservation({ prices: [[1, 10n]], signature: v0 }))).toBe('NON_CANONICAL');
  });

  it('refuses a non-canonical bigint price (leading zero byte)', () => {
    const bytes = rawObservation({ prices: [[1, 0x0101n]] });
    // Rewrite the price `02 01 01` as `03 00 01 01` (same value, a leading zero).
    const at = bytes.length - 65 - 3;
    expect([...bytes.subarray(at, at + 3)]).toEqual([2, 1, 1]);
    const bad = new Uint8Array(bytes.length + 1);
    bad.set(bytes.subarray(0, at));
    bad.set([3, 0, 1, 1], at);
    bad.set(bytes.subarray(at + 3), at + 4);
    expect(decodeError(bad)).toBe('NON_CANONICAL');
  });

  it('the encoder refuses what the decoder would refuse', () => {
    const body = observationBody(signers[0], T0, px([1, 10n]));
    expect(() => encodeTx(chainId, TxKind.OracleObservation, { ...body, prices: px([2, 1n], [1, 1n]) })).toThrow(CodecError);
    expect(() => encodeTx(chainId, TxKind.OracleObservation, { ...body, prices: [] })).toThrow(CodecError);
    expect(() => encodeTx(chainId, TxKind.OracleObservation, { ...body, prices: px([1, 0n]) })).toThrow(CodecError);
    expect(() => encodeTx(chainId, TxKind.OracleObservation, { ...body, signature: body.signature.subarray(0, 64) })).toThrow(CodecError);
  });
});
