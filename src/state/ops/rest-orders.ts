/**
 * Execution rules of the exchange REST order kinds (RestOrder, RestBatch, RestCancel,
 * RestCancelAll): the trader signs a keccak256 digest of the packed fields as an EIP-191
 * message (src/crypto/exchange-digest.ts). All go through src/state/order-execution.ts.
 */
import type { RestBatchBody, RestCancelAllBody, RestCancelBody, RestOrderBody } from '../../codec/txs/orders';
import { MAX_BATCH_ORDERS } from '../../codec/txs/orders';
import { batchDigest, cancelAllDigest, cancelDigest, placeOrderDigest, restSigningHash } from '../../crypto/exchange-digest';
import { verifySigner } from '../../crypto/secp256k1';
import type { Address } from '../../util/bytes';
import { parseDecimal } from '../../util/decimal';
import { PRICE_DECIMALS, price6, SIZE_DECIMALS, size18, type Price6, type Size18 } from '../../util/fixed';
import type { ExecContext, TxOp } from '../context';
import { badRequest, TxError, unauthorized } from '../errors';
import { cancelAll, cancelOrder, pairOrThrow, placeOrder, validateOrder, type OrderInput } from '../order-execution';

const SYMBOL_RE = /^[A-Z0-9]{1,12}$/;
const ORDER_ID_RE = /^[1-9][0-9]{0,17}$/;

export interface ParsedRestOrder {
  symbol: string;
  side: 0 | 1;
  orderType: 0 | 1;
  price: Price6;
  size: Size18;
}

/** Shape of one REST order (400 naming the field). `type` absent means limit (batch items). */
export function parseRestOrder(o: { symbol: string; side: string; type?: string; price: string; amount: string }, field = ''): ParsedRestOrder {
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

function restVerify(digest: Uint8Array, signature: Uint8Array, trader: Address): Address {
  if (!verifySigner(restSigningHash(digest), signature, trader)) throw unauthorized(`signature: does not recover to trader ${trader}`);
  return trader;
}

function restInput(ctx: ExecContext, trader: Address, p: ParsedRestOrder, field = ''): OrderInput {
  return { owner: trader, signer: trader, pairId: pairIdOf(ctx, p.symbol, `${field}symbol`), side: p.side, orderType: p.orderType, price: p.price, size: p.size, leverage: 1, isAgent: false };
}

export const restOrderOp: TxOp<RestOrderBody> = {
  shape: (b) => void parsedSingle(b),
  bounds(state, b) {
    const p = parsedSingle(b);
    const pairId = state.symbolToPair.get(p.symbol);
    if (pairId === undefined) throw badRequest('UNKNOWN_PAIR', `symbol: no pair ${p.symbol}`);
    validateOrder(pairOrThrow(state, pairId), { ...p, leverage: 1 });
  },
  verify: (tx) => restVerify(placeOrderDigest({ ...tx.body, nonce: tx.body.nonce }), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    placeOrder(ctx, restInput(ctx, tx.body.trader, parsedSingle(tx.body)));
  },
};

export const restBatchOp: TxOp<RestBatchBody> = {
  shape: (b) => void parsedBatch(b),
  verify: (tx) => restVerify(batchDigest(tx.body.orders, tx.body.nonce), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  /** Orders apply in sequence; each stands alone: one refused rolls back only itself. */
  apply(ctx, tx) {
    const parsed = parsedBatch(tx.body);
    parsed.forEach((p, index) => {
      const checkpoint = ctx.state.journal.checkpoint();
      try {
        placeOrder(ctx, restInput(ctx, tx.body.trader, p, `orders[${index}].`));
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
  },
  verify: (tx) => restVerify(cancelDigest(tx.body.orderId, tx.body.nonce), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    cancelOrder(ctx, tx.body.trader, BigInt(tx.body.orderId));
  },
};

export const restCancelAllOp: TxOp<RestCancelAllBody> = {
  verify: (tx) => restVerify(cancelAllDigest(tx.body.nonce), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  apply(ctx, tx) {
    const ids = cancelAll(ctx, tx.body.trader);
    ctx.emit({ type: 'CancelAll', trader: tx.body.trader, cancelledIds: ids.map(String) });
  },
};
