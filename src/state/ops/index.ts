/** Transaction kind -> execution rule. Every registered codec kind must have one. */
import { TxKind } from '../../codec/tx';
import '../../codec/txs';
import type { TxOp } from '../context';
import { faucetOp } from './faucet';
import { nativeCancelOp, nativePlaceOp, restBatchOp, restCancelAllOp, restCancelOp, restOrderOp } from './orders';

export const OPS: ReadonlyMap<TxKind, TxOp> = new Map<TxKind, TxOp>([
  [TxKind.Faucet, faucetOp],
  [TxKind.RestOrder, restOrderOp],
  [TxKind.RestBatch, restBatchOp],
  [TxKind.RestCancel, restCancelOp],
  [TxKind.RestCancelAll, restCancelAllOp],
  [TxKind.NativePlace, nativePlaceOp],
  [TxKind.NativeCancel, nativeCancelOp],
]);

export function opFor(kind: TxKind): TxOp {
  const op = OPS.get(kind);
  if (!op) throw new Error(`no execution rule for transaction kind ${kind}`);
  return op;
}
