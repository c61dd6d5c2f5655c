/**
 * Replay protection for signed exchange operations (contract [D-nonces-*]; decision 97),
 * Hyperliquid's rule: per signer, a nonce is accepted only if
 *   1. it is greater than the smallest of that signer's (up to) 100 highest accepted
 *      nonces: with 1 to 99 stored too (the first accepted nonce sets the floor);
 *   2. it was never accepted before (it is not in the stored set);
 *   3. when it is a millisecond timestamp (≥ TIMESTAMP_NONCE_MIN, 10^12 ms: September
 *      2001), it lies within (block time − 2 days, block time + 1 day). A smaller nonce is
 *      a counter (1, 2, 3, …) and has no time bound: a counter never reaches 10^12 in
 *      practice (a thousand operations a second for thirty years), and no clock of this
 *      chain's lifetime reads below it, so the two kinds cannot be confused.
 * The stored set is those (up to) 100 nonces, ascending, so the check is a binary search
 * and the state stays bounded per signer. The time bound keeps a signer from spending
 * a far-future timestamp that would lift its floor past every honest clock, and makes a
 * signed action older than two days unusable even with fewer than 100 stored.
 */
import type { Address } from '../../util/bytes';
import { TxError } from '../errors';
import type { State } from '../state';

const NONCE_WINDOW = 100;

/** Nonces from here up are read as milliseconds since the Unix epoch (2001-09-09T01:46:40Z). */
export const TIMESTAMP_NONCE_MIN = 1_000_000_000_000n;

/** How far a timestamp nonce may lie behind the block time: two days. */
export const NONCE_MAX_AGE_MS = 2n * 86_400_000n;

/** How far a timestamp nonce may lie ahead of the block time: one day. */
export const NONCE_MAX_AHEAD_MS = 86_400_000n;

/**
 * Why `nonce` may not be used by `signer` at time `timeMs` (the block's in execution,
 * the head's at the door), or undefined if it may: 409 NONCE_USED when it was used, is
 * at or below the window's floor, or is a timestamp two days or more old; 409
 * NONCE_TOO_HIGH when it is a timestamp a day or more ahead.
 */
export function nonceRefusal(state: State, signer: Address, nonce: bigint, timeMs: number): TxError | undefined {
  if (nonce >= TIMESTAMP_NONCE_MIN) {
    const t = BigInt(timeMs);
    if (nonce <= t - NONCE_MAX_AGE_MS) {
      return new TxError(409, 'NONCE_USED', `nonce ${nonce} of ${signer} is a timestamp two days or more before the block time ${timeMs}`);
    }
    if (nonce >= t + NONCE_MAX_AHEAD_MS) {
      return new TxError(409, 'NONCE_TOO_HIGH', `nonce ${nonce} of ${signer} is a timestamp a day or more after the block time ${timeMs}`);
    }
  }
  const set = state.nonces.get(signer);
  if (!set || set.length === 0) return undefined;
  if (nonce <= set[0]) {
    return new TxError(409, 'NONCE_USED', `nonce ${nonce} of ${signer} is not above the smallest of its ${set.length} highest accepted nonces (${set[0]})`);
  }
  if (indexOf(set, nonce) >= 0) return new TxError(409, 'NONCE_USED', `nonce ${nonce} of ${signer} was already used`);
  return undefined;
}

/** Consumes the nonce or throws its refusal (409 NONCE_USED or NONCE_TOO_HIGH). */
export function useNonce(state: State, signer: Address, nonce: bigint, timeMs: number): void {
  const refusal = nonceRefusal(state, signer, nonce, timeMs);
  if (refusal) throw refusal;
  const set = [...(state.nonces.get(signer) ?? [])];
  const at = -indexOf(set, nonce) - 1;
  set.splice(at, 0, nonce);
  if (set.length > NONCE_WINDOW) set.shift();
  state.nonces.set(signer, set);
}

/** Binary search: the index if found, else -(insertion point) - 1. */
function indexOf(sorted: bigint[], v: bigint): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else if (sorted[mid] > v) hi = mid - 1;
    else return mid;
  }
  return -lo - 1;
}
