/**
 * OracleObservation: one validator's signed prices at one moment (docs/oracle.md).
 *
 * Layout: `address validator | u64 timestampMs | u32 n | n × (u32 pairId | big price) |
 * 65-byte signature r‖s‖v, v 27 or 28`. The list is strictly ascending by pairId (so one set of prices
 * has one encoding and one hash), holds 1 to MAX_OBSERVATION_PRICES entries, and every
 * price is positive (×1e6); the decoder refuses anything else.
 *
 * The validator signs observationSigningHash with its consensus ECDSA key (contract
 * [D-validators-keys], [D-orders-oracle]). There is no nonce: the timestamp, strictly increasing per validator,
 * is the replay protection (src/state/ops/oracle-observation.ts).
 */
import { keccak256 } from '../../crypto/keccak';
import type { Address } from '../../util/bytes';
import { CodecError, Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';

/** Bound on prices per observation (a pair list well beyond today's 15; maxTxBytes bounds it too). */
export const MAX_OBSERVATION_PRICES = 1024;

export interface ObservedPrice {
  pairId: number;
  /** ×1e6, positive. */
  price: bigint;
}

export interface OracleObservationBody {
  validator: Address;
  /** Unix ms of the observation; must not be after the including block's time. */
  timestampMs: number;
  /** Strictly ascending by pairId. */
  prices: ObservedPrice[];
  /** 65 bytes r‖s‖v over observationSigningHash. */
  signature: Uint8Array;
}

const ORACLE_TAG = 'exchange-chain/oracle-observation/v1';

/** Why a price list is not canonical, or null when it is. */
export function priceListProblem(prices: readonly ObservedPrice[]): string | null {
  if (prices.length === 0) return 'an observation carries at least one price';
  if (prices.length > MAX_OBSERVATION_PRICES) return `at most ${MAX_OBSERVATION_PRICES} prices per observation, got ${prices.length}`;
  for (let i = 0; i < prices.length; i++) {
    const p = prices[i];
    if (p.price <= 0n) return `prices[${i}]: price of pair ${p.pairId} must be positive`;
    if (i > 0 && p.pairId <= prices[i - 1].pairId) return `prices[${i}]: pair ids must be strictly ascending (${prices[i - 1].pairId} then ${p.pairId})`;
  }
  return null;
}

function writeUnsigned(w: Writer, body: Omit<OracleObservationBody, 'signature'>): Writer {
  w.address(body.validator).u64(body.timestampMs).u32(body.prices.length);
  for (const p of body.prices) w.u32(p.pairId).big(p.price);
  return w;
}

/** What the validator signs: the tag, the chain id and every field but the signature. */
export function observationSigningHash(chainId: number, body: Omit<OracleObservationBody, 'signature'>): Uint8Array {
  return keccak256(writeUnsigned(new Writer(64 + body.prices.length * 13).string(ORACLE_TAG).u32(chainId), body).finish());
}

/** Signs an observation with a consensus signer (src/consensus/signer.ts) or any 65-byte signing function. */
export function signObservation(
  chainId: number,
  unsigned: Omit<OracleObservationBody, 'signature'>,
  signer: { sign(digest: Uint8Array): Uint8Array },
): OracleObservationBody {
  const problem = priceListProblem(unsigned.prices);
  if (problem) throw new CodecError('NON_CANONICAL', problem);
  return { ...unsigned, signature: signer.sign(observationSigningHash(chainId, unsigned)) };
}

registerTxKind<OracleObservationBody>({
  kind: TxKind.OracleObservation,
  name: 'OracleObservation',
  encodeBody(w, b) {
    const problem = priceListProblem(b.prices);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    if (b.signature.length === 65 && b.signature[64] !== 27 && b.signature[64] !== 28) throw new CodecError('NON_CANONICAL', 'observation signature v must be 27 or 28');
    writeUnsigned(w, b).fixed(b.signature, 65);
  },
  decodeBody(r) {
    const validator = r.address();
    const timestampMs = r.u64();
    const n = r.u32();
    if (n === 0 || n > MAX_OBSERVATION_PRICES) throw new CodecError('RANGE', `observation price count ${n} outside 1..${MAX_OBSERVATION_PRICES}`);
    const prices: ObservedPrice[] = [];
    for (let i = 0; i < n; i++) prices.push({ pairId: r.u32(), price: r.big() });
    const problem = priceListProblem(prices);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    const signature = r.fixed(65);
    // One signature, one encoding: the consensus signer's v is 27/28 (0/1 would be a second hash).
    if (signature[64] !== 27 && signature[64] !== 28) throw new CodecError('NON_CANONICAL', `observation signature v must be 27 or 28, got ${signature[64]}`);
    return { validator, timestampMs, prices, signature };
  },
});
