/**
 * OracleObservation (docs/oracle.md): a current validator's signed prices. Accepted
 * when, at the block's time T and with S = oracle.maxStalenessMs:
 *   - the signature recovers to `validator` (401), a validator of the current set (403);
 *   - every pair exists (400 UNKNOWN_PAIR);
 *   - T − S ≤ timestampMs ≤ T (422 OBSERVATION_STALE / OBSERVATION_IN_FUTURE);
 *   - timestampMs is strictly after the validator's stored observation (409
 *     OBSERVATION_NOT_NEWER): this, not a nonce, is the replay protection.
 * The accepted observation replaces the validator's previous one. No nonce, no fee.
 */
import { observationSigningHash, priceListProblem, type OracleObservationBody } from '../../codec/txs/oracle';
import { verifySigner } from '../../crypto/secp256k1';
import type { Address } from '../../util/bytes';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, TxError, unauthorized } from '../errors';
import type { State } from '../state';
import { activeValidators } from '../validators/set';

/**
 * The state-dependent checks. `blockTimeMs` is the including block's time in
 * execution; at the door (mempool) it is null and the future bound is left to
 * execution, while staleness is judged against the last committed block's time.
 */
function checkObservation(state: State, b: OracleObservationBody, signer: Address, blockTimeMs: number | null): void {
  if (!activeValidators(state).byAddress.has(signer)) throw forbidden('NOT_VALIDATOR', `validator: ${signer} is not in the current validator set`);
  for (const p of b.prices) {
    if (!state.pairs.has(String(p.pairId))) throw badRequest('UNKNOWN_PAIR', `prices: no pair ${p.pairId}`);
  }
  const maxStalenessMs = state.params().oracle.maxStalenessMs;
  const nowMs = blockTimeMs ?? state.head().timestampMs;
  if (blockTimeMs !== null && b.timestampMs > blockTimeMs) {
    throw rejected('OBSERVATION_IN_FUTURE', `timestampMs: ${b.timestampMs} is after the block time ${blockTimeMs}`);
  }
  if (b.timestampMs < nowMs - maxStalenessMs) {
    throw rejected('OBSERVATION_STALE', `timestampMs: ${b.timestampMs} is more than ${maxStalenessMs} ms before ${nowMs}`);
  }
  const prev = state.oracleObservations.get(signer);
  if (prev && b.timestampMs <= prev.timestampMs) {
    throw new TxError(409, 'OBSERVATION_NOT_NEWER', `timestampMs: ${b.timestampMs} is not after ${signer}'s last observation at ${prev.timestampMs}`);
  }
}

export const oracleObservationOp: TxOp<OracleObservationBody> = {
  shape(b) {
    const problem = priceListProblem(b.prices);
    if (problem) throw badRequest('INVALID_OBSERVATION', `prices: ${problem}`);
  },
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(observationSigningHash(chainId, b), b.signature, b.validator)) throw unauthorized(`signature: the observation does not recover to ${b.validator}`);
    return b.validator;
  },
  admit(state, b, signer) {
    checkObservation(state, b, signer, null);
  },
  apply(ctx, tx, signer) {
    const b = tx.body;
    checkObservation(ctx.state, b, signer, ctx.header.timestampMs);
    ctx.state.oracleObservations.set(signer, { timestampMs: b.timestampMs, prices: b.prices.map((p) => ({ pairId: p.pairId, price: p.price })) });
    ctx.emit({ type: 'OracleObservation', validator: signer, timestampMs: b.timestampMs, prices: b.prices.length });
  },
};
