/**
 * A submitted transaction once final: its receipt and block. A final but failed
 * transaction answers with the status and code its refusal carries (contract
 * [D-envelope-status]), so a route states only what its success looks like.
 */
import { receiptRejection, type Receipt } from '../state/context';
import { findEvent, findLastEvent, type ChainEventType, type EventOf } from '../state/events';
import { ApiError } from './envelope';

export interface FinalTx {
  receipt: Receipt;
  height: number;
  blockHash: string;
}

/** A final but failed transaction answers with the status its error class carries. */
export function throwIfFailed(final: FinalTx): void {
  const r = receiptRejection(final.receipt);
  if (r) throw new ApiError(r.status, r.code, r.message);
}

/**
 * The event of kind `type` (the first, or the first `where` accepts) in a succeeded
 * transaction's receipt, narrowed. Its operation always emits it on success: a receipt
 * without it is a broken invariant (500), never a client's error.
 */
export function eventOf<T extends ChainEventType>(final: FinalTx, type: T, where?: (e: EventOf<T>) => boolean): EventOf<T> {
  const e = findEvent(final.receipt.events, type, where);
  if (!e) throw new Error(`receipt of ${final.receipt.txHash} has no ${type} event`);
  return e;
}

/** The last event of kind `type` (that `where` accepts) in a succeeded transaction's receipt, narrowed (see eventOf). */
export function lastEventOf<T extends ChainEventType>(final: FinalTx, type: T, where?: (e: EventOf<T>) => boolean): EventOf<T> {
  const e = findLastEvent(final.receipt.events, type, where);
  if (!e) throw new Error(`receipt of ${final.receipt.txHash} has no ${type} event`);
  return e;
}
