/**
 * Bridge withdrawals in execution (issue 22 item 3; decision 83): every change of a
 * withdrawal's status is one stepWithdrawal call, which steps the stored record (status
 * + context, TableId.Withdrawal) with stepWithdrawalMachine, the stepper compiled from
 * machines/withdrawal.ts, and does what the state entered asks:
 *   - signed:    nothing moves; the relayer may queue it on the external chain;
 *   - submitted: nothing moves; the queueing transaction is recorded;
 *   - paid:      the owner's lock of amount + fee ends; the fee goes to the fee account
 *                (it stays in the vault), the amount is burned here (it left on the
 *                external chain): supply −= amount, ledger.withdrawalsPaid += amount;
 *   - refunded:  the owner's lock of amount + fee returns to its free balance.
 * An event the machine refuses changes nothing (the claim is late): a second VOID, or a
 * PAID after a refund, cannot move funds twice. Entering a state deletes the votes the
 * machine no longer takes (all of them once final).
 */
import { stepWithdrawalMachine, type WithdrawalEvent } from '../../../machines/withdrawal';
import { BridgeClaimKind, WithdrawalVoidReason } from '../../codec/txs/bridge';
import type { Address } from '../../util/bytes';
import { bytesToHex } from '../../util/bytes';
import { addToLedger, hasQuorum, withdrawalContext } from './reads';
import type { Withdrawal } from './records';
import type { ChainEvent } from '../context';
import type { ChainParams } from '../records';
import { InvariantError, type State } from '../state';
import { burn, credit } from '../accounts/vault';

export interface BridgeStepContext {
  state: State;
  params: ChainParams;
  nowMs: number;
  emit(event: ChainEvent): void;
}

const WITHDRAWAL_CLAIM_KINDS = [BridgeClaimKind.WithdrawalQueued, BridgeClaimKind.WithdrawalPaid, BridgeClaimKind.WithdrawalVoid] as const;

/**
 * Steps `w` with `event`; returns the stored record, or undefined when the machine
 * refuses the event in w's state (nothing changed).
 */
export function stepWithdrawal(ctx: BridgeStepContext, w: Withdrawal, event: WithdrawalEvent): Withdrawal | undefined {
  const next = stepWithdrawalMachine(w.status, withdrawalContext(w), event);
  if (next === undefined) return undefined;
  const { state } = ctx;
  const c = next.context;
  const rec: Withdrawal = { ...w, status: next.value, updatedMs: c.updatedMs };
  if (c.queuedTx) rec.queuedTx = c.queuedTx;
  if (c.paidTx) rec.paidTx = c.paidTx;
  if (c.voidReason !== undefined) rec.voidReason = c.voidReason as WithdrawalVoidReason;
  if (c.voidTx) rec.voidTx = c.voidTx;
  const id = String(w.id);
  const total = w.amount + w.fee;
  switch (next.value) {
    case 'signed':
      ctx.emit({ type: 'WithdrawalSigned', withdrawalId: id, owner: w.owner, signatures: w.signatures.length });
      break;
    case 'submitted':
      state.bridgeVotes.delete(`w:${id}:${BridgeClaimKind.WithdrawalQueued}`);
      ctx.emit({ type: 'WithdrawalSubmitted', withdrawalId: id, owner: w.owner, externalTx: bytesToHex(c.queuedTx!) });
      break;
    case 'paid': {
      releaseLock(state, w.owner, total);
      credit(state, ctx.params.feeAccount, w.fee);
      burn(state, w.amount);
      addToLedger(state, 'withdrawalsPaid', w.amount);
      for (const k of WITHDRAWAL_CLAIM_KINDS) state.bridgeVotes.delete(`w:${id}:${k}`);
      ctx.emit({ type: 'WithdrawalPaid', withdrawalId: id, owner: w.owner, amount: w.amount, fee: w.fee, externalTx: bytesToHex(c.paidTx!) });
      break;
    }
    case 'refunded': {
      releaseLock(state, w.owner, total);
      credit(state, w.owner, total);
      for (const k of WITHDRAWAL_CLAIM_KINDS) state.bridgeVotes.delete(`w:${id}:${k}`);
      const reason = c.voidReason === WithdrawalVoidReason.Cancelled ? 'cancelled' : 'expired';
      ctx.emit({ type: 'WithdrawalRefunded', withdrawalId: id, owner: w.owner, amount: w.amount, fee: w.fee, reason, externalTx: bytesToHex(c.voidTx!) });
      break;
    }
    default:
      throw new InvariantError(`withdrawal ${id}: the machine stepped ${event.type} to ${next.value}`);
  }
  state.withdrawals.set(id, rec);
  return rec;
}

/** Ends the lock a withdrawal holds on its owner's account. */
function releaseLock(state: State, owner: Address, total: bigint): void {
  const a = state.account(owner);
  if (a.usdcLocked < total) throw new InvariantError(`withdrawal owner ${owner} has ${a.usdcLocked} locked, below the withdrawal's ${total}`);
  state.accounts.set(owner, { ...a, usdcLocked: a.usdcLocked - total });
}

/** SIGNED once the validators whose signatures are on a `requested` record pass 2/3 of the current power. */
export function signIfQuorum(ctx: BridgeStepContext, w: Withdrawal): Withdrawal {
  if (w.status !== 'requested') return w;
  if (!hasQuorum(ctx.state, w.signatures.map((s) => s.validator))) return w;
  return stepWithdrawal(ctx, w, { type: 'SIGNED', nowMs: ctx.nowMs }) ?? w;
}

/** Adds one validator's signature to a record, keeping them ascending by validator (the caller checked it is new). */
export function withSignature(w: Withdrawal, validator: Address, signature: Uint8Array): Withdrawal {
  const signatures = [...w.signatures, { validator, signature }].sort((a, b) => (a.validator < b.validator ? -1 : a.validator > b.validator ? 1 : 0));
  return { ...w, signatures };
}
