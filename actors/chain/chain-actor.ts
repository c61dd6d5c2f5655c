/**
 * The executor-and-store concern: the only writer of the chain. It applies each
 * finalized block and persists it in one batch, then tells the indexer, the mempool and
 * the API what was committed (the API may hear of a BFT-decided block already once it
 * is applied: ackAtApply). A broken invariant halts the node; it never limps on.
 *
 * Software upgrades (decision 77): a block at or past a scheduled upgrade's height is not
 * executed by a node older than the version it names, whoever hands it over (consensus or
 * block sync); and once the head is the block before that height, the node is told to
 * stop (requireUpgrade) before the commit is answered, so consensus never takes part in
 * the upgrade's height.
 *
 * The reserve check (decision 85) is read after every block: USDC that entered the chain
 * less what left it must equal the vault total. A difference is not a halt (the books are
 * consistent block by block by the invariants; this compares them with the bridge's
 * ledger): it is logged at error when it appears or changes, and /status shows it.
 *
 * A full disk (decision 121) is not a restart: a block whose write failed for lack of
 * space stays applied in memory, unwritten (src/chain/chain.ts); the commit is refused
 * with StorageUnavailableError, the node's storage guard is told, and every later commit
 * is refused the same way. The guard's probe sends 'retryWrite' once space is back; the
 * block is written then and only then announced to the indexer, the mempool and the API
 * (so a solo producer's block is never answered before it is on disk).
 * State snapshots (decision 136): after each commit the node's snapshot store is told
 * (announce), and takes its view of the store there when a snapshot is due.
 * A write or an open that LevelDB answers with corruption is not retried: the node halts
 * with the one line saying so, and its store is moved aside and synced again from peers
 * (src/node/store-heal.ts, decision 124).
 *
 * Pruning (decision 132): with config.retainBlocks, each announced block kicks the
 * pruner (src/chain/prune.ts), which deletes old heights in the background, never past
 * the newest snapshot's height + 1 nor past what the indexer has yet to read.
 */
import { join } from 'node:path';
import { Chain } from '../../src/chain/chain';
import { Pruner } from '../../src/chain/prune';
import type { BlockResult } from '../../src/state/apply';
import { InvariantError } from '../../src/state/state';
import { isStoreCorruption } from '../../src/storage/corruption';
import { upgradeOf, upgradeStopAt } from '../../src/state/governance/upgrade';
import { reserveCheck } from '../../src/state/bridge/reads';
import type { NodeConfig } from '../../src/config/node-config';
import type { Indexer } from '../../src/indexer/indexer';
import type { NodeMetrics } from '../../src/metrics/node-metrics';
import type { AuditLog } from '../../src/audit/transitions';
import type { StorageGuard } from '../../src/storage/storage-guard';
import type { SnapshotStore } from '../../src/storage/snapshot-store';
import type { Logger } from '../../src/util/log';
import type { ActorBehavior, ActorRef } from '../actor';
import { StorageUnavailableError } from '../../src/storage/no-space';
import type { Block, Commit } from '../../src/codec/block';
import type { ApiMsg } from '../api/messages';
import type { IndexerMsg } from '../indexer/messages';
import type { MempoolMsg } from '../mempool/messages';
import type { ChainCommitMsg, ChainMsg } from './messages';

export interface ChainHolder {
  current?: Chain;
}

/** What the chain actor uses of the node (built by src/node/node.ts). */
export interface ChainDeps {
  /** Where the store lives and how it writes; genesis; pruning's retention and floor. */
  config: Pick<NodeConfig, 'dataDir' | 'genesis' | 'genesisHash' | 'syncWrites' | 'retainBlocks' | 'snapshotFloor'>;
  log: Logger;
  /** Where the open chain is kept: the node opens it before the actors start, and every reader reads it there. */
  holder: ChainHolder;
  /** The node's software version (a block at an upgrade's height it is too old for is refused). */
  version: string;
  /** The open index, for the height pruning must not pass; undefined while it (re)starts. */
  indexer: () => Pick<Indexer, 'indexedHeight'> | undefined;
  /** The node's state snapshots (open once the node started): told after each commit, and the pruning floor. */
  snapshots: () => Pick<SnapshotStore, 'intervalBlocks' | 'newestHeight' | 'afterCommit'> | undefined;
  /** Blocks counted for GET /metrics, and the audit log of committed blocks; absent in tests. */
  metrics?: Pick<NodeMetrics, 'blockCommitted'>;
  audit?: Pick<AuditLog, 'blockCommitted'>;
  /** Told when a block write fails for lack of space (decision 121); its probe retries. Absent in tests. */
  storage?: Pick<StorageGuard, 'fault'>;
  /** Stops the node: a broken invariant, a corrupted store. */
  halt(reason: string, err?: unknown): void;
  /** Stops the node for a software upgrade (decision 77). */
  requireUpgrade(message: string): void;
  /** Whom it tells of each committed block, and its own mailbox (the storage probe's retry). */
  actors: { indexer: ActorRef<IndexerMsg>; mempool: ActorRef<MempoolMsg>; api: ActorRef<ApiMsg>; chain: ActorRef<ChainMsg> };
}

export function chainBehavior(deps: ChainDeps): ActorBehavior<ChainMsg> {
  const { config, holder, log, actors } = deps;
  /** The reserve difference at the last block checked (logged when it changes). */
  let reserveDifference = 0n;
  /** The pruner of the open chain's store (remade when the chain is reopened); undefined on an archive node. */
  let pruner: Pruner | undefined;
  const prune = (chain: Chain) => {
    const retainBlocks = config.retainBlocks;
    if (retainBlocks === undefined) return;
    if (pruner?.store !== chain.store) pruner = new Pruner(chain.store, { retainBlocks, floor: pruneFloor, log });
    pruner.kick();
  };
  /** The highest height whose successors must stay: the newest snapshot's, and the indexer's (it reads blocks it has not indexed yet). */
  const pruneFloor = (): number | undefined => {
    const indexed = deps.indexer()?.indexedHeight() ?? 0; // an indexer restarting: prune nothing
    // A node that writes snapshots keeps every block after its newest one (none yet: every block), for a peer joining from it.
    const snaps = deps.snapshots();
    const snapshot = snaps !== undefined && snaps.intervalBlocks > 0 ? (snaps.newestHeight() ?? 0) : config.snapshotFloor?.();
    return snapshot === undefined ? indexed : Math.min(indexed, snapshot);
  };
  const checkReserves = (chain: Chain) => {
    const r = reserveCheck(chain.state);
    if (r.difference === reserveDifference) return;
    const fields = { height: chain.height, difference: String(r.difference), vault: String(r.vault), expectedVault: String(r.expectedVault) };
    if (r.difference === 0n) log.info(fields, 'reserve check: the vault total equals the USDC issued again');
    else log.error(fields, 'reserve check: the vault total differs from the USDC issued (genesis + faucet + credited deposits − paid withdrawals)');
    reserveDifference = r.difference;
  };
  return {
    async start() {
      if (holder.current) return; // opened by the node before the actors start, or by a previous incarnation
      try {
        holder.current = await Chain.open({ dataDir: join(config.dataDir, 'chain'), genesis: config.genesis, genesisHash: config.genesisHash, syncWrites: config.syncWrites, onCorruption: (err) => deps.halt('the chain store is corrupted', err) });
      } catch (err) {
        // A store found corrupted while the node runs is not reopened again and again: the node stops and heals (src/node/store-heal.ts).
        if (isStoreCorruption(err)) deps.halt('the chain store is corrupted', err);
        throw err;
      }
    },
    async handle(msg) {
      if (msg.type === 'retryWrite') return retryWrite(msg.reply);
      return commit(msg);
    },
    async stop() {
      // The node closes the store after every actor stopped (see Node.stop): a pruning run ends first.
      await pruner?.stop();
      pruner = undefined;
    },
  };

  /** Once the head is the block before a scheduled upgrade this node is too old for: stop, before the commit is answered. */
  function stopBeforeUpgrade(chain: Chain): void {
    const next = upgradeStopAt(upgradeOf(chain.state), deps.version, chain.height + 1);
    if (next) deps.requireUpgrade(next);
  }

  /** After a block is on disk and answered: the reserve check, metrics, audit, and the news to the other actors. */
  function announce(chain: Chain, block: Block, commit: Commit, result: BlockResult): void {
    checkReserves(chain);
    const { metrics, audit } = deps;
    metrics?.blockCommitted(block, commit, result);
    try {
      audit?.blockCommitted({ height: block.header.height, timeMs: block.header.timestampMs, receipts: result.receipts, blockEvents: result.blockEvents }, chain.state);
    } catch (err) {
      // The audit log is a view: a fault in it must not fail the block (committed already) nor restart this actor.
      log.error({ err, height: block.header.height }, 'audit log could not read the committed block');
    }
    // Synchronously after the block's write, before the next block's: the snapshot's view is this height's state.
    deps.snapshots()?.afterCommit(chain.store, block.header.height);
    const event = { type: 'committed' as const, block, result };
    actors.indexer.send(event);
    actors.mempool.send(event);
    actors.api.send(event);
    prune(chain);
  }

  /** The storage probe's retry: writes the block kept unwritten, then announces it. */
  async function retryWrite(reply: { resolve(v: void): void; reject(e: unknown): void }): Promise<void> {
    const chain = holder.current;
    if (!chain) return reply.resolve();
    let written: Awaited<ReturnType<Chain['retryUnwritten']>>;
    try {
      written = await chain.retryUnwritten();
    } catch (err) {
      return reply.reject(err);
    }
    if (written) {
      log.info({ height: written.block.header.height }, 'storage: the block kept in memory is on disk now');
      stopBeforeUpgrade(chain);
      announce(chain, written.block, written.commit, written.result);
    }
    reply.resolve();
  }

  async function commit(msg: ChainCommitMsg): Promise<void> {
    const chain = holder.current!;
    const refused = upgradeStopAt(upgradeOf(chain.state), deps.version, msg.block.header.height);
    if (refused) {
      deps.requireUpgrade(refused);
      msg.reply.reject(new Error(refused));
      return;
    }
    let result: BlockResult;
    try {
      const applied = msg.ackAtApply ? (r: BlockResult) => actors.api.send({ type: 'applied', block: msg.block, result: r }) : undefined;
      result = await chain.commit(msg.block, msg.commit, msg.verified, msg.decoded, applied);
    } catch (err) {
      msg.reply.reject(err);
      if (err instanceof InvariantError) {
        deps.halt(err.message, err);
        return;
      }
      if (isStoreCorruption(err)) {
        // LevelDB found a damaged block (a read, or a compaction whose error now fails every write): no retry mends that.
        holder.current = undefined;
        await chain.close().catch(() => undefined);
        deps.halt('the chain store is corrupted', err);
        return;
      }
      // The disk is full: the block stays in memory, nothing restarts; the probe retries.
      const guard = deps.storage;
      if (err instanceof StorageUnavailableError && guard) {
        const retry = () => actors.chain.ask<void>((reply) => ({ type: 'retryWrite', reply }));
        if (guard.fault('chain', err.folder, err, retry)) return;
      }
      // Storage failed after the state was applied in memory: reload from disk on restart.
      log.error(
        { err, height: msg.block.header.height, dataDir: config.dataDir },
        'storage: writing the block failed (LevelDB); the chain actor restarts and reloads the chain from disk. If this repeats: check free disk space, the data folder\'s permissions and the disk itself',
      );
      holder.current = undefined;
      await chain.close().catch(() => undefined);
      throw err;
    }
    stopBeforeUpgrade(chain);
    msg.reply.resolve(result);
    announce(chain, msg.block, msg.commit, result);
  }
}
