/**
 * Owner governance in the state (contract [C-auth-governance], [C-limits-timelock];
 * decision 74): the operation records (TableId.Governance), the one function that changes
 * an operation's state, `stepOperation`, which asks machines/governance-operation.ts, the
 * halt flag, and what executing each operation kind does.
 *
 * The owners are the chain parameters' `owners` (2 of 3): the genesis ones until a
 * SetOwners operation replaces them (decision 76). Timelocks are the genesis consensus
 * parameters (timelockOf): a parameter change, a new pair, a resume and an
 * AdminSeedValidator wait timelockRoutineMs after approval; a change of the owners
 * (authority) and a software upgrade (decision 77) timelockHighImpactMs; a halt waits
 * nothing (its approval executes it). A
 * pending operation expires timelockHighImpactMs after it could first have executed
 * (proposal time + its timelock + timelockHighImpactMs).
 *
 * What a halt stops: the transaction kinds of HALTED_KINDS (order placement, perp open,
 * close and TP/SL, withdrawals), refused 422 CHAIN_HALTED by the wrapper src/state/ops/
 * index.ts puts around them. It moves no funds and changes no owner: its execution only
 * writes the `halt` meta record. Cancels, the faucet, sessions, the end-of-block risk
 * engine (liquidations, TP/SL hits, funding) and governance itself go on.
 */
import {
  EMPTY_GOVERNANCE_CONTEXT,
  stepGovernanceOperation,
  type GovernanceEvent,
  type GovernanceStateName,
  type GovernanceContext,
} from '../../../machines/governance-operation';
import { TxKind } from '../../codec/tx';
import { GovOpKind, type GovOperation } from '../../codec/txs/governance';
import type { Address, Hex } from '../../util/bytes';
import { adminSeedValidator, seedShape } from '../validators/admin-seed';
import { paramShape, withParam } from './params';
import { addPair, pairShape } from './pairs';
import { isVersion, UPGRADE_VERSION_MAX_CHARS, type UpgradeRecord } from './upgrade';
import { badRequest, rejected, TxError } from '../errors';
import type { TxOp } from '../context';
import type { ChainParams } from '../records';
import type { GovernanceRecord, HaltRecord } from './record';
import { InvariantError, type State } from '../state';

export type { GovernanceRecord } from './record';

export function haltOf(state: State): HaltRecord | undefined {
  return state.meta.get('halt') as HaltRecord | undefined;
}

/** The transaction kinds a halt stops: trading, perps and withdrawals. */
export const HALTED_KINDS: ReadonlySet<TxKind> = new Set([
  TxKind.RestOrder,
  TxKind.TwapPlace,
  TxKind.RestBatch,
  TxKind.NativePlace,
  TxKind.RestModify,
  TxKind.NativeModify,
  TxKind.PerpOpen,
  TxKind.PerpClose,
  TxKind.PerpTpsl,
  TxKind.Withdraw,
]);

/** `op` refusing 422 CHAIN_HALTED while a halt is in force, when `kind` is one a halt stops. */
export function withHaltRule<B>(kind: TxKind, op: TxOp<B>, kindName: string): TxOp<B> {
  if (!HALTED_KINDS.has(kind)) return op;
  return {
    ...op,
    apply(ctx, tx, signer) {
      const halt = haltOf(ctx.state);
      if (halt) throw rejected('CHAIN_HALTED', `${kindName}: the chain is halted by owner operation ${halt.operationId} since height ${halt.height}`);
      op.apply(ctx, tx, signer);
    },
  };
}

export function isOwner(params: ChainParams, address: Address): boolean {
  const a = address.toLowerCase();
  return params.owners.addresses.some((o) => o.toLowerCase() === a);
}

/**
 * How long after approval an operation of this kind becomes ready, ms: a halt is
 * instant; upgrades, custody and authority changes (the owner set) wait the high-impact
 * timelock; the rest the routine one (contract [C-limits-timelock]).
 */
export function timelockOf(params: ChainParams, op: GovOperation): number {
  switch (op.kind) {
    case GovOpKind.Halt:
      return 0;
    case GovOpKind.SetOwners:
    case GovOpKind.SetOperator:
    case GovOpKind.SoftwareUpgrade:
      return params.consensus.timelockHighImpactMs;
    case GovOpKind.SetParam:
    case GovOpKind.Resume:
    case GovOpKind.AdminSeedValidator:
    case GovOpKind.AddPair:
      return params.consensus.timelockRoutineMs;
  }
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** 400 INVALID_OPERATION unless the three owners are distinct and none is the zero address. */
function ownersShape(owners: readonly Address[]): void {
  const seen = new Set<string>();
  owners.forEach((o, i) => {
    const a = o.toLowerCase();
    if (a === ZERO_ADDRESS) throw badRequest('INVALID_OPERATION', `operation.owners[${i}]: the zero address cannot be an owner`);
    if (seen.has(a)) throw badRequest('INVALID_OPERATION', `operation.owners[${i}]: ${a} is named twice; the three owners must be distinct`);
    seen.add(a);
  });
}

/**
 * Shape of an operation, before anything else: 400 INVALID_OPERATION naming the field
 * for a parameter out of range or breaking a relation (src/state/governance/params.ts),
 * a pair the genesis could not hold (src/state/governance/pairs.ts; its id and symbol
 * are checked new against the state by the proposal's execution), or owners repeated or
 * zero; an AdminSeedValidator's fields as RegisterValidator's (400 INVALID_VALIDATOR,
 * INVALID_AMOUNT), so a seed that could never execute is not proposed. Execution checks
 * them again, with the duplicates and the funder's balance, at the state it runs on.
 * An AdminSeedValidator's funder must be the validator or an owner, and the validator's
 * signature over its seeding must be there (decision 160: src/state/validators/admin-seed.ts seedShape).
 * A SetOperator's operator is not the zero address.
 */
export function operationShape(op: GovOperation, params: ChainParams): void {
  if (op.kind === GovOpKind.AdminSeedValidator) seedShape(op, params);
  if (op.kind === GovOpKind.SetOperator && op.operator.toLowerCase() === ZERO_ADDRESS) {
    throw badRequest('INVALID_OPERATION', 'operation.operator: the zero address cannot be the operator');
  }
  if (op.kind === GovOpKind.SoftwareUpgrade) {
    if (!isVersion(op.version)) {
      throw badRequest('INVALID_OPERATION', `operation: version ${JSON.stringify(op.version.slice(0, UPGRADE_VERSION_MAX_CHARS))} is not a semantic version (MAJOR.MINOR.PATCH[-pre][+build], at most ${UPGRADE_VERSION_MAX_CHARS} characters)`);
    }
    if (op.height < 1) throw badRequest('INVALID_OPERATION', 'operation: the upgrade height is a block height, 1 or more');
  }
  if (op.kind === GovOpKind.SetParam) paramShape(params, op.param, op.value);
  if (op.kind === GovOpKind.AddPair) pairShape(op.pair, params);
  if (op.kind === GovOpKind.SetOwners) ownersShape(op.owners);
}

/**
 * What an operation needs of the chain's height: an upgrade's height must be above the
 * block that proposes it, and above the block that executes it (400 INVALID_OPERATION):
 * an upgrade is never scheduled for a height already reached.
 */
export function operationAtHeight(op: GovOperation, height: number): void {
  if (op.kind === GovOpKind.SoftwareUpgrade && op.height <= height) {
    throw badRequest('INVALID_OPERATION', `operation: the upgrade height ${op.height} is not above the current height ${height}`);
  }
}

/** The state an operation is in at block time `nowMs`: the TICK the machine takes then. */
export function operationStateAt(rec: GovernanceRecord, nowMs: number): { state: GovernanceStateName; context: GovernanceContext } {
  const step = stepGovernanceOperation(rec.state, rec.context, { type: 'TICK', nowMs });
  return step ? { state: step.value, context: step.context } : { state: rec.state, context: rec.context };
}

/**
 * Applies `event` to the operation `id` through the machine and stores what it leaves.
 * Returns undefined, writing nothing, when the machine refuses the event: the caller
 * answers with its refusal. PROPOSE needs the new record's fields.
 */
export function stepOperation(
  state: State,
  id: Hex,
  event: GovernanceEvent,
  fresh?: Pick<GovernanceRecord, 'operation' | 'proposer' | 'proposedHeight'>,
): GovernanceRecord | undefined {
  const rec = state.governance.get(id);
  const step = stepGovernanceOperation(rec?.state ?? 'none', rec?.context ?? EMPTY_GOVERNANCE_CONTEXT, event);
  if (!step) return undefined;
  if (step.value === 'none') throw new InvariantError(`governance ${id}: ${event.type} left no record`);
  const base = rec ?? (fresh ? { id, ...fresh, approver: null, closedBy: null, executedHeight: 0 } : undefined);
  if (!base) throw new InvariantError(`governance ${id}: ${event.type} without a record`);
  // A step that changes nothing (a TICK before the timelock) writes nothing.
  if (rec && step.value === rec.state && sameContext(step.context, rec.context)) return rec;
  const next: GovernanceRecord = { ...base, state: step.value, context: step.context };
  state.governance.set(id, next);
  return next;
}

function sameContext(a: GovernanceContext, b: GovernanceContext): boolean {
  return a.proposedAtMs === b.proposedAtMs && a.timelockMs === b.timelockMs && a.readyAtMs === b.readyAtMs && a.expiresAtMs === b.expiresAtMs && a.executedAtMs === b.executedAtMs;
}

/** Every operation id, ascending: the execution-safe order. */
export function operationIds(state: State): Hex[] {
  return state.governance.sortedKeys() as Hex[];
}

/**
 * What executing `op` does, at `height`. A refusal here (an AdminSeedValidator the state
 * no longer accepts) throws TxError and the executing transaction writes nothing.
 */
export function executeOperation(state: State, params: ChainParams, id: Hex, op: GovOperation, height: number): void {
  switch (op.kind) {
    case GovOpKind.SetParam: {
      // Against the parameters in force: another change executed since the proposal may
      // have moved a bound this one's relation reads.
      const now = state.params();
      paramShape(now, op.param, op.value);
      // The meta record, not the block's params object: blocks read it at their start.
      state.meta.set('params', withParam(now, op.param, op.value));
      return;
    }
    case GovOpKind.AddPair:
      addPair(state, state.params(), op.pair);
      return;
    case GovOpKind.SetOwners: {
      const current = state.params();
      ownersShape(op.owners);
      state.meta.set('params', { ...current, owners: { ...current.owners, addresses: [...op.owners] as [Address, Address, Address] } });
      return;
    }
    case GovOpKind.Halt:
      state.meta.set('halt', { operationId: id, height } satisfies HaltRecord);
      return;
    case GovOpKind.Resume:
      if (haltOf(state)) state.meta.delete('halt');
      return;
    case GovOpKind.AdminSeedValidator:
      adminSeedValidator(state, params, op, height);
      return;
    case GovOpKind.SoftwareUpgrade:
      // A later upgrade replaces the one scheduled before it: one record, the last executed.
      operationAtHeight(op, height);
      state.meta.set('upgrade', { version: op.version, height: op.height, operationId: id } satisfies UpgradeRecord);
      return;
    case GovOpKind.SetOperator: {
      // Decision 159: approvals recorded before stay (each expires within 30 days).
      const current = state.params();
      state.meta.set('params', { ...current, owners: { ...current.owners, operator: op.operator.toLowerCase() as Address } });
      return;
    }
  }
}

/** 404 UNKNOWN_OPERATION: no operation has this id. */
export function unknownOperation(id: Hex): TxError {
  return new TxError(404, 'UNKNOWN_OPERATION', `operationId: no governance operation ${id}`);
}
