/**
 * Candle arithmetic of the indexer, pure and exact (bigint prices and sizes, integer
 * seconds). Shared by the Indexer and its property tests.
 */

/** The candle intervals the API serves (contract [C-market-candles]), in seconds. */
export const CANDLE_INTERVALS = {
  '1m': 60,
  '3m': 180,
  '5m': 300,
  '15m': 900,
  '30m': 1_800,
  '1h': 3_600,
  '4h': 14_400,
  '1d': 86_400,
} as const;

export type CandleInterval = keyof typeof CANDLE_INTERVALS;

export const CANDLE_INTERVAL_NAMES = Object.keys(CANDLE_INTERVALS) as CandleInterval[];

export function isCandleInterval(value: unknown): value is CandleInterval {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CANDLE_INTERVALS, value);
}

/** A candle in chain units: prices ×1e6, volume in base-asset units ×1e18. */
export interface CandleRecord {
  /** Bucket start, Unix seconds: floor(ts / interval) × interval. */
  time: number;
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volume: bigint;
}

/** Start (Unix seconds) of the bucket of `intervalSec` that holds the block time `timestampMs`. */
export function bucketStart(timestampMs: number, intervalSec: number): number {
  return Math.floor(timestampMs / (intervalSec * 1000)) * intervalSec;
}

/** The OHLCV of consecutive trades in one bucket (a block's trades of one pair), in chain order. */
export interface BlockCandle {
  open: bigint;
  high: bigint;
  low: bigint;
  close: bigint;
  volume: bigint;
}

/**
 * The candle after the trades `agg` sums up, in chain order: the same as merging them
 * one by one with mergeTrade. `prev` must be the candle of the same bucket (or
 * undefined: the bucket's first trades); returns a new object.
 */
export function mergeTrades(prev: CandleRecord | undefined, time: number, agg: BlockCandle): CandleRecord {
  if (prev === undefined) return { time, open: agg.open, high: agg.high, low: agg.low, close: agg.close, volume: agg.volume };
  if (prev.time !== time) throw new Error(`mergeTrades: bucket ${time} into candle ${prev.time}`);
  return {
    time,
    open: prev.open,
    high: agg.high > prev.high ? agg.high : prev.high,
    low: agg.low < prev.low ? agg.low : prev.low,
    close: agg.close,
    volume: prev.volume + agg.volume,
  };
}

/**
 * The candle after one more trade, in chain order. `prev` must be the candle of the
 * same bucket (or undefined for the bucket's first trade); returns a new object.
 */
export function mergeTrade(prev: CandleRecord | undefined, time: number, price: bigint, size: bigint): CandleRecord {
  if (prev === undefined) return { time, open: price, high: price, low: price, close: price, volume: size };
  if (prev.time !== time) throw new Error(`mergeTrade: bucket ${time} into candle ${prev.time}`);
  return {
    time,
    open: prev.open,
    high: price > prev.high ? price : prev.high,
    low: price < prev.low ? price : prev.low,
    close: price,
    volume: prev.volume + size,
  };
}
