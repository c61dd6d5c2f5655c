/**
 * expiresAfter (issue 24, decision 90): an action whose options carry an expiry is
 * refused 422 ACTION_EXPIRED once the block's time is past it. The rule wraps every
 * kind that has options (src/state/ops/index.ts), once, so no kind can forget it; it
 * runs in execution, after the nonce (an included action consumes its nonce whatever
 * its outcome), before the kind's own checks. The door refuses the same against its
 * clock so an already expired action is not relayed.
 */
import type { ActionOptions } from '../codec/txs/options';
import type { TxOp } from './context';
import { rejected } from './errors';

/** Refuses when `nowMs` is past the options' expiry. */
export function requireNotExpired(options: ActionOptions | undefined, nowMs: number, kindName: string): void {
  const at = options?.expiresAfter;
  if (at !== undefined && BigInt(nowMs) > at) {
    throw rejected('ACTION_EXPIRED', `expiresAfter: ${kindName} expired at ${at}, the block time is ${nowMs}`);
  }
}

export function withExpiryRule<B>(op: TxOp<B>, kindName: string): TxOp<B> {
  const options = op.options;
  if (!options) return op;
  return {
    ...op,
    apply(ctx, tx, signer) {
      requireNotExpired(options(tx.body), ctx.header.timestampMs, kindName);
      op.apply(ctx, tx, signer);
    },
  };
}
