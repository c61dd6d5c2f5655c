/**
 * Replay protection for signed exchange operations (contract [D-nonces-*]): per signer,
 * a nonce is accepted once, and only if it is greater than the smallest of that
 * signer's 100 highest accepted nonces. The stored set is those (up to) 100 nonces,
 * ascending, so the check is a binary search and the state stays bounded per signer.
 */
import type { Address } from '../util/bytes';
import { TxError } from './errors';
import type { State } from './state';

export const NONCE_WINDOW = 100;

export function nonceAvailable(state: State, signer: Address, nonce: bigint): boolean {
  const set = state.nonces.get(signer);
  if (!set) return true;
  if (set.length >= NONCE_WINDOW && nonce <= set[0]) return false;
  return indexOf(set, nonce) < 0;
}

/** Consumes the nonce or throws 409 NONCE_USED. */
export function useNonce(state: State, signer: Address, nonce: bigint): void {
  if (!nonceAvailable(state, signer, nonce)) {
    throw new TxError(409, 'NONCE_USED', `nonce ${nonce} of ${signer} was already used or is below the replay window`);
  }
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
