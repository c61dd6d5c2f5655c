/**
 * Exchange REST trading (spec "Exchange REST: trading"): POST /v1/order,
 * POST /v1/order/batch, DELETE /v1/order/{orderId}, DELETE /v1/order/cancel-all.
 * Checks at the door in DECISIONS order — shape (400), signature (401), ownership
 * (403/404), nonce (409) — then the transaction goes through consensus and the answer
 * waits until it is final.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { throwIfFailed, type FinalTx } from '../final';
import { encodeTx, TxKind } from '../../codec/tx';
import type { BatchItem } from '../../codec/txs/orders';
import { MAX_BATCH_ORDERS } from '../../codec/txs/orders';
import { batchDigest, cancelAllDigest, cancelDigest, placeOrderDigest, restSigningHash } from '../../crypto/exchange-digest';
import { verifySigner } from '../../crypto/secp256k1';
import { parseRestOrder } from '../../state/ops/orders';
import { TxError } from '../../state/errors';
import { toAddress, type Address } from '../../util/bytes';
import { SIZE_ONE } from '../../state/settlement';
import { ApiError, errorSchema, ok } from '../envelope';
import { address, checkNetwork, decimalString, networkSchema, nonceSchema, parseNonce, parseSignatureField, price6, signatureSchema, size18 } from '../common';

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

/** Signature check at the door: 401 before the transaction is ever admitted. */
function requireSigner(digest: Uint8Array, sig: Uint8Array, trader: Address): void {
  if (!verifySigner(restSigningHash(digest), sig, trader)) throw new ApiError(401, 'INVALID_SIGNATURE', `signature: does not recover to trader ${trader}`);
}

function orderResult(final: FinalTx, symbol: string, side: string, amount: string, price: string | undefined) {
  const events = final.receipt.events as any[];
  const placed = events.find((e) => e.type === 'OrderPlaced');
  const updated = [...events].reverse().find((e) => e.type === 'OrderUpdated' && e.orderId === placed.orderId);
  const trades = events.filter((e) => e.type === 'TradeExecuted' && e.takerOrderId === placed.orderId);
  const filled = trades.reduce((s: bigint, t: any) => s + BigInt(t.size), 0n);
  const notional = trades.reduce((s: bigint, t: any) => s + BigInt(t.usdc), 0n);
  // A market order reports its average fill price (DECISIONS); a limit order its limit.
  const shownPrice = placed.orderType === 0 ? (filled > 0n ? price6((notional * SIZE_ONE) / filled) : '0') : (price ?? '0');
  return {
    orderId: placed.orderId as string,
    symbol,
    side,
    price: shownPrice,
    amount,
    status: updated.status as string,
    filled: size18(filled),
    txHash: final.receipt.txHash,
  };
}

export const tradingRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const chainId = genesis.chainId;
  const state = () => node.chain().state;
  const knownSymbol = (symbol: string, field: string) => {
    if (!state().symbolToPair.has(symbol)) throw new ApiError(400, 'UNKNOWN_PAIR', `${field}: no pair ${symbol}`);
  };
  const shape = (fn: () => unknown) => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof TxError) throw new ApiError(err.status, err.code, err.message);
      throw err;
    }
  };

  app.post<{ Body: OrderBody }>('/v1/order', {
    schema: { body: orderBodySchema, response: errors },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const price = b.price ?? '';
      shape(() => parseRestOrder({ ...b, price }));
      knownSymbol(b.symbol, 'symbol');
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      requireSigner(placeOrderDigest({ symbol: b.symbol, side: b.side, type: b.type, price, amount: b.amount, nonce }), signature, trader);
      const tx = encodeTx(chainId, TxKind.RestOrder, { trader, symbol: b.symbol, side: b.side, type: b.type, price, amount: b.amount, nonce, signature });
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
      b.orders.forEach((o, i) => {
        shape(() => parseRestOrder(o, `orders[${i}].`));
        knownSymbol(o.symbol, `orders[${i}].symbol`);
      });
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      requireSigner(batchDigest(b.orders, nonce), signature, trader);
      const orders = b.orders.map((o) => ({ symbol: o.symbol, side: o.side, price: o.price, amount: o.amount }));
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.RestBatch, { trader, orders, nonce, signature }), trader);
      throwIfFailed(final);
      // Results in submission order: each order's id and status, or why it was refused.
      const events = final.receipt.events as any[];
      const results: unknown[] = [];
      let cursor = 0;
      b.orders.forEach((o, index) => {
        const rejected = events.find((e) => e.type === 'OrderRejected' && e.index === index);
        if (rejected) {
          results.push({ index, symbol: o.symbol, side: o.side, price: o.price, amount: o.amount, status: 'rejected', error: { code: rejected.code, message: rejected.message } });
          return;
        }
        const placed = events.filter((e) => e.type === 'OrderPlaced')[cursor++];
        const updated = [...events].reverse().find((e) => e.type === 'OrderUpdated' && e.orderId === placed.orderId);
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
      const signature = parseSignatureField(b.signature);
      requireSigner(cancelAllDigest(nonce), signature, trader);
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.RestCancelAll, { trader, nonce, signature }), trader);
      throwIfFailed(final);
      const ev = (final.receipt.events as any[]).find((e) => e.type === 'CancelAll');
      const cancelledIds: string[] = ev?.cancelledIds ?? [];
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
      if (!/^[1-9][0-9]{0,17}$/.test(orderId)) throw new ApiError(400, 'INVALID_ORDER_ID', 'orderId: must be a decimal order id');
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const signature = parseSignatureField(b.signature);
      requireSigner(cancelDigest(orderId, nonce), signature, trader);
      const order = state().orders.get(orderId);
      if (!order) throw new ApiError(404, 'UNKNOWN_ORDER', `orderId: no open order ${orderId}`);
      if (order.owner !== trader) throw new ApiError(403, 'NOT_OWNER', `order ${orderId} does not belong to ${trader}`);
      const final = await node.submitAndWait(encodeTx(chainId, TxKind.RestCancel, { trader, orderId, nonce, signature }), trader);
      throwIfFailed(final);
      return ok({ orderId, status: 'cancelled', txHash: final.receipt.txHash });
    },
  });
};
