/**
 * applyBlock: the deterministic state transition. No I/O, no clock, no randomness:
 * integers are bigint, time is the block's timestamp, iteration is sorted. Given the
 * same state and block, every node produces the same receipts, changes and root.
 *
 * Per transaction: decode → verify signature (or take it from the verified cache the
 * mempool filled) → consume the nonce (included operations consume it whatever the
 * outcome) → apply under a checkpoint; a TxError rolls back everything the operation
 * wrote, and the receipt records the failure. Any other exception is a bug and
 * propagates: the node halts rather than commit a state it cannot explain.
 */
import { blockHash, merkleRoot, type Block } from '../codec/block';
import { decodeTx, txKindName, type Tx } from '../codec/tx';
import { bytesToHex, equalBytes, type Address } from '../util/bytes';
import type { ChainEvent, ExecContext, Receipt } from './context';
import { TxError } from './errors';
import { useNonce } from './accounts/nonces';
import { opFor } from './ops';
import { endBlockBridge } from './bridge/votes';
import { endBlockOracle } from './oracle';
import { endBlockScheduledCancels } from './timers/scheduled-cancels';
import { endBlockTwaps } from './timers/twap';
import { endBlockPerps } from './perps/engine';
import { beginBlockDowntime } from './validators/downtime';
import { endBlockValidators } from './validators/epoch';
import { recordSigningSet } from './validators/signing-sets';
import { InvariantError, type State, type StateChange } from './state';
import { activeValidators } from './validators/set';

export interface BlockResult {
  receipts: Receipt[];
  changes: StateChange[];
  stateRoot: Uint8Array;
  blockHash: Uint8Array;
  /**
   * Events of the block's own steps, in no transaction, in execution order: downtime
   * jailing at its start, the timers (scheduled cancels, TWAP slices) and the
   * end-of-block perp and bridge steps: not in any transaction's receipt. Stored with the
   * block (ChainStore.commitBlock, Bucket.BlockEvents) and indexed after its receipts.
   */
  blockEvents: ChainEvent[];
}

/**
 * Signers already recovered, keyed by tx hash hex: saves a recovery per tx. The node's
 * SignerCache (./signer-cache.ts) is told of each signer execution recovers itself
 * (`recovered`), so a late gossiped copy is not recovered again; a plain Map of known
 * signers serves too (tests, benches).
 */
export interface VerifiedCache {
  /** `kind`: the transaction kind's name, for the cache's counters. */
  get(hashHex: string, kind?: string): Address | undefined;
  recovered?(hashHex: string, signer: Address, kind?: string): void;
}

export function applyBlock(state: State, block: Block, verified?: VerifiedCache, decoded?: Tx[]): BlockResult {
  const params = state.params();
  const head = state.head();
  const h = block.header;
  // Consensus has already checked these; a mismatch here means this node diverged.
  if (h.chainId !== params.chainId) throw new InvariantError(`block chain id ${h.chainId}, state ${params.chainId}`);
  if (h.height !== head.height + 1) throw new InvariantError(`block height ${h.height} does not follow ${head.height}`);
  if (h.timestampMs <= head.timestampMs) throw new InvariantError(`block time ${h.timestampMs} not after ${head.timestampMs}`);
  const root = state.root();
  if (!equalBytes(h.parentStateRoot, root)) {
    throw new InvariantError(
      `block ${h.height} expects parent state root ${bytesToHex(h.parentStateRoot)}, this node has ${bytesToHex(root)}`,
    );
  }
  if (h.txCount !== block.txs.length) throw new InvariantError('header tx count differs from body');

  // The caller's decoded transactions (the proposer's pool entries, or what a replica
  // decoded validating the proposal) are reused when they hold the same bytes: decoding
  // is deterministic, so the same bytes decode to the same transaction.
  const txs = block.txs.map((bytes, i) => {
    const d = decoded?.[i];
    return d !== undefined && (d.bytes === bytes || equalBytes(d.bytes, bytes)) ? d : decodeTx(bytes, params.consensus.maxTxBytes);
  });
  if (!equalBytes(merkleRoot(txs.map((t) => t.hash)), h.txRoot)) throw new InvariantError(`block ${h.height} tx root mismatch`);

  // Start of block: the parent's commit counts who was to sign it and did not (src/state/validators/downtime.ts).
  const blockEvents: ChainEvent[] = [];
  beginBlockDowntime(state, params, h.height, block.lastCommit, (e) => blockEvents.push(e));

  const setAtStart = activeValidators(state);
  const receipts: Receipt[] = [];
  for (let i = 0; i < txs.length; i++) receipts.push(applyTx(state, params, h, txs[i], i, verified));
  // End of block, after the transactions: the oracle medians of this block's time (src/state/oracle.ts).
  endBlockOracle(state, h.timestampMs);
  // Then the timers, at this block's time and prices: due scheduled cancels in (time,
  // trader) order, then due TWAP slices in (time, id) order (decisions 90–91).
  const timerCtx = { state, params, header: h, emit: (e: ChainEvent) => blockEvents.push(e) };
  endBlockScheduledCancels(timerCtx);
  endBlockTwaps(timerCtx);
  // Then the perp steps, which read this block's prices: funding (hourly), TP/SL (each
  // whole second), liquidation and ADL. They cannot be refused: an exception is a bug.
  endBlockPerps({ state, params, header: h, emit: (e) => blockEvents.push(e) }, head.timestampMs);
  // Then the validator set: at an epoch boundary, unbonding ends and the set is ranked (src/state/validators/epoch.ts).
  endBlockValidators(state, params, h.height);
  // Then the bridge: deposits whose quorum is met are credited in id order, and when the
  // set changed, pending withdrawals are judged against the new set (src/state/bridge/votes.ts).
  endBlockBridge({ state, params, nowMs: h.timestampMs, emit: (e) => blockEvents.push(e) }, h.height, activeValidators(state) !== setAtStart);
  // Last, the set that signs the next height is recorded if its members changed (src/state/validators/signing-sets.ts).
  recordSigningSet(state, params, h.height);

  const hash = blockHash(h);
  state.meta.set('head', { height: h.height, timestampMs: h.timestampMs, blockHash: bytesToHex(hash) });
  state.checkInvariants();
  const { changes, root: stateRoot } = state.flush();
  return { receipts, changes, stateRoot, blockHash: hash, blockEvents };
}

/** A refused transaction's nonce: consumed if still unused; a used one stays refused for what it is. */
function consumeIfUnused(state: State, signer: Address, nonce: bigint, nowMs: number): void {
  try {
    useNonce(state, signer, nonce, nowMs);
  } catch (err) {
    if (!(err instanceof TxError)) throw err;
  }
}

function applyTx(
  state: State,
  params: ExecContext['params'],
  header: Block['header'],
  tx: Tx,
  index: number,
  verified?: VerifiedCache,
): Receipt {
  const receipt: Receipt = { txHash: bytesToHex(tx.hash), index, kind: txKindName(tx.kind), signer: null, status: 'ok', events: [] };
  const fail = (err: TxError): Receipt => ({ ...receipt, status: 'failed', code: err.code, message: err.message, errorStatus: err.status, events: [] });
  const op = opFor(tx.kind);
  let signer: Address;
  try {
    if (tx.chainId !== params.chainId) throw new TxError(400, 'WRONG_CHAIN', `transaction chain id ${tx.chainId}, chain ${params.chainId}`);
    op.shape?.(tx.body, params);
    const known = verified?.get(receipt.txHash, receipt.kind);
    if (known !== undefined) signer = known;
    else {
      signer = op.verify(tx, params.chainId);
      verified?.recovered?.(receipt.txHash, signer, receipt.kind);
    }
    receipt.signer = signer;
    // Who may act (403) before the nonce (409): decision 102. A refused transaction is
    // still included, so it consumes its nonce when unused, as every included one does.
    const nonce = op.nonce?.(tx.body);
    try {
      op.check?.(tx.body, params, signer);
      op.authorize?.(state, tx.body, signer, header.timestampMs);
    } catch (err) {
      if (nonce !== undefined && err instanceof TxError) consumeIfUnused(state, signer, nonce, header.timestampMs);
      throw err;
    }
    if (nonce !== undefined) useNonce(state, signer, nonce, header.timestampMs);
  } catch (err) {
    if (err instanceof TxError) return fail(err);
    throw err;
  }
  const checkpoint = state.journal.checkpoint();
  const events: ChainEvent[] = [];
  try {
    op.apply({ state, params, header, emit: (e) => events.push(e) }, tx, signer);
  } catch (err) {
    if (!(err instanceof TxError)) throw err;
    state.journal.rollback(checkpoint);
    return fail(err);
  }
  receipt.events = events;
  return receipt;
}
