/**
 * What a bridge event is, judged against this chain's state (issue 37 item 2; decision
 * 154): the watcher's verification (./watcher.ts). Pure: no I/O.
 *
 *   - Deposit: the Deposit claim (the contract numbers deposits; execution credits each id once).
 *   - WithdrawalQueued / WithdrawalPaid: this chain's record of the withdrawal id decides.
 *     Recipient, amount (and validUntil for a queue) equal to the record: the Queued / Paid
 *     claim carrying them. Any of them different: an alert (ForgedQueue / ForgedPaid),
 *     sure at once (a record never changes those fields). No record: `unknown`, the same
 *     alert once the watcher is sure its state is not simply behind the chain.
 *   - WithdrawalCancelled: Void(Cancelled).
 *   - ValidatorSetProposed / OwnersProposed: the set (owners) this chain decided for that
 *     nonce decides. The same: `fine`. Another: an alert (UnexplainedSet /
 *     UnexplainedOwners, carrying the digest of what was proposed). A nonce this chain has
 *     not decided: `unknown`, as for a withdrawal id. A nonce older than the sets the
 *     chain keeps: `fine` (long in force; a restarted watcher rescans it).
 *   - Unpaused and malformed logs: nothing (undefined).
 */
import type { BridgeLog } from '../../src/bridge/evm';
import { BridgeAlertKind, BridgeClaimKind, WithdrawalVoidReason, type BridgeClaim } from '../../src/codec/txs/bridge';
import { bridgeOwnersDigest, bridgeSetDigest, decidedBridgeOwners, decidedBridgeSet, type AlertClaim } from '../../src/state/bridge/alerts';
import type { State } from '../../src/state/state';
import { equalBytes, type Address } from '../../src/util/bytes';

export type Verdict = { claim: BridgeClaim } | { alert: AlertClaim } | { unknown: AlertClaim } | { fine: true };

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';

/** The verdict on one bridge log, or undefined when it is no claim. */
export function judgeLog(state: State, log: BridgeLog): Verdict | undefined {
  const externalTx = log.txHash;
  switch (log.kind) {
    case 'Deposit':
      if (log.depositId === undefined || !log.recipient || !log.amount || log.amount <= 0n) return undefined;
      if (log.recipient === ZERO_ADDRESS) return undefined;
      return { claim: { kind: BridgeClaimKind.Deposit, depositId: log.depositId, recipient: log.recipient.toLowerCase() as Address, amount: log.amount, externalTx } };
    case 'WithdrawalQueued': {
      if (log.withdrawalId === undefined || !log.recipient || !log.amount || log.validUntil === undefined) return undefined;
      const alert: AlertClaim = {
        kind: BridgeClaimKind.Alert,
        id: log.withdrawalId,
        alert: { kind: BridgeAlertKind.ForgedQueue, recipient: log.recipient.toLowerCase() as Address, amount: log.amount, validUntil: log.validUntil },
        externalTx,
      };
      return judgeWithdrawal(state, alert);
    }
    case 'WithdrawalPaid': {
      if (log.withdrawalId === undefined || !log.recipient || !log.amount) return undefined;
      const alert: AlertClaim = {
        kind: BridgeClaimKind.Alert,
        id: log.withdrawalId,
        alert: { kind: BridgeAlertKind.ForgedPaid, recipient: log.recipient.toLowerCase() as Address, amount: log.amount },
        externalTx,
      };
      return judgeWithdrawal(state, alert);
    }
    case 'WithdrawalCancelled':
      if (log.withdrawalId === undefined) return undefined;
      return { claim: { kind: BridgeClaimKind.WithdrawalVoid, withdrawalId: log.withdrawalId, reason: WithdrawalVoidReason.Cancelled, externalTx } };
    case 'ValidatorSetProposed':
      if (log.nonce === undefined || !log.validators || !log.powers) return undefined;
      return judgeSeen(state, { kind: BridgeClaimKind.Alert, id: log.nonce, alert: { kind: BridgeAlertKind.UnexplainedSet, digest: bridgeSetDigest(log.validators, log.powers) }, externalTx });
    case 'OwnersProposed':
      if (log.nonce === undefined || !log.owners || log.threshold === undefined) return undefined;
      return judgeSeen(state, { kind: BridgeClaimKind.Alert, id: log.nonce, alert: { kind: BridgeAlertKind.UnexplainedOwners, digest: bridgeOwnersDigest(log.owners, log.threshold) }, externalTx });
    default:
      return undefined;
  }
}

/** What was seen (as the alert it would be), judged against this state: the verdict of its log. */
export function judgeSeen(state: State, seen: AlertClaim): Verdict {
  const a = seen.alert;
  if (a.kind === BridgeAlertKind.ForgedQueue || a.kind === BridgeAlertKind.ForgedPaid) return judgeWithdrawal(state, seen);
  const { decided, kept } = a.kind === BridgeAlertKind.UnexplainedSet ? decidedSetDigest(state, seen.id) : decidedOwnersDigest(state, seen.id);
  if (decided) return equalBytes(decided, a.digest) ? { fine: true } : { alert: seen };
  return kept ? { unknown: seen } : { fine: true };
}

function decidedSetDigest(state: State, nonce: bigint): { decided?: Uint8Array; kept: boolean } {
  const { decided, kept } = decidedBridgeSet(state, nonce);
  return { decided: decided && bridgeSetDigest(decided.validators, decided.powers), kept };
}

function decidedOwnersDigest(state: State, nonce: bigint): { decided?: Uint8Array; kept: boolean } {
  const { decided, kept } = decidedBridgeOwners(state, nonce);
  return { decided: decided && bridgeOwnersDigest(decided.owners, decided.threshold), kept };
}

/**
 * A queue or payout seen (as the alert it would be) against the record of its id: the
 * claim when they agree, the alert when they do not, `unknown` without a record.
 */
function judgeWithdrawal(state: State, seen: AlertClaim): Verdict {
  const w = state.withdrawals.get(String(seen.id));
  if (!w) return { unknown: seen };
  const a = seen.alert;
  if (a.kind === BridgeAlertKind.ForgedQueue) {
    if (w.destination !== a.recipient || w.amount !== a.amount || w.validUntilSec !== a.validUntil) return { alert: seen };
    return { claim: { kind: BridgeClaimKind.WithdrawalQueued, withdrawalId: seen.id, recipient: a.recipient, amount: a.amount, validUntil: a.validUntil, externalTx: seen.externalTx } };
  }
  if (a.kind === BridgeAlertKind.ForgedPaid) {
    if (w.destination !== a.recipient || w.amount !== a.amount) return { alert: seen };
    return { claim: { kind: BridgeClaimKind.WithdrawalPaid, withdrawalId: seen.id, recipient: a.recipient, amount: a.amount, externalTx: seen.externalTx } };
  }
  return { alert: seen };
}
