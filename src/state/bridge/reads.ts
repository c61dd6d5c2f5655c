/**
 * The bridge's pure reads (issue 22; decisions 82, 83): what the watcher and relayer
 * actors and the API ask the state. Execution lives beside it: the votes and deposit
 * crediting in ./votes.ts, the withdrawal machine's steps and their accounting in
 * ./withdrawals.ts, the two transactions in ../ops/bridge-attestation.ts and
 * ../ops/withdrawal-signatures.ts.
 *
 * Quorum (decision 82): an outcome needs validators of the CURRENT active set
 * (activeValidators, the power consensus uses) holding more than 2/3 of its power:
 * 3 × Σ power(voters still active) > 2 × total active power. Exactly 2/3 is not enough.
 */
import { stepWithdrawalMachine, type WithdrawalContext, type WithdrawalEvent } from '../../../machines/withdrawal';
import { BridgeClaimKind, type BridgeClaim } from '../../codec/txs/bridge';
import type { BridgeMessageDomain, BridgeWithdrawalMessage } from '../../signing/bridge-withdrawal';
import type { BridgeParams } from '../../genesis/types';
import { hexToBytes, type Address } from '../../util/bytes';
import { isFinalWithdrawal, type BridgeLedger, type Withdrawal } from './records';
import type { State } from '../state';
import { activeValidators } from '../validators/set';

/** A deposit claim this far or further past nextDepositId is refused 422 DEPOSIT_TOO_FAR_AHEAD: bounds the pending votes a validator can make the chain store. */
export const MAX_DEPOSITS_AHEAD = 4096n;

const ZERO_LEDGER: Readonly<BridgeLedger> = Object.freeze({ genesisUsdc: 0n, faucetMinted: 0n, depositsCredited: 0n, withdrawalsPaid: 0n });

/** The bridge this network honours (genesis `bridge`), or undefined: no bridge. */
export function bridgeParams(state: State): BridgeParams | undefined {
  return state.params().bridge;
}

/**
 * The id of the next deposit to credit; the contract numbers deposits from 0, the chain
 * starts at genesis bridge.firstDepositId (default 0). Only ever grows.
 */
export function nextDepositId(state: State): bigint {
  return (state.meta.get('nextDepositId') as bigint | undefined) ?? BigInt(bridgeParams(state)?.firstDepositId ?? 0);
}

/**
 * What every bridge message of this chain is bound to (decision 150): the external chain
 * and bridge of genesis, this chain's id and its genesis hash. Throws on a network
 * without a bridge.
 */
export function bridgeDomain(state: State): BridgeMessageDomain {
  const b = bridgeParams(state);
  if (!b) throw new Error('this network has no bridge (genesis bridge section absent)');
  const genesisHash = state.meta.get('genesisHash') as string | undefined;
  if (genesisHash === undefined) throw new Error('state has no genesisHash (a bridge genesis records it)');
  return { externalChainId: BigInt(b.externalChainId), bridge: b.address, exchangeChainId: BigInt(state.params().chainId), genesisHash: hexToBytes(genesisHash) };
}

/** An alert's record key (TableId.BridgeAlert): `<alert kind>:<id>`. */
export function alertKey(claim: Extract<BridgeClaim, { kind: BridgeClaimKind.Alert }>): string {
  return `${claim.alert.kind}:${claim.id}`;
}

/** The vote record key of a claim: a deposit id, a (withdrawal id, claim kind), or an alert's (kind, id). */
export function claimKey(claim: BridgeClaim): string {
  if (claim.kind === BridgeClaimKind.Deposit) return `d:${claim.depositId}`;
  if (claim.kind === BridgeClaimKind.Alert) return `a:${alertKey(claim)}`;
  return `w:${claim.withdrawalId}:${claim.kind}`;
}

/** The machine event a withdrawal claim kind is. */
export function withdrawalEventOf(kind: BridgeClaimKind): 'QUEUED' | 'PAID' | 'VOID' {
  if (kind === BridgeClaimKind.WithdrawalQueued) return 'QUEUED';
  if (kind === BridgeClaimKind.WithdrawalPaid) return 'PAID';
  if (kind === BridgeClaimKind.WithdrawalVoid) return 'VOID';
  throw new Error(`claim kind ${kind} is not a withdrawal claim`);
}

/** The machine's context of a stored withdrawal. */
export function withdrawalContext(w: Withdrawal): WithdrawalContext {
  const c: WithdrawalContext = { updatedMs: w.updatedMs };
  if (w.queuedTx) c.queuedTx = w.queuedTx;
  if (w.paidTx) c.paidTx = w.paidTx;
  if (w.voidReason !== undefined) c.voidReason = w.voidReason;
  if (w.voidTx) c.voidTx = w.voidTx;
  return c;
}

/** Whether the withdrawal machine takes `event` in the record's state (machines/withdrawal.ts decides, nothing else). */
function withdrawalAccepts(w: Withdrawal, event: WithdrawalEvent): boolean {
  return stepWithdrawalMachine(w.status, withdrawalContext(w), event) !== undefined;
}

const PROBE_TX = new Uint8Array(32);

/**
 * Whether a claim is about something already settled: a deposit below nextDepositId, an
 * alert already recorded, or a withdrawal whose machine does not take the claim's event
 * in its state (final, or moved past it). An unknown withdrawal is not settled (the claim
 * is refused).
 */
export function claimSettled(state: State, claim: BridgeClaim): boolean {
  if (claim.kind === BridgeClaimKind.Deposit) return claim.depositId < nextDepositId(state);
  if (claim.kind === BridgeClaimKind.Alert) return state.bridgeAlerts.has(alertKey(claim));
  const w = state.withdrawals.get(String(claim.withdrawalId));
  if (!w) return false;
  const type = withdrawalEventOf(claim.kind);
  const event: WithdrawalEvent =
    type === 'VOID' ? { type, nowMs: 0, reason: 1, externalTx: PROBE_TX } : { type, nowMs: 0, externalTx: PROBE_TX };
  return !withdrawalAccepts(w, event);
}

/**
 * Whether `validator` need not make this claim (again): it already voted on the claim's
 * key, or the claim is settled. The watcher builds only claims for which this is false.
 */
export function hasAttested(state: State, validator: Address, claim: BridgeClaim): boolean {
  return claimSettled(state, claim) || hasVoted(state, validator.toLowerCase() as Address, claim);
}

/** Whether `validator` has a vote on the claim's key (any variant: its first vote stands). */
export function hasVoted(state: State, validator: Address, claim: BridgeClaim): boolean {
  const rec = state.bridgeVotes.get(claimKey(claim));
  return rec !== undefined && rec.variants.some((v) => v.voters.includes(validator));
}

/** 3 × Σ power(voters in the current active set) > 2 × total active power. */
export function hasQuorum(state: State, voters: readonly Address[]): boolean {
  const set = activeValidators(state);
  if (set.totalPower === 0n) return false;
  let power = 0n;
  for (const v of voters) power += set.byAddress.get(v)?.power ?? 0n;
  return 3n * power > 2n * set.totalPower;
}

/** Non-final withdrawals, ascending by id. */
export function pendingWithdrawals(state: State): Withdrawal[] {
  const ids = [...state.pendingWithdrawalIds].map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: Withdrawal[] = [];
  for (const id of ids) {
    const w = state.withdrawals.get(String(id));
    if (w && !isFinalWithdrawal(w)) out.push(w);
  }
  return out;
}

/** An owner's withdrawals, final ones included, newest (highest id) first. */
export function withdrawalsOf(state: State, owner: Address): Withdrawal[] {
  const ids = [...(state.ownerWithdrawals.get(owner.toLowerCase()) ?? [])].map(BigInt).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  const out: Withdrawal[] = [];
  for (const id of ids) {
    const w = state.withdrawals.get(String(id));
    if (w) out.push(w);
  }
  return out;
}

/** The issuance ledger (meta `bridgeLedger`, written at genesis). */
export function bridgeLedger(state: State): BridgeLedger {
  return (state.meta.get('bridgeLedger') as BridgeLedger | undefined) ?? ZERO_LEDGER;
}

/** Adds to one line of the ledger (execution only). */
export function addToLedger(state: State, line: keyof BridgeLedger, amount: bigint): void {
  const l = bridgeLedger(state);
  state.meta.set('bridgeLedger', { ...l, [line]: l[line] + amount });
}

/**
 * The message validators sign for `w` and the contract checks (src/signing/bridge-withdrawal.ts).
 * Throws on a network without a bridge (there is nothing to sign for).
 */
export function withdrawalMessage(state: State, w: Withdrawal): BridgeWithdrawalMessage {
  return {
    ...bridgeDomain(state),
    withdrawalId: w.id,
    recipient: w.destination,
    amount: w.amount,
    validUntilSec: w.validUntilSec,
  };
}

/**
 * The reserve check (decision 85's reading, computed from state): the USDC that entered
 * the chain (genesis, faucet, credited deposits) less what left it (paid withdrawals) is
 * `expectedVault`; `vault` is the supply (every balance, lock, margin and pool, pending
 * withdrawals' locks included); `difference` = vault − expectedVault, zero while the
 * books hold. `pendingWithdrawals` is the amount + fee locked by non-final withdrawals
 * (part of the vault total; amounts still to leave through the external bridge).
 */
export function reserveCheck(state: State): { expectedVault: bigint; vault: bigint; difference: bigint; pendingWithdrawals: bigint } {
  const l = bridgeLedger(state);
  const expectedVault = l.genesisUsdc + l.faucetMinted + l.depositsCredited - l.withdrawalsPaid;
  const vault = state.supply().usdc;
  return { expectedVault, vault, difference: vault - expectedVault, pendingWithdrawals: state.totals.withdrawalLocked };
}
