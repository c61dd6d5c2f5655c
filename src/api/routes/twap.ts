/**
 * Timer routes (issue 24, decisions 90–91): the dead-man switch and TWAP orders.
 *   POST /v1/order/schedule-cancel   set (time, block ms) or clear (time null) the switch
 *   GET  /v1/order/schedule-cancel/{trader}
 *   POST /v1/twap                    place a TWAP order
 *   POST /v1/twap/cancel             stop a running TWAP
 *   GET  /v1/twap/{address}          a trader's TWAPs with their progress, newest first
 *   GET  /v1/twap/id/{id}            one TWAP
 * Trader-signed like the exchange REST orders (src/signing/timer-digest.ts); the door asks
 * the operations (src/state/ops/timers.ts) in the order of contract [D-envelope-order],
 * then the nonce (409) at the mempool; answers once final.
 */
import type { FastifyPluginAsync } from 'fastify';
import { TxKind } from '../../codec/tx';
import { findEvent } from '../../state/events';
import { scheduleOf } from '../../state/timers/scheduled-cancels';
import { twapView } from '../../state/timers/twap';
import type { TwapRecord } from '../../state/timers/records';
import { toAddress } from '../../util/bytes';
import { admitAtDoor } from '../door';
import { ApiError, errorSchema, ok } from '../envelope';
import { expiresAfterSchema, expiryOptions } from '../expires-after';
import { eventOf, throwIfFailed } from '../final';
import type { NodeApi } from '../node-api';
import { address, checkNetwork, decimalString, networkSchema, nonceSchema, parseNonce, price6, signatureSchema, size18 } from '../common';
import { SIZE_ONE } from '../../state/orders/settlement';
import { addr, arr, bool, dec, envelope, EX, hex, int, nullable, obj, str } from '../schemas';

const errors = { '4xx': errorSchema, '5xx': errorSchema };

interface Signed {
  trader: string;
  signature?: string;
  nonce: number | string;
  network?: string;
  expiresAfter?: number;
}

const signedProps = { trader: address, signature: signatureSchema, nonce: nonceSchema, network: networkSchema, expiresAfter: expiresAfterSchema } as const;

const twapProps = {
  twapId: dec(), owner: addr(), symbol: str(), side: str('buy or sell'), state: { type: 'string', enum: ['running', 'completed', 'failed', 'cancelled'] },
  amount: dec('Total size.'), filled: dec(), remaining: dec(), averagePrice: dec('Average fill price; "0" before a fill.'),
  slicesTotal: int(), slicesDone: int('Slices executed (an IOC that filled nothing included).'), slicesMissed: int('Slices not placed: no fresh mark, no liquidity, halted, size.'),
  nextSliceMs: nullable(int('Block time of the next slice; null once final.')), minutes: int(), randomize: bool(), createdMs: int(), updatedMs: int(),
  lastCode: nullable(str('Why the last slice was missed or refused.')),
};
const twapSchema = obj(twapProps);
const twapExample = {
  twapId: '1', owner: EX.address, symbol: 'ETH', side: 'buy', state: 'running', amount: '1', filled: '0.1', remaining: '0.9', averagePrice: '2000',
  slicesTotal: 10, slicesDone: 1, slicesMissed: 0, nextSliceMs: EX.timestampMs + 30_000, minutes: 5, randomize: false, createdMs: EX.timestampMs, updatedMs: EX.timestampMs, lastCode: null,
};

function twapJson(rec: TwapRecord) {
  const v = twapView(rec);
  return {
    twapId: v.twapId, owner: v.owner, symbol: v.symbol, side: v.side, state: v.state, amount: size18(v.size), filled: size18(v.filled), remaining: size18(v.remaining),
    averagePrice: v.filled > 0n ? price6((v.notional * SIZE_ONE) / v.filled) : '0',
    slicesTotal: v.slicesTotal, slicesDone: v.slicesDone, slicesMissed: v.slicesMissed, nextSliceMs: v.nextSliceMs, minutes: v.minutes, randomize: v.randomize,
    createdMs: v.createdMs, updatedMs: v.updatedMs, lastCode: v.lastCode,
  };
}

export const twapRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;

  app.post<{ Body: Signed & { time: number | null } }>('/v1/order/schedule-cancel', {
    schema: {
      tags: ['trading'],
      summary: 'Schedule (or clear) a cancel of all the trader\u2019s open orders',
      description:
        'The dead-man switch (decision 90). Trader-signed: keccak256(encodePacked("schedule-cancel", timeText, uint256 nonce[, options])), timeText the decimal `time` or "" when clearing. ' +
        'At the first block whose time is \u2265 `time`, every open order of the trader is cancelled (reason "scheduled"). `time` must be at least 5 s after the block time (422 SCHEDULE_TOO_SOON); ' +
        'at most limits.scheduleCancelsPerDay (default 10) schedules per UTC day (422 SCHEDULE_LIMIT); `time: null` clears and is always allowed.',
      body: {
        type: 'object',
        required: ['trader', 'nonce', 'time'],
        additionalProperties: false,
        properties: { ...signedProps, time: { anyOf: [{ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, { type: 'null' }], description: 'Block time in ms, or null to clear.' } },
        examples: [{ trader: EX.address, time: EX.timestampMs + 60_000, nonce: 1, signature: EX.signature }],
      },
      response: { 200: envelope(obj({ trader: addr(), time: nullable(int()), countToday: int('Schedules set this UTC day.'), txHash: hex() }), { trader: EX.address, time: EX.timestampMs + 60_000, countToday: 1, txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = expiryOptions(b.expiresAfter);
      const timeMs = b.time === null ? null : BigInt(b.time);
      const { tx, signer } = admitAtDoor(state(), TxKind.ScheduleCancel, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, timeMs, nonce, signature, ...(options ? { options } : {}) }),
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const ev = eventOf(final, 'CancelScheduled');
      return ok({ trader, time: ev.timeMs, countToday: ev.count, txHash: final.receipt.txHash });
    },
  });

  app.get<{ Params: { trader: string } }>('/v1/order/schedule-cancel/:trader', {
    schema: {
      tags: ['trading'],
      summary: 'The trader\u2019s scheduled cancel',
      params: { type: 'object', properties: { trader: address } },
      response: { 200: envelope(obj({ trader: addr(), time: nullable(int('Block time in ms; null when none is scheduled.')), countToday: int() }), { trader: EX.address, time: null, countToday: 0 }), ...errors },
    },
    handler: async (req) => {
      const trader = toAddress(req.params.trader);
      const s = state();
      const { timeMs, countToday } = scheduleOf(s, trader, s.head().timestampMs);
      return ok({ trader, time: timeMs, countToday });
    },
  });

  app.post<{ Body: Signed & { symbol: string; side: string; amount: string; minutes: number; randomize?: boolean } }>('/v1/twap', {
    schema: {
      tags: ['trading'],
      summary: 'Place a TWAP order',
      description:
        'Decision 91. Trader-signed: keccak256(encodePacked("twap", symbol, side, amount, minutes, "true"|"false", uint256 nonce[, options])). ' +
        'The total `amount` is bought or sold over `minutes` (5 to 1440) in slices every 30 s of block time (limits.twapSliceIntervalMs), ' +
        'each an IOC market order with a worst price 3% from the oracle mark; `randomize` varies slice sizes by 80\u2013120% (deterministic). Answers once placed; progress at GET /v1/twap/id/{id}.',
      body: {
        type: 'object',
        required: ['symbol', 'side', 'amount', 'minutes', 'trader', 'nonce'],
        additionalProperties: false,
        properties: {
          ...signedProps,
          symbol: { type: 'string', maxLength: 20 },
          side: { type: 'string', maxLength: 10 },
          amount: decimalString,
          minutes: { type: 'integer', description: 'Duration, 5 to 1440 minutes.' },
          randomize: { type: 'boolean', description: 'Vary slice sizes (default false).' },
        },
        examples: [{ symbol: 'ETH', side: 'buy', amount: '1', minutes: 5, randomize: false, trader: EX.address, nonce: 1, signature: EX.signature }],
      },
      response: { 200: envelope(obj({ ...twapProps, txHash: hex() }), { ...twapExample, txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = expiryOptions(b.expiresAfter);
      const { tx, signer } = admitAtDoor(state(), TxKind.TwapPlace, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, symbol: b.symbol, side: b.side, amount: b.amount, minutes: b.minutes, randomize: b.randomize ?? false, nonce, signature, ...(options ? { options } : {}) }),
        routeRules: (body) => {
          if (!state().symbolToPair.has(body.symbol)) throw new ApiError(400, 'UNKNOWN_PAIR', `symbol: no pair ${body.symbol}`);
        },
      });
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const placed = eventOf(final, 'TwapPlaced');
      const rec = state().twaps.get(placed.twapId);
      if (!rec) throw new ApiError(500, 'INTERNAL', `TWAP ${placed.twapId} placed but not in state`);
      return ok({ ...twapJson(rec), txHash: final.receipt.txHash });
    },
  });

  app.post<{ Body: Signed & { twapId: string } }>('/v1/twap/cancel', {
    schema: {
      tags: ['trading'],
      summary: 'Cancel a running TWAP',
      description: 'Trader-signed: keccak256(encodePacked("twap-cancel", twapId, uint256 nonce[, options])). 404 UNKNOWN_TWAP, 403 NOT_OWNER, 422 TWAP_STATE when it is no longer running. Slices already executed stand.',
      body: {
        type: 'object',
        required: ['twapId', 'trader', 'nonce'],
        additionalProperties: false,
        properties: { ...signedProps, twapId: { type: 'string', maxLength: 20 } },
        examples: [{ twapId: '1', trader: EX.address, nonce: 2, signature: EX.signature }],
      },
      response: { 200: envelope(obj({ twapId: dec(), state: str('cancelled'), filled: dec(), remaining: dec(), txHash: hex() }), { twapId: '1', state: 'cancelled', filled: '0.1', remaining: '0.9', txHash: EX.hash }), ...errors },
    },
    handler: async (req) => {
      const b = req.body;
      checkNetwork(genesis, b.network);
      const trader = toAddress(b.trader);
      const nonce = parseNonce(b.nonce);
      const options = expiryOptions(b.expiresAfter);
      const { tx, signer } = admitAtDoor(state(), TxKind.TwapCancel, {
        signature: b.signature,
        signers: [trader],
        body: (signature) => ({ trader, twapId: b.twapId, nonce, signature, ...(options ? { options } : {}) }),
      });
      const rec = state().twaps.get(b.twapId);
      if (!rec) throw new ApiError(404, 'UNKNOWN_TWAP', `twapId: no TWAP ${b.twapId}`);
      if (rec.owner !== trader) throw new ApiError(403, 'NOT_OWNER', `TWAP ${b.twapId} does not belong to ${trader}`);
      const final = await node.submitAndWait(tx, signer);
      throwIfFailed(final);
      const ended = findEvent(final.receipt.events, 'TwapEnded')!;
      return ok({ twapId: b.twapId, state: 'cancelled', filled: size18(ended.filled), remaining: size18(ended.remaining), txHash: final.receipt.txHash });
    },
  });

  app.get<{ Params: { address: string } }>('/v1/twap/:address', {
    schema: {
      tags: ['trading'],
      summary: 'A trader\u2019s TWAP orders with their progress',
      description: 'Newest first, final ones included.',
      params: { type: 'object', properties: { address } },
      response: { 200: envelope(obj({ address: addr(), twaps: arr(twapSchema) }), { address: EX.address, twaps: [twapExample] }), ...errors },
    },
    handler: async (req) => {
      const owner = toAddress(req.params.address);
      const s = state();
      const ids = [...(s.ownerTwaps.get(owner) ?? [])].map(BigInt).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
      return ok({ address: owner, twaps: ids.map((id) => twapJson(s.twaps.get(String(id))!)) });
    },
  });

  app.get<{ Params: { id: string } }>('/v1/twap/id/:id', {
    schema: {
      tags: ['trading'],
      summary: 'One TWAP order and its progress',
      params: { type: 'object', properties: { id: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } } },
      response: { 200: envelope(twapSchema, twapExample), ...errors },
    },
    handler: async (req) => {
      const rec = state().twaps.get(req.params.id);
      if (!rec) throw new ApiError(404, 'UNKNOWN_TWAP', `id: no TWAP ${req.params.id}`);
      return ok(twapJson(rec));
    },
  });
};
