import type { BlockHeader } from '../codec/block';
import type { Tx } from '../codec/tx';
import type { Address, Hex } from '../util/bytes';
import type { ChainParams } from './records';
import type { State } from './state';
import type { ErrorCode, Rejection, RejectionStatus } from './errors';
import type { ChainEvent } from './events';
import type { ActionOptions } from '../codec/txs/options';

/** An event emitted by execution, stored in the receipt of its transaction: the union of src/state/events.ts. */
export type { ChainEvent } from './events';

export interface Receipt {
  txHash: Hex;
  index: number;
  kind: string;
  signer: Address | null;
  status: 'ok' | 'failed';
  /** Error code and message when failed. */
  code?: ErrorCode;
  message?: string;
  /** HTTP status class of the failure (contract [D-envelope-status]), for the API answer. */
  errorStatus?: RejectionStatus;
  events: ChainEvent[];
}

/**
 * A failed receipt's reason as the one Rejection value the door also throws; null for
 * an ok receipt. A failed receipt written without a status or code (never by this
 * execution) reads as 422 REJECTED.
 */
export function receiptRejection(r: Receipt): Rejection | null {
  if (r.status !== 'failed') return null;
  return { status: r.errorStatus ?? 422, code: r.code ?? 'REJECTED', message: r.message ?? 'rejected by execution' };
}

/** What an operation sees while it executes: state, parameters, the block, and an event sink. */
export interface ExecContext {
  state: State;
  params: ChainParams;
  header: BlockHeader;
  emit(event: ChainEvent): void;
}

/** One transaction kind's execution rule (one file per kind under src/state/ops). */
export interface TxOp<B = any> {
  /** Field shapes (400), before the signature is even looked at (contract [D-envelope-order]). */
  shape?(body: B, params: ChainParams): void;
  /**
   * Field ranges that depend on the state's parameters (a pair's tick, lot, minimum and
   * leverage: 400), still before the signature (decision 100). Run by the API door and
   * the mempool against the head's state; execution refuses the same in `apply`, at the
   * block's state, after the nonce (an included transaction consumes it).
   */
  bounds?(state: State, body: B): void;
  /** Checks the signature and returns the signer; throws TxError(401) otherwise. */
  verify(tx: Tx<B>, chainId: number): Address;
  /** The signed-operation nonce, consumed whatever the outcome once included. */
  nonce?(body: B): bigint;
  /** The action's options (src/codec/txs/options.ts): its expiry is checked for every kind that has them (src/state/action-expiry.ts). */
  options?(body: B): ActionOptions | undefined;
  /**
   * Everything decidable without state: shape and limits (400), who may sign (403).
   * Runs at the door (so such a transaction is never stored) and again in execution.
   */
  check?(body: B, params: ChainParams, signer: Address): void;
  /**
   * Who may act, where it depends on the state (403: a live session key, the owner's
   * agent mode), at `timeMs` (the block's time; the head's at the door). Decided before
   * the nonce (decision 102: authorization 403 before nonce 409); execution then consumes
   * an unused nonce of a refused transaction, as of any included one.
   */
  authorize?(state: State, body: B, signer: Address, timeMs: number): void;
  /**
   * State-dependent checks worth making at the door (the mempool, against the last
   * committed state), for kinds that pay neither fee nor nonce and so must not reach a
   * block when already hopeless. apply() checks again at the block's time.
   */
  admit?(state: State, body: B, signer: Address): void;
  apply(ctx: ExecContext, tx: Tx<B>, signer: Address): void;
}
