/**
 * Reading receipt events for the indexer: narrows the `ChainEvent` union of
 * src/state/events.ts to the events it indexes (the three exchange events and
 * OrderModified), and checks their fields
 * against that contract. The types say what execution writes; receipts come back from
 * storage, so an exchange event whose fields do not have the contract's types is
 * reported as malformed (and skipped by the indexer, identically on every rebuild)
 * instead of poisoning the index.
 */
import type { ChainEvent, ExchangeEvent, OrderModifiedEvent, OrderPlacedEvent, OrderStatus, OrderUpdatedEvent, TradeExecutedEvent } from '../state/events';
import type { Address, Hex } from '../util/bytes';

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
/** A client order id: 16 bytes, 0x + 32 hex (design of issue 24). */
const CLOID_RE = /^0x[0-9a-fA-F]{32}$/;
/** Order ids: decimal strings of the chain-wide counter, keyed as u64. */
const ORDER_ID_RE = /^(0|[1-9][0-9]{0,19})$/;
const U64_MAX = (1n << 64n) - 1n;
const SYMBOL_MAX = 32;
const STATUSES: ReadonlySet<string> = new Set<OrderStatus>(['open', 'partial', 'filled', 'cancelled', 'rejected']);

/** The events the index keeps: the three exchange events and a resting order's modify (decision 88). */
export type IndexedEvent = ExchangeEvent | OrderModifiedEvent;

export type ParsedEvent = { kind: 'event'; event: IndexedEvent } | { kind: 'other' } | { kind: 'malformed'; type: string; reason: string };

export function isOrderId(v: unknown): v is string {
  return typeof v === 'string' && ORDER_ID_RE.test(v) && BigInt(v) <= U64_MAX;
}

class Bad extends Error {}

/** `v`, the field `name` of a stored event, when `ok`; else the event is malformed. */
function checked<T>(v: T, name: string, ok: (v: unknown) => boolean): T {
  if (!ok(v)) throw new Bad(`${name} has the wrong type`);
  return v;
}

const isBig = (v: unknown): boolean => typeof v === 'bigint' && v >= 0n;
const isPosBig = (v: unknown): boolean => typeof v === 'bigint' && v > 0n;
const isAddr = (v: unknown): boolean => typeof v === 'string' && ADDRESS_RE.test(v);
const isBool = (v: unknown): boolean => typeof v === 'boolean';
const isSide = (v: unknown): boolean => v === 0 || v === 1;
const isU32 = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 0xffff_ffff;
const isSymbol = (v: unknown): boolean => typeof v === 'string' && v.length > 0 && v.length <= SYMBOL_MAX;
const isStatus = (v: unknown): boolean => typeof v === 'string' && STATUSES.has(v);
const addr = (v: Address, name: string): Address => checked(v, name, isAddr).toLowerCase() as Address;
const isCloid = (v: unknown): boolean => typeof v === 'string' && CLOID_RE.test(v);

/** An optional client order id field: `{}` when absent, else `{[name]: lower-case cloid}`. */
function cloidField<K extends string>(v: unknown, name: K): { [P in K]?: Hex } {
  if (v === undefined) return {};
  return { [name]: (checked(v, name, isCloid) as string).toLowerCase() as Hex } as { [P in K]?: Hex };
}

/** Reads one receipt or block event. Events other than those the index keeps (IndexedEvent) are `other`. */
export function parseEvent(e: ChainEvent): ParsedEvent {
  // A stored record without a string `type` is no event of the contract at all.
  const type: unknown = (e as { type?: unknown } | null | undefined)?.type;
  if (typeof type !== 'string') return { kind: 'other' };
  try {
    switch (e.type) {
      case 'OrderPlaced':
        return { kind: 'event', event: orderPlaced(e) };
      case 'TradeExecuted':
        return { kind: 'event', event: tradeExecuted(e) };
      case 'OrderUpdated':
        return { kind: 'event', event: orderUpdated(e) };
      case 'OrderModified':
        return { kind: 'event', event: orderModified(e) };
      default:
        return { kind: 'other' };
    }
  } catch (err) {
    if (err instanceof Bad) return { kind: 'malformed', type, reason: err.message };
    throw err;
  }
}

function orderPlaced(e: OrderPlacedEvent): OrderPlacedEvent {
  return {
    type: 'OrderPlaced',
    orderId: checked(e.orderId, 'orderId', isOrderId),
    owner: addr(e.owner, 'owner'),
    signer: addr(e.signer, 'signer'),
    pairId: checked(e.pairId, 'pairId', isU32),
    symbol: checked(e.symbol, 'symbol', isSymbol),
    side: checked(e.side, 'side', isSide),
    orderType: checked(e.orderType, 'orderType', isSide),
    price: checked(e.price, 'price', isBig),
    size: checked(e.size, 'size', isBig),
    leverage: checked(e.leverage, 'leverage', isU32),
    isAgent: checked(e.isAgent, 'isAgent', isBool),
    ...cloidField(e.cloid, 'cloid'),
  };
}

function tradeExecuted(e: TradeExecutedEvent): TradeExecutedEvent {
  return {
    type: 'TradeExecuted',
    pairId: checked(e.pairId, 'pairId', isU32),
    symbol: checked(e.symbol, 'symbol', isSymbol),
    price: checked(e.price, 'price', isPosBig),
    size: checked(e.size, 'size', isPosBig),
    usdc: checked(e.usdc, 'usdc', isBig),
    buyer: addr(e.buyer, 'buyer'),
    seller: addr(e.seller, 'seller'),
    buyerIsAgent: checked(e.buyerIsAgent, 'buyerIsAgent', isBool),
    sellerIsAgent: checked(e.sellerIsAgent, 'sellerIsAgent', isBool),
    takerSide: checked(e.takerSide, 'takerSide', isSide),
    makerOrderId: checked(e.makerOrderId, 'makerOrderId', isOrderId),
    takerOrderId: checked(e.takerOrderId, 'takerOrderId', isOrderId),
    takerFee: checked(e.takerFee, 'takerFee', isBig),
    ...cloidField(e.makerCloid, 'makerCloid'),
    ...cloidField(e.takerCloid, 'takerCloid'),
    ...(e.makerFee !== undefined ? { makerFee: checked(e.makerFee, 'makerFee', isBig) } : {}),
  };
}

function orderUpdated(e: OrderUpdatedEvent): OrderUpdatedEvent {
  const reason = e.reason;
  if (reason !== undefined && typeof reason !== 'string') throw new Bad('reason has the wrong type');
  return {
    type: 'OrderUpdated',
    orderId: checked(e.orderId, 'orderId', isOrderId),
    owner: addr(e.owner, 'owner'),
    pairId: checked(e.pairId, 'pairId', isU32),
    status: checked(e.status, 'status', isStatus),
    filled: checked(e.filled, 'filled', isBig),
    remaining: checked(e.remaining, 'remaining', isBig),
    ...(reason === undefined ? {} : { reason }),
  };
}

/** The fields of an OrderModified the index reads (the rest are copied as they are). */
function orderModified(e: OrderModifiedEvent): OrderModifiedEvent {
  return {
    ...e,
    type: 'OrderModified',
    orderId: checked(e.orderId, 'orderId', isOrderId),
    owner: addr(e.owner, 'owner'),
    price: checked(e.price, 'price', isBig),
    size: checked(e.size, 'size', isBig),
    remaining: checked(e.remaining, 'remaining', isBig),
  };
}
