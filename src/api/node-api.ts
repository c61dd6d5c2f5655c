/**
 * What a route may see of the node: the chain's identity and parameters, the executed
 * chain at its head (read only), the index, submission, and what /status shows. This is
 * the whole of the routes' (and JSON-RPC's) dependency on the node: nothing here names
 * an actor, a mailbox or the node, so the same routes serve a validator, a
 * node of a BFT network that follows the chain (outside the set, or without a key), the
 * solo producer and a node without a consensus actor (its `status().consensus` is null). The API actor (actors/api/api-actor.ts) builds it from
 * its dependency bundle and registers the routes with it; fastify's habit: a plugin imports nothing
 * from the app that registers it.
 */
import type { Block } from '../codec/block';
import type { Tx } from '../codec/tx';
import type { Genesis } from '../genesis/types';
import type { Indexer } from '../indexer/indexer';
import type { Receipt } from '../state/context';
import type { State } from '../state/state';
import type { ValidatorStatus } from '../state/validators/types';
import type { Address } from '../util/bytes';
import type { FinalTx } from './final';
import type { AuditLog } from '../audit/transitions';
import type { SignatureCounts } from '../state/signer-cache';

/** The committed blocks, receipts and transaction locations, as stored. */
export interface BlockReader {
  getBlock(height: number): Promise<Block | undefined>;
  getStateRoot(height: number): Promise<Uint8Array | undefined>;
  getReceipts(height: number): Promise<Receipt[] | undefined>;
  getTxLocation(txHash: string): Promise<{ height: number; index: number } | undefined>;
  getHeightByHash(hash: Uint8Array): Promise<number | undefined>;
  /** The lowest height whose block is kept (pruning; decision 132); absent: 1. */
  base?(): Promise<number>;
}

/** The executed chain at its head. */
export interface ChainReader {
  readonly chainId: number;
  readonly genesisHash: Uint8Array;
  /** Height of the last block applied (its requests may be answered before it is on disk: `stored()`). */
  readonly height: number;
  readonly lastBlockHash: Uint8Array;
  readonly lastTimestampMs: number;
  /** State root after the head block. */
  readonly stateRoot: Uint8Array;
  /** The executed state at the head. Routes only read it: execution (the chain actor) is its one writer. */
  readonly state: State;
  readonly store: BlockReader;
  /** Resolves once every applied block is on disk too. */
  stored(): Promise<void>;
}

/** The read side of the index (trades, fills, candles, orders history, leaderboard, stats, agents). */
export type IndexReader = Pick<
  Indexer,
  'indexedHeight' | 'trades' | 'fills' | 'candles' | 'orders' | 'tradesPage' | 'fillsPage' | 'candlesPage' | 'ordersPage' | 'order' | 'orderCount' | 'leaderboard' | 'stats' | 'agents' | 'agent'
> &
  /** What its retention deleted (decision 134): absent on an index that keeps all. */
  Partial<Pick<Indexer, 'lowestKept' | 'indexedFrom'>>;

/** Heights of a block sync under way (eth_syncing). */
export interface SyncProgress {
  startingBlock: number;
  currentBlock: number;
  highestBlock: number;
}

/** What /status shows beside the head: sync, the p2p transport, consensus and each actor's counters. */
export interface NodeStatus {
  /** Catching up by block sync (false on a node without BFT consensus). */
  syncing: boolean;
  /**
   * Block sync's progress: the head, the highest head peers have shown (the head itself
   * on a node without BFT consensus), and the blocks per second of the last sync that
   * applied any (0 before one).
   */
  sync: { height: number; target: number; blocksPerSecond: number };
  /** The node's own key and its lifecycle state in the validator records (`observer`: no record); null on a node without a key. */
  validator: { address: Address; status: ValidatorStatus | 'observer' } | null;
  /** The p2p transport's identity, peers, listen addresses and counters; null without p2p. */
  p2p: { peerId: string; peers: string[]; listen: string[]; stats: unknown } | null;
  /** Consensus's view (height, round, step, sync and evidence counters); null on a solo or follower node. */
  consensus: object | null;
  /** Each running part's lifecycle state and mailbox counters, by name. */
  actors: Record<string, unknown>;
  /** Transaction signatures this node recovered, and recovered signers it reused instead (issue 25: one recovery per transaction). */
  signatures: SignatureCounts;
}

/**
 * The node's disk as /health and /status show it (decision 121): `full` while a write
 * failed for lack of space and is not yet retried with success; the folder that failed
 * (the data folder when ok) and its bytes free (statfs; null when unreadable).
 */
export interface StorageStatus {
  storage: 'ok' | 'full';
  folder: string;
  freeBytes: number | null;
  /** The writers waiting for space (`chain`, `privval`, `index`), in the order they failed. */
  parts: string[];
  /** While full: the Retry-After (seconds) every write is answered with. */
  retryAfterSec: number;
}

export interface NodeApi {
  readonly genesis: Genesis;
  readonly genesisHash: Uint8Array;
  /** The node's software version (GET /status; decision 77). */
  readonly version: string;
  /** The target interval between blocks. */
  readonly blockTimeMs: number;
  /** This node's validator address; undefined on a node that does not validate. */
  readonly validatorAddress: Address | undefined;
  /** The executed chain at its head. */
  chain(): ChainReader;
  /**
   * The index once it holds every block up to `height` (default: the chain's head when
   * called), waiting at most INDEX_WAIT_MS (src/api/limits.ts); undefined while it is
   * starting. Reads of indexed data go through this: what was final before a read
   * arrived is in its answer.
   */
  indexAt(height?: number): Promise<IndexReader | undefined>;
  /**
   * Submits a transaction and resolves once it is final. Routes that built the
   * transaction pass the Tx itself and the signer the door verified (src/api/door.ts),
   * so it is neither decoded nor recovered again at the mempool.
   */
  submitAndWait(tx: Uint8Array | Tx, signer?: Address): Promise<FinalTx>;
  /** Admits a transaction to the mempool without waiting for finality (eth_sendRawTransaction). */
  submit(tx: Tx): Promise<void>;
  status(): NodeStatus;
  /** The node's disk (GET /health, GET /status): while `full`, submitAndWait and submit refuse with 503 STORAGE_UNAVAILABLE. */
  storage(): StorageStatus;
  /**
   * Block sync's progress while the node syncs, in Ethereum's eth_syncing terms: the head
   * when this sync began, the head now, the highest head peers have shown; null when it
   * is not syncing (a node without BFT consensus never is).
   */
  syncProgress(): SyncProgress | null;
  /**
   * Whether the node is catching up: its head more than CATCHING_UP_LAG_BLOCKS
   * (src/api/limits.ts) behind the highest head its peers have shown (consensus's sync
   * target: heads proved by sync answers, or claimed by validators with more than a third
   * of the power, so one lying peer cannot set it). Its head and that target then; null
   * when it follows the chain (and always on a node without BFT consensus).
   */
  catchingUp(): { height: number; target: number } | null;
  /** This node's libp2p identity and listen addresses (as libp2p reports them); null without p2p. */
  p2pAddresses(): { peerId: string; listen: string[] } | null;
  /** Connected peers, their announced listen addresses and last probed heads; [] without p2p (decision 79). */
  p2pPeers(): Promise<NetworkPeer[]>;
  /**
   * The bridge as this node serves it (decisions 84, 85): the external RPC of its
   * deployment file (null without one) and its bridge actor's counters (null on a node
   * that runs none: no key or no file).
   */
  bridge(): { rpcUrl: string | null; stats: object | null };
  /**
   * The bridge contract's USDC balance on the external chain, read now at the external
   * head; null without a deployment file, or when the endpoint does not answer within
   * BRIDGE_BALANCE_WAIT_MS (src/api/limits.ts).
   */
  bridgeExternalBalance(): Promise<{ balance: bigint; block: bigint } | null>;
  /**
   * This node's metrics (its own registry, read now) as Prometheus text exposition
   * format, with the content type to serve it under (GET /metrics).
   */
  metrics(): Promise<{ contentType: string; text: string }>;
  /**
   * This node's audit log (issue 23 item 2; docs/audit.md): the recent transitions of
   * the machines' instances it saw since it started (blocks committed, actors' lifecycle
   * steps), and a feed of each new one (the WebSocket's `audit` topic).
   */
  audit(): AuditReader;
}

/** The read side of the audit log (src/audit/transitions.ts). */
export type AuditReader = Pick<AuditLog, 'recent' | 'subscribe' | 'recorded' | 'capacity'>;

/** GET /v1/network/peers: a connected peer, the listen addresses it announced (libp2p identify), its last known head. */
export interface NetworkPeer {
  peerId: string;
  listen: string[];
  /** Null until it answered a height probe. */
  height: number | null;
  /** Wall-clock ms of that answer; null with it. */
  heightAtMs: number | null;
}
