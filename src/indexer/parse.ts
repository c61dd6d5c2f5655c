/**
 * Defensive reading of receipt events into the typed contract of src/state/events.ts.
 * Receipts come from storage as loosely typed objects; an exchange event whose fields
 * do not have the contract's types is reported as malformed (and skipped by the
 * indexer, identically on every rebuild) instead of poisoning the index.
 */
import type { ExchangeEvent, OrderPlacedEvent, OrderStatus, OrderUpdatedEvent, TradeExecutedEvent } from '../state/events';
import type { ChainEvent } from '../state/context';
import type { Address } from '../util/bytes';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
/** Order ids: decimal strings of the chain-wide counter, keyed as u64. */
const ORDER_ID_RE = /^(0|[1-9][0-9]{0,19})$/;
const U64_MAX = (1n << 64n) - 1n;
const SYMBOL_MAX = 32;
const STATUSES: ReadonlySet<string> = new Set<OrderStatus>(['open', 'partial', 'filled', 'cancelled', 'rejected']);

export type ParsedEvent = { kind: 'event'; event: ExchangeEvent } | { kind: 'other' } | { kind: 'malformed'; type: string; reason: string };

export const EXCHANGE_EVENT_TYPES: ReadonlySet<string> = new Set(['OrderPlaced', 'TradeExecuted', 'OrderUpdated']);

export function isOrderId(v: unknown): v is string {
  return typeof v === 'string' && ORDER_ID_RE.test(v) && BigInt(v) <= U64_MAX;
}

class Bad extends Error {}

function field<T>(e: ChainEvent, name: string, ok: (v: unknown) => boolean): T {
  const v = e[name];
  if (!ok(v)) throw new Bad(`${name} has the wrong type`);
  return v as T;
}

const isBig = (v: unknown): boolean => typeof v === 'bigint' && v >= 0n;
const isPosBig = (v: unknown): boolean => typeof v === 'bigint' && v > 0n;
const isAddr = (v: unknown): boolean => typeof v === 'string' && ADDRESS_RE.test(v);
const isBool = (v: unknown): boolean => typeof v === 'boolean';
const isSide = (v: unknown): boolean => v === 0 || v === 1;
const isU32 = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 0xffff_ffff;
const isSymbol = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && v.length <= SYMBOL_MAX;
const addr = (e: ChainEvent, name: string): Address => field<string>(e, name, isAddr).toLowerCase() as Address;

/** Reads one receipt event. Events other than the three exchange events are `other`. */
export function parseEvent(e: ChainEvent): ParsedEvent {
  const type = e?.type;
  if (typeof type !== 'string' || !EXCHANGE_EVENT_TYPES.has(type)) return { kind: 'other' };
  try {
    return { kind: 'event', event: parseExchange(e, type) };
  } catch (err) {
    if (err instanceof Bad) return { kind: 'malformed', type, reason: err.message };
    throw err;
  }
}

function parseExchange(e: ChainEvent, type: string): ExchangeEvent {
  switch (type) {
    case 'OrderPlaced': {
      const ev: OrderPlacedEvent = {
        type: 'OrderPlaced',
        orderId: field(e, 'orderId', isOrderId),
        owner: addr(e, 'owner'),
        signer: addr(e, 'signer'),
        pairId: field(e, 'pairId', isU32),
        symbol: field(e, 'symbol', isSymbol),
        side: field(e, 'side', isSide),
        orderType: field(e, 'orderType', isSide),
        price: field(e, 'price', isBig),
        size: field(e, 'size', isBig),
        leverage: field(e, 'leverage', isU32),
        isAgent: field(e, 'isAgent', isBool),
      };
      return ev;
    }
    case 'TradeExecuted': {
      const ev: TradeExecutedEvent = {
        type: 'TradeExecuted',
        pairId: field(e, 'pairId', isU32),
        symbol: field(e, 'symbol', isSymbol),
        price: field(e, 'price', isPosBig),
        size: field(e, 'size', isPosBig),
        usdc: field(e, 'usdc', isBig),
        buyer: addr(e, 'buyer'),
        seller: addr(e, 'seller'),
        buyerIsAgent: field(e, 'buyerIsAgent', isBool),
        sellerIsAgent: field(e, 'sellerIsAgent', isBool),
        takerSide: field(e, 'takerSide', isSide),
        makerOrderId: field(e, 'makerOrderId', isOrderId),
        takerOrderId: field(e, 'takerOrderId', isOrderId),
        takerFee: field(e, 'takerFee', isBig),
      };
      return ev;
    }
    default: {
      const reason = e.reason;
      if (reason !== undefined && typeof reason !== 'string') throw new Bad('reason has the wrong type');
      const ev: OrderUpdatedEvent = {
        type: 'OrderUpdated',
        orderId: field(e, 'orderId', isOrderId),
        owner: addr(e, 'owner'),
        pairId: field(e, 'pairId', isU32),
        status: field(e, 'status', (v) => typeof v === 'string' && STATUSES.has(v)),
        filled: field(e, 'filled', isBig),
        remaining: field(e, 'remaining', isBig),
        ...(reason === undefined ? {} : { reason }),
      };
      return ev;
    }
  }
}
