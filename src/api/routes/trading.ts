/**
 * Exchange REST trading (contract [C-trading-*]): POST /v1/order,
 * POST /v1/order/batch, DELETE /v1/order/{orderId}, DELETE /v1/order/cancel-all; and
 * issue 24's (decisions 87–89): the order options (cloid, tif, reduceOnly, expiresAfter:
 * src/api/order-options.ts), POST /v1/order/modify, DELETE /v1/order/by-cloid/{cloid},
 * GET /v1/order/by-cloid/{trader}/{cloid}.
 * The route builds the transaction and the door (src/api/door.ts) asks its operation
 * (src/state/ops/rest-orders.ts) in the order of contract [D-envelope-order] — shape (400), signature (401), who may
 * sign (403); then the route's own lookups (unknown order 404, not the owner 403), the
 * nonce at the mempool (409); then the transaction goes through consensus and the
 * answer waits until it is final.
 */
import type { FastifyPluginAsync } from 'fastify';
import { findEvent } from '../../state/events';
import { TxKind } from '../../codec/tx';
import type { BatchItem, ModifyItem } from '../../codec/txs/orders';
import { orderIdByCloid } from '../../state/orders/records';
import { actionOptionProps, itemOptionProps, optionEcho, parseOrderOptions, placeOptionProps, type OptionFields } from '../order-options';
import { MAX_BATCH_ORDERS } from '../../codec/txs/orders';
import { toAddress } from '../../util/bytes';
import { SIZE_ONE } from '../../state/orders/settlement';
import { admitAtDoor } from '../door';
import { eventOf, lastEventOf, throwIfFailed, type FinalTx } from '../final';
import type { NodeApi } from '../node-api';
import { ApiError, errorSchema, ok } from '../envelope';
import { address, checkNetwork, decimalString, networkSchema, nonceSchema, parseNonce, price6, sideName, signatureSchema, size18, usdc } from '../common';
import type { State } from '../../state/state';
import type { OpenOrder } from '../../state/records';
import type { Hex } from '../../util/bytes';
import { addr, arr, dec, envelope, EX, hex, int, obj, str } from '../schemas';

const orderStatus = { type: 'string', enum: ['open', 'partial', 'filled', 'cancelled', 'rejected'] } as const;
const optionResult = { cloid: str('The client order id, when sent.'), tif: str('The time in force, when sent.'), reduceOnly: { type: 'boolean', description: 'When sent true.' } };
const OPTIONAL_RESULT = ['cloid', 'tif', 'reduceOnly'];
const orderResultSchema = obj(
  {
    orderId: dec(), symbol: str(), side: str(), price: str('A market order\u2019s average fill price ("0" unfilled), a limit order\u2019s limit as sent.'), amount: str('As sent.'), status: orderStatus, filled: dec(), txHash: hex(),
    ...optionResult,
  },
  OPTIONAL_RESULT,
);
const batchResultSchema = {
  oneOf: [
    obj({ index: int(), orderId: dec(), symbol: str(), side: str(), price: str(), amount: str(), status: orderStatus, ...optionResult }, OPTIONAL_RESULT),
    obj({ index: int(), symbol: str(), side: str(), price: str(), amount: str(), status: { type: 'string', const: 'rejected' }, error: obj({ code: str(), message: str() }) }),
  ],
};
const signedExample = { trader: EX.address, nonce: 1, signature: EX.signature };
const EX_CLOID = '0x000102030405060708090a0b0c0d0e0f';
const openOrderSchema = obj(
  {
    orderId: dec(), symbol: str(), pairId: int(), side: str('buy or sell'), type: str('limit'), price: dec(), amount: dec('The order\u2019s total size.'), filled: dec(), remaining: dec(),
    status: { type: 'string', enum: ['open', 'partial'] }, isAgent: { type: 'boolean' }, leverage: int(), locked: dec('USDC held for the rest.'), time: int('Block time of placement (ms).'),
    cloid: str(), tif: { type: 'string', enum: ['Gtc', 'Alo'] }, reduceOnly: { type: 'boolean' },
  },
  ['cloid'],
);
const openOrderExample = {
  orderId: '42', symbol: 'BTC', pairId: 1, side: 'buy', type: 'limit', price: '65000', amount: '0.01', filled: '0', remaining: '0.01', status: 'open', isAgent: false, leverage: 1,
  locked: '650', time: EX.timestampMs, cloid: EX_CLOID, tif: 'Gtc', reduceOnly: false,
};

/** An open order from the chain state, as GET /v1/order/by-cloid shows it. */
function openOrderItem(st: State, o: OpenOrder) {
  return {
    orderId: String(o.id), symbol: st.pairs.get(String(o.pairId))?.symbol ?? '', pairId: o.pairId, side: sideName(o.side), type: 'limit', price: price6(o.price), amount: size18(o.size),
    filled: size18(o.size - o.remaining), remaining: size18(o.remaining), status: o.remaining < o.size ? 'partial' : 'open', isAgent: o.isAgent, leverage: o.leverage,
    locked: usdc(o.locked), time: o.createdMs, ...(o.cloid !== undefined ? { cloid: o.cloid } : {}), tif: o.tif, reduceOnly: o.reduceOnly,
  };
}

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const ORDER_ID_RE = /^[1-9][0-9]{0,17}$/;

interface Signed {
  trader: string;
  signature?: string;
  nonce: number | string;
  network?: string;
}

type BatchBody = Signed & { expiresAfter?: number | string; orders: Array<Omit<BatchItem, 'options'> & OptionFields> };
type OrderBody = Signed & OptionFields & { symbol: string; side: string; type: string; price?: string; amount: string };

const orderBodySchema = {
  type: 'object',
  required: ['symbol', 'side', 'type', 'amount', 'trader', 'nonce'],
  additionalProperties: false,
  properties: {
    symbol: { type: 'string', maxLength: 20, description: 'The pair\u2019s base symbol, e.g. BTC.' },
    side: { type: 'string', maxLength: 10, description: 'buy or sell.' },
    type: { type: 'string', maxLength: 10, description: 'limit or market.' },
    price: { ...decimalString, description: 'Decimal USDC per unit; required for a limit order.' },
    amount: { ...decimalString, description: 'Decimal size in the base asset.' },
    network: networkSchema,
    trader: address,
    signature: signatureSchema,
    nonce: nonceSchema,
    ...placeOptionProps,
  },
} as const;

const signedSchema = {
  type: 'object',
  required: ['trader', 'nonce'],
  additionalProperties: false,
  properties: { trader: address, signature: signatureSchema, nonce: nonceSchema, network: networkSchema, ...actionOptionProps },
} as const;

function orderResult(final: FinalTx, symbol: string, side: string, amount: string, price: string | undefined, options: ReturnType<typeof optionEcho>) {
  const placed = eventOf(final, 'OrderPlaced');
  const updated = lastEventOf(final, 'OrderUpdated', (e) => e.orderId === placed.orderId);
  const trades = final.receipt.events.flatMap((e) => (e.type === 'TradeExecuted' && e.takerOrderId === placed.orderId ? [e] : []));
  const filled = trades.reduce((s, t) => s + t.size, 0n);
  const notional = trades.reduce((s, t) => s + t.usdc, 0n);
  // A market order reports its average fill price (contract [D-orders-market-price]); a limit order its limit.
  const shownPrice = placed.orderType === 0 ? (filled > 0n ? price6((notional * SIZE_ONE) / filled) : '0') : (price ?? '0');
  return {
    orderId: placed.orderId,
    symbol,
    side,
    price: shownPrice,
    amount,
    status: updated.status,
    filled: size18(filled),
    txHash: final.receipt.txHash,
    ...options,
  };
}

export const tradingRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;
  /** The pair a symbol names must exist (execution refuses it too, once in a block). */
  const knownSymbol = (symbol: string, field: string) => {
    if (!state().symbolToPair.has(symbol)) throw new ApiError(400, 'UNKNOWN_PAIR', `${field}: no pair ${symbol}`);
  };
  /**
   * A cancel or modify of an order that is not open (decision 89): the index knows what
   * became of an order placed before (422 ORDER_NOT_OPEN with its state); an id it does
   * not know was never placed (404 UNKNOWN_ORDER).
   */
  const notOpen = async (orderId: string, field: string): Promise<ApiError> => {
    const item = ORDER_ID_RE.test(orderId) ? await (await node.indexAt())?.order(orderId) : undefined;
    if (item) return new ApiError(422, 'ORDER_NOT_OPEN', `${field}: order ${orderId} is ${item.status}, not open`);
    return new ApiError(404, 'UNKNOWN_ORDER', `${field}: no open order ${orderId}`);
  };

  app.post<{ Body: OrderBody }>('/v1/order', {
    schema: {
      tags: ['trading'],
      summary: 'Place a spot order',
      description: 'Trader-signed. `type` limit or market, `side` buy or sell, decimal `price` and `amount`. Checked in the order shape (400), signature (401), who may sign (403), then the nonce (409); answers once final, with the order\u2019s status after matching.',
      body: { ...orderBodySchema, examples: [{ symbol: 'BTC', side: 'buy', type: 'limit', price: '65000', amount: '0.01', ...signedExample }] },
      response: { 200: envelope(orderResultSchema, { orderId: '42', symbol: 'BTC', side: 'buy', price: '65000', amount: '0.01', status: 'open', filled: '0', txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = parseOrderOptions(b);
      const { tx, signer } = admitAtDoor(state(), TxKind.RestOrder, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, symbol: b.symbol, side: b.side, type: b.type, price: b.price ?? '', amount: b.amount, nonce, signature, ...(options ? { options } : {}) }),
        routeRules: (body) => knownSymbol(body.symbol, 'symbol'),
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      return ok(orderResult(final, b.symbol, b.side, b.amount, b.price, optionEcho(options)));
    },
  });

  app.post<{ Body: BatchBody }>('/v1/order/batch', {
    schema: {
      body: {
        type: 'object',
        required: ['orders', 'trader', 'nonce'],
        additionalProperties: false,
        properties: {
          ...signedSchema.properties,
          orders: {
            type: 'array',
            minItems: 1,
            maxItems: MAX_BATCH_ORDERS,
            items: {
              type: 'object',
              required: ['symbol', 'side', 'price', 'amount'],
              additionalProperties: false,
              properties: { symbol: { type: 'string', maxLength: 20 }, side: { type: 'string', maxLength: 10 }, price: decimalString, amount: decimalString, ...itemOptionProps },
            },
          },
        },
        examples: [{ orders: [{ symbol: 'BTC', side: 'buy', price: '64990', amount: '0.01' }, { symbol: 'BTC', side: 'sell', price: '65010', amount: '0.01' }], ...signedExample }],
      },
      tags: ['trading'],
      summary: 'Place several limit orders in one transaction',
      description: 'Up to MAX_BATCH_ORDERS orders, one signature. Results in submission order: each order\u2019s id and status, or why it was refused.',
      response: {
        200: envelope(obj({ trader: addr(), orders: arr(batchResultSchema), txHash: hex() }), {
          trader: EX.address, orders: [{ index: 0, orderId: '42', symbol: 'BTC', side: 'buy', price: '64990', amount: '0.01', status: 'open' }, { index: 1, symbol: 'BTC', side: 'sell', price: '65010', amount: '0.01', status: 'rejected', error: { code: 'SELF_TRADE', message: 'would trade against the trader\u2019s own order' } }], txHash: EX.hash,
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const itemOptions = b.orders.map((o, i) => parseOrderOptions(o, `orders[${i}].`));
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const orders: BatchItem[] = b.orders.map((o, i) => ({ symbol: o.symbol, side: o.side, price: o.price, amount: o.amount, ...(itemOptions[i] ? { options: itemOptions[i] } : {}) }));
      const { tx, signer } = admitAtDoor(state(), TxKind.RestBatch, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, orders, nonce, signature, ...(options ? { options } : {}) }),
        routeRules: (body) => body.orders.forEach((o, i) => knownSymbol(o.symbol, `orders[${i}].symbol`)),
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      // Results in submission order: each order's id and status, or why it was refused.
      const events = final.receipt.events;
      const placedInOrder = events.flatMap((e) => (e.type === 'OrderPlaced' ? [e] : []));
      const results: unknown[] = [];
      let cursor = 0;
      b.orders.forEach((o, index) => {
        const rejected = findEvent(events, 'OrderRejected', (e) => e.index === index);
        if (rejected) {
          results.push({ index, symbol: o.symbol, side: o.side, price: o.price, amount: o.amount, status: 'rejected', error: { code: rejected.code, message: rejected.message } });
          return;
        }
        const placed = placedInOrder[cursor++];
        const updated = lastEventOf(final, 'OrderUpdated', (e) => e.orderId === placed.orderId);
        results.push({ index, orderId: placed.orderId, symbol: o.symbol, side: o.side, price: o.price, amount: o.amount, status: updated.status, ...optionEcho(itemOptions[index]) });
      });
      return ok({ trader, orders: results, txHash: final.receipt.txHash });
    },
  });

  app.delete<{ Body: Signed & { expiresAfter?: number | string } }>('/v1/order/cancel-all', {
    schema: {
      tags: ['trading'],
      summary: 'Cancel all of the trader\u2019s open orders',
      description: 'Trader-signed; answers once final with the ids cancelled.',
      body: { ...signedSchema, examples: [signedExample] },
      response: {
        200: envelope(obj({ trader: addr(), totalOrders: int('Orders the trader ever placed (from the index).'), openOrders: int(), cancelled: int(), cancelledIds: arr(dec()), txHash: hex() }), { trader: EX.address, totalOrders: 5, openOrders: 2, cancelled: 2, cancelledIds: ['41', '42'], txHash: EX.hash }),
        ...errors,
      },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const { tx, signer } = admitAtDoor(state(), TxKind.RestCancelAll, { signature: b.signature, signers: [trader], body: (signature) => ({ trader, nonce, signature, ...(options ? { options } : {}) }) });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const cancelledIds = findEvent(final.receipt.events, 'CancelAll')?.cancelledIds ?? [];
      const totalOrders = (await (await node.indexAt(final.height))?.orderCount(trader)) ?? cancelledIds.length;
      return ok({
        trader,
        totalOrders,
        openOrders: cancelledIds.length,
        cancelled: cancelledIds.length,
        cancelledIds,
        txHash: final.receipt.txHash,
      });
    },
  });

  app.delete<{ Params: { orderId: string }; Body: Signed & { expiresAfter?: number | string } }>('/v1/order/:orderId', {
    schema: {
      tags: ['trading'],
      summary: 'Cancel one open order',
      description: 'Trader-signed; 404 UNKNOWN_ORDER if never placed, 422 ORDER_NOT_OPEN (its state in the message) if filled or cancelled, 403 NOT_OWNER if another\u2019s. Answers once final.',
      params: { type: 'object', properties: { orderId: { type: 'string', description: 'The order id.', examples: ['42'] } } },
      body: { ...signedSchema, examples: [signedExample] },
      response: { 200: envelope(obj({ orderId: str(), status: str('cancelled'), txHash: hex() }), { orderId: '42', status: 'cancelled', txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const { orderId } = req.params;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const { tx, signer } = admitAtDoor(state(), TxKind.RestCancel, { signature: b.signature, signers: [trader], body: (signature) => ({ trader, orderId, nonce, signature, ...(options ? { options } : {}) }) });
      const order = state().orders.get(orderId);
      if (!order) throw await notOpen(orderId, 'orderId');
      if (order.owner !== trader) throw new ApiError(403, 'NOT_OWNER', `order ${orderId} does not belong to ${trader}`);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      return ok({ orderId, status: 'cancelled', txHash: final.receipt.txHash });
    },
  });

  const modifyResultSchema = {
    oneOf: [
      obj({ index: int(), orderId: dec(), price: str('The new price as sent.'), amount: str('The new unfilled size (may be less than sent: reduce-only).'), remaining: dec(), requeued: { type: 'boolean', description: 'Lost its time priority (price moved or size grew).' }, status: { type: 'string', enum: ['open', 'partial'] }, cloid: str() }, ['cloid']),
      obj({ index: int(), orderId: dec(), price: str(), amount: str(), status: { type: 'string', const: 'rejected' }, error: obj({ code: str(), message: str() }) }),
    ],
  };

  app.post<{ Body: Signed & { expiresAfter?: number | string; orders: ModifyItem[] } }>('/v1/order/modify', {
    schema: {
      tags: ['trading'],
      summary: 'Modify the price and size of 1 to 10 resting orders',
      description:
        'Trader-signed (digest "modify" + orderId+price+amount of each, nonce). Each order keeps its id; `amount` is its new unfilled size. It keeps its time priority when only the size shrinks, and goes to the back of its level when the price changes or the size grows. A modify never takes: a price that meets the opposite side is refused 422 WOULD_TAKE. One modify: a refusal is the answer; several: each stands alone, refused ones listed with their error.',
      body: {
        type: 'object',
        required: ['orders', 'trader', 'nonce'],
        additionalProperties: false,
        properties: {
          ...signedSchema.properties,
          orders: {
            type: 'array',
            minItems: 1,
            maxItems: MAX_BATCH_ORDERS,
            items: {
              type: 'object',
              required: ['orderId', 'price', 'amount'],
              additionalProperties: false,
              properties: { orderId: { type: 'string', maxLength: 20 }, price: decimalString, amount: decimalString },
            },
          },
        },
        examples: [{ orders: [{ orderId: '42', price: '64995', amount: '0.02' }], ...signedExample }],
      },
      response: {
        200: envelope(obj({ trader: addr(), orders: arr(modifyResultSchema), txHash: hex() }), {
          trader: EX.address, orders: [{ index: 0, orderId: '42', price: '64995', amount: '0.02', remaining: '0.02', requeued: true, status: 'open' }], txHash: EX.hash,
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const orders = b.orders.map((o) => ({ orderId: o.orderId, price: o.price, amount: o.amount }));
      const { tx, signer } = admitAtDoor(state(), TxKind.RestModify, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, orders, nonce, signature, ...(options ? { options } : {}) }),
      });
      if (orders.length === 1) {
        const order = state().orders.get(orders[0].orderId);
        if (!order) throw await notOpen(orders[0].orderId, 'orders[0].orderId');
        if (order.owner !== trader) throw new ApiError(403, 'NOT_OWNER', `order ${orders[0].orderId} does not belong to ${trader}`);
      }
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const events = final.receipt.events;
      const results = orders.map((o, index) => {
        const refused = findEvent(events, 'OrderRejected', (e) => e.index === index);
        if (refused) return { index, orderId: o.orderId, price: o.price, amount: o.amount, status: 'rejected', error: { code: refused.code, message: refused.message } };
        const m = lastEventOf(final, 'OrderModified', (e) => e.orderId === o.orderId);
        return {
          index, orderId: o.orderId, price: o.price, amount: size18(m.remaining), remaining: String(m.remaining), requeued: m.requeued,
          status: m.size > m.remaining ? 'partial' : 'open', ...(m.cloid !== undefined ? { cloid: m.cloid } : {}),
        };
      });
      return ok({ trader, orders: results, txHash: final.receipt.txHash });
    },
  });

  app.delete<{ Params: { cloid: string }; Body: Signed & { expiresAfter?: number | string } }>('/v1/order/by-cloid/:cloid', {
    schema: {
      tags: ['trading'],
      summary: 'Cancel the open order a client order id names',
      description: 'Trader-signed (digest "cancel-cloid" + cloid, nonce). 400 INVALID_ORDER_ID for a malformed cloid, 404 UNKNOWN_ORDER when the trader has no open order with it. Answers once final.',
      params: { type: 'object', properties: { cloid: { type: 'string', maxLength: 80, description: 'The client order id: 0x and 32 lower-case hex digits.', examples: [EX_CLOID] } } },
      body: { ...signedSchema, examples: [signedExample] },
      response: { 200: envelope(obj({ orderId: str(), cloid: str(), status: str('cancelled'), txHash: hex() }), { orderId: '42', cloid: EX_CLOID, status: 'cancelled', txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const { cloid } = req.params;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const { tx, signer } = admitAtDoor(state(), TxKind.RestCancelByCloid, { signature: b.signature, signers: [trader], body: (signature) => ({ trader, cloid, nonce, signature, ...(options ? { options } : {}) }) });
      if (orderIdByCloid(state(), trader, cloid as Hex) === undefined) throw new ApiError(404, 'UNKNOWN_ORDER', `cloid: ${trader} has no open order with cloid ${cloid}`);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const cancelled = lastEventOf(final, 'OrderUpdated', (e) => e.status === 'cancelled' && e.cloid === cloid);
      return ok({ orderId: cancelled.orderId, cloid, status: 'cancelled', txHash: final.receipt.txHash });
    },
  });

  app.get<{ Params: { trader: string; cloid: string }; Querystring: { network?: string } }>('/v1/order/by-cloid/:trader/:cloid', {
    schema: {
      tags: ['trading'],
      summary: 'A trader\u2019s open order by client order id',
      description: 'From the chain state at the head: the open order the trader\u2019s cloid names; 404 UNKNOWN_ORDER when none is open (a cloid is unique among open orders only).',
      params: { type: 'object', properties: { trader: address, cloid: { type: 'string', pattern: '^0x[0-9a-f]{32}$' } } },
      querystring: { type: 'object', additionalProperties: false, properties: { network: networkSchema } },
      response: { 200: envelope(openOrderSchema, openOrderExample), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const trader = toAddress(req.params.trader);
      const id = orderIdByCloid(state(), trader, req.params.cloid as Hex);
      const order = id === undefined ? undefined : state().orders.get(String(id));
      if (!order) throw new ApiError(404, 'UNKNOWN_ORDER', `cloid: ${trader} has no open order with cloid ${req.params.cloid}`);
      return ok(openOrderItem(state(), order));
    },
  });
};
