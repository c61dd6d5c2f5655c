/**
 * The indexer's public shapes and bounds: what its queries answer (amounts as decimal
 * strings), what catchUp reads, its options and errors, and the limits that bound
 * every query, catch-up batch and cache (src/indexer/README.md "Queries").
 */
import type { ChainEvent, Receipt } from '../state/context';
import type { OrderStatus } from '../state/events';

export const TRADES_LIMIT_MAX = 200;
export const FILLS_LIMIT_MAX = 200;
export const CANDLES_LIMIT_MAX = 500;
export const ORDERS_LIMIT_MAX = 50;
export const LEADERBOARD_LIMIT_MAX = 500;
export const AGENTS_LIMIT_MAX = 1000;

/** catchUp writes at most this many blocks, or about this many events, per batch. */
export const CATCHUP_BLOCKS_PER_BATCH = 256;
export const CATCHUP_EVENTS_PER_BATCH = 20_000;
/**
 * A block with nothing to index writes nothing (an idle chain makes 45 a second, and each
 * write cost a LevelDB batch on every node); the stored height is brought up to date at
 * least this often, so a restart re-reads at most this many blocks (about 20 s at idle).
 */
export const HEIGHT_CHECKPOINT_BLOCKS = 1_000;

/** Committed records kept in memory (BoundedCache): most fills hit recent orders and active traders. */
export const ORDER_CACHE_MAX = 50_000;
export const ACCOUNT_CACHE_MAX = 50_000;

export type SideName = 'buy' | 'sell';

export interface TradeItem {
  symbol: string;
  price: string;
  amount: string;
  buyer: string;
  seller: string;
  buyerIsAgent: boolean;
  txHash: string;
  /** Block time, Unix ms. */
  time: number;
  takerSide: SideName;
}

export interface FillItem {
  symbol: string;
  /** From the queried address's point of view. */
  side: SideName;
  price: string;
  amount: string;
  /** USDC exchanged by the trade (price × size). */
  usdcSettled: string;
  txHash: string;
  time: number;
  /** The queried address's order in this trade. */
  orderId: string;
  /** USDC fee paid by the queried address (taker fee, or "0" as maker). */
  fee: string;
  /** The client order id of `orderId`, when it had one. */
  cloid?: string;
}

export interface CandleItem {
  /** Bucket start, Unix seconds. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  /** Base-asset volume. */
  volume: string;
}

export interface OrderItem {
  orderId: string;
  symbol: string;
  pairId: number;
  side: SideName;
  type: 'limit' | 'market';
  /** Limit price, or a market order's worst price ("0" when none). */
  price: string;
  amount: string;
  filled: string;
  remaining: string;
  status: OrderStatus;
  isAgent: boolean;
  leverage: number;
  /** Volume-weighted average fill price, rounded down to 1e-6; null before any fill. */
  avgPrice: string | null;
  /** Why the engine ended the order ('market-rest', 'self-trade', 'user'), when it said. */
  reason?: string;
  txHash: string;
  /** Placement block time, Unix ms. */
  time: number;
  /** Block time of the last change, Unix ms. */
  updatedTime: number;
  /** The client order id given at placement, when there was one. */
  cloid?: string;
}

export interface LeaderboardItem {
  address: string;
  /** Σ usdc of the trades the address was buyer or seller of (a self-trade counts once). */
  volume: string;
  trades: number;
  isAgent: boolean;
}

export interface StatsItem {
  /** OrderPlaced events. */
  totalOrders: number;
  totalTrades: number;
  /** Trades where the buyer or the seller is an agent. */
  agentTrades: number;
  humanTrades: number;
  volumeUsdc: string;
}

export interface AgentItem {
  address: string;
  trades: number;
  volume: string;
  /** Block time at which the address was first seen acting as an agent, Unix ms. */
  firstSeen: number;
}

export type LeaderboardType = 'agents' | 'all';

/** What catchUp reads: ChainStore satisfies it. */
export interface ChainStoreLike {
  headHeight(): Promise<number | undefined>;
  getBlock(height: number): Promise<{ header: { timestampMs: number } } | undefined>;
  getReceipts(height: number): Promise<Receipt[] | undefined>;
  /** The events of the block's own steps (ChainStore.getBlockEvents); a store without them has none. */
  getBlockEvents?(height: number): Promise<ChainEvent[] | undefined>;
  /** The lowest height whose block is kept (ChainStore.base: pruned, or restored by state sync); absent: 1. */
  base?(): Promise<number>;
}

export type TxHashOf = (receipt: Receipt, position: number) => string;

export interface IndexerOpenOptions {
  /**
   * Identity of the chain the index belongs to (the genesis hash). An index written
   * for another identity refuses to open (IndexerIncompatibleError).
   */
  identity?: string;
}

export interface CatchUpOptions {
  /** Stops between batches (throws the signal's reason). */
  signal?: AbortSignal;
  blocksPerBatch?: number;
}

/** The index was written by another schema version or for another chain: delete and rebuild it. */
export class IndexerIncompatibleError extends Error {
  override readonly name = 'IndexerIncompatibleError';
}

/** indexBlock was given a height past indexedHeight + 1: catch up from the store first. */
export class IndexerGapError extends Error {
  override readonly name = 'IndexerGapError';
  constructor(readonly expected: number, readonly got: number) {
    super(`indexer: expected height ${expected}, got ${got} (catch up from the chain store first)`);
  }
}
