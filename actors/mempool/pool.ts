/**
 * The mempool's data structure: transactions checked once at the door (signature,
 * chain id, stateless limits, nonce not yet used on chain nor pending), deduplicated
 * by hash, bounded in count and bytes, handed to the proposer in arrival order.
 */
import { decodeTx, TxKind, type Tx } from '../../src/codec/tx';
import type { EthTxBody } from '../../src/codec/txs/eth';
import { parseEthTransfer } from '../../src/state/eth-tx';
import { TxError } from '../../src/state/errors';
import { nonceRefusal } from '../../src/state/accounts/nonces';
import { opFor } from '../../src/state/ops';
import { requireNotExpired } from '../../src/state/action-expiry';
import { txKindName } from '../../src/codec/tx';
import type { State } from '../../src/state/state';
import { bytesToHex, type Address } from '../../src/util/bytes';
import { CodecError } from '../../src/codec/binary';
import type { PoolEntry } from './messages';
import { SignerCache } from '../../src/state/signer-cache';

/**
 * The refusal of a transaction already pending (the same bytes again: the same hash).
 * A signed operation with a nonce answers 409 NONCE_USED, as any other reuse of its
 * nonce does, whatever the timing (issue 24; decision 101): the client's retry logic
 * sees one code for "this nonce is spent or spending". A kind without an operation nonce
 * (the faucet, node-signed kinds) answers 409 DUPLICATE_TX. Either way it is a duplicate
 * (`duplicate`), which gossip tallies apart from a refusal.
 */
export class PendingDuplicate extends TxError {
  readonly duplicate = true;
}

export function pendingDuplicate(tx: Tx, hashHex: string, signer?: Address): PendingDuplicate {
  const op = opFor(tx.kind);
  if (op.nonce) {
    const of = signer ? ` of ${signer}` : '';
    return new PendingDuplicate(409, 'NONCE_USED', `nonce ${op.nonce(tx.body)}${of} was already used or is pending (transaction ${hashHex} is pending)`);
  }
  return new PendingDuplicate(409, 'DUPLICATE_TX', `transaction ${hashHex} is already pending`);
}

export interface PoolLimits {
  maxTxs: number;
  maxBytes: number;
  maxTxBytes: number;
}

export class TxPool {
  private readonly byHash = new Map<string, PoolEntry>();
  /** signer:nonce of pending transactions: a second one with the same nonce is refused. */
  private readonly pendingNonces = new Set<string>();
  /**
   * Ethereum transfers pending per sender: how many, and the highest nonce among them. The
   * next acceptable nonce is one past that highest, or the account's txCount when that is
   * further. (Not txCount + count: between a block's commit, which advances txCount, and
   * the pool's removal of its transactions, that sum counted the committed ones twice and
   * refused the sender's next transfer, sent back to back, as NONCE_TOO_LOW.)
   */
  private readonly ethPending = new Map<Address, { count: number; maxNonce: number }>();
  private bytes = 0;
  /**
   * The node's recovered signers (src/state/signer-cache.ts): filled at the door and here,
   * handed to execution so that no transaction is recovered twice on this node.
   */
  readonly signers: SignerCache;
  rejected = 0;

  constructor(private readonly limits: PoolLimits, private readonly state: () => State, signers?: SignerCache) {
    this.signers = signers ?? new SignerCache();
  }

  get size(): number {
    return this.byHash.size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  has(hashHex: string): boolean {
    return this.byHash.has(hashHex);
  }

  /** Checks and admits an encoded transaction; throws TxError (with the envelope status) if refused. */
  addBytes(bytes: Uint8Array): PoolEntry {
    let tx: Tx;
    try {
      tx = decodeTx(bytes, this.limits.maxTxBytes);
    } catch (err) {
      this.rejected++;
      if (err instanceof CodecError) throw new TxError(400, err.code === 'TOO_LARGE' ? 'PAYLOAD_TOO_LARGE' : 'MALFORMED_TX', `tx: ${err.message}`);
      throw err;
    }
    return this.add(tx);
  }

  /** `preverified`: the signer, when this node's own API (the door) recovered it already: counted here as that recovery. */
  add(tx: Tx, preverified?: Address): PoolEntry {
    const hashHex = bytesToHex(tx.hash);
    const pending = this.byHash.get(hashHex);
    if (pending) throw pendingDuplicate(tx, hashHex, pending.signer);
    const state = this.state();
    const params = state.params();
    try {
      if (tx.chainId !== params.chainId) throw new TxError(400, 'WRONG_CHAIN', `tx: chain id ${tx.chainId}, this chain is ${params.chainId}`);
      if (this.byHash.size >= this.limits.maxTxs || this.bytes + tx.bytes.length > this.limits.maxBytes) {
        throw new TxError(503, 'MEMPOOL_FULL', 'the mempool is full; retry shortly');
      }
      const op = opFor(tx.kind);
      op.shape?.(tx.body, params);
      op.bounds?.(state, tx.body);
      const signer = this.signerOf(tx, hashHex, preverified, params.chainId);
      op.check?.(tx.body, params, signer);
      op.authorize?.(state, tx.body, signer, state.head().timestampMs);
      op.admit?.(state, tx.body, signer);
      // An action already past its expiresAfter at the head's time can only fail in a
      // block (block times only grow): refused here, 422 ACTION_EXPIRED (decision 90).
      if (op.options) requireNotExpired(op.options(tx.body), state.head().timestampMs, txKindName(tx.kind));
      let nonceKey: string | undefined;
      if (op.nonce) {
        const nonce = op.nonce(tx.body);
        nonceKey = `${signer}:${nonce}`;
        // The door's clock stands for the next block's time (a proposer stamps its block with
        // its own clock), not the head's: a fresh chain's head is its genesis time.
        const refusal = nonceRefusal(state, signer, nonce, Date.now());
        if (refusal) throw refusal;
        if (this.pendingNonces.has(nonceKey)) throw new TxError(409, 'NONCE_USED', `nonce ${nonce} of ${signer} is pending`);
        this.pendingNonces.add(nonceKey);
      }
      let ethSenderKey: Address | undefined;
      if (tx.kind === TxKind.EthTx) {
        const nonce = this.admitEth(state, tx as Tx<EthTxBody>, signer, params.chainId, params.fees.gasPriceWei);
        ethSenderKey = signer;
        const p = this.ethPending.get(signer);
        this.ethPending.set(signer, { count: (p?.count ?? 0) + 1, maxNonce: Math.max(p?.maxNonce ?? nonce, nonce) });
      }
      const entry: PoolEntry = { tx, hashHex, signer, nonceKey, ethSender: ethSenderKey };
      this.byHash.set(hashHex, entry);
      this.signers.hold(hashHex, signer);
      this.bytes += tx.bytes.length;
      return entry;
    } catch (err) {
      this.rejected++;
      throw err;
    }
  }

  /** The door's signer, else one this node recovered before, else a recovery (each kept and counted in `signers`). */
  private signerOf(tx: Tx, hashHex: string, preverified: Address | undefined, chainId: number): Address {
    const kind = txKindName(tx.kind);
    if (preverified !== undefined) {
      this.signers.recovered(hashHex, preverified, kind);
      return preverified;
    }
    const known = this.signers.get(hashHex, kind);
    if (known !== undefined) return known;
    const signer = opFor(tx.kind).verify(tx, chainId);
    this.signers.recovered(hashHex, signer, kind);
    return signer;
  }

  /** Ethereum's rule: the nonce continues the sender's sequence; the balance covers the upfront cost. Returns the nonce. */
  private admitEth(state: State, tx: Tx<EthTxBody>, sender: Address, chainId: number, gasPriceWei: bigint): number {
    const t = parseEthTransfer(tx.body.raw, chainId);
    const account = state.account(sender);
    const pending = this.ethPending.get(sender);
    const expected = pending ? Math.max(account.txCount, pending.maxNonce + 1) : account.txCount;
    if (t.nonce !== expected) {
      throw new TxError(409, t.nonce < expected ? 'NONCE_TOO_LOW' : 'NONCE_TOO_HIGH', `nonce ${t.nonce}: the next nonce of ${sender} is ${expected}`);
    }
    if (account.nativeWei < t.value + t.gas * gasPriceWei) {
      throw new TxError(422, 'INSUFFICIENT_FUNDS', `balance ${account.nativeWei} wei is below value + gas × price = ${t.value + t.gas * gasPriceWei}`);
    }
    return t.nonce;
  }

  /** Up to maxTxs transactions / maxBytes, oldest first; they stay pending until removed. */
  peekBatch(maxTxs: number, maxBytes: number): { txs: Uint8Array[]; decoded: Tx[] } {
    const txs: Uint8Array[] = [];
    const decoded: Tx[] = [];
    let bytes = 0;
    for (const e of this.byHash.values()) {
      if (txs.length >= maxTxs || bytes + e.tx.bytes.length > maxBytes) break;
      txs.push(e.tx.bytes);
      decoded.push(e.tx);
      bytes += e.tx.bytes.length;
    }
    return { txs, decoded };
  }

  /** Drops transactions that a committed block included. */
  removeCommitted(hashes: Iterable<string>): void {
    for (const h of hashes) {
      const e = this.byHash.get(h);
      this.signers.release(h);
      if (!e) continue;
      this.byHash.delete(h);
      this.bytes -= e.tx.bytes.length;
      if (e.nonceKey) this.pendingNonces.delete(e.nonceKey);
      if (e.ethSender) {
        const p = this.ethPending.get(e.ethSender);
        if (p && p.count > 1) p.count--;
        else this.ethPending.delete(e.ethSender);
      }
    }
  }
}
