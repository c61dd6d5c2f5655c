/**
 * Owner governance transactions (contract [C-auth-governance], [C-limits-timelock];
 * decision 74): GovernancePropose, GovernanceApprove, GovernanceExecute and
 * GovernanceCancel. Each is an EIP-712 signature of one of the genesis owners over a
 * message bound to the chain id (the domain) and the operation id, and each moves the
 * operation through machines/governance-operation.ts (stepOperation in
 * src/state/governance/operations.ts), stepping TICK at the block's time first so the timelock and
 * the expiry are the block time's.
 *
 * Refusals, all before anything is written: the operation's shape (400
 * INVALID_OPERATION; an upgrade whose height is not above the block's, at proposal and at
 * execution); a signature not recovering to the owner named (401); a signer who
 * is not an owner (403 NOT_GOVERNANCE_OWNER), or the proposer approving its own
 * operation (403 SAME_OWNER: two distinct owners are needed); an unknown operation id
 * (404 UNKNOWN_OPERATION; an id signed for another chain names no operation here); a
 * reused nonce (409); an event the machine refuses in the operation's state (422
 * OPERATION_STATE: executed twice, approved twice, cancelled, expired), or an execution
 * before the timelock has passed (422 TIMELOCK_NOT_PASSED). Execute is open to any
 * owner (the proposer included): the two signatures were given by then. A cancel takes
 * two owners (decision 162): the first owner's cancel is recorded (cancelRequestedBy)
 * and the second distinct owner's closes the operation; only the proposer of an
 * operation nobody approved yet withdraws it alone. The same owner cancelling twice is
 * 403 SAME_OWNER.
 * The approval of a halt executes it at once (its timelock is 0).
 *
 * Owners are those of the chain parameters at the block's start, so after a SetOwners
 * (decision 76) only the new owners propose, approve, execute and cancel. An operation
 * pending from before keeps its state, but a signature counts only while its signer is
 * an owner: approving needs the proposer still an owner, executing needs the proposer
 * and the approver both still owners (403 NOT_GOVERNANCE_OWNER otherwise); such an
 * operation can only be cancelled, or left to expire, and proposed again.
 */
import {
  actionDigest,
  GOV_OP_NAMES,
  GovOpKind,
  operationIdOf,
  proposeDigest,
  type GovActionBody,
  type GovActionType,
  type GovProposeBody,
} from '../../codec/txs/governance';
import { stepGovernanceOperation, type GovernanceEvent } from '../../../machines/governance-operation';
import type { ExecContext, TxOp } from '../context';
import { forbidden, rejected, TxError, unauthorized } from '../errors';
import { executeOperation, isOwner, operationAtHeight, operationShape, stepOperation, timelockOf, unknownOperation, type GovernanceRecord } from '../governance/operations';
import { pairIsNew } from '../governance/pairs';
import type { ChainParams } from '../records';
import { verifySigner } from '../../crypto/secp256k1';
import type { Address, Hex } from '../../util/bytes';

function requireOwner(params: ChainParams, who: Address): void {
  if (!isOwner(params, who)) throw forbidden('NOT_GOVERNANCE_OWNER', `${who} is not one of the owners`);
}

/** The operation's earlier signatures count only while their signers are owners (an owner change since). */
function requireSignersStillOwners(params: ChainParams, rec: GovernanceRecord): void {
  for (const [role, who] of [['proposer', rec.proposer], ['approver', rec.approver]] as const) {
    if (who !== null && !isOwner(params, who)) {
      throw forbidden('NOT_GOVERNANCE_OWNER', `operation ${rec.id}: its ${role} ${who} is no longer an owner; its signature no longer counts (cancel it and propose again)`);
    }
  }
}

/** Steps `event` or answers the machine's refusal as 422 OPERATION_STATE. */
function step(ctx: ExecContext, rec: GovernanceRecord, event: GovernanceEvent): GovernanceRecord {
  const next = stepOperation(ctx.state, rec.id, event);
  if (!next) throw rejected('OPERATION_STATE', `operation ${rec.id} is ${rec.state}: ${event.type} is not taken there`);
  return next;
}

/** The stored operation, ticked to the block's time (a final state takes no TICK: it stays). */
function current(ctx: ExecContext, id: Hex): GovernanceRecord {
  const rec = ctx.state.governance.get(id);
  if (!rec) throw unknownOperation(id);
  return stepOperation(ctx.state, id, { type: 'TICK', nowMs: ctx.header.timestampMs }) ?? rec;
}

function emit(ctx: ExecContext, rec: GovernanceRecord, owner: Address): void {
  ctx.emit({ type: 'GovernanceOperation', operationId: rec.id, kind: GOV_OP_NAMES[rec.operation.kind], state: rec.state, owner });
}

function execute(ctx: ExecContext, rec: GovernanceRecord, owner: Address): void {
  const done = step(ctx, rec, { type: 'EXECUTE', nowMs: ctx.header.timestampMs });
  // After the machine's answer (executed twice reads OPERATION_STATE); a throw writes nothing.
  requireSignersStillOwners(ctx.params, rec);
  ctx.state.governance.set(rec.id, { ...done, closedBy: owner, executedHeight: ctx.header.height });
  executeOperation(ctx.state, ctx.params, rec.id, rec.operation, ctx.header.height);
  emit(ctx, done, owner);
}

export const governanceProposeOp: TxOp<GovProposeBody> = {
  shape: (b, params) => operationShape(b.operation, params),
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(proposeDigest(chainId, b), b.signature, b.proposer)) throw unauthorized(`signature: does not recover to ${b.proposer}`);
    return b.proposer;
  },
  nonce: (b) => b.nonce,
  check: (b, params) => requireOwner(params, b.proposer),
  apply(ctx, tx, signer) {
    const b = tx.body;
    operationAtHeight(b.operation, ctx.header.height);
    const id = operationIdOf(ctx.params.chainId, b);
    if (ctx.state.governance.has(id)) throw new TxError(409, 'OPERATION_EXISTS', `operation ${id} was already proposed`);
    if (b.operation.kind === GovOpKind.AddPair) pairIsNew(ctx.state, b.operation.pair);
    const nowMs = ctx.header.timestampMs;
    const timelockMs = timelockOf(ctx.params, b.operation);
    const expiresAtMs = nowMs + timelockMs + ctx.params.consensus.timelockHighImpactMs;
    const rec = stepOperation(ctx.state, id, { type: 'PROPOSE', nowMs, timelockMs, expiresAtMs }, { operation: b.operation, proposer: signer, proposedHeight: ctx.header.height });
    if (!rec) throw rejected('OPERATION_STATE', `operation ${id}: PROPOSE refused`);
    emit(ctx, rec, signer);
  },
};

function actionOp(type: GovActionType, apply: (ctx: ExecContext, rec: GovernanceRecord, owner: Address) => void): TxOp<GovActionBody> {
  return {
    verify: (tx, chainId) => {
      const b = tx.body;
      if (!verifySigner(actionDigest(chainId, type, b), b.signature, b.owner)) throw unauthorized(`signature: does not recover to ${b.owner}`);
      return b.owner;
    },
    nonce: (b) => b.nonce,
    check: (b, params) => requireOwner(params, b.owner),
    apply: (ctx, tx, signer) => apply(ctx, current(ctx, tx.body.operationId), signer),
  };
}

export const governanceApproveOp = actionOp('GovernanceApprove', (ctx, rec, owner) => {
  if (rec.proposer === owner) throw forbidden('SAME_OWNER', `operation ${rec.id} was proposed by ${owner}: a second owner must approve it`);
  requireSignersStillOwners(ctx.params, rec);
  const approved = step(ctx, rec, { type: 'APPROVE', nowMs: ctx.header.timestampMs });
  ctx.state.governance.set(rec.id, { ...approved, approver: owner });
  emit(ctx, approved, owner);
  // A halt (timelock 0) is ready with its approval and executes at once.
  if (approved.context.timelockMs === 0) execute(ctx, current(ctx, rec.id), owner);
});

export const governanceExecuteOp = actionOp('GovernanceExecute', (ctx, rec, owner) => {
  if (rec.state === 'approved') {
    throw rejected('TIMELOCK_NOT_PASSED', `operation ${rec.id} is ready at block time ${rec.context.readyAtMs}, this block's is ${ctx.header.timestampMs}`);
  }
  execute(ctx, rec, owner);
});

/**
 * Whether `owner`'s cancel closes the operation (decision 162): a cancel takes as many
 * owners as passing it does. The proposer alone withdraws its own proposal before anyone
 * approved it (its signature is the only one standing); anything else needs two distinct
 * owners' cancels, so one owner, honest or rogue, vetoes nothing the two others back (a
 * Resume after a halt, a SetOwners that removes it). A first cancel whose owner has since
 * been removed no longer counts.
 */
function cancelCloses(params: ChainParams, rec: GovernanceRecord, owner: Address): boolean {
  if (rec.state === 'proposed' && rec.proposer === owner) return true;
  const first = rec.cancelRequestedBy;
  if (first === undefined || !isOwner(params, first)) return false;
  if (first === owner) throw forbidden('SAME_OWNER', `operation ${rec.id}: ${owner} already asked to cancel it; a second owner must`);
  return true;
}

export const governanceCancelOp = actionOp('GovernanceCancel', (ctx, rec, owner) => {
  // The machine's answer first: cancelling an executed, cancelled or expired operation
  // reads OPERATION_STATE whoever sends it. stepGovernanceOperation is pure: nothing is written yet.
  if (!stepGovernanceOperation(rec.state, rec.context, { type: 'CANCEL', nowMs: ctx.header.timestampMs })) {
    throw rejected('OPERATION_STATE', `operation ${rec.id} is ${rec.state}: CANCEL is not taken there`);
  }
  if (!cancelCloses(ctx.params, rec, owner)) {
    const requested = { ...rec, cancelRequestedBy: owner };
    ctx.state.governance.set(rec.id, requested);
    ctx.emit({ type: 'GovernanceCancelRequested', operationId: rec.id, kind: GOV_OP_NAMES[rec.operation.kind], owner });
    return;
  }
  const cancelled = step(ctx, rec, { type: 'CANCEL', nowMs: ctx.header.timestampMs });
  const { cancelRequestedBy: _first, ...closed } = cancelled;
  ctx.state.governance.set(rec.id, { ...closed, closedBy: owner });
  emit(ctx, cancelled, owner);
});
