/**
 * The signers a node recovered, by transaction hash, so that each transaction's signature
 * is recovered once per node (issue 25; decision 109): at the first of the REST door
 * (src/api/door.ts, handed on with the transaction), the mempool (a transaction gossiped
 * in) or execution (a block holding a transaction this node never admitted), and reused
 * by every later step: the proposer's and every replica's apply, a late gossiped copy of a
 * transaction a block already carried.
 *
 * A signer is a pure function of the transaction's bytes (its hash covers the signature
 * and the chain id), so a remembered one is the one recovery would give: reusing it
 * cannot make two nodes' states differ. Only successful recoveries are kept (a bad
 * signature is refused where it is met, 401, and costs its recovery each time).
 *
 * Two bounded parts: the signers of pending transactions, held while the mempool holds
 * them (bounded by the mempool's own bounds), and the recent ones (transactions
 * committed, dropped or refused after their recovery), first in first out, at most
 * RECENT_SIGNERS_MAX. The counters (`recovered`, `reused`) are the node's proof in GET
 * /status (`signatures`).
 */
import type { Address } from '../util/bytes';
import type { VerifiedCache } from './apply';

/** Signers kept after their transaction left the mempool: a few blocks' worth at the largest block. */
const RECENT_SIGNERS_MAX = 16_384;

export interface SignatureCounts {
  /** Transaction signatures this node recovered (door, mempool and execution). */
  recovered: number;
  /** Times a recovered signer served again instead of a recovery (mempool and execution). */
  reused: number;
  /** The same by transaction kind (its name): a test or an operator follows one kind apart from the oracle's steady stream. */
  byKind: Record<string, { recovered: number; reused: number }>;
}

/** The counts of a node with no pool yet (or a partial test context): nothing recovered. */
export const NO_SIGNATURES: SignatureCounts = Object.freeze({ recovered: 0, reused: 0, byKind: Object.freeze({}) }) as SignatureCounts;

export class SignerCache implements VerifiedCache {
  private readonly pending = new Map<string, Address>();
  private readonly recent = new Map<string, Address>();
  private readonly counts = new Map<string, { recovered: number; reused: number }>();

  constructor(private readonly recentMax = RECENT_SIGNERS_MAX) {}

  /** The remembered signer of a transaction of `kind` (its name), counted as a reuse; undefined when this node never recovered it. */
  get(hashHex: string, kind = 'unknown'): Address | undefined {
    const signer = this.pending.get(hashHex) ?? this.recent.get(hashHex);
    if (signer !== undefined) this.countOf(kind).reused++;
    return signer;
  }

  /** A signer this node just recovered (counted); kept among the recent until its transaction is held pending. */
  recovered(hashHex: string, signer: Address, kind = 'unknown'): void {
    this.countOf(kind).recovered++;
    this.keepRecent(hashHex, signer);
  }

  /** The transaction is pending in the mempool: its signer stays until `release`. */
  hold(hashHex: string, signer: Address): void {
    this.pending.set(hashHex, signer);
    this.recent.delete(hashHex);
  }

  /** The transaction left the mempool (committed or dropped): its signer joins the recent ones. */
  release(hashHex: string): void {
    const signer = this.pending.get(hashHex);
    if (signer === undefined) return;
    this.pending.delete(hashHex);
    this.keepRecent(hashHex, signer);
  }

  stats(): SignatureCounts {
    const out: SignatureCounts = { recovered: 0, reused: 0, byKind: {} };
    for (const [kind, c] of [...this.counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      out.recovered += c.recovered;
      out.reused += c.reused;
      out.byKind[kind] = { ...c };
    }
    return out;
  }

  private countOf(kind: string): { recovered: number; reused: number } {
    let c = this.counts.get(kind);
    if (c === undefined) this.counts.set(kind, (c = { recovered: 0, reused: 0 }));
    return c;
  }

  private keepRecent(hashHex: string, signer: Address): void {
    if (this.pending.has(hashHex)) return;
    this.recent.delete(hashHex);
    this.recent.set(hashHex, signer);
    if (this.recent.size > this.recentMax) this.recent.delete(this.recent.keys().next().value as string);
  }
}
