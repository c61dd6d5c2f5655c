/**
 * Timer transactions (issue 24, decisions 90–92): the dead-man switch (ScheduleCancel)
 * and TWAP orders (TwapPlace, TwapCancel). Exchange REST style: the trader signs a
 * keccak256 of the packed fields as an EIP-191 message (src/signing/timer-digest.ts),
 * fields kept as the trader sent them where they are text, so every validator
 * re-derives the digest itself. Each body ends with the action-options trailer
 * (src/codec/txs/options.ts): only `expiresAfter` is accepted on these kinds.
 */
import type { Address } from '../../util/bytes';
import { readOptions, writeOptions, type ActionOptions } from './options';
import { registerTxKind, TxKind } from '../tx';

const MAX_FIELD = 80;

/** POST /v1/order/schedule-cancel: cancel every open order of `trader` at block time `timeMs`; null clears the schedule. */
export interface ScheduleCancelBody {
  trader: Address;
  /** Block time (ms) of the cancel, or null to clear it. */
  timeMs: bigint | null;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

/** POST /v1/twap: a TWAP order, sliced every `limits.twapSliceIntervalMs` of block time into IOC market orders. */
export interface TwapPlaceBody {
  trader: Address;
  /** The pair's base symbol, as sent (e.g. "ETH"). */
  symbol: string;
  /** "buy" or "sell", as sent. */
  side: string;
  /** Total size, decimal text as sent. */
  amount: string;
  /** Duration in whole minutes. */
  minutes: number;
  /** Slice sizes varied deterministically (seeded by the TWAP's id and the slice number). */
  randomize: boolean;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

/** POST /v1/twap/cancel: stops a running TWAP of `trader`. */
export interface TwapCancelBody {
  trader: Address;
  /** Decimal TWAP id, as sent. */
  twapId: string;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

const str = (r: { string(max: number): string }) => r.string(MAX_FIELD);

registerTxKind<ScheduleCancelBody>({
  kind: TxKind.ScheduleCancel,
  name: 'ScheduleCancel',
  encodeBody(w, b) {
    w.address(b.trader).bool(b.timeMs !== null);
    if (b.timeMs !== null) w.big(b.timeMs);
    w.big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    const trader = r.address();
    const timeMs = r.bool() ? r.big() : null;
    const nonce = r.big();
    const signature = r.signature();
    const options = readOptions(r);
    return { trader, timeMs, nonce, signature, ...(Object.keys(options).length > 0 ? { options } : {}) };
  },
});

registerTxKind<TwapPlaceBody>({
  kind: TxKind.TwapPlace,
  name: 'TwapPlace',
  encodeBody(w, b) {
    w.address(b.trader).string(b.symbol).string(b.side).string(b.amount).u32(b.minutes).bool(b.randomize).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    const body: TwapPlaceBody = {
      trader: r.address(), symbol: str(r), side: str(r), amount: str(r), minutes: r.u32(), randomize: r.bool(), nonce: r.big(), signature: r.signature(),
    };
    const options = readOptions(r);
    return Object.keys(options).length > 0 ? { ...body, options } : body;
  },
});

registerTxKind<TwapCancelBody>({
  kind: TxKind.TwapCancel,
  name: 'TwapCancel',
  encodeBody(w, b) {
    w.address(b.trader).string(b.twapId).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    const body: TwapCancelBody = { trader: r.address(), twapId: str(r), nonce: r.big(), signature: r.signature() };
    const options = readOptions(r);
    return Object.keys(options).length > 0 ? { ...body, options } : body;
  },
});
