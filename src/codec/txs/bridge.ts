/**
 * The bridge's two validator transactions (issue 22; decisions 82 and 83): no nonce, no
 * fee, like OracleObservation; the per-(validator, claim) vote is the replay protection
 * (src/state/ops/bridge-attestation.ts, src/state/ops/withdrawal-signatures.ts).
 *
 * BridgeAttestation: a validator's signed claims about the external chain.
 *   `address validator | u32 n | n × claim | 65-byte signature r‖s‖v (v 27/28)`
 *   claim: `u8 kind | big id | kind-specific fields`
 *     Deposit (1):          big depositId | address recipient | big amount | 32 externalTx
 *     WithdrawalQueued (2): big withdrawalId | address recipient | big amount | big validUntil | 32 externalTx
 *     WithdrawalPaid (3):   big withdrawalId | address recipient | big amount | 32 externalTx
 *     WithdrawalVoid (4):   big withdrawalId | u8 reason | 32 externalTx (zeros when Expired)
 *     Alert (5):            big id | u8 alert kind | alert fields | 32 externalTx
 *       ForgedQueue (1):    (id: the withdrawal id) address recipient | big amount | big validUntil
 *       ForgedPaid (2):     (id: the withdrawal id) address recipient | big amount
 *       UnexplainedSet (3): (id: the set nonce, or the event's block) 32 digest of (validators, powers)
 *       UnexplainedOwners (4): (id: the owner nonce, or the event's block) 32 digest of (owners, threshold)
 *   Claims strictly ascending by (kind, alert kind, id), 1..MAX_BRIDGE_CLAIMS of them,
 *   amounts > 0, recipients not the zero address.
 *
 *   A Queued or Paid claim carries what the external log says (decision 154): execution
 *   counts it only when it equals the chain's record of the withdrawal; a log that does
 *   not is attested as an Alert instead, which execution records once a quorum makes it
 *   (src/state/bridge/alerts.ts).
 *
 * WithdrawalSignatures: a validator's signatures over withdrawals' v3 digests
 * (src/signing/bridge-withdrawal.ts), which the contract recovers.
 *   `address validator | u32 n | n × (big withdrawalId | 65 signature) | 65 tx signature`
 *   Items strictly ascending by withdrawalId, 1..MAX_WITHDRAWAL_SIGNATURES of them.
 *
 * The decoder refuses anything else (one list, one encoding, one hash). Both are signed
 * with the validator's consensus key (Secp256k1Signer, src/consensus/signer.ts) over a
 * tagged hash bound to this chain's id.
 */
import { keccak256 } from '../../crypto/keccak';
import type { Address } from '../../util/bytes';
import { CodecError, type Reader, Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';

export enum BridgeClaimKind {
  Deposit = 1,
  WithdrawalQueued = 2,
  WithdrawalPaid = 3,
  WithdrawalVoid = 4,
  /** Something on the external bridge that no decision of this chain explains (decision 154). */
  Alert = 5,
}

/** What an Alert claim reports. */
export enum BridgeAlertKind {
  /** A WithdrawalQueued for an id this chain never made, or with another recipient, amount or validUntil. */
  ForgedQueue = 1,
  /** A WithdrawalPaid for an id this chain never made, or to another recipient or amount. */
  ForgedPaid = 2,
  /** A validator set proposed or put in place on the contract that this chain did not decide. */
  UnexplainedSet = 3,
  /** An owner set proposed or put in place on the contract that this chain did not decide. */
  UnexplainedOwners = 4,
}

export enum WithdrawalVoidReason {
  /** The external chain's confirmed time passed validUntil and the withdrawal was not paid there. */
  Expired = 1,
  /** The bridge's owners cancelled the queued withdrawal on the external chain. */
  Cancelled = 2,
}

export type BridgeClaim =
  | { kind: BridgeClaimKind.Deposit; depositId: bigint; recipient: Address; amount: bigint; externalTx: Uint8Array }
  | { kind: BridgeClaimKind.WithdrawalQueued; withdrawalId: bigint; recipient: Address; amount: bigint; validUntil: bigint; externalTx: Uint8Array }
  | { kind: BridgeClaimKind.WithdrawalPaid; withdrawalId: bigint; recipient: Address; amount: bigint; externalTx: Uint8Array }
  | { kind: BridgeClaimKind.WithdrawalVoid; withdrawalId: bigint; reason: WithdrawalVoidReason; externalTx: Uint8Array }
  | { kind: BridgeClaimKind.Alert; id: bigint; alert: BridgeAlert; externalTx: Uint8Array };

/** What an Alert claim says was seen, by kind. */
export type BridgeAlert =
  | { kind: BridgeAlertKind.ForgedQueue; recipient: Address; amount: bigint; validUntil: bigint }
  | { kind: BridgeAlertKind.ForgedPaid; recipient: Address; amount: bigint }
  | { kind: BridgeAlertKind.UnexplainedSet | BridgeAlertKind.UnexplainedOwners; digest: Uint8Array };

export interface BridgeAttestationBody {
  validator: Address;
  /** Strictly ascending by (kind, id). */
  claims: BridgeClaim[];
  /** 65 bytes r‖s‖v over attestationSigningHash, v 27 or 28. */
  signature: Uint8Array;
}

export interface WithdrawalSignatureItem {
  withdrawalId: bigint;
  /** 65 bytes: the validator's EIP-191 signature over bridgeWithdrawalDigest of the withdrawal. */
  signature: Uint8Array;
}

export interface WithdrawalSignaturesBody {
  validator: Address;
  /** Strictly ascending by withdrawalId. */
  items: WithdrawalSignatureItem[];
  /** The transaction's own signature (r‖s‖v, v 27/28) over withdrawalSignaturesSigningHash. */
  signature: Uint8Array;
}

export const MAX_BRIDGE_CLAIMS = 256;
export const MAX_WITHDRAWAL_SIGNATURES = 256;

const ATTESTATION_TAG = 'exchange-chain/bridge-attestation/v1';
const SIGNATURES_TAG = 'exchange-chain/withdrawal-signatures/v1';
const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
const CLAIM_KINDS = new Set<number>([BridgeClaimKind.Deposit, BridgeClaimKind.WithdrawalQueued, BridgeClaimKind.WithdrawalPaid, BridgeClaimKind.WithdrawalVoid, BridgeClaimKind.Alert]);
const ALERT_KINDS = new Set<number>([BridgeAlertKind.ForgedQueue, BridgeAlertKind.ForgedPaid, BridgeAlertKind.UnexplainedSet, BridgeAlertKind.UnexplainedOwners]);

/** The id a claim is about: a deposit id, a withdrawal id, or an alert's id (withdrawal id, nonce or block). */
export function claimId(c: BridgeClaim): bigint {
  return c.kind === BridgeClaimKind.Deposit ? c.depositId : c.kind === BridgeClaimKind.Alert ? c.id : c.withdrawalId;
}

/** The canonical order of claims in an attestation: by kind, then alert kind, then id (negative: a first). */
export function compareClaims(a: BridgeClaim, b: BridgeClaim): number {
  if (a.kind !== b.kind) return a.kind - b.kind;
  if (a.kind === BridgeClaimKind.Alert && b.kind === BridgeClaimKind.Alert && a.alert.kind !== b.alert.kind) return a.alert.kind - b.alert.kind;
  const x = claimId(a);
  const y = claimId(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function amountProblem(c: { recipient: Address; amount: bigint }, i: number, what: string): string | null {
  if (c.amount <= 0n) return `claims[${i}]: ${what} amount must be positive`;
  if (c.recipient === ZERO_ADDRESS) return `claims[${i}]: ${what} recipient must not be the zero address`;
  return null;
}

/** Why a claim list is not canonical, or null when it is. */
export function claimListProblem(claims: readonly BridgeClaim[]): string | null {
  if (claims.length === 0) return 'an attestation carries at least one claim';
  if (claims.length > MAX_BRIDGE_CLAIMS) return `at most ${MAX_BRIDGE_CLAIMS} claims per attestation, got ${claims.length}`;
  for (let i = 0; i < claims.length; i++) {
    const c = claims[i];
    if (!CLAIM_KINDS.has(c.kind)) return `claims[${i}]: unknown claim kind ${c.kind}`;
    if (c.externalTx.length !== 32) return `claims[${i}]: externalTx must be 32 bytes`;
    const problem =
      c.kind === BridgeClaimKind.Deposit || c.kind === BridgeClaimKind.WithdrawalQueued || c.kind === BridgeClaimKind.WithdrawalPaid
        ? amountProblem(c, i, c.kind === BridgeClaimKind.Deposit ? 'deposit' : 'withdrawal')
        : c.kind === BridgeClaimKind.Alert
          ? alertProblem(c.alert, i)
          : null;
    if (problem) return problem;
    if (c.kind === BridgeClaimKind.WithdrawalVoid && c.reason !== WithdrawalVoidReason.Expired && c.reason !== WithdrawalVoidReason.Cancelled) {
      return `claims[${i}]: unknown void reason ${c.reason}`;
    }
    if (i > 0 && compareClaims(claims[i - 1], c) >= 0) return `claims[${i}]: claims must be strictly ascending by (kind, alert kind, id)`;
  }
  return null;
}

function alertProblem(a: BridgeAlert, i: number): string | null {
  if (!ALERT_KINDS.has(a.kind)) return `claims[${i}]: unknown alert kind ${a.kind}`;
  if (a.kind === BridgeAlertKind.UnexplainedSet || a.kind === BridgeAlertKind.UnexplainedOwners) {
    return a.digest.length === 32 ? null : `claims[${i}]: alert digest must be 32 bytes`;
  }
  // A forged log still passed the contract's own checks: the amount is positive, the recipient not zero.
  return amountProblem(a as { recipient: Address; amount: bigint }, i, 'alert');
}

/** Why a signature item list is not canonical, or null when it is. */
export function itemListProblem(items: readonly WithdrawalSignatureItem[]): string | null {
  if (items.length === 0) return 'at least one withdrawal signature';
  if (items.length > MAX_WITHDRAWAL_SIGNATURES) return `at most ${MAX_WITHDRAWAL_SIGNATURES} withdrawal signatures, got ${items.length}`;
  for (let i = 0; i < items.length; i++) {
    if (items[i].signature.length !== 65) return `items[${i}]: signature must be 65 bytes`;
    if (i > 0 && items[i].withdrawalId <= items[i - 1].withdrawalId) return `items[${i}]: withdrawal ids must be strictly ascending`;
  }
  return null;
}

/** One claim's encoding (also what the BridgeVote record stores per variant). */
export function writeClaim(w: Writer, c: BridgeClaim): Writer {
  w.u8(c.kind).big(claimId(c));
  if (c.kind === BridgeClaimKind.Deposit || c.kind === BridgeClaimKind.WithdrawalPaid) w.address(c.recipient).big(c.amount);
  if (c.kind === BridgeClaimKind.WithdrawalQueued) w.address(c.recipient).big(c.amount).big(c.validUntil);
  if (c.kind === BridgeClaimKind.WithdrawalVoid) w.u8(c.reason);
  if (c.kind === BridgeClaimKind.Alert) writeAlert(w, c.alert);
  return w.fixed(c.externalTx, 32);
}

function writeAlert(w: Writer, a: BridgeAlert): void {
  w.u8(a.kind);
  if (a.kind === BridgeAlertKind.ForgedQueue) w.address(a.recipient).big(a.amount).big(a.validUntil);
  else if (a.kind === BridgeAlertKind.ForgedPaid) w.address(a.recipient).big(a.amount);
  else w.fixed(a.digest, 32);
}

function readAlert(r: Reader): BridgeAlert {
  const kind = r.u8();
  switch (kind) {
    case BridgeAlertKind.ForgedQueue:
      return { kind, recipient: r.address(), amount: r.big(), validUntil: r.big() };
    case BridgeAlertKind.ForgedPaid:
      return { kind, recipient: r.address(), amount: r.big() };
    case BridgeAlertKind.UnexplainedSet:
    case BridgeAlertKind.UnexplainedOwners:
      return { kind, digest: r.fixed(32) };
    default:
      throw new CodecError('RANGE', `unknown bridge alert kind ${kind}`);
  }
}

export function readClaim(r: Reader): BridgeClaim {
  const kind = r.u8();
  const id = r.big();
  switch (kind) {
    case BridgeClaimKind.Deposit: {
      const recipient = r.address();
      const amount = r.big();
      return { kind, depositId: id, recipient, amount, externalTx: r.fixed(32) };
    }
    case BridgeClaimKind.WithdrawalQueued: {
      const recipient = r.address();
      const amount = r.big();
      const validUntil = r.big();
      return { kind, withdrawalId: id, recipient, amount, validUntil, externalTx: r.fixed(32) };
    }
    case BridgeClaimKind.WithdrawalPaid: {
      const recipient = r.address();
      const amount = r.big();
      return { kind, withdrawalId: id, recipient, amount, externalTx: r.fixed(32) };
    }
    case BridgeClaimKind.Alert: {
      const alert = readAlert(r);
      return { kind, id, alert, externalTx: r.fixed(32) };
    }
    case BridgeClaimKind.WithdrawalVoid: {
      const reason = r.u8() as WithdrawalVoidReason;
      return { kind, withdrawalId: id, reason, externalTx: r.fixed(32) };
    }
    default:
      throw new CodecError('RANGE', `unknown bridge claim kind ${kind}`);
  }
}

/** A claim's content as bytes: votes of equal content count together (src/state/bridge/votes.ts). */
export function claimContent(c: BridgeClaim): Uint8Array {
  return writeClaim(new Writer(96), c).finish();
}

export function checkV(sig: Uint8Array, what: string): void {
  // One signature, one encoding: the consensus signer's v is 27/28 (0/1 would be a second hash).
  if (sig.length === 65 && sig[64] !== 27 && sig[64] !== 28) throw new CodecError('NON_CANONICAL', `${what} v must be 27 or 28, got ${sig[64]}`);
}

function writeAttestation(w: Writer, body: Omit<BridgeAttestationBody, 'signature'>): Writer {
  w.address(body.validator).u32(body.claims.length);
  for (const c of body.claims) writeClaim(w, c);
  return w;
}

function writeSignatures(w: Writer, body: Omit<WithdrawalSignaturesBody, 'signature'>): Writer {
  w.address(body.validator).u32(body.items.length);
  for (const it of body.items) w.big(it.withdrawalId).fixed(it.signature, 65);
  return w;
}

/** What the validator signs: the tag, this chain's id and every field but the signature. */
export function attestationSigningHash(chainId: number, body: Omit<BridgeAttestationBody, 'signature'>): Uint8Array {
  return keccak256(writeAttestation(new Writer(64 + body.claims.length * 96).string(ATTESTATION_TAG).u32(chainId), body).finish());
}

export function withdrawalSignaturesSigningHash(chainId: number, body: Omit<WithdrawalSignaturesBody, 'signature'>): Uint8Array {
  return keccak256(writeSignatures(new Writer(64 + body.items.length * 80).string(SIGNATURES_TAG).u32(chainId), body).finish());
}

export function signAttestation(
  chainId: number,
  unsigned: Omit<BridgeAttestationBody, 'signature'>,
  signer: { sign(digest: Uint8Array): Uint8Array },
): BridgeAttestationBody {
  const problem = claimListProblem(unsigned.claims);
  if (problem) throw new CodecError('NON_CANONICAL', problem);
  return { ...unsigned, signature: signer.sign(attestationSigningHash(chainId, unsigned)) };
}

export function signWithdrawalSignatures(
  chainId: number,
  unsigned: Omit<WithdrawalSignaturesBody, 'signature'>,
  signer: { sign(digest: Uint8Array): Uint8Array },
): WithdrawalSignaturesBody {
  const problem = itemListProblem(unsigned.items);
  if (problem) throw new CodecError('NON_CANONICAL', problem);
  return { ...unsigned, signature: signer.sign(withdrawalSignaturesSigningHash(chainId, unsigned)) };
}

registerTxKind<BridgeAttestationBody>({
  kind: TxKind.BridgeAttestation,
  name: 'BridgeAttestation',
  encodeBody(w, b) {
    const problem = claimListProblem(b.claims);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    checkV(b.signature, 'attestation signature');
    writeAttestation(w, b).fixed(b.signature, 65);
  },
  decodeBody(r) {
    const validator = r.address();
    const n = r.u32();
    if (n === 0 || n > MAX_BRIDGE_CLAIMS) throw new CodecError('RANGE', `attestation claim count ${n} outside 1..${MAX_BRIDGE_CLAIMS}`);
    const claims: BridgeClaim[] = [];
    for (let i = 0; i < n; i++) claims.push(readClaim(r));
    const problem = claimListProblem(claims);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    const signature = r.fixed(65);
    checkV(signature, 'attestation signature');
    return { validator, claims, signature };
  },
});

registerTxKind<WithdrawalSignaturesBody>({
  kind: TxKind.WithdrawalSignatures,
  name: 'WithdrawalSignatures',
  encodeBody(w, b) {
    const problem = itemListProblem(b.items);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    checkV(b.signature, 'transaction signature');
    for (const it of b.items) checkV(it.signature, 'withdrawal signature');
    writeSignatures(w, b).fixed(b.signature, 65);
  },
  decodeBody(r) {
    const validator = r.address();
    const n = r.u32();
    if (n === 0 || n > MAX_WITHDRAWAL_SIGNATURES) throw new CodecError('RANGE', `withdrawal signature count ${n} outside 1..${MAX_WITHDRAWAL_SIGNATURES}`);
    const items: WithdrawalSignatureItem[] = [];
    for (let i = 0; i < n; i++) {
      const withdrawalId = r.big();
      const signature = r.fixed(65);
      checkV(signature, 'withdrawal signature');
      items.push({ withdrawalId, signature });
    }
    const problem = itemListProblem(items);
    if (problem) throw new CodecError('NON_CANONICAL', problem);
    const signature = r.fixed(65);
    checkV(signature, 'transaction signature');
    return { validator, items, signature };
  },
});
