/**
 * The index's stored records as the API shows them: decimals as strings, sides by name
 * (src/indexer/layout.ts holds the records, src/indexer/types.ts the items).
 */
import { formatDecimal } from '../util/decimal';
import { PRICE_DECIMALS, SIZE_DECIMALS, SIZE_ONE, USDC_DECIMALS } from '../util/fixed';
import type { CandleRecord } from './candles';
import type { AccountRecord, FillRecord, OrderRecord, TradeRecord } from './layout';
import type { AgentItem, CandleItem, FillItem, OrderItem, SideName, TradeItem } from './types';

const sideName = (s: 0 | 1): SideName => (s === 0 ? 'buy' : 'sell');
const price = (p: bigint): string => formatDecimal(p, PRICE_DECIMALS);
const size = (s: bigint): string => formatDecimal(s, SIZE_DECIMALS);
export const usdc = (u: bigint): string => formatDecimal(u, USDC_DECIMALS);

export function agentItem(address: string, r: AccountRecord): AgentItem {
  return { address, trades: r.trades, volume: usdc(r.volume), firstSeen: r.firstSeen ?? 0 };
}

export function tradeItem(t: TradeRecord): TradeItem {
  return {
    symbol: t.symbol,
    price: price(t.price),
    amount: size(t.size),
    buyer: t.buyer,
    seller: t.seller,
    buyerIsAgent: t.buyerIsAgent,
    txHash: t.txHash,
    time: t.time,
    takerSide: sideName(t.takerSide),
  };
}

export function fillItem(f: FillRecord): FillItem {
  const item: FillItem = {
    symbol: f.symbol,
    side: sideName(f.side),
    price: price(f.price),
    amount: size(f.size),
    usdcSettled: usdc(f.usdc),
    txHash: f.txHash,
    time: f.time,
    orderId: f.orderId,
    fee: usdc(f.fee),
  };
  if (f.cloid !== undefined) item.cloid = f.cloid;
  return item;
}

export function candleItem(c: CandleRecord): CandleItem {
  return { time: c.time, open: price(c.open), high: price(c.high), low: price(c.low), close: price(c.close), volume: size(c.volume) };
}

export function orderItem(o: OrderRecord): OrderItem {
  const item: OrderItem = {
    orderId: o.orderId,
    symbol: o.symbol,
    pairId: o.pairId,
    side: sideName(o.side),
    type: o.orderType === 1 ? 'limit' : 'market',
    price: price(o.price),
    amount: size(o.size),
    filled: size(o.filled),
    remaining: size(o.remaining),
    status: o.status,
    isAgent: o.isAgent,
    leverage: o.leverage,
    // usdc (×1e6) × 1e18 / size (×1e18) = price ×1e6, rounded down.
    avgPrice: o.tradedSize > 0n ? price((o.filledUsdc * SIZE_ONE) / o.tradedSize) : null,
    txHash: o.txHash,
    time: o.time,
    updatedTime: o.updatedTime,
  };
  if (o.reason !== undefined) item.reason = o.reason;
  if (o.cloid !== undefined) item.cloid = o.cloid;
  return item;
}
