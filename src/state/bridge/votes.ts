/**
 * Bridge attestations in execution (issue 22 item 2; decision 82): the votes, their
 * quorum, and crediting deposits in id order exactly once.
 *
 * Votes: one per (validator, claim key), key = deposit id or (withdrawal id, claim kind)
 * (TableId.BridgeVote). A validator's first vote on a key stands. Votes of different
 * content (a reorg deeper than the confirmations, a lying validator) are kept as separate
 * variants; an outcome needs one variant's voters over 2/3 of the current power
 * (hasQuorum, ./reads.ts).
 *
 * A claim about something settled (deposit id < nextDepositId; a withdrawal whose
 * machine no longer takes the claim's event) or that this validator already voted is
 * late: skipped. A transaction whose every claim is late is refused 409
 * ATTESTATION_STALE, at the door and in execution alike, so a hopeless one never fills a
 * block and its receipt says why.
 *
 * Alerts (decision 154, ./alerts.ts): an Alert claim is voted like the others; a quorum
 * variant is recorded for good (TableId.BridgeAlert). A Queued or Paid claim counts only
 * when it carries the record's recipient, amount (and validUntil).
 *
 * Deposits are credited strictly in id order: after every attestation and at the end of
 * every block (the active set may have changed), while the votes of nextDepositId have a
 * quorum variant: credit the recipient's free balance, mint, ledger, store the deposit
 * (TableId.Deposit), delete its votes, nextDepositId + 1. nextDepositId only grows, so
 * each id is credited once however often it is attested.
 */
import { BridgeClaimKind, claimContent, type BridgeAttestationBody, type BridgeClaim } from '../../codec/txs/bridge';
import { bytesToHex, equalBytes, type Address } from '../../util/bytes';
import {
  addToLedger,
  bridgeParams,
  claimKey,
  claimSettled,
  hasQuorum,
  hasVoted,
  MAX_DEPOSITS_AHEAD,
  nextDepositId,
  pendingWithdrawals,
  withdrawalEventOf,
} from './reads';
import type { BridgeVoteRecord } from './records';
import { alertName, alertProblem, claimMatchesRecord, MAX_PENDING_ALERT_VOTES, pendingAlertVotes, recordAlert } from './alerts';
import { recordBridgeOwners, recordBridgeSet } from './sets';
import { signIfQuorum, stepWithdrawal, type BridgeStepContext } from './withdrawals';
import { forbidden, rejected, TxError } from '../errors';
import type { State } from '../state';
import { activeValidators } from '../validators/set';
import { credit, mint } from '../accounts/vault';
import type { WithdrawalEvent } from '../../../machines/withdrawal';

/** The network has a bridge and `signer` is in the current active set (else 422 BRIDGE_DISABLED, 403 NOT_VALIDATOR). */
export function requireBridgeValidator(state: State, signer: Address, what: string): void {
  if (!bridgeParams(state)) throw rejected('BRIDGE_DISABLED', `${what}: this network has no bridge (genesis bridge section absent)`);
  if (!activeValidators(state).byAddress.has(signer)) throw forbidden('NOT_VALIDATOR', `validator: ${signer} is not in the current validator set`);
}

/**
 * The state-dependent checks of an attestation (door and execution): the claims that
 * count, in order. Throws 422 DEPOSIT_TOO_FAR_AHEAD / UNKNOWN_WITHDRAWAL /
 * CLAIM_MISMATCH (a Queued or Paid claim whose recipient, amount or validUntil is not the
 * record's) / ALERT_UNFOUNDED / TOO_MANY_ALERTS (./alerts.ts) (the whole transaction
 * refused) and 409 ATTESTATION_STALE when none counts.
 */
export function countedClaims(state: State, b: BridgeAttestationBody, signer: Address): BridgeClaim[] {
  requireBridgeValidator(state, signer, 'attestation');
  const next = nextDepositId(state);
  let newAlerts = 0;
  for (const c of b.claims) {
    if (c.kind === BridgeClaimKind.Deposit) {
      if (c.depositId >= next + MAX_DEPOSITS_AHEAD) {
        throw rejected('DEPOSIT_TOO_FAR_AHEAD', `claims: deposit ${c.depositId} is ${MAX_DEPOSITS_AHEAD} or more past the next deposit to credit, ${next}`);
      }
    } else if (c.kind === BridgeClaimKind.Alert) {
      const problem = alertProblem(state, c);
      if (problem) throw rejected('ALERT_UNFOUNDED', `claims: alert ${alertName(c.alert.kind)} ${c.id}: ${problem}`);
      if (!claimSettled(state, c) && !hasVoted(state, signer, c)) newAlerts++;
    } else if (!state.withdrawals.has(String(c.withdrawalId))) {
      throw rejected('UNKNOWN_WITHDRAWAL', `claims: no withdrawal ${c.withdrawalId}`);
    } else if (!claimMatchesRecord(state, c)) {
      throw rejected('CLAIM_MISMATCH', `claims: withdrawal ${c.withdrawalId}: the claim's recipient, amount or validUntil is not this chain's record (attest it as an alert)`);
    }
  }
  if (newAlerts > 0 && pendingAlertVotes(state, signer) + newAlerts > MAX_PENDING_ALERT_VOTES) {
    throw rejected('TOO_MANY_ALERTS', `claims: ${signer} would have more than ${MAX_PENDING_ALERT_VOTES} alert votes waiting for a quorum`);
  }
  const counted = b.claims.filter((c) => !claimSettled(state, c) && !hasVoted(state, signer, c));
  if (counted.length === 0) throw new TxError(409, 'ATTESTATION_STALE', `claims: every claim of ${signer} is already settled or already voted`);
  return counted;
}

/** Records `validator`'s vote for `claim` (the caller checked it has none on the key); returns the variant's voters. */
function addVote(state: State, validator: Address, claim: BridgeClaim): readonly Address[] {
  const key = claimKey(claim);
  const content = claimContent(claim);
  const rec: BridgeVoteRecord = state.bridgeVotes.get(key) ?? { variants: [] };
  const variants = rec.variants.map((v) => ({ claim: v.claim, voters: v.voters }));
  let variant = variants.find((v) => equalBytes(claimContent(v.claim), content));
  if (!variant) variants.push((variant = { claim, voters: [] }));
  variant.voters = [...variant.voters, validator].sort();
  state.bridgeVotes.set(key, { variants });
  return variant.voters;
}

/** The variant of a claim key whose voters hold a quorum, if any (at most one can: voters are disjoint). */
function quorumVariant(state: State, key: string): BridgeClaim | undefined {
  const rec = state.bridgeVotes.get(key);
  return rec?.variants.find((v) => hasQuorum(state, v.voters))?.claim;
}

function eventOf(claim: BridgeClaim, nowMs: number): WithdrawalEvent {
  if (claim.kind === BridgeClaimKind.Deposit || claim.kind === BridgeClaimKind.Alert) throw new Error('a deposit or alert claim is no withdrawal event');
  const type = withdrawalEventOf(claim.kind);
  if (claim.kind === BridgeClaimKind.WithdrawalVoid) return { type: 'VOID', nowMs, reason: claim.reason, externalTx: claim.externalTx };
  return { type: type as 'QUEUED' | 'PAID', nowMs, externalTx: claim.externalTx };
}

/** Records the alert of an alert claim key when one of its variants holds a quorum. */
function settleAlertKey(ctx: BridgeStepContext, key: string, height: number): void {
  const variant = ctx.state.bridgeVotes.get(key)?.variants.find((v) => hasQuorum(ctx.state, v.voters));
  if (!variant || variant.claim.kind !== BridgeClaimKind.Alert) return;
  const claim = variant.claim;
  recordAlert(ctx.state, claim, variant.voters, height, ctx.nowMs);
  ctx.state.bridgeVotes.delete(key);
  ctx.emit({ type: 'BridgeAlert', alert: alertName(claim.alert.kind), id: String(claim.id), externalTx: bytesToHex(claim.externalTx) });
}

/** Steps the withdrawal of a withdrawal claim key when one of its variants holds a quorum. */
function settleWithdrawalKey(ctx: BridgeStepContext, key: string): void {
  const claim = quorumVariant(ctx.state, key);
  if (!claim || claim.kind === BridgeClaimKind.Deposit || claim.kind === BridgeClaimKind.Alert) return;
  const w = ctx.state.withdrawals.get(String(claim.withdrawalId));
  if (!w) return;
  // A refused event leaves the votes: they are late and cleared when the withdrawal is final.
  stepWithdrawal(ctx, w, eventOf(claim, ctx.nowMs));
}

/** Credits deposits from nextDepositId on while each has a quorum variant; returns how many. */
function creditDeposits(ctx: BridgeStepContext, height: number): number {
  const { state } = ctx;
  let credited = 0;
  for (;;) {
    const id = nextDepositId(state);
    const claim = quorumVariant(state, `d:${id}`);
    if (!claim || claim.kind !== BridgeClaimKind.Deposit) return credited;
    mint(state, claim.amount, 0n);
    credit(state, claim.recipient, claim.amount);
    addToLedger(state, 'depositsCredited', claim.amount);
    state.deposits.set(String(id), { id, recipient: claim.recipient, amount: claim.amount, externalTx: claim.externalTx, creditedMs: ctx.nowMs, height });
    state.bridgeVotes.delete(`d:${id}`);
    state.meta.set('nextDepositId', id + 1n);
    ctx.emit({ type: 'DepositCredited', depositId: String(id), recipient: claim.recipient, amount: claim.amount, externalTx: bytesToHex(claim.externalTx) });
    credited++;
  }
}

/** Applies an attestation: its counted votes, then what they settle. */
export function applyAttestation(ctx: BridgeStepContext, height: number, b: BridgeAttestationBody, signer: Address): void {
  const counted = countedClaims(ctx.state, b, signer);
  for (const c of counted) addVote(ctx.state, signer, c);
  for (const c of counted) {
    if (c.kind === BridgeClaimKind.Alert) settleAlertKey(ctx, claimKey(c), height);
    else if (c.kind !== BridgeClaimKind.Deposit) settleWithdrawalKey(ctx, claimKey(c));
  }
  ctx.emit({ type: 'BridgeAttestation', validator: signer, claims: b.claims.length, counted: counted.length, late: b.claims.length - counted.length });
  creditDeposits(ctx, height);
}

/**
 * End of block: deposits whose quorum is now met are credited; when the active set
 * changed during the block, the contract's next validator set is recorded (./sets.ts,
 * decision 151) and every pending withdrawal's signatures and every pending
 * withdrawal vote is judged again against the new set (a quorum can be met without a
 * new vote when a non-voter leaves).
 */
export function endBlockBridge(ctx: BridgeStepContext, height: number, setChanged: boolean): void {
  if (!bridgeParams(ctx.state)) return;
  // The owners in force (an executed SetOwners) reach the contract as an owner set (decision 149).
  recordBridgeOwners(ctx.state, height, ctx.emit);
  if (setChanged) {
    recordBridgeSet(ctx.state, height, ctx.emit);
    for (const w of pendingWithdrawals(ctx.state)) signIfQuorum(ctx, w);
    const keys = [...ctx.state.bridgeVotes.entries()].map(([k]) => k).sort();
    for (const key of keys) {
      if (key.startsWith('w:')) settleWithdrawalKey(ctx, key);
      else if (key.startsWith('a:')) settleAlertKey(ctx, key, height);
    }
  }
  creditDeposits(ctx, height);
}
