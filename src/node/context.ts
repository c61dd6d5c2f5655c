/**
 * What the actors of one node share: configuration, the logger, and the handles they
 * use to message each other. Actors never call into each other's internals; they
 * send to mailboxes. The executed chain is readable by all (reads only) through
 * `chain()`; only the chain actor writes it.
 */
import type { SupervisedActor } from '../../actors/actor';
import type { ChainMsg } from '../../actors/chain/messages';
import type { MempoolMsg } from '../../actors/mempool/messages';
import type { ApiMsg } from '../../actors/api/messages';
import type { IndexerMsg } from '../../actors/indexer/messages';
import type { P2PInfo, P2PMsg, P2PPeer } from '../../actors/p2p/messages';
import type { ConsensusMsg, ConsensusInfo } from '../../actors/consensus/messages';
import type { BridgeStats } from '../../actors/bridge/messages';
import type { Indexer } from '../indexer/indexer';
import type { Chain } from '../chain/chain';
import type { Logger } from '../util/log';
import type { NodeConfig } from '../config/node-config';
import type { NodeMetrics } from '../metrics/node-metrics';
import type { AuditLog } from '../audit/transitions';
import type { SignatureCounts } from '../state/signer-cache';
import type { StorageGuard } from '../storage/storage-guard';
import type { SnapshotStore } from '../storage/snapshot-store';

export interface NodeContext {
  config: NodeConfig;
  log: Logger;
  chain(): Chain;
  actors: {
    chain: SupervisedActor<ChainMsg>;
    indexer: SupervisedActor<IndexerMsg>;
    mempool: SupervisedActor<MempoolMsg>;
    api: SupervisedActor<ApiMsg>;
    /** Present on a node of a multi-validator network. */
    p2p?: SupervisedActor<P2PMsg>;
    /** BFT consensus, on every node of a multi-validator network (it signs where its key is in the set). */
    consensus?: SupervisedActor<ConsensusMsg>;
  };
  /** The p2p transport's identity, peers and counters (undefined without p2p). */
  p2pInfo?(): P2PInfo | undefined;
  /** Connected peers with their announced listen addresses and last probed heads (undefined without p2p). */
  p2pPeers?(): Promise<P2PPeer[] | undefined>;
  /** BFT consensus's view (undefined on a solo node or one without p2p). */
  consensusInfo?(): ConsensusInfo | undefined;
  /** The bridge actor's counters (undefined on a node that runs none). */
  bridgeStats?(): BridgeStats | undefined;
  /** The open index (trades, candles, fills, orders history), undefined while (re)starting. */
  indexer(): Indexer | undefined;
  /** Each actor's lifecycle state and mailbox counters. */
  actorStats(): Record<string, unknown>;
  /** Transaction signatures recovered and reused (src/state/signer-cache.ts; GET /status `signatures`); partial contexts of tests none. */
  signatureStats?(): SignatureCounts;
  /** The node's own Prometheus registry (src/metrics/node-metrics.ts; GET /metrics); a Node always has one, partial contexts of tests none. */
  readonly metrics?: NodeMetrics;
  /** The node's audit log (src/audit/transitions.ts; GET /v1/audit/transitions, the `audit` topic); partial contexts of tests none. */
  readonly audit?: AuditLog;
  /**
   * The node's disk as its writers found it (src/storage/storage-guard.ts, decision 121): a
   * writer that failed for lack of space reports here, the API refuses writes while it is
   * `full`, and its probe retries; a Node always has one, partial contexts of tests none.
   */
  readonly storage?: StorageGuard;
  /**
   * The node's state snapshots (src/storage/snapshot-store.ts, decision 136), open once
   * the node started; its newestHeight() is the floor below which pruning may go.
   */
  snapshots?: SnapshotStore;
  /** Stops the node because continuing would be unsafe (broken invariant, divergence). */
  halt(reason: string, err?: unknown): void;
  /** The node's software version (src/util/version.ts unless the config names another). */
  readonly version: string;
  /**
   * Set once a scheduled software upgrade names a newer version than this node's for the
   * next height (src/state/upgrade.ts, decision 77): the message naming the version to
   * install. From then on the node proposes, votes and executes nothing more; it stops.
   */
  readonly upgradeRequired: string | undefined;
  /** Stops the node for a software upgrade: sets upgradeRequired first, synchronously. */
  requireUpgrade(message: string): void;
}
