/**
 * Exchange REST trading (contract [C-trading-*]): POST /v1/order,
 * POST /v1/order/batch, DELETE /v1/order/{orderId}, DELETE /v1/order/cancel-all.
 * The route builds the transaction and the door (src/api/door.ts) asks its operation
 * (src/state/ops/rest-orders.ts) in the order of contract [D-envelope-order] — shape (400), signature (401), who may
 * sign (403); then the route's own lookups (unknown order 404, not the owner 403), the
 * nonce at the mempool (409); then the transaction goes through consensus and the
 * answer waits until it is final.
 */
import type { FastifyPluginAsync } from 'fastify';
import { findEvent } from '../../state/events';
import { TxKind } from '../../codec/tx';
import type { BatchItem } from '../../codec/txs/orders';
import { MAX_BATCH_ORDERS } from '../../codec/txs/orders';
import { toAddress } from '../../util/bytes';
import { SIZE_ONE } from '../../state/settlement';
import { admitAtDoor } from '../door';
import { eventOf, lastEventOf, throwIfFailed, type FinalTx } from '../final';
import type { NodeApi } from '../node-api';
import { ApiError, errorSchema, ok } from '../envelope';
import { address, checkNetwork, decimalString, networkSchema, nonceSchema, parseNonce, price6, signatureSchema, size18 } from '../common';
import { addr, arr, dec, envelope, EX, hex, int, obj, str } from '../schemas';

const orderStatus = { type: 'string', enum: ['open', 'partial', 'filled', 'cancelled', 'rejected'] } as const;
const orderResultSchema = obj({ orderId: dec(), symbol: str(), side: str(), price: str('A market order\u2019s average fill price ("0" unfilled), a limit order\u2019s limit as sent.'), amount: str('As sent.'), status: orderStatus, filled: dec(), txHash: hex() });
const batchResultSchema = {
  oneOf: [
    obj({ index: int(), orderId: dec(), symbol: str(), side: str(), price: str(), amount: str(), status: orderStatus }),
    obj({ index: int(), symbol: str(), side: str(), price: str(), amount: str(), status: { type: 'string', const: 'rejected' }, error: obj({ code: str(), message: str() }) }),
  ],
};
const signedExample = { trader: EX.address, nonce: 1, signature: EX.signature };

const errors = { '4xx': errorSchema, '5xx': errorSchema };

interface Signed {
  trader: string;
  signature?: string;
  nonce: number | string;
  network?: string;
}

type OrderBody = Signed & { symbol: string; side: string; type: string; price?: string; amount: string };

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
  },
} as const;

const signedSchema = {
  type: 'object',
  required: ['trader', 'nonce'],
  additionalProperties: false,
  properties: { trader: address, signature: signatureSchema, nonce: nonceSchema, network: networkSchema },
} as const;

function orderResult(final: FinalTx, symbol: string, side: string, amount: string, price: string | undefined) {
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
  };
}

export const tradingRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;
  /** The pair a symbol names must exist (execution refuses it too, once in a block). */
  const knownSymbol = (symbol: string, field: string) => {
    if (!state().symbolToPair.has(symbol)) throw new ApiError(400, 'UNKNOWN_PAIR', `${field}: no pair ${symbol}`);
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
      const { tx } = admitAtDoor(state(), TxKind.RestOrder, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, symbol: b.symbol, side: b.side, type: b.type, price: b.price ?? '', amount: b.amount, nonce, signature }),
        routeRules: (body) => knownSymbol(body.symbol, 'symbol'),
      });
      const final = await node.submitAndWait(tx, trader);
      throwIfFailed(final);
      return ok(orderResult(final, b.symbol, b.side, b.amount, b.price));
    },
  });

  app.post<{ Body: Signed & { orders: BatchItem[] } }>('/v1/order/batch', {
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
              properties: { symbol: { type: 'string', maxLength: 20 }, side: { type: 'string', maxLength: 10 }, price: decimalString, amount: decimalString },
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
      const orders = b.orders.map((o) => ({ symbol: o.symbol, side: o.side, price: o.price, amount: o.amount }));
      const { tx } = admitAtDoor(state(), TxKind.RestBatch, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, orders, nonce, signature }),
        routeRules: (body) => body.orders.forEach((o, i) => knownSymbol(o.symbol, `orders[${i}].symbol`)),
      });
      const final = await node.submitAndWait(tx, trader);
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
        results.push({ index, orderId: placed.orderId, symbol: o.symbol, side: o.side, price: o.price, amount: o.amount, status: updated.status });
      });
      return ok({ trader, orders: results, txHash: final.receipt.txHash });
    },
  });

  app.delete<{ Body: Signed }>('/v1/order/cancel-all', {
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
      const { tx } = admitAtDoor(state(), TxKind.RestCancelAll, { signature: b.signature, signers: [trader], body: (signature) => ({ trader, nonce, signature }) });
      const final = await node.submitAndWait(tx, trader);
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

  app.delete<{ Params: { orderId: string }; Body: Signed }>('/v1/order/:orderId', {
    schema: {
      tags: ['trading'],
      summary: 'Cancel one open order',
      description: 'Trader-signed; 404 UNKNOWN_ORDER if not open, 403 NOT_OWNER if another\u2019s. Answers once final.',
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
      const { tx } = admitAtDoor(state(), TxKind.RestCancel, { signature: b.signature, signers: [trader], body: (signature) => ({ trader, orderId, nonce, signature }) });
      const order = state().orders.get(orderId);
      if (!order) throw new ApiError(404, 'UNKNOWN_ORDER', `orderId: no open order ${orderId}`);
      if (order.owner !== trader) throw new ApiError(403, 'NOT_OWNER', `order ${orderId} does not belong to ${trader}`);
      const final = await node.submitAndWait(tx, trader);
      throwIfFailed(final);
      return ok({ orderId, status: 'cancelled', txHash: final.receipt.txHash });
    },
  });
};
