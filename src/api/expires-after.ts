/**
 * The `expiresAfter` JSON field of the signed routes (issue 24, decision 90): an integer
 * block time in ms after which the action is refused 422 ACTION_EXPIRED. Absent: no
 * options, and the action is signed and encoded exactly as before options existed.
 */
import type { ActionOptions } from '../codec/txs/options';

export const expiresAfterSchema = {
  type: 'integer',
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'Optional. Block time (ms) after which the action is refused 422 ACTION_EXPIRED; signed in the options text `expiresAfter=<ms>`.',
} as const;

/** The options an `expiresAfter` field makes: undefined when absent. */
export function expiryOptions(expiresAfter: number | undefined): ActionOptions | undefined {
  return expiresAfter === undefined ? undefined : { expiresAfter: BigInt(expiresAfter) };
}

/** Spread into a transaction body: `{options}` when `expiresAfter` was sent, nothing otherwise. */
export function expiryOf(expiresAfter: number | undefined): { options?: ActionOptions } {
  const options = expiryOptions(expiresAfter);
  return options ? { options } : {};
}
