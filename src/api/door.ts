/**
 * The door of every signed write route: the route builds the transaction, and the door
 * asks the operation (src/state/ops: `opFor(kind)`) whether it may pass, with the very
 * functions execution runs on it (src/state/apply.ts), in the order of contract
 * [D-envelope-order]:
 *   shape and bounds (400) → signature (401) → who may sign (403)
 * so that each rule exists once, in its operation. The route keeps only what has no
 * operation counterpart yet (an unknown pair or order named in the request, answered
 * 400/404 from the state before the transaction is submitted); the nonce (409) is the
 * mempool's, after the door.
 *
 * Who may sign is the operation's signer rule (SIGNER_RULES, src/state/accounts/sessions.ts):
 * `owner` kinds refuse anyone but the owner in `check` (403 OWNER_ONLY); `trader` kinds
 * are asked here against the head block's time (403 NOT_AUTHORIZED / SESSION_REVOKED /
 * SESSION_EXPIRED), and again by execution at its own block's time.
 *
 * A refusal is thrown as the TxError the operation threw: the same status, code and
 * message a failed receipt of the same transaction would carry.
 */
import { encodeTx, TxKind, type Tx } from '../codec/tx';
import type { FaucetBody } from '../codec/txs/faucet';
import type {
  NativeCancelBody, NativeCancelByCloidBody, NativeModifyBody, NativePlaceBody, RestBatchBody, RestCancelAllBody, RestCancelBody, RestCancelByCloidBody, RestModifyBody, RestOrderBody,
} from '../codec/txs/orders';
import type { PerpCloseBody, PerpOpenBody, PerpTpslBody, PoolDepositBody, PoolWithdrawBody } from '../codec/txs/perps';
import type { SessionCreateBody, SessionRevokeBody, SetAgentCapsBody, SetAgentModeBody } from '../codec/txs/sessions';
import type { WithdrawBody } from '../codec/txs/withdraw';
import type { SubAccountCreateBody, SubAccountTransferBody } from '../codec/txs/subaccounts';
import type { ScheduleCancelBody, TwapCancelBody, TwapPlaceBody } from '../codec/txs/timers';
import { TxError } from '../state/errors';
import { opFor } from '../state/ops';
import { activeSession } from '../state/accounts/sessions';
import type { State } from '../state/state';
import type { Address } from '../util/bytes';
import { parseSignatureField } from './common';

/** The body of each kind a route builds. A kind a route submits is added here with its codec body. */
export interface DoorBodies {
  [TxKind.Faucet]: FaucetBody;
  [TxKind.RestOrder]: RestOrderBody;
  [TxKind.RestBatch]: RestBatchBody;
  [TxKind.RestCancel]: RestCancelBody;
  [TxKind.RestCancelAll]: RestCancelAllBody;
  [TxKind.NativePlace]: NativePlaceBody;
  [TxKind.NativeCancel]: NativeCancelBody;
  [TxKind.RestModify]: RestModifyBody;
  [TxKind.NativeModify]: NativeModifyBody;
  [TxKind.RestCancelByCloid]: RestCancelByCloidBody;
  [TxKind.NativeCancelByCloid]: NativeCancelByCloidBody;
  [TxKind.SessionCreate]: SessionCreateBody;
  [TxKind.SessionRevoke]: SessionRevokeBody;
  [TxKind.SetAgentCaps]: SetAgentCapsBody;
  [TxKind.SetAgentMode]: SetAgentModeBody;
  [TxKind.Withdraw]: WithdrawBody;
  [TxKind.PerpOpen]: PerpOpenBody;
  [TxKind.PerpClose]: PerpCloseBody;
  [TxKind.PerpTpsl]: PerpTpslBody;
  [TxKind.PoolDeposit]: PoolDepositBody;
  [TxKind.PoolWithdraw]: PoolWithdrawBody;
  [TxKind.SubAccountCreate]: SubAccountCreateBody;
  [TxKind.SubAccountTransfer]: SubAccountTransferBody;
  [TxKind.ScheduleCancel]: ScheduleCancelBody;
  [TxKind.TwapPlace]: TwapPlaceBody;
  [TxKind.TwapCancel]: TwapCancelBody;
}

export type DoorKind = keyof DoorBodies;

export interface DoorRequest<K extends DoorKind> {
  /**
   * The signature: as sent in the request's `signature` field (parsed after the shape:
   * absent 401 MISSING_SIGNATURE, malformed 400 INVALID_SIGNATURE_FORMAT), or bytes the
   * node signed itself (the faucet).
   */
  signature: string | undefined | Uint8Array;
  /**
   * Who may have signed, in order: the first whose signature verifies is the signer
   * (an owner, then the owner's live session key, whose owner-only operations the
   * signer rule then refuses 403 rather than 401). None verifies: the first one's 401.
   */
  signers: readonly [Address, ...Address[]];
  /** The transaction body as signed by `signer`. */
  body(signature: Uint8Array, signer: Address): DoorBodies[K];
  /**
   * The route's own 400 rules that have no operation counterpart at the door yet (what
   * the request names must exist in the head's state, a pair's own bounds: execution
   * refuses them in `apply`). Run after the shape, before the signature.
   */
  routeRules?(body: DoorBodies[K]): void;
}

export interface Admitted<K extends DoorKind> {
  tx: Tx<DoorBodies[K]>;
  signer: Address;
}

/** The body before its signature is parsed: the shape does not look at it. */
const NO_SIGNATURE = new Uint8Array(0);

/**
 * The transaction of `kind` the request builds, once its operation lets it through the
 * door against `state` (the head's): its signer, verified, goes with it to the mempool
 * so that it is not recovered twice. Throws the operation's TxError otherwise.
 */
export function admitAtDoor<K extends DoorKind>(state: State, kind: K, req: DoorRequest<K>): Admitted<K> {
  const params = state.params();
  const op = opFor(kind);
  const unsigned = req.body(NO_SIGNATURE, req.signers[0]);
  op.shape?.(unsigned, params);
  op.bounds?.(state, unsigned);
  req.routeRules?.(unsigned);
  const signature = req.signature instanceof Uint8Array ? req.signature : parseSignatureField(req.signature);
  let refused: TxError | undefined;
  for (const claimed of req.signers) {
    const tx = encodeTx(params.chainId, kind, req.body(signature, claimed));
    let signer: Address;
    try {
      signer = op.verify(tx, params.chainId);
    } catch (err) {
      if (!(err instanceof TxError) || err.status !== 401) throw err;
      refused ??= err;
      continue;
    }
    op.check?.(tx.body, params, signer);
    // Who may act at the head's time: the signer rule and the kind's own (src/state/accounts/sessions.ts withSignerRule).
    op.authorize?.(state, tx.body, signer, state.head().timestampMs);
    return { tx, signer };
  }
  throw refused!;
}

/**
 * Who may have signed an owner's operation: the owner, then its session key while live
 * at the head block. A session key's signature thus meets the operation's signer rule
 * (403 OWNER_ONLY where a session key may not act) instead of a 401.
 */
export function ownerOrSessionKey(state: State, owner: Address): [Address, ...Address[]] {
  const session = activeSession(state, owner, state.head().timestampMs);
  return session ? [owner, session.sessionKey] : [owner];
}
