/**
 * The bridge watcher (issue 22 item 2, decision 84): one concern of the bridge actor
 * (./bridge-actor.ts). Each poll it scans the bridge's events up to the last block with
 * `confirmations` confirmations counted from the external chain's finalized block
 * (finalized − confirmations + 1; the safe block, or the head, on a chain without one:
 * decision 155), from a cursor that starts at
 * the deployment block on every start (a restart rescans; the state filters what is
 * settled or already voted, so nothing is ever credited twice), turns them into claims,
 * adds Void(Expired) claims for withdrawals past validUntil at the confirmed block and
 * unpaid there, and submits the claims this validator has not made and the chain has not
 * settled as one BridgeAttestation.
 *
 * A log above the confirmed block is never read for a vote, so a reorg shallower than the
 * confirmations produces no vote. The emitter check and the dropping of removed logs are
 * the client's (src/bridge/evm.ts).
 *
 * Claims seen but not yet made wait in `pending` (bounded: when it is full the cursor
 * stops at the first log not taken, and the next poll scans from there): a deposit too far
 * past nextDepositId, or a claim about a withdrawal this node's state does not hold yet
 * (it is behind), waits there instead of getting the whole attestation refused. A claim
 * submitted is not sent again before RESUBMIT_AFTER_BLOCKS blocks have passed here
 * without it being voted (the first is still in a mempool, or was dropped).
 *
 * Verify, not count (issue 37 item 2; decision 154): a WithdrawalQueued or WithdrawalPaid
 * log is compared with this chain's record of its withdrawal (./verify.ts). One that
 * matches is attested with the record's fields (execution checks them again); one with
 * another recipient, amount or validUntil, or (once this node is surely not just behind)
 * an id this chain never made, is an alert: the watcher attests an Alert claim and pauses
 * the contract with its own key (./pauser.ts), unless the owners unpaused it after that
 * log (they have seen it).
 *
 * A reset external chain (a hardhat restarted under a running network: fewer deposits
 * there than this chain credited, or a head below the deployment block) is refused: the
 * watcher stops, with a clear error, instead of voting about another chain's history.
 */
import type { BridgeClient, BridgeLog } from '../../src/bridge/evm';
import { encodeTx, TxKind } from '../../src/codec/tx';
import {
  BridgeClaimKind,
  claimContent,
  compareClaims,
  MAX_BRIDGE_CLAIMS,
  signAttestation,
  WithdrawalVoidReason,
  type BridgeClaim,
} from '../../src/codec/txs/bridge';
import type { Secp256k1Signer } from '../../src/consensus/signer';
import { alertName, type AlertClaim } from '../../src/state/bridge/alerts';
import { alertKey, bridgeParams, claimKey, hasAttested, hasVoted, MAX_DEPOSITS_AHEAD, nextDepositId, pendingWithdrawals } from '../../src/state/bridge/reads';
import { isFinalWithdrawal } from '../../src/state/bridge/records';
import type { State } from '../../src/state/state';
import { bytesToHex } from '../../src/util/bytes';
import type { Logger } from '../../src/util/log';
import type { BridgeWatcherStats } from './messages';
import { Pauser, type PauserExternal } from './pauser';
import { judgeLog, judgeSeen } from './verify';

/** What the watcher reads of (and sends to) the external chain. */
export type WatcherExternal = Pick<BridgeClient, 'block' | 'logs' | 'withdrawal' | 'finalizedHead'> & PauserExternal;

/**
 * A queue or payout for an id this state does not hold is judged forged once this chain
 * has a block this long after the watcher first saw the confirmed log (wall time): a
 * genuine withdrawal was made here before it could be queued there, so a block made after
 * holds it; the margin covers the clocks' skew between validators.
 */
export const UNKNOWN_ID_MARGIN_MS = 2_000;
/** Unknown-id logs waiting for that judgement, at most. */
const SUSPECTS_MAX = 1_024;

/** Claims waiting to be made, at most (a flood of external events is scanned in steps, never held whole). */
export const WATCHER_PENDING_CLAIMS_MAX = 8_192;
/** External blocks scanned in one poll at most (the client asks for them in ranges of ≤ 2 000). */
export const WATCHER_SCAN_BLOCKS_MAX = 10_000n;
/** A claim submitted is sent again if it is still not voted this many blocks later. */
export const RESUBMIT_AFTER_BLOCKS = 10;
/** Withdrawals checked for expiry in one poll at most. */
const EXPIRY_CHECKS_MAX = 64;

const ZERO_TX = new Uint8Array(32);

export interface WatcherDeps {
  external: WatcherExternal;
  signer: Secp256k1Signer;
  /** The validator's raw key: its external account, which pauses the bridge on an alert. */
  privateKey: Uint8Array;
  /** The block the bridge was deployed in: where every scan starts. */
  deployBlock: bigint;
  state(): State;
  /** The exchange chain's head height (for resubmission). */
  height(): number;
  chainId: number;
  /** The exchange chain's last block time (ms), and the wall clock (ms): the unknown-id judgement. */
  blockTimeMs(): number;
  nowMs(): number;
  /** Submits a transaction to the mempool; rejects when refused. */
  submit(tx: ReturnType<typeof encodeTx>): Promise<void>;
  stats: BridgeWatcherStats;
  log: Logger;
}

export type WatcherOutcome = { refused?: string; submitted: number; refusedError?: unknown };

export class Watcher {
  private cursor: bigint;
  private readonly pending = new Map<string, BridgeClaim>();
  /** Claim key → exchange height at which it was last submitted. */
  private readonly sentAt = new Map<string, number>();
  /** The highest deposit id seen in a confirmed log since the start (-1: none). */
  private maxDepositSeen = -1n;
  private resetChecked = false;
  /** Queues and payouts of ids this state does not hold, by claim key, with where and when (wall ms) they were first seen. */
  private readonly suspects = new Map<string, { seen: AlertClaim; log: BridgeLog; seenAtMs: number }>();
  private readonly pauser: Pauser;
  /** Alert logs (claim key @ block:logIndex) counted in alertsDetected already. */
  private readonly alertsSeen = new Set<string>();

  constructor(private readonly d: WatcherDeps) {
    this.cursor = d.deployBlock;
    d.stats.cursorBlock = String(this.cursor);
    this.pauser = new Pauser({ external: d.external, privateKey: d.privateKey, log: d.log, stats: d.stats });
  }

  stop(): void {
    this.pauser.stop();
  }

  /**
   * One poll at external head `head`. Throws on an RPC failure (the actor backs off);
   * answers `refused` for a reset chain. Confirmations count from the finalized block
   * the client answers (its safe block or head on a chain without one; decision 155).
   */
  async poll(head: { number: bigint; timestampSec: bigint }, active: boolean): Promise<WatcherOutcome> {
    const { d } = this;
    const state = d.state();
    const params = bridgeParams(state);
    if (!params) return { submitted: 0 };
    if (head.number < d.deployBlock) {
      return { submitted: 0, refused: `the external chain was reset: its head ${head.number} is below the bridge's deployment block ${d.deployBlock}` };
    }
    const finalized = await d.external.finalizedHead();
    // A finalized block above the head just read is the chain moving on between two reads.
    const base = finalized.number < head.number ? finalized.number : head.number;
    const confirmed = base - BigInt(params.confirmations) + 1n;
    d.stats.headBlock = String(head.number);
    d.stats.finality = finalized.tag;
    d.stats.finalizedBlock = String(finalized.number);
    d.stats.confirmedBlock = String(confirmed);
    if (confirmed >= this.cursor) await this.scan(confirmed);
    this.judgeSuspects(d.state());
    await this.pauser.poll(head.number);
    const caughtUp = this.cursor > confirmed;
    if (caughtUp && !this.resetChecked) {
      const refusal = await this.checkNotReset(state, confirmed, head.number);
      if (refusal) return { submitted: 0, refused: refusal };
      this.resetChecked = true;
    }
    // Expiry is judged at a confirmed block, once every event up to it is known (a cancel seen first decides the claim's content).
    if (caughtUp && confirmed >= d.deployBlock) await this.detectExpiries(state, confirmed);
    d.stats.claimsPending = this.pending.size;
    if (!active) return { submitted: 0 };
    return this.submit();
  }

  private async scan(confirmed: bigint): Promise<void> {
    const { d } = this;
    const to = confirmed - this.cursor + 1n > WATCHER_SCAN_BLOCKS_MAX ? this.cursor + WATCHER_SCAN_BLOCKS_MAX - 1n : confirmed;
    const logs = await d.external.logs(this.cursor, to);
    let next = to + 1n;
    const state = d.state();
    for (const log of logs) {
      if (log.kind === 'Deposit' && log.depositId !== undefined && log.depositId > this.maxDepositSeen) this.maxDepositSeen = log.depositId;
      const verdict = judgeLog(state, log);
      if (!verdict || 'fine' in verdict) continue;
      if (this.pending.size >= WATCHER_PENDING_CLAIMS_MAX || this.suspects.size >= SUSPECTS_MAX) {
        next = log.blockNumber; // full: the rest of this block and after is scanned again later
        break;
      }
      if ('unknown' in verdict) {
        const key = claimKey(verdict.unknown);
        if (!this.suspects.has(key) && !this.pending.has(key)) this.suspects.set(key, { seen: verdict.unknown, log, seenAtMs: d.nowMs() });
        continue;
      }
      const claim = 'claim' in verdict ? verdict.claim : verdict.alert;
      if ('alert' in verdict) this.alert(verdict.alert, log, 'this chain decided otherwise (another recipient, amount or validUntil; another set or owners)');
      const key = claimKey(claim);
      if (this.pending.has(key) || this.done(claim)) continue;
      this.pending.set(key, claim);
    }
    this.cursor = next;
    d.stats.cursorBlock = String(this.cursor);
  }

  /** An alert the watcher is sure of: attested (pending) and paused for. */
  private alert(claim: AlertClaim, log: BridgeLog, why: string): void {
    const key = claimKey(claim);
    if (!this.pending.has(key) && !this.done(claim)) this.pending.set(key, claim);
    const what = `${alertName(claim.alert.kind)} ${claim.id} (external tx ${bytesToHex(claim.externalTx)}): ${why}`;
    // Per log, not per claim key: a second forged event about the same id is a new reason to pause.
    const seen = `${key}@${log.blockNumber}:${log.logIndex}`;
    if (!this.alertsSeen.has(seen)) {
      this.alertsSeen.add(seen);
      this.d.stats.alertsDetected++;
    }
    this.pauser.request(seen, log, what);
  }

  /**
   * Unknown ids and nonces judged again: a record or decision that has arrived decides as
   * for any log; still none once this chain has a block UNKNOWN_ID_MARGIN_MS after the log
   * was seen, or once the chain recorded the alert (a quorum saw it), the log is forged.
   */
  private judgeSuspects(state: State): void {
    const { d } = this;
    for (const [key, s] of this.suspects) {
      const verdict = judgeSeen(state, s.seen);
      if ('fine' in verdict) {
        this.suspects.delete(key);
      } else if ('claim' in verdict) {
        this.suspects.delete(key);
        if (!this.pending.has(claimKey(verdict.claim)) && !this.done(verdict.claim)) this.pending.set(claimKey(verdict.claim), verdict.claim);
      } else if ('alert' in verdict) {
        this.suspects.delete(key);
        this.alert(verdict.alert, s.log, 'this chain decided otherwise (another recipient, amount or validUntil; another set or owners)');
      } else if (d.blockTimeMs() >= s.seenAtMs + UNKNOWN_ID_MARGIN_MS || state.bridgeAlerts.has(alertKey(s.seen))) {
        this.suspects.delete(key);
        this.alert(s.seen, s.log, 'this chain never made that withdrawal id, set nonce or owner nonce');
      }
    }
    d.stats.suspects = this.suspects.size;
  }

  /**
   * Whether a claim need never be made: this validator voted on it, or it is settled for
   * good (a deposit credited, a withdrawal final). A withdrawal claim the machine does not
   * take in the record's state yet (this node's state is behind: queued on the external
   * chain while still `requested` here) is kept, and sent once the machine takes it.
   */
  private done(claim: BridgeClaim): boolean {
    const state = this.d.state();
    if (claim.kind === BridgeClaimKind.Deposit || claim.kind === BridgeClaimKind.Alert) return hasAttested(state, this.d.signer.address, claim);
    const w = state.withdrawals.get(String(claim.withdrawalId));
    if (!w) return false;
    return isFinalWithdrawal(w) || hasVoted(state, this.d.signer.address, claim);
  }

  /**
   * Whether the external chain is the one this chain's deposits came from: once, after
   * the first full scan, the deposits it holds (confirmed or not) must cover every
   * deposit credited here.
   */
  private async checkNotReset(state: State, confirmed: bigint, head: bigint): Promise<string | undefined> {
    let max = this.maxDepositSeen;
    if (head > confirmed) {
      for (const log of await this.d.external.logs(confirmed + 1n, head)) {
        if (log.kind === 'Deposit' && log.depositId !== undefined && log.depositId > max) max = log.depositId;
      }
    }
    const credited = nextDepositId(state);
    if (max + 1n < credited) {
      return `the external chain was reset or is another chain: its bridge holds ${max + 1n} deposits, this chain credited ${credited}; refusing to watch it`;
    }
    return undefined;
  }

  private async detectExpiries(state: State, confirmed: bigint): Promise<void> {
    const { d } = this;
    const candidates = pendingWithdrawals(state).filter((w) => w.validUntilSec > 0n);
    if (candidates.length === 0) return;
    const block = await d.external.block(confirmed);
    let checked = 0;
    for (const w of candidates) {
      if (w.validUntilSec >= block.timestampSec) continue;
      const key = claimKey({ kind: BridgeClaimKind.WithdrawalVoid, withdrawalId: w.id, reason: WithdrawalVoidReason.Expired, externalTx: ZERO_TX });
      const seen = this.pending.get(key);
      const expired: BridgeClaim = { kind: BridgeClaimKind.WithdrawalVoid, withdrawalId: w.id, reason: WithdrawalVoidReason.Expired, externalTx: ZERO_TX };
      if (seen?.kind === BridgeClaimKind.WithdrawalVoid && seen.reason === WithdrawalVoidReason.Expired) continue; // decided at an earlier poll
      if (hasAttested(state, d.signer.address, expired)) continue;
      if (checked++ >= EXPIRY_CHECKS_MAX) break;
      const ext = await d.external.withdrawal(w.id, confirmed);
      if (ext.state === 'paid') continue; // its WithdrawalPaid log settles it
      // Both an owners' cancel and an expiry refund it: vote the content validators already
      // vote for when it is true here too, so the votes do not split (decision 84).
      const chosen = chooseVoid(state, expired, seen);
      if (chosen === expired) d.stats.expiriesDetected++;
      this.pending.set(key, chosen);
    }
  }

  private async submit(): Promise<WatcherOutcome> {
    const { d } = this;
    const state = d.state();
    const height = d.height();
    const next = nextDepositId(state);
    const ready: [string, BridgeClaim][] = [];
    for (const [key, claim] of this.pending) {
      if (this.done(claim)) {
        this.pending.delete(key);
        this.sentAt.delete(key);
        continue;
      }
      // Not yet: too far ahead, a withdrawal this state does not hold, or one the machine does not take the claim in now.
      if (claim.kind === BridgeClaimKind.Deposit ? claim.depositId >= next + MAX_DEPOSITS_AHEAD : claim.kind !== BridgeClaimKind.Alert && !state.withdrawals.get(String(claim.withdrawalId))) continue;
      if (hasAttested(state, d.signer.address, claim)) continue;
      const sent = this.sentAt.get(key);
      if (sent !== undefined && height < sent + RESUBMIT_AFTER_BLOCKS) continue;
      ready.push([key, claim]);
    }
    d.stats.claimsPending = this.pending.size;
    if (ready.length === 0) return { submitted: 0 };
    ready.sort(([, a], [, b]) => compareClaims(a, b));
    const batch = ready.slice(0, MAX_BRIDGE_CLAIMS);
    const body = signAttestation(d.chainId, { validator: d.signer.address, claims: batch.map(([, c]) => c) }, d.signer);
    try {
      await d.submit(encodeTx(d.chainId, TxKind.BridgeAttestation, body));
    } catch (err) {
      d.stats.attestationsRefused++;
      return { submitted: 0, refusedError: err };
    }
    for (const [key] of batch) this.sentAt.set(key, height);
    d.stats.attestationsSubmitted++;
    d.stats.claimsSubmitted += batch.length;
    return { submitted: batch.length };
  }
}

/**
 * Which Void claim to make for an expired, unpaid withdrawal: Expired is true; a Cancelled
 * seen in a confirmed log is true too. The one the chain's votes already hold (most voters
 * first) when it is one of these, else the cancel when seen, else Expired.
 */
function chooseVoid(state: State, expired: BridgeClaim, cancel: BridgeClaim | undefined): BridgeClaim {
  const truths = cancel ? [cancel, expired] : [expired];
  const rec = state.bridgeVotes.get(claimKey(expired));
  if (rec) {
    const variants = [...rec.variants].sort((a, b) => b.voters.length - a.voters.length);
    for (const v of variants) {
      const content = bytesToHex(claimContent(v.claim));
      const match = truths.find((t) => bytesToHex(claimContent(t)) === content);
      if (match) return match;
    }
  }
  return truths[0];
}
