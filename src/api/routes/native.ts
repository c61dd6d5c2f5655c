/**
 * Native routes (no version prefix; plain objects, contract [D-envelope-native]; integer strings in
 * base units: price ×1e6, size ×1e18, USDC ×1e6). /balance answers JSON numbers in
 * 6-decimal units (contract [C-res-vault-balance], [D-envelope-amounts]); /reserves is
 * with the bridge's reads (./bridge.ts).
 *
 * /order/place and /order/cancel are signed by `session_key` (absent: the owner): the
 * owner itself or the owner's live session key (docs/api.md "Sessions and agents").
 * A session key's order is an agent order, checked in execution against the owner's
 * agent mode and caps.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { eventOf, lastEventOf, throwIfFailed } from '../final';
import { admitAtDoor } from '../door';
import { TxKind } from '../../codec/tx';
import { toAddress } from '../../util/bytes';
import { ApiError, errorSchema } from '../envelope';
import { address, nonceSchema, parseNonce, signatureSchema } from '../common';
import { addr, arr, dec, EX, hex, int, num as jsonNumber, obj, reply, str } from '../schemas';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const uintString = { type: 'string', pattern: '^(0|[1-9][0-9]{0,77})$' } as const;

/** 6-decimal units as a JSON number (exact below 2^53 units = 9 billion USDC). */
const num = (v: bigint) => Number(v);

export const nativeRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;

  app.post<{
    Body: { pair_id: number; side: string; size: string; owner: string; session_key?: string; order_type: string; price?: string; leverage?: number; signature?: string; nonce: number | string };
  }>('/order/place', {
    schema: {
      body: {
        type: 'object',
        required: ['pair_id', 'side', 'size', 'owner', 'order_type', 'nonce'],
        additionalProperties: false,
        properties: {
          pair_id: { type: 'integer', minimum: 0, maximum: 4294967295 },
          side: { type: 'string', enum: ['Buy', 'Sell'] },
          size: uintString,
          owner: address,
          session_key: address,
          order_type: { type: 'string', enum: ['Market', 'Limit'] },
          price: uintString,
          leverage: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
          signature: signatureSchema,
          nonce: nonceSchema,
        },
        examples: [{ pair_id: 1, side: 'Buy', size: '10000000000000000', owner: EX.owner, order_type: 'Limit', price: '65000000000', leverage: 1, nonce: 1, signature: EX.signature }],
      },
      tags: ['native'],
      summary: 'Place an order (native)',
      description: 'Signed by `session_key` (absent: the owner): the owner or its live session key; a session key\u2019s order is an agent order, checked against the owner\u2019s mode and caps. Integer strings in base units: price \u00d71e6, size \u00d71e18. Answers once final.',
      response: {
        200: reply(obj({ success: { type: 'boolean', const: true }, order_id: dec(), status: str('open, partial, filled, cancelled'), filled: dec(), remaining: dec(), tx_hash: hex() }), { success: true, order_id: '42', status: 'open', filled: '0', remaining: '10000000000000000', tx_hash: EX.hash }),
        ...errors,
      },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const signer = toAddress(b.session_key ?? b.owner);
      const nonce = parseNonce(b.nonce);
      const orderType = b.order_type === 'Limit' ? 1 : 0;
      const price = BigInt(b.price ?? '0');
      // Who may sign is the operation's `trader` rule: the owner or its live session key (src/api/door.ts).
      const { tx } = admitAtDoor(state(), TxKind.NativePlace, {
        signature: b.signature,
        signers: [signer],
        body: (signature) => ({
          owner, signer, pairId: b.pair_id, side: b.side === 'Buy' ? 0 : 1, orderType, price, size: BigInt(b.size), leverage: b.leverage ?? 1, nonce, signature,
        }),
        routeRules: (body) => {
          if (!state().pairs.has(String(body.pairId))) throw new ApiError(400, 'UNKNOWN_PAIR', `pair_id: no pair ${body.pairId}`);
          if (body.orderType === 1 && body.price === 0n) throw new ApiError(400, 'INVALID_PRICE', 'price: a limit order needs a positive price');
        },
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const placed = eventOf(final, 'OrderPlaced');
      const updated = lastEventOf(final, 'OrderUpdated', (e) => e.orderId === placed.orderId);
      return { success: true, order_id: placed.orderId, status: updated.status, filled: String(updated.filled), remaining: String(updated.remaining), tx_hash: final.receipt.txHash };
    },
  });

  app.post<{ Body: { order_id: string; owner: string; session_key?: string; signature?: string; nonce: number | string } }>('/order/cancel', {
    schema: {
      body: {
        type: 'object',
        required: ['order_id', 'owner', 'nonce'],
        additionalProperties: false,
        properties: { order_id: uintString, owner: address, session_key: address, signature: signatureSchema, nonce: nonceSchema },
        examples: [{ order_id: '42', owner: EX.owner, nonce: 2, signature: EX.signature }],
      },
      tags: ['native'],
      summary: 'Cancel an open order (native)',
      description: '404 UNKNOWN_ORDER if not open, 403 NOT_OWNER if another\u2019s. Answers once final.',
      response: { 200: reply(obj({ success: { type: 'boolean', const: true }, order_id: dec(), status: str('cancelled'), tx_hash: hex() }), { success: true, order_id: '42', status: 'cancelled', tx_hash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const signer = toAddress(b.session_key ?? b.owner);
      const orderId = BigInt(b.order_id);
      const nonce = parseNonce(b.nonce);
      const { tx } = admitAtDoor(state(), TxKind.NativeCancel, { signature: b.signature, signers: [signer], body: (signature) => ({ owner, signer, orderId, nonce, signature }) });
      const order = state().orders.get(String(orderId));
      if (!order) throw new ApiError(404, 'UNKNOWN_ORDER', `order_id: no open order ${orderId}`);
      if (order.owner !== owner) throw new ApiError(403, 'NOT_OWNER', `order ${orderId} does not belong to ${owner}`);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      return { success: true, order_id: String(orderId), status: 'cancelled', tx_hash: final.receipt.txHash };
    },
  });

  app.get<{ Params: { pair_id: string } }>('/orderbook/:pair_id', {
    schema: {
      tags: ['native'],
      summary: 'A pair\u2019s book by price level (native)',
      description: 'Levels aggregated by price, best first, up to the genesis maxDepth; integer strings in base units.',
      params: { type: 'object', properties: { pair_id: { type: 'string', pattern: '^[0-9]{1,10}$' } } },
      response: {
        200: reply(obj({ pair_id: int(), symbol: str(), bids: arr(obj({ price: dec(), size: dec(), orders: int() })), asks: arr(obj({ price: dec(), size: dec(), orders: int() })) }), {
          pair_id: 1, symbol: 'BTC', bids: [{ price: '64990000000', size: '20000000000000000', orders: 2 }], asks: [],
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      const pair = state().pairs.get(String(Number(req.params.pair_id)));
      if (!pair) throw new ApiError(404, 'UNKNOWN_PAIR', `pair_id: no pair ${req.params.pair_id}`);
      const depth = state().book(pair.id).depth(genesis.limits.maxDepth);
      const level = (l: { price: bigint; size: bigint; orders: number }) => ({ price: String(l.price), size: String(l.size), orders: l.orders });
      return { pair_id: pair.id, symbol: pair.symbol, bids: depth.bids.map(level), asks: depth.asks.map(level) };
    },
  });

  app.get<{ Params: { address: string } }>('/orders/:address', {
    schema: {
      tags: ['native'],
      summary: 'An address\u2019s open orders (native)',
      params: { type: 'object', properties: { address } },
      response: {
        200: reply(obj({ address: addr(), orders: arr(obj({ order_id: dec(), pair_id: int(), side: { type: 'string', enum: ['Buy', 'Sell'] }, price: dec(), size: dec(), remaining: dec(), leverage: int(), locked: dec('USDC base units.'), status: { type: 'string', enum: ['open', 'partial'] } })) }), {
          address: EX.address, orders: [{ order_id: '42', pair_id: 1, side: 'Buy', price: '65000000000', size: '10000000000000000', remaining: '10000000000000000', leverage: 1, locked: '650000000', status: 'open' }],
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      const owner = toAddress(req.params.address);
      const orders = state()
        .openOrderIds(owner)
        .map((id) => state().orders.get(String(id))!)
        .map((o) => ({
          order_id: String(o.id), pair_id: o.pairId, side: o.side === 0 ? 'Buy' : 'Sell', price: String(o.price), size: String(o.size),
          remaining: String(o.remaining), leverage: o.leverage, locked: String(o.locked), status: o.remaining < o.size ? 'partial' : 'open',
        }));
      return { address: owner, orders };
    },
  });

  app.get<{ Params: { address: string } }>('/balance/:address', {
    schema: {
      tags: ['native'],
      summary: 'An address\u2019s balances (native)',
      description: 'JSON numbers in USDC base units (6 decimals); `native_wei` a decimal string.',
      params: { type: 'object', properties: { address } },
      response: {
        200: reply(obj({ address: addr(), total: jsonNumber(), free_balance: jsonNumber(), locked: jsonNumber(), available: jsonNumber(), reserved: jsonNumber(), in_positions: jsonNumber(), native_wei: dec() }), {
          address: EX.address, total: 1000000000, free_balance: 900000000, locked: 100000000, available: 900000000, reserved: 100000000, in_positions: 0, native_wei: '1000000000000000000',
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      const a = state().account(toAddress(req.params.address));
      const total = a.usdcFree + a.usdcLocked + a.usdcInPositions;
      return {
        address: req.params.address.toLowerCase(),
        total: num(total),
        free_balance: num(a.usdcFree),
        locked: num(a.usdcLocked),
        available: num(a.usdcFree > 0n ? a.usdcFree : 0n),
        reserved: num(a.usdcLocked),
        in_positions: num(a.usdcInPositions),
        native_wei: String(a.nativeWei),
      };
    },
  });
};
