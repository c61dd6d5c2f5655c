/**
 * What every `start` (the devnet's and `--home`) gives its node the same way: the API
 * listeners, durability, the mempool's and finality's defaults, and the process ending
 * with the node (exit code 2 when it halted, 3 when a software upgrade requires a newer version),
 * and the bridge deployment file of `--bridge FILE` (decision 84).
 */
import { MEMPOOL_BYTES_MAX_DEFAULT, MEMPOOL_TXS_MAX_DEFAULT } from '../../actors/limits';
import { resolve } from 'node:path';
import { readDeploymentFile } from '../bridge/evm';
import type { NodeConfig } from '../config/node-config';
import type { Node } from '../node/node';
import { RATE_LIMIT_DEFAULTS, RATE_LIMIT_OFF, type RateLimitConfig } from '../api/rate-limit';
import type { FlagSpec } from './args';
import type { Genesis } from '../genesis/types';
import { RETAIN_BLOCKS_MIN } from '../chain/prune';
import { DAY_MS, INDEX_RETENTION_DEFAULTS, type IndexRetention } from '../indexer/retention';
import { hexToBytes } from '../util/bytes';
import { stateSyncProgressWriter } from './sync-progress';
import { readPriceSourcesFile } from '../oracle/feeds/config';

/** How long a write posted to the API waits for its block before it answers with a timeout. */
const FINALITY_TIMEOUT_MS = 10_000;

/**
 * `--session-host`: where the session-and-agent listener binds. Loopback by default (the
 * contract's port 9001 on the validator's own machine); another host only when the
 * operator names it (docs/operations.md).
 */
export const SESSION_HOST_FLAG = { type: 'string', default: '127.0.0.1', help: 'session and agent API host (loopback unless you opt in, e.g. 0.0.0.0)' } as const;

/** The rate-limit flags of every `start` (decision 98; docs/operations.md). */
const RATE_LIMIT_FLAGS = {
  'rate-limit': { type: 'bool', default: true, help: 'rate-limit the API per IP and per signer (--no-rate-limit: none, for tests and benches on loopback)' },
  'rate-limit-window-ms': { type: 'int', default: RATE_LIMIT_DEFAULTS.windowMs, help: 'length of one rate-limit window' },
  'rate-limit-ip-weight': { type: 'int', default: RATE_LIMIT_DEFAULTS.ipWeightPerWindow, help: 'weight one IP may spend per window on every route (0: no limit)' },
  'rate-limit-address-weight': { type: 'int', default: RATE_LIMIT_DEFAULTS.addressWeightPerWindow, help: 'weight one signer may spend per window on signed actions (0: no limit)' },
  'ws-connections-per-ip': { type: 'int', default: RATE_LIMIT_DEFAULTS.wsConnectionsPerIp, help: 'WebSocket connections one IP may hold at once (0: no limit)' },
} satisfies FlagSpec;

/** Overrides of the genesis `storage` section's snapshot settings (issue 27, decision 136). */
const SNAPSHOT_FLAGS = {
  'snapshot-interval': { type: 'int', help: 'write a state snapshot every N blocks (default: the genesis storage.snapshotIntervalBlocks; 0: none)' },
  'snapshot-keep': { type: 'int', help: 'state snapshots kept (default: the genesis storage.snapshotKeep, else 2)' },
} satisfies FlagSpec;

type RateLimitFlags = { 'rate-limit': boolean; 'rate-limit-window-ms': number; 'rate-limit-ip-weight': number; 'rate-limit-address-weight': number; 'ws-connections-per-ip': number };

function rateLimitConfig(f: RateLimitFlags): RateLimitConfig {
  if (!f['rate-limit']) return RATE_LIMIT_OFF;
  if (f['rate-limit-window-ms'] < 1) throw new Error('--rate-limit-window-ms must be at least 1');
  return { windowMs: f['rate-limit-window-ms'], ipWeightPerWindow: f['rate-limit-ip-weight'], addressWeightPerWindow: f['rate-limit-address-weight'], wsConnectionsPerIp: f['ws-connections-per-ip'] };
}

export function serviceConfig(
  f: { host: string; port: number; 'session-host': string; 'session-port': number; fsync: boolean; 'snapshot-interval'?: number; 'snapshot-keep'?: number } & RateLimitFlags,
): Pick<NodeConfig, 'api' | 'sessionApi' | 'syncWrites' | 'mempool' | 'finalityTimeoutMs' | 'rateLimit' | 'snapshots'> {
  if (f['snapshot-interval'] !== undefined && f['snapshot-interval'] < 0) throw new Error('--snapshot-interval must be 0 (none) or more');
  if (f['snapshot-keep'] !== undefined && f['snapshot-keep'] < 1) throw new Error('--snapshot-keep must be at least 1');
  return {
    snapshots: { intervalBlocks: f['snapshot-interval'], keep: f['snapshot-keep'] },
    rateLimit: rateLimitConfig(f),
    api: { host: f.host, port: f.port },
    sessionApi: { host: f['session-host'], port: f['session-port'] },
    syncWrites: f.fsync,
    mempool: { maxTxs: MEMPOOL_TXS_MAX_DEFAULT, maxBytes: MEMPOOL_BYTES_MAX_DEFAULT },
    finalityTimeoutMs: FINALITY_TIMEOUT_MS,
  };
}

/**
 * `--bridge FILE`: the deployment file's contents (read and checked by readDeploymentFile;
 * the node compares it with genesis.bridge before it starts). A validator runs the
 * bridge's watcher and relayer with it; a node without a key only names its RPC.
 */
export function bridgeConfig(file: string | undefined): Pick<NodeConfig, 'bridge'> {
  return file === undefined ? {} : { bridge: readDeploymentFile(resolve(file)) };
}

/**
 * `--price-sources FILE`: the price sources a validator's oracle reads (decision 168;
 * docs/operations.md "Price sources"), read and checked now so a bad file stops the start
 * with its reason rather than leaving an oracle that reports nothing.
 */
export function priceSourcesConfig(file: string | undefined): Pick<NodeConfig, 'priceSources'> {
  return file === undefined ? {} : { priceSources: readPriceSourcesFile(resolve(file)) };
}

/** What a node keeps on disk (issue 27, decisions 132 and 134; docs/operations.md "Pruning"). */
const STORAGE_FLAGS = {
  'retain-blocks': { type: 'int', help: `keep the newest N blocks (commits, receipts, tx index), at least ${RETAIN_BLOCKS_MIN}; default: the genesis storage.retainBlocks (none: every block)` },
  archive: { type: 'bool', default: false, help: 'keep every block, whatever the genesis default (an archive node: full history for the API and for peers)' },
  'index-retain-trades-days': { type: 'int', default: INDEX_RETENTION_DEFAULTS.tradesMs / DAY_MS, help: 'days of block time the index keeps trades and fills (0: all)' },
  'index-retain-candles-days': { type: 'int', default: INDEX_RETENTION_DEFAULTS.candlesMs / DAY_MS, help: 'days of block time the index keeps candles (0: all)' },
  'index-retain-orders-days': { type: 'int', default: INDEX_RETENTION_DEFAULTS.ordersMs / DAY_MS, help: 'days of block time the index keeps closed orders in the order history (0: all)' },
} satisfies FlagSpec;

type StorageFlags = {
  'retain-blocks'?: number;
  archive: boolean;
  'index-retain-trades-days': number;
  'index-retain-candles-days': number;
  'index-retain-orders-days': number;
};

/**
 * The blocks and index kept: `--archive` keeps every block; `--retain-blocks N` the
 * newest N; neither, the genesis default (storage.retainBlocks), for a validator and a
 * follower alike. The index keeps by its own flags (0 days: all).
 */
export function storageConfig(f: StorageFlags, genesis: Genesis): Pick<NodeConfig, 'retainBlocks' | 'indexRetention'> {
  const n = f['retain-blocks'];
  if (f.archive && n !== undefined) throw new Error('--archive keeps every block: give it or --retain-blocks, not both');
  if (n !== undefined && n < RETAIN_BLOCKS_MIN) throw new Error(`--retain-blocks must be at least ${RETAIN_BLOCKS_MIN}, got ${n}`);
  const indexRetention: IndexRetention = {
    tradesMs: f['index-retain-trades-days'] * DAY_MS,
    candlesMs: f['index-retain-candles-days'] * DAY_MS,
    ordersMs: f['index-retain-orders-days'] * DAY_MS,
  };
  const retainBlocks = f.archive ? undefined : (n ?? genesis.storage?.retainBlocks);
  return { retainBlocks, indexRetention };
}

/** Exit code of a node that stopped because it halted (a broken invariant). */
const EXIT_HALTED = 2;
/** Exit code of a node that stopped for a software upgrade (decision 77): install the version named and restart it. */
export const EXIT_UPGRADE_REQUIRED = 3;

/**
 * SIGINT/SIGTERM stop the node; the process exits when it has stopped (2 when it halted,
 * 3 when a software upgrade requires a newer version: the message naming it goes to stderr).
 */
export function exitWithNode(node: Node): void {
  node.supervisor.installSignalHandlers(process, () => undefined);
  node.stopped.then(({ halted, upgrade }) => {
    if (upgrade) {
      process.stderr.write(`UPGRADE REQUIRED: ${upgrade}\n`);
      process.exit(EXIT_UPGRADE_REQUIRED);
    }
    process.exit(halted ? EXIT_HALTED : 0);
  });
}

/** The state-sync flags of every `start` (decision 140; docs/operations.md "Joining by state sync"). */
export const STATE_SYNC_FLAGS = {
  'state-sync': {
    type: 'bool',
    help: 'join by state sync: fill the empty store from a snapshot the peers offer, verified from the trusted height (default: an empty store does when peers offer snapshots; --no-state-sync: never, sync blocks from genesis)',
  },
  'trust-height': { type: 'int', help: 'state sync: a height the operator trusts (default 0, genesis); with --trust-hash' },
  'trust-hash': { type: 'string', help: "state sync: the block hash at --trust-height (0x + 64 hex), from a source the operator trusts" },
} satisfies FlagSpec;

export function stateSyncConfig(f: { 'state-sync'?: boolean; 'trust-height'?: number; 'trust-hash'?: string }): Pick<NodeConfig, 'stateSync'> {
  if ((f['trust-height'] === undefined) !== (f['trust-hash'] === undefined)) throw new Error('--trust-height and --trust-hash go together');
  let trust: { height: number; hash: Uint8Array } | undefined;
  if (f['trust-hash'] !== undefined) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(f['trust-hash'])) throw new Error(`--trust-hash must be 0x and 64 hex digits, got ${f['trust-hash']}`);
    trust = { height: f['trust-height']!, hash: hexToBytes(f['trust-hash']) };
  }
  return { stateSync: { forced: f['state-sync'] === true, off: f['state-sync'] === false, trust, onProgress: stateSyncProgressWriter() } };
}

/** The flags every `start` has alike, after its own (in this order in its help). */
export const SHARED_START_FLAGS = {
  'log-level': { type: 'string', default: 'info', help: 'trace|debug|info|warn|error|fatal|silent' },
  fsync: { type: 'bool', default: true, help: 'fsync every block (--no-fsync to trade durability for speed)' },
  ...RATE_LIMIT_FLAGS,
  ...SNAPSHOT_FLAGS,
  ...STORAGE_FLAGS,
  ...STATE_SYNC_FLAGS,
  'price-sources': { type: 'string', help: "a validator's price sources file (docs/operations.md \"Price sources\"): per market, the exchange tickers or fixed-price file its oracle reads" },
} satisfies FlagSpec;

/**
 * What every `start` takes from the flags it shares (services, storage, bridge, state
 * sync, price sources), checked in that order, as one part of its node's config.
 */
export function sharedStartConfig(
  f: Parameters<typeof serviceConfig>[0] & StorageFlags & Parameters<typeof stateSyncConfig>[0] & { bridge?: string; 'price-sources'?: string },
  genesis: Genesis,
): ReturnType<typeof serviceConfig> & ReturnType<typeof storageConfig> & ReturnType<typeof bridgeConfig> & ReturnType<typeof stateSyncConfig> & ReturnType<typeof priceSourcesConfig> {
  return { ...serviceConfig(f), ...storageConfig(f, genesis), ...bridgeConfig(f.bridge), ...stateSyncConfig(f), ...priceSourcesConfig(f['price-sources']) };
}
