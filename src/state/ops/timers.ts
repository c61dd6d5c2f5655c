/**
 * Execution rules of the timer kinds (issue 24, decisions 90–91): ScheduleCancel (the
 * dead-man switch, src/state/timers/scheduled-cancels.ts), TwapPlace and TwapCancel (TWAP
 * orders, src/state/timers/twap.ts). Exchange REST signatures: the trader signs the packed
 * digest of src/signing/timer-digest.ts as an EIP-191 message, or, for a sub-account, its
 * master signs the digest bound to it (restSigner, as every REST trading kind: decision
 * 94). Only `expiresAfter` is accepted as an option.
 */
import type { ScheduleCancelBody, TwapCancelBody, TwapPlaceBody } from '../../codec/txs/timers';
import { scheduleCancelDigest, twapCancelDigest, twapPlaceDigest } from '../../signing/timer-digest';
import { parseDecimal } from '../../util/decimal';
import { SIZE_DECIMALS } from '../../util/fixed';
import type { TxOp } from '../context';
import { badRequest } from '../errors';
import { scheduleCancel } from '../timers/scheduled-cancels';
import { restSigner } from '../accounts/subaccounts';
import { cancelTwap, placeTwap, TWAP_MAX_MINUTES, TWAP_MIN_MINUTES } from '../timers/twap';
import { requireExpiryOnly } from './expiry-option';

const SYMBOL_RE = /^[A-Z0-9]{1,12}$/;
const TWAP_ID_RE = /^[1-9][0-9]{0,17}$/;
const MAX_TIME_MS = BigInt(Number.MAX_SAFE_INTEGER);

/** Shape of a ScheduleCancel (400): a block time in ms within the safe integers, or null. */
function scheduleCancelShape(b: Pick<ScheduleCancelBody, 'timeMs' | 'options'>): void {
  if (b.timeMs !== null && (b.timeMs < 1n || b.timeMs > MAX_TIME_MS)) throw badRequest('INVALID_TIME', `time: must be null or a block time in ms from 1 to ${MAX_TIME_MS}`);
  requireExpiryOnly(b.options, 'ScheduleCancel');
}

export const scheduleCancelOp: TxOp<ScheduleCancelBody> = {
  shape: scheduleCancelShape,
  verify: (tx) => restSigner(scheduleCancelDigest(tx.body.timeMs, tx.body.nonce, tx.body.options), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    scheduleCancel(ctx, tx.body.trader, tx.body.timeMs);
  },
};

interface ParsedTwap {
  side: 0 | 1;
  size: bigint;
}

/** Shape of a TwapPlace (400 naming the field). */
function parseTwap(b: Pick<TwapPlaceBody, 'symbol' | 'side' | 'amount' | 'minutes' | 'options'>): ParsedTwap {
  if (!SYMBOL_RE.test(b.symbol)) throw badRequest('INVALID_SYMBOL', 'symbol: must be an upper-case pair symbol such as ETH');
  if (b.side !== 'buy' && b.side !== 'sell') throw badRequest('INVALID_SIDE', 'side: must be "buy" or "sell"');
  const size = parseDecimal(b.amount, SIZE_DECIMALS);
  if (size === null || size === 0n) throw badRequest('INVALID_AMOUNT', 'amount: must be a positive decimal string with at most 18 decimals');
  if (!Number.isInteger(b.minutes) || b.minutes < TWAP_MIN_MINUTES || b.minutes > TWAP_MAX_MINUTES) {
    throw badRequest('INVALID_TWAP', `minutes: must be a whole number of minutes from ${TWAP_MIN_MINUTES} to ${TWAP_MAX_MINUTES}`);
  }
  requireExpiryOnly(b.options, 'TwapPlace');
  return { side: b.side === 'buy' ? 0 : 1, size };
}

/**
 * Parsed TWAPs by transaction body, as rest-orders.ts keeps its orders: the body is
 * checked (shape) at the door and before it executes, then parsed for execution; the
 * parse is pure, so the first result serves the others.
 */
const parsedTwaps = new WeakMap<TwapPlaceBody, ParsedTwap>();

function parsedTwap(b: TwapPlaceBody): ParsedTwap {
  let p = parsedTwaps.get(b);
  if (!p) parsedTwaps.set(b, (p = parseTwap(b)));
  return p;
}

export const twapPlaceOp: TxOp<TwapPlaceBody> = {
  shape: (b) => void parsedTwap(b),
  verify: (tx) => restSigner(twapPlaceDigest(tx.body), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    const b = tx.body;
    const { side, size } = parsedTwap(b);
    const pairId = ctx.state.symbolToPair.get(b.symbol);
    if (pairId === undefined) throw badRequest('UNKNOWN_PAIR', `symbol: no pair ${b.symbol}`);
    placeTwap(ctx, { owner: b.trader, pairId, side, size, minutes: b.minutes, randomize: b.randomize });
  },
};

function twapCancelShape(b: Pick<TwapCancelBody, 'twapId' | 'options'>): void {
  if (!TWAP_ID_RE.test(b.twapId)) throw badRequest('INVALID_TWAP', 'twapId: must be a decimal TWAP id');
  requireExpiryOnly(b.options, 'TwapCancel');
}

export const twapCancelOp: TxOp<TwapCancelBody> = {
  shape: twapCancelShape,
  verify: (tx) => restSigner(twapCancelDigest(tx.body.twapId, tx.body.nonce, tx.body.options), tx.body.signature, tx.body.trader),
  nonce: (b) => b.nonce,
  options: (b) => b.options,
  apply(ctx, tx) {
    cancelTwap(ctx, tx.body.trader, tx.body.twapId);
  },
};
