/**
 * The node's configuration: what the command line (src/cli/node-run.ts) or a test
 * resolves and src/node/node.ts wires. Apart from src/node so that each actor can name
 * the values it reads (a Pick of this, in its own dependency bundle) without importing
 * the node's wiring.
 */
import type { BridgeDeploymentFile } from '../bridge/evm';
import type { IndexRetention } from '../indexer/retention';
import type { Genesis } from '../genesis/types';
import type { RateLimitConfig } from '../api/rate-limit';
import type { StateSyncProgress } from '../chain/state-sync';
import type { PriceSourcesConfig } from '../oracle/feeds/config';
import type { ByzantineHarness } from '../consensus/driver-io';

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
  /**
   * The node's clock, ms (default Date.now): the time the blocks it proposes carry
   * (contract [D-time-proposer]) and the clock a proposal's time is checked against. A
   * test moves it forward to pass a governance timelock without waiting it out.
   */
  clock?: () => number;
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
  p2p?: {
    listen: string[];
    bootstrap: string[];
    peerKey?: Uint8Array;
    /**
     * The consensus session's port on a validator (src/net/session.ts, decision 178), on the libp2p listen host;
     * absent or 0: any free port (peers ask for it over libp2p); -1: no sessions (libp2p streams only).
     */
    consensusPort?: number;
    /** False: keep to the bootstrap peers (no peer exchange asked, no validator endpoint dialled: decision 184). Default true. */
    discovery?: boolean;
  };
  /**
   * The bridge deployment file's contents (`--bridge FILE`, read by readDeploymentFile;
   * decision 84): checked against genesis.bridge at construction. On a validator it runs
   * the bridge actor (watcher and relayer); on any node it names the external RPC in
   * GET /v1/network and lets /reserves read the bridge's balance. Absent: none of these.
   */
  bridge?: BridgeDeploymentFile;
  /**
   * The price sources a validator's oracle reads (`--price-sources FILE`, or
   * `<home>/price-sources.json`; src/oracle/feeds/config.ts, decision 168). Absent: the
   * devnet path on a devnet, no prices elsewhere.
   */
  priceSources?: PriceSourcesConfig;
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
  /**
   * Devnet-only fault injection, for tests of the network's defences: the hooks the
   * consensus driver and the block-sync server call where the faults act (built from the
   * fault flags by src/cli/devnet-faults.ts); absent on every real node.
   */
  byzantine?: ByzantineHarness;
}
