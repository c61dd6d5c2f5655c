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
    symbol: { type: 'string', maxLength: 20 },
    side: { type: 'string', maxLength: 10 },
    type: { type: 'string', maxLength: 10 },
    price: decimalString,
    amount: decimalString,
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
    schema: { body: orderBodySchema, response: errors },
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
      },
      response: errors,
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
    schema: { body: signedSchema, response: errors },
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
    schema: { body: signedSchema, response: errors },
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
