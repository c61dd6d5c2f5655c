/**
 * The bridge relayer (issue 22 item 3, decision 84): one concern of the bridge actor
 * (./bridge-actor.ts), on a validator of the active set.
 *
 * Each poll:
 *   - it signs every withdrawal requested or signed (not yet queued) that it has not
 *     signed and that has not expired (the v3 digest the contract
 *     recovers, src/signing/bridge-withdrawal.ts) and submits them as one
 *     WithdrawalSignatures transaction (≤ 256 items);
 *   - for each `signed` withdrawal, the designated submitter (the active validators
 *     ascending by address, index withdrawalId mod n) queues it on the bridge at once; any
 *     other validator at distance k from it after takeoverMs × k of block time since the
 *     withdrawal was signed. It passes the record's signatures whose signer is in the
 *     contract's validator set, ascending by signer;
 *   - for each `submitted` withdrawal past its readyAt (external time), the same rotation
 *     executes it, measured in external seconds since readyAt.
 * The validator sets (decision 151), each poll, active or not:
 *   - it signs every recorded bridge set (src/state/bridge/sets.ts) whose predecessor set
 *     holds its address and that it has not signed, as one BridgeSetSignatures transaction
 *     (an outgoing validator signs its successor: the contract checks set N against N−1);
 *   - while active, it reads the contract's sets: a pending set that is due is activated
 *     (activateValidatorSet); with none pending, the chain's set nonce + 1, once its
 *     signatures hold more than 2/3 of the contract's set (the chain's set of that nonce),
 *     is submitted (updateValidatorSet). Any active validator may send; the contract takes
 *     one (a second is refused in the simulation, before any gas);
 *   - owner sets (the chain's executed SetOwners, decision 149) the same way: any
 *     validator of a kept set signs; an active relayer submits the newest (updateOwners)
 *     with the signatures of the contract's set once they hold more than 2/3 of its power,
 *     and activates it when due.
 * Withdrawals are queued with the signatures of the set the contract checks at the head's
 * time: the pending set once it is due (the contract applies it first), else the one in force.
 * Every send re-reads the contract first (already queued or paid: nothing; expired or
 * paused: nothing) and is sent from the validator's own key (its external account pays
 * the gas). Sends run beside the polls (a receipt may take seconds); one per withdrawal
 * at a time. A failure is logged once per withdrawal and kind, counted, and retried at a
 * later poll after a fresh read.
 */
import type { BridgeClient } from '../../src/bridge/evm';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { MAX_WITHDRAWAL_SIGNATURES, signWithdrawalSignatures, type WithdrawalSignatureItem } from '../../src/codec/txs/bridge';
import { BridgeSetKind, MAX_SET_SIGNATURES, signBridgeSetSignatures, type BridgeSetSignatureItem } from '../../src/codec/txs/bridge-set';
import type { Secp256k1Signer } from '../../src/consensus/signer';
import { bridgeOwnersSigningHash, bridgeSetSigningHash, bridgeWithdrawalSigningHash } from '../../src/signing/bridge-withdrawal';
import { bridgeParams, pendingWithdrawals, withdrawalMessage } from '../../src/state/bridge/reads';
import {
  bridgeOwnerSets,
  bridgeOwnersMessage,
  bridgeSet,
  bridgeSetMessage,
  bridgeSets,
  latestBridgeSet,
  mayBridgeSign,
  setSignedByPredecessor,
} from '../../src/state/bridge/sets';
import type { Withdrawal } from '../../src/state/records';
import type { State } from '../../src/state/state';
import { activeValidators } from '../../src/state/validators/set';
import { hexToBytes, type Address } from '../../src/util/bytes';
import type { Logger } from '../../src/util/log';
import type { BridgeRelayerStats } from './messages';

/** What the relayer reads of and sends to the external chain. */
export type RelayerExternal = Pick<
  BridgeClient,
    | 'withdrawal'
  | 'validatorSet'
  | 'validatorSets'
  | 'ownerSets'
  | 'paused'
  | 'queueWithdrawal'
  | 'executeWithdrawal'
  | 'updateValidatorSet'
  | 'activateValidatorSet'
  | 'updateOwners'
  | 'activateOwners'
>;

/** Default time a validator at distance 1 from the designated submitter waits before it takes over (× its distance). */
export const RELAYER_TAKEOVER_MS_DEFAULT = 15_000;
/** A signature transaction is sent again if its withdrawals are still not signed by this validator this many blocks later. */
const RESIGN_AFTER_BLOCKS = 10;
/** External sends started in one poll at most. */
const SENDS_PER_POLL_MAX = 16;

export interface RelayerDeps {
  external: RelayerExternal;
  signer: Secp256k1Signer;
  /** The validator's raw key: its external account. */
  privateKey: Uint8Array;
  state(): State;
  height(): number;
  /** The exchange chain's last block time (ms): the clock of the queueing rotation. */
  blockTimeMs(): number;
  chainId: number;
  takeoverMs: number;
  submit(tx: Tx): Promise<void>;
  stats: BridgeRelayerStats;
  log: Logger;
}

/**
 * How far `me` is from withdrawal `id`'s designated submitter: the validators ascending
 * by address (as activeValidators lists them), the designated one at index `id mod n`,
 * distance counted upwards with wrap-around; 0 for the designated submitter, undefined
 * when `me` is not in the set. A validator at distance k acts after takeoverMs × k.
 */
export function submitterDistance(ascending: readonly { address: Address }[], me: Address, id: bigint): number | undefined {
  const n = ascending.length;
  const mine = ascending.findIndex((v) => v.address === me);
  if (mine < 0 || n === 0) return undefined;
  const designated = Number(id % BigInt(n));
  return (mine - designated + n) % n;
}

export class Relayer {
  /** Withdrawal id → exchange height its signature was last submitted at. */
  private readonly signedAt = new Map<bigint, number>();
  /** Bridge set nonce → exchange height its signature was last submitted at. */
  private readonly setSignedAt = new Map<bigint, number>();
  /** `q:<id>` / `x:<id>` sends waiting for their receipt. */
  private readonly inFlight = new Set<string>();
  /** readyAt of queued withdrawals as the contract answered (it never changes once queued). */
  private readonly readyAt = new Map<bigint, bigint>();
  /** Last failure logged per send key (logged again only when it changes). */
  private readonly lastFailure = new Map<string, string>();
  private stopped = false;

  constructor(private readonly d: RelayerDeps) {}

  stop(): void {
    this.stopped = true;
  }

  /** One poll at external head `head` (its time judges readyAt and validUntil). */
  async poll(head: { number: bigint; timestampSec: bigint }): Promise<{ refusedError?: unknown }> {
    const state = this.d.state();
    const pending = pendingWithdrawals(state).filter((w) => w.validUntilSec > 0n);
    const live = new Set(pending.map((w) => w.id));
    for (const id of [...this.readyAt.keys()]) if (!live.has(id)) this.readyAt.delete(id);
    for (const id of [...this.signedAt.keys()]) if (!live.has(id)) this.signedAt.delete(id);
    const refusedError = await this.sign(state, pending, head);
    await this.relay(state, pending, head);
    return { refusedError };
  }

  /**
   * The validator sets: signs the recorded sets this validator's key must sign (active or
   * not), and, when `active`, moves the contract on by one set. Returns a refused signature
   * transaction's error.
   */
  async pollSets(head: { timestampSec: bigint }, active: boolean): Promise<{ refusedError?: unknown }> {
    const state = this.d.state();
    if (!bridgeParams(state)) return {};
    const refusedError = await this.signSets(state);
    if (active) {
      await this.relaySets(state, head);
      await this.relayOwners(state, head);
    }
    return { refusedError };
  }

  private async signSets(state: State): Promise<unknown> {
    const { d } = this;
    const me = d.signer.address;
    const height = d.height();
    const items: BridgeSetSignatureItem[] = [];
    for (const set of bridgeSets(state)) {
      if (set.nonce === 0n || items.length >= MAX_SET_SIGNATURES) continue;
      const prev = bridgeSet(state, set.nonce - 1n);
      if (!prev || !prev.validators.includes(me) || set.signatures.some((s) => s.validator === me)) continue;
      const at = this.setSignedAt.get(set.nonce);
      if (at !== undefined && height < at + RESIGN_AFTER_BLOCKS) continue;
      items.push({ kind: BridgeSetKind.Validators, setNonce: set.nonce, signature: d.signer.sign(bridgeSetSigningHash(bridgeSetMessage(state, set))) });
    }
    // Owner sets (the chain's SetOwners): any validator of a kept set signs; the relayer passes the contract's set's.
    if (mayBridgeSign(state, me)) {
      for (const owners of bridgeOwnerSets(state)) {
        if (owners.nonce === 0n || items.length >= MAX_SET_SIGNATURES || owners.signatures.some((s) => s.validator === me)) continue;
        const at = this.setSignedAt.get(-owners.nonce);
        if (at !== undefined && height < at + RESIGN_AFTER_BLOCKS) continue;
        items.push({ kind: BridgeSetKind.Owners, setNonce: owners.nonce, signature: d.signer.sign(bridgeOwnersSigningHash(bridgeOwnersMessage(state, owners))) });
      }
    }
    if (items.length === 0) return undefined;
    try {
      await d.submit(encodeTx(d.chainId, TxKind.BridgeSetSignatures, signBridgeSetSignatures(d.chainId, { validator: me, items }, d.signer)));
    } catch (err) {
      d.stats.signatureTxsRefused++;
      return err;
    }
    // Owner sets under their negated nonce: one map for both kinds.
    for (const it of items) this.setSignedAt.set(it.kind === BridgeSetKind.Owners ? -it.setNonce : it.setNonce, height);
    d.stats.setSignaturesSubmitted += items.length;
    return undefined;
  }

  private async relaySets(state: State, head: { timestampSec: bigint }): Promise<void> {
    const { d } = this;
    if (this.inFlight.has('s:set')) return;
    const latest = latestBridgeSet(state);
    if (latest.nonce === 0n) return;
    const ext = await d.external.validatorSets();
    if (ext.pending.activeAt !== 0n) {
      if (head.timestampSec >= ext.pending.activeAt) this.start('s:set', () => this.activateSet());
      return;
    }
    if (ext.nonce >= latest.nonce) return;
    const next = bridgeSet(state, ext.nonce + 1n);
    if (!next || !setSignedByPredecessor(state, next)) return;
    this.start('s:set', () => this.submitSet(next.nonce));
  }

  /**
   * The chain's newest owner set: submitted (updateOwners) once the signatures of the
   * validators in the contract's set hold more than 2/3 of its power; activated when due.
   */
  private async relayOwners(state: State, head: { timestampSec: bigint }): Promise<void> {
    const { d } = this;
    if (this.inFlight.has('s:owners')) return;
    const sets = bridgeOwnerSets(state);
    const latest = sets[sets.length - 1];
    if (!latest || latest.nonce === 0n) return;
    const ext = await d.external.ownerSets();
    if (ext.pending.activeAt !== 0n && head.timestampSec >= ext.pending.activeAt) {
      this.start('s:owners', async () => {
        if (await d.external.paused()) throw new Error('the bridge is paused');
        await d.external.activateOwners(d.privateKey);
        d.log.info({ ownerSetNonce: String(ext.pending.nonce) }, 'bridge relayer: owner set activated on the external chain');
        return 'sent';
      });
      return;
    }
    const floor = ext.pending.activeAt !== 0n ? ext.pending.nonce : ext.nonce;
    if (latest.nonce <= floor) return;
    this.start('s:owners', async () => {
      if (await d.external.paused()) throw new Error('the bridge is paused');
      const usable = await this.contractSetSignatures(latest.signatures, head.timestampSec);
      if (!usable || this.stopped) return 'nothing';
      await d.external.updateOwners(d.privateKey, { owners: latest.owners, threshold: latest.threshold, ownerSetNonce: latest.nonce, signatures: usable });
      d.log.info({ ownerSetNonce: String(latest.nonce) }, 'bridge relayer: owner set submitted to the external chain');
      return 'sent';
    });
  }

  /** The signatures (ascending by validator) of the set the contract checks at `headSec`, if they hold more than 2/3 of its power. */
  private async contractSetSignatures(signatures: readonly { validator: Address; signature: string }[], headSec: bigint): Promise<Uint8Array[] | undefined> {
    const sets = await this.d.external.validatorSets();
    const set = sets.pending.activeAt !== 0n && headSec >= sets.pending.activeAt ? sets.pending : sets.current;
    const power = new Map(set.validators.map((v, i) => [v.toLowerCase(), set.powers[i]] as const));
    const total = set.powers.reduce((a, p) => a + p, 0n);
    const usable = signatures.filter((s) => power.has(s.validator));
    const signed = usable.reduce((a, s) => a + power.get(s.validator)!, 0n);
    return 3n * signed > 2n * total ? usable.map((s) => hexToBytes(s.signature)) : undefined;
  }

  private async activateSet(): Promise<'sent' | 'nothing'> {
    const { d } = this;
    if (await d.external.paused()) throw new Error('the bridge is paused');
    const ext = await d.external.validatorSets();
    if (ext.pending.activeAt === 0n || this.stopped) return 'nothing';
    await d.external.activateValidatorSet(d.privateKey);
    d.stats.setsActivated++;
    d.log.info({ setNonce: String(ext.pending.nonce) }, 'bridge relayer: validator set activated on the external chain');
    return 'sent';
  }

  private async submitSet(nonce: bigint): Promise<'sent' | 'nothing'> {
    const { d } = this;
    if (await d.external.paused()) throw new Error('the bridge is paused');
    const ext = await d.external.validatorSets();
    if (ext.pending.activeAt !== 0n || ext.nonce + 1n !== nonce || this.stopped) return 'nothing';
    const set = bridgeSet(d.state(), nonce);
    if (!set) return 'nothing';
    // The record keeps the signatures ascending by validator (lower-case hex: numeric order), as the contract wants them.
    await d.external.updateValidatorSet(d.privateKey, {
      validators: set.validators,
      powers: set.powers,
      setNonce: set.nonce,
      signatures: set.signatures.map((s) => hexToBytes(s.signature)),
    });
    d.stats.setsSubmitted++;
    d.log.info({ setNonce: String(nonce) }, 'bridge relayer: validator set submitted to the external chain');
    return 'sent';
  }

  private async sign(state: State, pending: Withdrawal[], head: { timestampSec: bigint }): Promise<unknown> {
    const { d } = this;
    const me = d.signer.address;
    const height = d.height();
    const items: WithdrawalSignatureItem[] = [];
    for (const w of pending) {
      if (items.length >= MAX_WITHDRAWAL_SIGNATURES) break;
      if (w.validUntilSec < head.timestampSec) continue; // the contract would refuse it: it is refunded instead
      if (w.status !== 'requested' && w.status !== 'signed') continue; // queued already: a signature more changes nothing
      if (w.signatures.some((s) => s.validator === me)) continue;
      const at = this.signedAt.get(w.id);
      if (at !== undefined && height < at + RESIGN_AFTER_BLOCKS) continue;
      items.push({ withdrawalId: w.id, signature: d.signer.sign(bridgeWithdrawalSigningHash(withdrawalMessage(state, w))) });
    }
    if (items.length === 0) return undefined;
    const body = signWithdrawalSignatures(d.chainId, { validator: me, items }, d.signer);
    try {
      await d.submit(encodeTx(d.chainId, TxKind.WithdrawalSignatures, body));
    } catch (err) {
      d.stats.signatureTxsRefused++;
      return err;
    }
    for (const it of items) this.signedAt.set(it.withdrawalId, height);
    d.stats.signatureTxsSubmitted++;
    d.stats.signaturesSubmitted += items.length;
    return undefined;
  }

  private distance(state: State, id: bigint): number | undefined {
    return submitterDistance(activeValidators(state).validators, this.d.signer.address, id);
  }

  private async relay(state: State, pending: Withdrawal[], head: { timestampSec: bigint }): Promise<void> {
    const { d } = this;
    let started = 0;
    for (const w of pending) {
      if (started >= SENDS_PER_POLL_MAX) break;
      if (w.status !== 'signed' && w.status !== 'submitted') continue;
      if (w.validUntilSec < head.timestampSec) continue; // expired: the watcher votes the refund
      const k = this.distance(state, w.id);
      if (k === undefined) continue;
      if (w.status === 'signed') {
        // Block time since it was signed (its last transition): the same clock on every validator.
        if (d.blockTimeMs() - w.updatedMs < k * d.takeoverMs) continue;
        if (this.start(`q:${w.id}`, () => this.queue(w, head.timestampSec))) started++;
      } else {
        let ready = this.readyAt.get(w.id);
        if (ready === undefined) {
          const ext = await d.external.withdrawal(w.id);
          if (ext.state !== 'queued') continue;
          this.readyAt.set(w.id, (ready = ext.readyAt));
        }
        // External seconds since it became payable: the same clock on every validator.
        if (head.timestampSec < ready || (head.timestampSec - ready) * 1000n < BigInt(k * d.takeoverMs)) continue;
        if (this.start(`x:${w.id}`, () => this.execute(w))) started++;
      }
    }
  }

  /** Starts one send beside the polls unless one for the same key is still waiting. */
  private start(key: string, send: () => Promise<'sent' | 'nothing'>): boolean {
    if (this.inFlight.has(key) || this.stopped) return false;
    this.inFlight.add(key);
    this.d.stats.inFlight = this.inFlight.size;
    void send()
      .then(() => this.lastFailure.delete(key))
      .catch((err: unknown) => {
        this.d.stats.sendFailures++;
        const message = err instanceof Error ? err.message : String(err);
        if (this.lastFailure.get(key) !== message) {
          this.d.log.warn({ send: key, err: message }, 'bridge relayer: external send failed; retried after a fresh read');
        }
        this.lastFailure.set(key, message);
      })
      .finally(() => {
        this.inFlight.delete(key);
        this.d.stats.inFlight = this.inFlight.size;
      });
    return true;
  }

  private async queue(w: Withdrawal, headSec: bigint): Promise<'sent' | 'nothing'> {
    const { d } = this;
    const ext = await d.external.withdrawal(w.id);
    if (ext.state !== 'none') return 'nothing'; // queued (by another validator), paid or cancelled already
    if (await d.external.paused()) throw new Error('the bridge is paused');
    // The set the contract will check: a due pending set is applied before the signatures are.
    const sets = await d.external.validatorSets();
    const set = sets.pending.activeAt !== 0n && headSec >= sets.pending.activeAt ? sets.pending : sets.current;
    const power = new Map<Address, bigint>();
    let total = 0n;
    set.validators.forEach((v, i) => {
      power.set(v.toLowerCase() as Address, set.powers[i]);
      total += set.powers[i];
    });
    // The record keeps signatures ascending by validator: the order the contract wants.
    const usable = w.signatures.filter((s) => power.has(s.validator));
    const signed = usable.reduce((acc, s) => acc + power.get(s.validator)!, 0n);
    if (3n * signed <= 2n * total) {
      throw new Error(`signatures of ${usable.length} validators hold ${signed} of the contract's ${total} power: not more than 2/3 of its validator set`);
    }
    if (this.stopped) return 'nothing';
    await d.external.queueWithdrawal(d.privateKey, {
      withdrawalId: w.id,
      recipient: w.destination,
      amount: w.amount,
      validUntil: w.validUntilSec,
      signatures: usable.map((s) => s.signature),
    });
    d.stats.queued++;
    d.log.info({ withdrawalId: String(w.id) }, 'bridge relayer: withdrawal queued on the external chain');
    return 'sent';
  }

  private async execute(w: Withdrawal): Promise<'sent' | 'nothing'> {
    const { d } = this;
    const ext = await d.external.withdrawal(w.id);
    if (ext.state !== 'queued') return 'nothing'; // paid (by another validator) or cancelled
    if (await d.external.paused()) throw new Error('the bridge is paused');
    if (this.stopped) return 'nothing';
    await d.external.executeWithdrawal(d.privateKey, w.id);
    d.stats.executed++;
    d.log.info({ withdrawalId: String(w.id) }, 'bridge relayer: withdrawal paid on the external chain');
    return 'sent';
  }
}
