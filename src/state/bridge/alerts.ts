/**
 * Bridge alerts in execution (issue 37 item 2; decision 154): what the watchers saw on the
 * external bridge that no decision of this chain explains, recorded as chain state once a
 * quorum attests it, so every node shows the same alerts.
 *
 * The watchers verify, they do not count: a WithdrawalQueued or WithdrawalPaid log is
 * compared with this chain's record of that withdrawal (recipient, amount, validUntil).
 * One that matches is attested as the Queued / Paid claim carrying those fields, which
 * execution checks again (`claimMatchesRecord`: a mismatched claim is refused 422
 * CLAIM_MISMATCH, so a lying validator cannot move a withdrawal with another's log).
 * One that does not match, or names an id this chain never made, is attested as an
 * Alert claim, and every honest watcher pauses the contract with its own key.
 *
 * An Alert claim is founded (`alertProblem` answers null) only when the chain agrees with
 * it: a forged queue or payout names an id this chain does not hold, or other fields than
 * its record; a set or owner proposal's digest differs from what this chain decided for
 * that nonce (`decidedBridgeSet`, `decidedBridgeOwners`: the bridge sets and owner sets
 * the chain records, ./sets.ts), or names a nonce it has not decided. An unfounded alert is refused 422
 * ALERT_UNFOUNDED. Each validator has at most MAX_PENDING_ALERT_VOTES alert votes waiting
 * for a quorum (422 TOO_MANY_ALERTS past it): a lying validator cannot fill the state.
 * Votes are counted as every claim's (./votes.ts); a quorum variant is recorded in
 * TableId.BridgeAlert with its voters, its votes deleted, event BridgeAlert.
 */
import { keccak256 } from '../../crypto/keccak';
import { Writer } from '../../codec/binary';
import { BridgeAlertKind, BridgeClaimKind, type BridgeClaim } from '../../codec/txs/bridge';
import { equalBytes, type Address } from '../../util/bytes';
import type { BridgeAlertEvent } from '../events';
import type { State } from '../state';
import { alertKey } from './reads';
import { bridgeOwnerSets, bridgeSets } from './sets';
import type { BridgeAlertRecord } from './records';

export type AlertClaim = Extract<BridgeClaim, { kind: BridgeClaimKind.Alert }>;

/** Alert votes one validator may have waiting for a quorum at once. */
export const MAX_PENDING_ALERT_VOTES = 64;

const ALERT_NAMES: Record<BridgeAlertKind, BridgeAlertEvent['alert']> = {
  [BridgeAlertKind.ForgedQueue]: 'forged_queue',
  [BridgeAlertKind.ForgedPaid]: 'forged_paid',
  [BridgeAlertKind.UnexplainedSet]: 'unexplained_set',
  [BridgeAlertKind.UnexplainedOwners]: 'unexplained_owners',
};

/** An alert kind's wire name (events, GET /reserves). */
export function alertName(kind: BridgeAlertKind): BridgeAlertEvent['alert'] {
  return ALERT_NAMES[kind];
}

/** The digest an UnexplainedSet alert carries: keccak256 of (n, validators ascending, powers). */
export function bridgeSetDigest(validators: readonly Address[], powers: readonly bigint[]): Uint8Array {
  const w = new Writer(32 + validators.length * 40).string('exchange-chain/bridge-set/v1').u32(validators.length);
  for (let i = 0; i < validators.length; i++) w.address(validators[i].toLowerCase() as Address).big(powers[i]);
  return keccak256(w.finish());
}

/** The digest an UnexplainedOwners alert carries: keccak256 of (n, owners ascending, threshold). */
export function bridgeOwnersDigest(owners: readonly Address[], threshold: bigint): Uint8Array {
  const w = new Writer(32 + owners.length * 20).string('exchange-chain/bridge-owners/v1').u32(owners.length);
  for (const o of owners) w.address(o.toLowerCase() as Address);
  return keccak256(w.big(threshold).finish());
}

/**
 * The validator set this chain decided for the contract at set nonce `nonce` (the bridge
 * sets it records, ./sets.ts), if it still keeps it; `kept` is false for a nonce older
 * than the sets it keeps (long in force: a proposal of it is not new).
 */
export function decidedBridgeSet(state: State, nonce: bigint): { decided?: { validators: Address[]; powers: bigint[] }; kept: boolean } {
  const sets = bridgeSets(state);
  const decided = sets.find((s) => s.nonce === nonce);
  return { decided, kept: decided !== undefined || nonce > sets[0].nonce };
}

/** The owner set this chain decided for the contract at owner nonce `nonce` (its recorded owner sets, ./sets.ts), as decidedBridgeSet. */
export function decidedBridgeOwners(state: State, nonce: bigint): { decided?: { owners: Address[]; threshold: bigint }; kept: boolean } {
  const sets = bridgeOwnerSets(state);
  const decided = sets.find((s) => s.nonce === nonce);
  return { decided, kept: decided !== undefined || sets.length === 0 || nonce > sets[0].nonce };
}

/**
 * Why an Alert claim is unfounded (the chain holds what it says was forged, or decided
 * the change it calls unexplained), or null when the chain agrees it is an alert.
 */
export function alertProblem(state: State, c: AlertClaim): string | null {
  const a = c.alert;
  switch (a.kind) {
    case BridgeAlertKind.ForgedQueue: {
      const w = state.withdrawals.get(String(c.id));
      if (w && w.destination === a.recipient && w.amount === a.amount && w.validUntilSec === a.validUntil) return `withdrawal ${c.id} was queued as this chain made it`;
      return null;
    }
    case BridgeAlertKind.ForgedPaid: {
      const w = state.withdrawals.get(String(c.id));
      if (w && w.destination === a.recipient && w.amount === a.amount) return `withdrawal ${c.id} was paid as this chain made it`;
      return null;
    }
    case BridgeAlertKind.UnexplainedSet: {
      const { decided } = decidedBridgeSet(state, c.id);
      if (decided && equalBytes(bridgeSetDigest(decided.validators, decided.powers), a.digest)) return `set nonce ${c.id} is the set this chain decided`;
      return null;
    }
    case BridgeAlertKind.UnexplainedOwners: {
      const { decided } = decidedBridgeOwners(state, c.id);
      if (decided && equalBytes(bridgeOwnersDigest(decided.owners, decided.threshold), a.digest)) return `owner nonce ${c.id} is the owner set this chain decided`;
      return null;
    }
  }
}

/**
 * Whether a Queued or Paid claim carries what this chain's record of its withdrawal holds
 * (the record exists: the caller checked). Other claims: true.
 */
export function claimMatchesRecord(state: State, c: BridgeClaim): boolean {
  if (c.kind !== BridgeClaimKind.WithdrawalQueued && c.kind !== BridgeClaimKind.WithdrawalPaid) return true;
  const w = state.withdrawals.get(String(c.withdrawalId));
  if (!w || w.destination !== c.recipient || w.amount !== c.amount) return false;
  return c.kind === BridgeClaimKind.WithdrawalPaid || w.validUntilSec === c.validUntil;
}

/** How many alert votes `validator` has waiting for a quorum. */
export function pendingAlertVotes(state: State, validator: Address): number {
  let n = 0;
  for (const [key, rec] of state.bridgeVotes.entries()) {
    if (key.startsWith('a:') && rec.variants.some((v) => v.voters.includes(validator))) n++;
  }
  return n;
}

/** Records an alert a quorum attested (the caller found the quorum variant); returns the record. */
export function recordAlert(state: State, claim: AlertClaim, voters: readonly Address[], height: number, nowMs: number): BridgeAlertRecord {
  const rec: BridgeAlertRecord = { claim, voters: [...voters], height, recordedMs: nowMs };
  state.bridgeAlerts.set(alertKey(claim), rec);
  return rec;
}

/** Recorded alerts, newest first (by height, then kind and id). */
export function bridgeAlerts(state: State): BridgeAlertRecord[] {
  const out = [...state.bridgeAlerts.entries()].map(([, r]) => r);
  return out.sort((a, b) => b.height - a.height || (a.claim.kind === BridgeClaimKind.Alert && b.claim.kind === BridgeClaimKind.Alert ? compareAlert(a.claim, b.claim) : 0));
}

function compareAlert(a: AlertClaim, b: AlertClaim): number {
  if (a.alert.kind !== b.alert.kind) return a.alert.kind - b.alert.kind;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
