/**
 * Transaction kind -> execution rule. Every registered codec kind must have one; each file
 * beside this one holds the rule of one operation (or of one family of kinds) and is
 * named after it.
 */
import { TxKind } from '../../codec/tx';
import '../../codec/txs';
import type { TxOp } from '../context';
import { ethTxOp } from './eth-transfer';
import { withdrawOp } from './withdrawal-request';
import { faucetOp } from './faucet-credit';
import { oracleObservationOp } from './oracle-observation';
import { bridgeAttestationOp } from './bridge-attestation';
import { withdrawalSignaturesOp } from './withdrawal-signatures';
import { bridgeSetSignaturesOp } from './bridge-set-signatures';
import { perpCloseOp, perpOpenOp, perpTpslOp } from './perp-positions';
import { poolDepositOp, poolWithdrawOp } from './pool-shares';
import { restBatchOp, restCancelAllOp, restCancelByCloidOp, restCancelOp, restModifyOp, restOrderOp } from './rest-orders';
import { nativeCancelByCloidOp, nativeCancelOp, nativeModifyOp, nativePlaceOp } from './native-orders';
import { sessionCreateOp, sessionRevokeOp } from './session-keys';
import { subAccountCreateOp, subAccountTransferOp } from './subaccount-actions';
import { setAgentCapsOp, setAgentModeOp } from './agent-settings';
import { registerValidatorOp } from './validator-registration';
import { approveValidatorOp } from './validator-approval';
import { unbondOp } from './validator-unbond';
import { unjailOp } from './validator-unjail';
import { doubleSignEvidenceOp } from './double-sign-evidence';
import { governanceApproveOp, governanceCancelOp, governanceExecuteOp, governanceProposeOp } from './governance-operations';
import { scheduleCancelOp, twapCancelOp, twapPlaceOp } from './timers';
import { withExpiryOption } from './expiry-option';
import { withSignerRule } from '../accounts/sessions';
import { withHaltRule } from '../governance/operations';
import { withExpiryRule } from '../action-expiry';
import { txKindName } from '../../codec/tx';

export const OPS: ReadonlyMap<TxKind, TxOp> = new Map<TxKind, TxOp>([
  [TxKind.Faucet, faucetOp],
  [TxKind.EthTx, ethTxOp],
  [TxKind.Withdraw, withExpiryOption(withdrawOp, 'Withdraw')],
  [TxKind.RestOrder, restOrderOp],
  [TxKind.RestBatch, restBatchOp],
  [TxKind.RestCancel, restCancelOp],
  [TxKind.RestCancelAll, restCancelAllOp],
  [TxKind.NativePlace, nativePlaceOp],
  [TxKind.NativeCancel, nativeCancelOp],
  [TxKind.RestModify, restModifyOp],
  [TxKind.NativeModify, nativeModifyOp],
  [TxKind.RestCancelByCloid, restCancelByCloidOp],
  [TxKind.NativeCancelByCloid, nativeCancelByCloidOp],
  [TxKind.SessionCreate, withExpiryOption(sessionCreateOp, 'SessionCreate')],
  [TxKind.SessionRevoke, withExpiryOption(sessionRevokeOp, 'SessionRevoke')],
  [TxKind.SetAgentCaps, withExpiryOption(setAgentCapsOp, 'SetAgentCaps')],
  [TxKind.SetAgentMode, withExpiryOption(setAgentModeOp, 'SetAgentMode')],
  [TxKind.SubAccountCreate, subAccountCreateOp],
  [TxKind.SubAccountTransfer, subAccountTransferOp],
  [TxKind.OracleObservation, oracleObservationOp],
  [TxKind.PerpOpen, withExpiryOption(perpOpenOp, 'PerpOpen')],
  [TxKind.PerpClose, withExpiryOption(perpCloseOp, 'PerpClose')],
  [TxKind.PerpTpsl, withExpiryOption(perpTpslOp, 'PerpTpsl')],
  [TxKind.PoolDeposit, withExpiryOption(poolDepositOp, 'PoolDeposit')],
  [TxKind.PoolWithdraw, withExpiryOption(poolWithdrawOp, 'PoolWithdraw')],
  [TxKind.ApproveValidator, approveValidatorOp],
  [TxKind.RegisterValidator, registerValidatorOp],
  [TxKind.Unbond, unbondOp],
  [TxKind.Unjail, unjailOp],
  [TxKind.DoubleSignEvidence, doubleSignEvidenceOp],
  [TxKind.GovernancePropose, governanceProposeOp],
  [TxKind.GovernanceApprove, governanceApproveOp],
  [TxKind.GovernanceExecute, governanceExecuteOp],
  [TxKind.GovernanceCancel, governanceCancelOp],
  [TxKind.BridgeAttestation, bridgeAttestationOp],
  [TxKind.WithdrawalSignatures, withdrawalSignaturesOp],
  [TxKind.BridgeSetSignatures, bridgeSetSignaturesOp],
  [TxKind.ScheduleCancel, scheduleCancelOp],
  [TxKind.TwapPlace, twapPlaceOp],
  [TxKind.TwapCancel, twapCancelOp],
]);

export function opFor(kind: TxKind): TxOp {
  const op = OPS.get(kind);
  if (!op) throw new Error(`no execution rule for transaction kind ${kind}`);
  return op;
}

// Who may sign (src/state/accounts/sessions.ts SIGNER_RULES): every kind gets its signer rule in
// front of its own check/apply here, once, so no kind can skip "a session key can only
// trade". A kind without a rule fails to compile (mapped type) and, failing that, here.
for (const [kind, op] of OPS) (OPS as Map<TxKind, TxOp>).set(kind, withSignerRule(kind, op, txKindName(kind)));

// An owner halt (src/state/governance/operations.ts HALTED_KINDS; decision 74) stops trading, perps
// and withdrawals: those kinds are refused 422 CHAIN_HALTED, in execution at the block's
// state, so a halt executed earlier in a block stops the orders after it in that block.
for (const [kind, op] of OPS) (OPS as Map<TxKind, TxOp>).set(kind, withHaltRule(kind, op, txKindName(kind)));

// An action past its expiresAfter (src/state/action-expiry.ts; decision 90) is refused
// 422 ACTION_EXPIRED at the block's time, for every kind that carries options.
for (const [kind, op] of OPS) (OPS as Map<TxKind, TxOp>).set(kind, withExpiryRule(op, txKindName(kind)));
