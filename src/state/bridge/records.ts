/**
 * The bridge's state records and their canonical encodings (issue 22; decisions 82, 83):
 * the withdrawal (TableId.Withdrawal: the withdrawal machine's state value and context),
 * the credited deposit (TableId.Deposit), the pending votes of one claim
 * (TableId.BridgeVote) and a recorded alert (TableId.BridgeAlert, decision 154). Re-exported by ./records.ts with the other records.
 */
import { Reader, Writer } from '../../codec/binary';
import { readClaim, writeClaim, WithdrawalVoidReason, type BridgeClaim } from '../../codec/txs/bridge';
import type { Address } from '../../util/bytes';
import type { Usdc6 } from '../../util/fixed';
import type { RecordCodec } from '../table';

/** The withdrawal machine's states (machines/withdrawal.ts); `paid` and `refunded` are final. */
type WithdrawalStatus = 'requested' | 'signed' | 'submitted' | 'paid' | 'refunded';
const WITHDRAWAL_STATUSES: readonly WithdrawalStatus[] = ['requested', 'signed', 'submitted', 'paid', 'refunded'];

/** One validator's signature over the withdrawal's v3 digest (src/signing/bridge-withdrawal.ts). */
interface WithdrawalSignature {
  validator: Address;
  /** 65 bytes r‖s‖v, v 27/28: what the contract recovers. */
  signature: Uint8Array;
}

/**
 * A withdrawal: amount + fee locked from the owner's free balance at the request; the
 * lock ends when it is paid on the external chain (burned here) or refunded (back to
 * free). Final withdrawals stay in the table for GET /withdrawals/{address}.
 */
export interface Withdrawal {
  id: bigint;
  owner: Address;
  /** What the destination receives on the external chain. */
  amount: Usdc6;
  fee: Usdc6;
  destination: Address;
  /** Block time of the request. */
  createdMs: number;
  /** Unix seconds after which the contract neither queues nor pays it; 0n only on a request a network without a bridge took before such requests were refused (issue 37). */
  validUntilSec: bigint;
  status: WithdrawalStatus;
  /** Ascending by validator. */
  signatures: WithdrawalSignature[];
  queuedTx?: Uint8Array;
  paidTx?: Uint8Array;
  voidReason?: WithdrawalVoidReason;
  /** The external cancel transaction; 32 zero bytes when Expired. */
  voidTx?: Uint8Array;
  /** Block time of the last transition. */
  updatedMs: number;
}

export function isFinalWithdrawal(w: Pick<Withdrawal, 'status'>): boolean {
  return w.status === 'paid' || w.status === 'refunded';
}

/** What a non-final withdrawal holds locked (counted in the owner's usdcLocked); 0 once final. */
export function withdrawalLock(w: Withdrawal | undefined): bigint {
  return w && !isFinalWithdrawal(w) ? w.amount + w.fee : 0n;
}

const FLAG_QUEUED = 1;
const FLAG_PAID = 2;
const FLAG_VOID = 4;

export const withdrawalCodec: RecordCodec<Withdrawal> = {
  encode: (w) => {
    const out = new Writer(160 + w.signatures.length * 86)
      .big(w.id)
      .address(w.owner)
      .big(w.amount)
      .big(w.fee)
      .address(w.destination)
      .u64(w.createdMs)
      .big(w.validUntilSec)
      .u8(WITHDRAWAL_STATUSES.indexOf(w.status))
      .u32(w.signatures.length);
    for (const s of w.signatures) out.address(s.validator).fixed(s.signature, 65);
    const flags = (w.queuedTx ? FLAG_QUEUED : 0) | (w.paidTx ? FLAG_PAID : 0) | (w.voidTx ? FLAG_VOID : 0);
    out.u8(flags);
    if (w.queuedTx) out.fixed(w.queuedTx, 32);
    if (w.paidTx) out.fixed(w.paidTx, 32);
    if (w.voidTx) out.u8(w.voidReason ?? 0).fixed(w.voidTx, 32);
    return out.u64(w.updatedMs).finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const w: Withdrawal = {
      id: r.big(),
      owner: r.address(),
      amount: r.big(),
      fee: r.big(),
      destination: r.address(),
      createdMs: r.u64(),
      validUntilSec: r.big(),
      status: 'requested',
      signatures: [],
      updatedMs: 0,
    };
    const code = r.u8();
    const status = WITHDRAWAL_STATUSES[code];
    if (status === undefined) throw new Error(`withdrawal status code ${code} out of range`);
    w.status = status;
    const n = r.u32();
    for (let i = 0; i < n; i++) w.signatures.push({ validator: r.address(), signature: r.fixed(65) });
    const flags = r.u8();
    if (flags & ~(FLAG_QUEUED | FLAG_PAID | FLAG_VOID)) throw new Error(`withdrawal flags ${flags} out of range`);
    if (flags & FLAG_QUEUED) w.queuedTx = r.fixed(32);
    if (flags & FLAG_PAID) w.paidTx = r.fixed(32);
    if (flags & FLAG_VOID) {
      w.voidReason = r.u8() as WithdrawalVoidReason;
      w.voidTx = r.fixed(32);
    }
    w.updatedMs = r.u64();
    r.end();
    return w;
  },
};

/** A deposit credited here (TableId.Deposit): kept so the credit is provable and never repeated. */
export interface DepositRecord {
  id: bigint;
  recipient: Address;
  amount: Usdc6;
  /** The external deposit transaction's hash. */
  externalTx: Uint8Array;
  /** Block time and height of the credit. */
  creditedMs: number;
  height: number;
}

export const depositCodec: RecordCodec<DepositRecord> = {
  encode: (d) => new Writer(112).big(d.id).address(d.recipient).big(d.amount).fixed(d.externalTx, 32).u64(d.creditedMs).u64(d.height).finish(),
  decode: (b) => {
    const r = new Reader(b);
    const d = { id: r.big(), recipient: r.address(), amount: r.big(), externalTx: r.fixed(32), creditedMs: r.u64(), height: r.u64() };
    r.end();
    return d;
  },
};

/**
 * The pending votes of one claim key (TableId.BridgeVote): one variant per distinct
 * content, each with its voters ascending. A validator is in at most one variant (its
 * first vote stands). Deleted when the claim is settled.
 */
export interface BridgeVoteRecord {
  variants: { claim: BridgeClaim; voters: Address[] }[];
}

export const bridgeVoteCodec: RecordCodec<BridgeVoteRecord> = {
  encode: (v) => {
    const w = new Writer(128 * v.variants.length).u32(v.variants.length);
    for (const variant of v.variants) {
      writeClaim(w, variant.claim).u32(variant.voters.length);
      for (const a of variant.voters) w.address(a);
    }
    return w.finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const n = r.u32();
    const variants: BridgeVoteRecord['variants'] = [];
    for (let i = 0; i < n; i++) {
      const claim = readClaim(r);
      const m = r.u32();
      const voters: Address[] = [];
      for (let j = 0; j < m; j++) voters.push(r.address());
      variants.push({ claim, voters });
    }
    r.end();
    return { variants };
  },
};

/**
 * An alert a quorum attested (TableId.BridgeAlert, key `<alert kind>:<id>`): the Alert
 * claim as voted, its voters, and when it was recorded. Kept for good: every node shows
 * the same list (GET /reserves, /v1/network, /metrics).
 */
export interface BridgeAlertRecord {
  claim: BridgeClaim;
  voters: Address[];
  height: number;
  recordedMs: number;
}

export const bridgeAlertCodec: RecordCodec<BridgeAlertRecord> = {
  encode: (a) => {
    const w = writeClaim(new Writer(160 + 20 * a.voters.length), a.claim).u32(a.voters.length);
    for (const v of a.voters) w.address(v);
    return w.u64(a.height).u64(a.recordedMs).finish();
  },
  decode: (b) => {
    const r = new Reader(b);
    const claim = readClaim(r);
    const n = r.u32();
    const voters: Address[] = [];
    for (let i = 0; i < n; i++) voters.push(r.address());
    const rec = { claim, voters, height: r.u64(), recordedMs: r.u64() };
    r.end();
    return rec;
  },
};

/**
 * The bridge's issuance ledger (meta `bridgeLedger`): every way USDC enters or leaves the
 * chain, so that genesisUsdc + faucetMinted + depositsCredited − withdrawalsPaid is the
 * supply exactly (the reserve check, src/state/bridge/reads.ts).
 */
export interface BridgeLedger {
  /** Genesis accounts' USDC plus the pool's initial USDC. */
  genesisUsdc: bigint;
  faucetMinted: bigint;
  depositsCredited: bigint;
  withdrawalsPaid: bigint;
}
