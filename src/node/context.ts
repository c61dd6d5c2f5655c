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
import type { BridgeDeploymentFile } from '../bridge/evm';
import type { Indexer } from '../indexer/indexer';
import type { IndexRetention } from '../indexer/retention';
import type { Chain } from '../chain/chain';
import type { Genesis } from '../genesis/types';
import type { Logger } from '../util/log';
import type { NodeMetrics } from './metrics';
import type { AuditLog } from '../audit/transitions';
import type { RateLimitConfig } from '../api/rate-limit';
import type { SignatureCounts } from '../state/signer-cache';
import type { StorageGuard } from './storage-guard';
import type { SnapshotStore } from '../storage/snapshot-store';
import type { StateSyncProgress } from './state-sync-join';

export interface NodeConfig {
  dataDir: string;
  /** The software version the node runs as (default: src/util/version.ts's; tests of upgrades set it). */
  version?: string;
  genesis: Genesis;
  genesisHash: Uint8Array;
  /** This node's validator ECDSA key (32 bytes); absent for a non-validator. */
  validatorKey?: Uint8Array;
  /** This validator's VRF secret key (a 32-byte Ed25519 seed: the devnet keys file's or the key file's): it proves the seed of each block it proposes. Needed with validatorKey to produce blocks. */
  vrfKey?: Uint8Array;
  /** Where the REST/JSON-RPC address listens; null for none. */
  api: { host: string; port: number } | null;
  /** The session-and-agent API port (contract [C-limits-ports]: 9001, loopback by default); absent or null for none. Needs `api`. */
  sessionApi?: { host: string; port: number } | null;
  /** The API's rate limits (src/api/rate-limit.ts; decision 98): absent, RATE_LIMIT_DEFAULTS; RATE_LIMIT_OFF for none. */
  rateLimit?: RateLimitConfig;
  blockTimeMs: number;
  /** fsync each block (default true): a committed block survives power loss, not only a crash. */
  syncWrites: boolean;
  /**
   * Pruning (issue 27, decision 132): keep the newest this many blocks (their commits,
   * receipts, events, tx index); undefined keeps every block (`--archive`). The CLI
   * resolves it from --retain-blocks, --archive and genesis.storage.retainBlocks.
   */
  retainBlocks?: number;
  /**
   * The height of the newest state snapshot a peer may still need (the snapshot writer's):
   * pruning keeps every block from its height + 1 on. Absent, or undefined: no limit.
   */
  snapshotFloor?: () => number | undefined;
  /** The index's own retention of trades, fills, candles and order history (src/indexer/retention.ts); absent: keep all. */
  indexRetention?: IndexRetention;
  /** Mempool bounds. */
  mempool: { maxTxs: number; maxBytes: number };
  /** Time an API call waits for its transaction to become final. */
  finalityTimeoutMs: number;
  /**
   * libp2p: where to listen and whom to keep connected to (multiaddrs with /p2p/<id>). Needed with more than one validator.
   * `peerKey`: the peer identity, a libp2p private key in protobuf encoding (a key file's); without it the identity is
   * the validator key (the devnet), or a fresh key on a node without one.
   */
  p2p?: { listen: string[]; bootstrap: string[]; peerKey?: Uint8Array };
  /**
   * The bridge deployment file's contents (`--bridge FILE`, read by readDeploymentFile;
   * decision 84): checked against genesis.bridge at construction. On a validator it runs
   * the bridge actor (watcher and relayer); on any node it names the external RPC in
   * GET /v1/network and lets /reserves read the bridge's balance. Absent: none of these.
   */
  bridge?: BridgeDeploymentFile;
  /** The bridge actor's poll interval and relayer takeover step (tests shorten them); defaults 500 ms and 15 000 ms. */
  bridgeTiming?: { pollMs?: number; takeoverMs?: number };
  /** State snapshots (decision 136): overrides of the genesis `storage` section (`--snapshot-interval`, `--snapshot-keep`; interval 0: none). */
  snapshots?: { intervalBlocks?: number; keep?: number };
  /** How often the storage probe retries a write that failed for lack of space (default STORAGE_PROBE_MS, 2 s; decision 121). */
  storageProbeMs?: number;
  /**
   * State sync (decision 140; src/node/state-sync-join.ts). Absent: an empty store joins
   * by state sync when its peers offer snapshots. `forced` (`--state-sync`): state sync
   * or fail; `off` (`--no-state-sync`): block sync from genesis. `trust`: the operator's
   * trusted height and header hash (`--trust-height`, `--trust-hash`; default genesis).
   */
  stateSync?: { forced?: boolean; off?: boolean; trust?: { height: number; hash: Uint8Array }; onProgress?: (p: StateSyncProgress) => void };
  /** Devnet-only fault injection, for tests of the network's defences. */
  faults?: {
    /** Sign and gossip a second, conflicting vote after each vote, with this key (double signing). */
    equivocateWithKey?: Uint8Array;
    /** Answer block-sync requests with forged blocks (their commits no longer match). */
    forgeSyncBlocks?: boolean;
    /** Never answer block-sync requests (the asker times out). */
    stallSync?: boolean;
    /** After each vote, send every validator a status message claiming a height 1,000 ahead. */
    claimAhead?: boolean;
  };
}

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
  /** The node's own Prometheus registry (src/node/metrics.ts; GET /metrics); a Node always has one, partial contexts of tests none. */
  readonly metrics?: NodeMetrics;
  /** The node's audit log (src/audit/transitions.ts; GET /v1/audit/transitions, the `audit` topic); partial contexts of tests none. */
  readonly audit?: AuditLog;
  /**
   * The node's disk as its writers found it (src/node/storage-guard.ts, decision 121): a
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
   * next height (src/state/governance/upgrade.ts, decision 77): the message naming the version to
   * install. From then on the node proposes, votes and executes nothing more; it stops.
   */
  readonly upgradeRequired: string | undefined;
  /** Stops the node for a software upgrade: sets upgradeRequired first, synchronously. */
  requireUpgrade(message: string): void;
}
