/**
 * The options rule of the kinds that take only `expiresAfter` (issue 24, decision 90):
 * every trader-signed kind other than order placement (sessions, agent settings,
 * withdraw, perps, pool, and the timer kinds). Any other option is 400 INVALID_OPTIONS
 * naming it; the expiry itself must be a positive block time in ms within the safe
 * integers. The expiry is then checked against the block time by the one rule every kind
 * with options gets (src/state/action-expiry.ts) and at the door (the mempool).
 */
import type { ActionOptions } from '../../codec/txs/options';
import type { TxOp } from '../context';
import { badRequest } from '../errors';

const MAX_EXPIRES_AFTER_MS = BigInt(Number.MAX_SAFE_INTEGER);

export function requireExpiryOnly(o: ActionOptions | undefined, kindName: string): void {
  if (!o) return;
  for (const field of ['cloid', 'tif', 'reduceOnly'] as const) {
    if (o[field] !== undefined) throw badRequest('INVALID_OPTIONS', `${field}: ${kindName} takes no ${field}; only expiresAfter`);
  }
  if (o.expiresAfter !== undefined && (o.expiresAfter < 1n || o.expiresAfter > MAX_EXPIRES_AFTER_MS)) {
    throw badRequest('INVALID_OPTIONS', `expiresAfter: must be a block time in ms from 1 to ${MAX_EXPIRES_AFTER_MS}`);
  }
}

/**
 * A kind that carries only `expiresAfter` in its options trailer: its options are read
 * from `body.options` (so the expiry rule wraps it: src/state/ops/index.ts) and checked
 * in its shape, after the kind's own fields.
 */
export function withExpiryOption<B extends { options?: ActionOptions }>(op: TxOp<B>, kindName: string): TxOp<B> {
  return {
    ...op,
    shape(body, params) {
      op.shape?.(body, params);
      requireExpiryOnly(body.options, kindName);
    },
    options: (b) => b.options,
  };
}
