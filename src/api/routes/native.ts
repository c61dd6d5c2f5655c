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
 *
 * Issue 24 (decisions 87, 88): /order/place takes the order options (cloid, tif,
 * reduceOnly, expiresAfter: src/api/order-options.ts) signed as a trailing `string
 * options` member of PlaceOrder; /order/modify (EIP-712 ModifyOrder) and
 * /order/cancel-by-cloid (EIP-712 CancelByCloid) are signed the same way.
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
import { actionOptionProps, cloidSchema, optionEcho, parseOrderOptions, placeOptionProps, type OptionFields } from '../order-options';
import { orderIdByCloid } from '../../state/orders/records';
import type { Hex } from '../../util/bytes';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const uintString = { type: 'string', pattern: '^(0|[1-9][0-9]{0,77})$' } as const;

/** 6-decimal units as a JSON number (exact below 2^53 units = 9 billion USDC). */
const num = (v: bigint) => Number(v);

export const nativeRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;
  /** Not open (decision 89): 422 ORDER_NOT_OPEN with its state when the index knows it, else 404 UNKNOWN_ORDER. */
  const notOpen = async (orderId: string, field: string): Promise<ApiError> => {
    const item = /^[1-9][0-9]{0,17}$/.test(orderId) ? await (await node.indexAt())?.order(orderId) : undefined;
    if (item) return new ApiError(422, 'ORDER_NOT_OPEN', `${field}: order ${orderId} is ${item.status}, not open`);
    return new ApiError(404, 'UNKNOWN_ORDER', `${field}: no open order ${orderId}`);
  };

  app.post<{
    Body: OptionFields & { pair_id: number; side: string; size: string; owner: string; session_key?: string; order_type: string; price?: string; leverage?: number; signature?: string; nonce: number | string };
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
          ...placeOptionProps,
        },
        examples: [{ pair_id: 1, side: 'Buy', size: '10000000000000000', owner: EX.owner, order_type: 'Limit', price: '65000000000', leverage: 1, nonce: 1, signature: EX.signature }],
      },
      tags: ['native'],
      summary: 'Place an order (native)',
      description: 'Signed by `session_key` (absent: the owner): the owner or its live session key; a session key\u2019s order is an agent order, checked against the owner\u2019s mode and caps. Integer strings in base units: price \u00d71e6, size \u00d71e18. Answers once final.',
      response: {
        200: reply(
          obj(
            { success: { type: 'boolean', const: true }, order_id: dec(), status: str('open, partial, filled, cancelled'), filled: dec(), remaining: dec(), tx_hash: hex(), cloid: str(), tif: str(), reduceOnly: { type: 'boolean' } },
            ['cloid', 'tif', 'reduceOnly'],
          ),
          { success: true, order_id: '42', status: 'open', filled: '0', remaining: '10000000000000000', tx_hash: EX.hash },
        ),
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
      const options = parseOrderOptions(b);
      // Who may sign is the operation's `trader` rule: the owner or its live session key (src/api/door.ts).
      const { tx } = admitAtDoor(state(), TxKind.NativePlace, {
        signature: b.signature,
        signers: [signer],
        body: (signature) => ({
          owner, signer, pairId: b.pair_id, side: b.side === 'Buy' ? 0 : 1, orderType, price, size: BigInt(b.size), leverage: b.leverage ?? 1, nonce, signature,
          ...(options ? { options } : {}),
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
      return {
        success: true, order_id: placed.orderId, status: updated.status, filled: String(updated.filled), remaining: String(updated.remaining), tx_hash: final.receipt.txHash,
        ...optionEcho(options),
      };
    },
  });

  app.post<{ Body: { order_id: string; owner: string; session_key?: string; signature?: string; nonce: number | string; expiresAfter?: number | string } }>('/order/cancel', {
    schema: {
      body: {
        type: 'object',
        required: ['order_id', 'owner', 'nonce'],
        additionalProperties: false,
        properties: { order_id: uintString, owner: address, session_key: address, signature: signatureSchema, nonce: nonceSchema, ...actionOptionProps },
        examples: [{ order_id: '42', owner: EX.owner, nonce: 2, signature: EX.signature }],
      },
      tags: ['native'],
      summary: 'Cancel an open order (native)',
      description: '404 UNKNOWN_ORDER if never placed, 422 ORDER_NOT_OPEN (its state in the message) if filled or cancelled, 403 NOT_OWNER if another\u2019s. Answers once final.',
      response: { 200: reply(obj({ success: { type: 'boolean', const: true }, order_id: dec(), status: str('cancelled'), tx_hash: hex() }), { success: true, order_id: '42', status: 'cancelled', tx_hash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const signer = toAddress(b.session_key ?? b.owner);
      const orderId = BigInt(b.order_id);
      const nonce = parseNonce(b.nonce);
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const { tx } = admitAtDoor(state(), TxKind.NativeCancel, { signature: b.signature, signers: [signer], body: (signature) => ({ owner, signer, orderId, nonce, signature, ...(options ? { options } : {}) }) });
      const order = state().orders.get(String(orderId));
      if (!order) throw await notOpen(String(orderId), 'order_id');
      if (order.owner !== owner) throw new ApiError(403, 'NOT_OWNER', `order ${orderId} does not belong to ${owner}`);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      return { success: true, order_id: String(orderId), status: 'cancelled', tx_hash: final.receipt.txHash };
    },
  });

  app.post<{ Body: { order_id: string; price: string; size: string; owner: string; session_key?: string; signature?: string; nonce: number | string; expiresAfter?: number | string } }>('/order/modify', {
    schema: {
      body: {
        type: 'object',
        required: ['order_id', 'price', 'size', 'owner', 'nonce'],
        additionalProperties: false,
        properties: { order_id: uintString, price: uintString, size: uintString, owner: address, session_key: address, signature: signatureSchema, nonce: nonceSchema, ...actionOptionProps },
        examples: [{ order_id: '42', price: '64995000000', size: '20000000000000000', owner: EX.owner, nonce: 3, signature: EX.signature }],
      },
      tags: ['native'],
      summary: 'Modify a resting order\u2019s price and size (native)',
      description:
        'EIP-712 ModifyOrder(address owner,uint256 orderId,uint256 price,uint256 size,uint256 nonce), signed by `session_key` (absent: the owner). `size` is the new unfilled size (\u00d71e18), `price` \u00d71e6. Keeps the id; loses time priority when the price changes or the size grows; never takes (422 WOULD_TAKE). Answers once final.',
      response: {
        200: reply(obj({ success: { type: 'boolean', const: true }, order_id: dec(), price: dec(), remaining: dec(), requeued: { type: 'boolean' }, tx_hash: hex() }), { success: true, order_id: '42', price: '64995000000', remaining: '20000000000000000', requeued: true, tx_hash: EX.hash }),
        ...errors,
      },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const signer = toAddress(b.session_key ?? b.owner);
      const orderId = BigInt(b.order_id);
      const nonce = parseNonce(b.nonce);
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const { tx } = admitAtDoor(state(), TxKind.NativeModify, {
        signature: b.signature,
        signers: [signer],
        body: (signature) => ({ owner, signer, orderId, price: BigInt(b.price), size: BigInt(b.size), nonce, signature, ...(options ? { options } : {}) }),
      });
      const order = state().orders.get(String(orderId));
      if (!order) throw await notOpen(String(orderId), 'order_id');
      if (order.owner !== owner) throw new ApiError(403, 'NOT_OWNER', `order ${orderId} does not belong to ${owner}`);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const m = lastEventOf(final, 'OrderModified', (e) => e.orderId === String(orderId));
      return { success: true, order_id: String(orderId), price: String(m.price), remaining: String(m.remaining), requeued: m.requeued, tx_hash: final.receipt.txHash };
    },
  });

  app.post<{ Body: { cloid: string; owner: string; session_key?: string; signature?: string; nonce: number | string; expiresAfter?: number | string } }>('/order/cancel-by-cloid', {
    schema: {
      body: {
        type: 'object',
        required: ['cloid', 'owner', 'nonce'],
        additionalProperties: false,
        properties: { cloid: cloidSchema, owner: address, session_key: address, signature: signatureSchema, nonce: nonceSchema, ...actionOptionProps },
        examples: [{ cloid: '0x000102030405060708090a0b0c0d0e0f', owner: EX.owner, nonce: 4, signature: EX.signature }],
      },
      tags: ['native'],
      summary: 'Cancel the open order a client order id names (native)',
      description: 'EIP-712 CancelByCloid(address owner,bytes16 cloid,uint256 nonce). 400 INVALID_OPTIONS for a malformed cloid, 404 UNKNOWN_ORDER when the owner has no open order with it. Answers once final.',
      response: { 200: reply(obj({ success: { type: 'boolean', const: true }, order_id: dec(), cloid: str(), status: str('cancelled'), tx_hash: hex() }), { success: true, order_id: '42', cloid: '0x000102030405060708090a0b0c0d0e0f', status: 'cancelled', tx_hash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      const owner = toAddress(b.owner);
      const signer = toAddress(b.session_key ?? b.owner);
      const nonce = parseNonce(b.nonce);
      const cloid = parseOrderOptions({ cloid: b.cloid })!.cloid as Hex;
      const options = parseOrderOptions({ expiresAfter: b.expiresAfter });
      const { tx } = admitAtDoor(state(), TxKind.NativeCancelByCloid, { signature: b.signature, signers: [signer], body: (signature) => ({ owner, signer, cloid, nonce, signature, ...(options ? { options } : {}) }) });
      const id = orderIdByCloid(state(), owner, cloid);
      if (id === undefined) throw new ApiError(404, 'UNKNOWN_ORDER', `cloid: ${owner} has no open order with cloid ${cloid}`);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      return { success: true, order_id: String(id), cloid, status: 'cancelled', tx_hash: final.receipt.txHash };
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
        200: reply(obj({ address: addr(), orders: arr(obj({ order_id: dec(), pair_id: int(), side: { type: 'string', enum: ['Buy', 'Sell'] }, price: dec(), size: dec(), remaining: dec(), leverage: int(), locked: dec('USDC base units.'), status: { type: 'string', enum: ['open', 'partial'] }, cloid: str(), tif: { type: 'string', enum: ['Gtc', 'Alo'] }, reduceOnly: { type: 'boolean' } }, ['cloid', 'tif', 'reduceOnly'])) }), {
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
          ...(o.cloid !== undefined ? { cloid: o.cloid } : {}), tif: o.tif, reduceOnly: o.reduceOnly,
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
