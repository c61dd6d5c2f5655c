/**
 * Events execution emits into receipts: the contract between execution and the
 * indexer, the WebSocket and the API. Amounts are bigint: prices ×1e6, sizes ×1e18,
 * USDC 6 decimals. Order ids are decimal strings of the chain-wide counter.
 */
import type { Address } from '../util/bytes';

export type OrderStatus = 'open' | 'partial' | 'filled' | 'cancelled' | 'rejected';

/** An order was accepted by execution (before any matching). */
export interface OrderPlacedEvent {
  type: 'OrderPlaced';
  orderId: string;
  owner: Address;
  /** The session key that signed, or the owner itself. */
  signer: Address;
  pairId: number;
  symbol: string;
  side: 0 | 1; // 0 Buy, 1 Sell
  orderType: 0 | 1; // 0 Market, 1 Limit
  /** Limit price, or a market order's worst price (0 when none). */
  price: bigint;
  size: bigint;
  leverage: number;
  isAgent: boolean;
}

/** One match between a resting (maker) and an incoming (taker) order, at the maker's price. */
export interface TradeExecutedEvent {
  type: 'TradeExecuted';
  pairId: number;
  symbol: string;
  price: bigint;
  size: bigint;
  /** price × size / 1e18, exact USDC units. */
  usdc: bigint;
  buyer: Address;
  seller: Address;
  buyerIsAgent: boolean;
  sellerIsAgent: boolean;
  takerSide: 0 | 1;
  makerOrderId: string;
  takerOrderId: string;
  /** Taker fee in USDC units (maker fee is 0). */
  takerFee: bigint;
}

/** An order's status or filled amount changed (after placement, on each fill, on cancel). */
export interface OrderUpdatedEvent {
  type: 'OrderUpdated';
  orderId: string;
  owner: Address;
  pairId: number;
  status: OrderStatus;
  filled: bigint;
  remaining: bigint;
  /** Why it ended when cancelled by the engine: 'market-rest', 'self-trade', 'user'. */
  reason?: string;
}

export type ExchangeEvent = OrderPlacedEvent | TradeExecutedEvent | OrderUpdatedEvent;
