/**
 * Execution rules of the exchange REST order kinds (RestOrder, RestBatch, RestCancel,
 * RestCancelAll, RestCancelByCloid, RestModify): the trader signs a keccak256 digest of
 * the packed fields as an EIP-191 message (src/signing/exchange-digest.ts), with the
 * action options' text after the nonce when there are options. All go through
 * src/state/orders/execution.ts (modify: src/state/orders/modify.ts).
 */
import type { ModifyItem, RestBatchBody, RestCancelAllBody, RestCancelBody, RestCancelByCloidBody, RestModifyBody, RestOrderBody } from '../../codec/txs/orders';
import { MAX_BATCH_ORDERS } from '../../codec/txs/orders';
import { CLOID_RE, type ActionOptions } from '../../codec/txs/options';
import { optionsText } from '../../signing/action-options';
import { batchDigest, batchOptionsText, cancelAllDigest, cancelCloidDigest, cancelDigest, modifyDigest, placeOrderDigest } from '../../signing/exchange-digest';
import type { Hex } from '../../util/bytes';
import type { Address } from '../../util/bytes';
import { parseDecimal } from '../../util/decimal';
import { PRICE_DECIMALS, price6, SIZE_DECIMALS, size18, type Price6, type Size18 } from '../../util/fixed';
import type { ExecContext, TxOp } from '../context';
import { badRequest, TxError } from '../errors';
import { cancelAll, cancelByCloid, cancelOrder, pairOrThrow, placeOrder, validateOrder, type OrderInput } from '../orders/execution';
import { modifyOrder } from '../orders/modify';
import { restSigner } from '../accounts/subaccounts';

type OptionKey = keyof ActionOptions;
/** Placement takes every option; every other order kind only expiresAfter (decision 87). */
export const PLACE_OPTIONS: readonly OptionKey[] = ['cloid', 'tif', 'reduceOnly', 'expiresAfter'];
const ITEM_OPTIONS: readonly OptionKey[] = ['cloid', 'tif', 'reduceOnly'];
export const ACTION_OPTIONS: readonly OptionKey[] = ['expiresAfter'];

/** 400 INVALID_OPTIONS naming the first option the kind does not take, or a market order with tif Alo. */
export function requireOptions(o: ActionOptions | undefined, allowed: readonly OptionKey[], field = '', orderType?: 0 | 1): void {
  if (!o) return;
  for (const key of ['cloid', 'tif', 'reduceOnly', 'expiresAfter'] as const) {
    if (o[key] !== undefined && !allowed.includes(key)) throw badRequest('INVALID_OPTIONS', `${field}${key}: not taken by this action`);
  }
  if (o.cloid !== undefined && !CLOID_RE.test(o.cloid)) throw badRequest('INVALID_OPTIONS', `${field}cloid: must be 0x and 32 lower-case hex digits`);
  if (o.tif === 'Alo' && orderType === 0) throw badRequest('INVALID_OPTIONS', `${field}tif: Alo (post-only) needs a limit order`);
}

/** The order options an OrderInput takes. */
export function orderOptions(o: ActionOptions | undefined): Pick<OrderInput, 'cloid' | 'tif' | 'reduceOnly'> {
  if (!o) return {};
  return { ...(o.cloid !== undefined ? { cloid: o.cloid } : {}), ...(o.tif !== undefined ? { tif: o.tif } : {}), ...(o.reduceOnly ? { reduceOnly: true } : {}) };
}

const SYMBOL_RE = /^[A-Z0-9]{1,12}$/;
const ORDER_ID_RE = /^[1-9][0-9]{0,17}$/;

interface ParsedRestOrder {
  symbol: string;
  side: 0 | 1;
  orderType: 0 | 1;
  price: Price6;
  size: Size18;
}

/** Shape of one REST order (400 naming the field). `type` absent means limit (batch items). */
function parseRestOrder(o: { symbol: string; side: string; type?: string; price: string; amount: string }, field = ''): ParsedRestOrder {
  const f = (name: string) => `${field}${name}`;
  if (!SYMBOL_RE.test(o.symbol)) throw badRequest('INVALID_SYMBOL', `${f('symbol')}: must be an upper-case pair symbol such as ETH`);
  if (o.side !== 'buy' && o.side !== 'sell') throw badRequest('INVALID_SIDE', `${f('side')}: must be "buy" or "sell"`);
  const type = o.type ?? 'limit';
  if (type !== 'limit' && type !== 'market') throw badRequest('INVALID_TYPE', `${f('type')}: must be "limit" or "market"`);
  const size = parseDecimal(o.amount, SIZE_DECIMALS);
  if (size === null || size === 0n) throw badRequest('INVALID_AMOUNT', `${f('amount')}: must be a positive decimal string with at most 18 decimals`);
  let price: Price6 = 0n;
  if (type === 'limit' || o.price !== '') {
    const p = parseDecimal(o.price, PRICE_DECIMALS);
    if (p === null || p === 0n) throw badRequest('INVALID_PRICE', `${f('price')}: must be a positive decimal string with at most 6 decimals`);
    price = price6(p);
  }
  return { symbol: o.symbol, side: o.side === 'buy' ? 0 : 1, orderType: type === 'limit' ? 1 : 0, price, size: size18(size) };
}

/**
 * Parsed REST orders by transaction body. A body is checked (shape) at the mempool door
 * and again before it executes, then parsed for execution: the parse is pure, so the
 * first result serves the others (the proposer executes the very objects its pool
 * admitted; a replica parses its decoded block once instead of twice).
 */
const parsedSingles = new WeakMap<RestOrderBody, ParsedRestOrder>();
const parsedBatches = new WeakMap<RestBatchBody, ParsedRestOrder[]>();

function parsedSingle(b: RestOrderBody): ParsedRestOrder {
  let p = parsedSingles.get(b);
  if (!p) parsedSingles.set(b, (p = parseRestOrder(b)));
  return p;
}

function parsedBatch(b: RestBatchBody): ParsedRestOrder[] {
  let p = parsedBatches.get(b);
  if (!p) {
    if (b.orders.length === 0 || b.orders.length > MAX_BATCH_ORDERS) throw badRequest('INVALID_BATCH', `orders: 1 to ${MAX_BATCH_ORDERS} orders`);
    parsedBatches.set(b, (p = b.orders.map((o, i) => parseRestOrder(o, `orders[${i}].`))));
  }
  return p;
}

function pairIdOf(ctx: ExecContext, symbol: string, field = 'symbol'): number {
  const id = ctx.state.symbolToPair.get(symbol);
  if (id === undefined) throw badRequest('UNKNOWN_PAIR', `${field}: no pair ${symbol}`);
  return id;
}

function restInput(ctx: ExecContext, trader: Address, p: ParsedRestOrder, options: ActionOptions | undefined, field = ''): OrderInput {
  return {
    owner: trader, signer: trader, pairId: pairIdOf(ctx, p.symbol, `${field}symbol`), side: p.side, orderType: p.orderType, price: p.price, size: p.size, leverage: 1, isAgent: false,
    ...orderOptions(options),
  };
}

export const restOrderOp: TxOp<RestOrderBody> = {
  shape(b) {
    const p = parsedSingle(b);
    requireOptions(b.options, PLACE_OPTIONS, '', p.orderType);
  },
  bounds(state, b) {
    const p = parsedSingle(b);
    const pairId = state.symbolToPair.get(p.symbol);
    if (pairId === undefined) throw badRequest('UNKNOWN_PAIR', `symbol: no pair ${p.symbol}`);
    validateOrder(pairOrThrow(state, pairId), { ...p, leverage: 1 });
  },
  verify: (tx) => restSigner(placeOrderDigest({ ...tx.body, nonce: tx.body.nonce, options: optionsText(tx.body.options) }), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    placeOrder(ctx, restInput(ctx, tx.body.trader, parsedSingle(tx.body), tx.body.options));
  },
};

export const restBatchOp: TxOp<RestBatchBody> = {
  shape(b) {
    const parsed = parsedBatch(b);
    b.orders.forEach((o, i) => requireOptions(o.options, ITEM_OPTIONS, `orders[${i}].`, parsed[i].orderType));
    requireOptions(b.options, ACTION_OPTIONS);
  },
  verify: (tx) => {
    const b = tx.body;
    const text = batchOptionsText(b.orders.map((o) => optionsText(o.options)), optionsText(b.options));
    return restSigner(batchDigest(b.orders, b.nonce, text), b.signature, b.trader);
  },
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  /** Orders apply in sequence; each stands alone: one refused rolls back only itself. */
  apply(ctx, tx) {
    const parsed = parsedBatch(tx.body);
    parsed.forEach((p, index) => {
      const checkpoint = ctx.state.journal.checkpoint();
      try {
        placeOrder(ctx, restInput(ctx, tx.body.trader, p, tx.body.orders[index].options, `orders[${index}].`));
      } catch (err) {
        if (!(err instanceof TxError)) throw err;
        ctx.state.journal.rollback(checkpoint);
        ctx.emit({ type: 'OrderRejected', index, code: err.code, message: err.message, errorStatus: err.status });
      }
    });
  },
};

export const restCancelOp: TxOp<RestCancelBody> = {
  shape(b) {
    if (!ORDER_ID_RE.test(b.orderId)) throw badRequest('INVALID_ORDER_ID', 'orderId: must be a decimal order id');
    requireOptions(b.options, ACTION_OPTIONS);
  },
  verify: (tx) => restSigner(cancelDigest(tx.body.orderId, tx.body.nonce, optionsText(tx.body.options)), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    cancelOrder(ctx, tx.body.trader, BigInt(tx.body.orderId));
  },
};

export const restCancelAllOp: TxOp<RestCancelAllBody> = {
  shape: (b) => requireOptions(b.options, ACTION_OPTIONS),
  verify: (tx) => restSigner(cancelAllDigest(tx.body.nonce, optionsText(tx.body.options)), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    const ids = cancelAll(ctx, tx.body.trader);
    ctx.emit({ type: 'CancelAll', trader: tx.body.trader, cancelledIds: ids.map(String) });
  },
};

export const restCancelByCloidOp: TxOp<RestCancelByCloidBody> = {
  shape(b) {
    if (!CLOID_RE.test(b.cloid)) throw badRequest('INVALID_ORDER_ID', 'cloid: must be 0x and 32 lower-case hex digits');
    requireOptions(b.options, ACTION_OPTIONS);
  },
  verify: (tx) => restSigner(cancelCloidDigest(tx.body.cloid, tx.body.nonce, optionsText(tx.body.options)), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    cancelByCloid(ctx, tx.body.trader, tx.body.cloid as Hex);
  },
};

interface ParsedModify {
  orderId: bigint;
  price: Price6;
  size: Size18;
}

/** Shape of one REST modify (400 naming the field). */
function parseModify(o: ModifyItem, field = ''): ParsedModify {
  if (!ORDER_ID_RE.test(o.orderId)) throw badRequest('INVALID_ORDER_ID', `${field}orderId: must be a decimal order id`);
  const p = parseDecimal(o.price, PRICE_DECIMALS);
  if (p === null || p === 0n) throw badRequest('INVALID_PRICE', `${field}price: must be a positive decimal string with at most 6 decimals`);
  const size = parseDecimal(o.amount, SIZE_DECIMALS);
  if (size === null || size === 0n) throw badRequest('INVALID_AMOUNT', `${field}amount: must be a positive decimal string with at most 18 decimals`);
  return { orderId: BigInt(o.orderId), price: price6(p), size: size18(size) };
}

const parsedModifies = new WeakMap<RestModifyBody, ParsedModify[]>();

function parsedModify(b: RestModifyBody): ParsedModify[] {
  let p = parsedModifies.get(b);
  if (!p) {
    if (b.orders.length === 0 || b.orders.length > MAX_BATCH_ORDERS) throw badRequest('INVALID_BATCH', `orders: 1 to ${MAX_BATCH_ORDERS} modifies`);
    p = b.orders.map((o, i) => parseModify(o, `orders[${i}].`));
    const seen = new Set<bigint>();
    p.forEach((m, i) => {
      if (seen.has(m.orderId)) throw badRequest('INVALID_BATCH', `orders[${i}].orderId: order ${m.orderId} is modified twice`);
      seen.add(m.orderId);
    });
    parsedModifies.set(b, p);
  }
  return p;
}

export const restModifyOp: TxOp<RestModifyBody> = {
  shape(b) {
    parsedModify(b);
    requireOptions(b.options, ACTION_OPTIONS);
  },
  verify: (tx) => restSigner(modifyDigest(tx.body.orders, tx.body.nonce, optionsText(tx.body.options)), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  /**
   * Modifies apply in sequence; each stands alone, as a batch's orders do: one refused
   * rolls back only itself (OrderRejected naming its index). A single modify that is
   * refused fails the transaction (its answer is the refusal).
   */
  apply(ctx, tx, signer) {
    const parsed = parsedModify(tx.body);
    const trader = tx.body.trader;
    // The signer is the trader or, for a sub-account, its master (restSigner): neither is an agent.
    if (parsed.length === 1) {
      modifyOrder(ctx, { owner: trader, signer, ...parsed[0] });
      return;
    }
    parsed.forEach((m, index) => {
      const checkpoint = ctx.state.journal.checkpoint();
      try {
        modifyOrder(ctx, { owner: trader, signer, ...m });
      } catch (err) {
        if (!(err instanceof TxError)) throw err;
        ctx.state.journal.rollback(checkpoint);
        ctx.emit({ type: 'OrderRejected', index, code: err.code, message: err.message, errorStatus: err.status });
      }
    });
  },
};
