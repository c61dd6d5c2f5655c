/**
 * A pair's markets and oracle source as AddPair carries them (decision 76): a spot-only
 * pair added by governance trades spot and refuses perp opens (422 MARKET_NOT_LISTED) and
 * has no funding; a perp-only pair opens perps and refuses spot orders, native and REST,
 * the same way; the oracle source is stored as proposed and shown in the JSON form; a bad
 * markets value or oracle source is refused at proposal (400 INVALID_OPERATION naming the
 * field). Genesis pairs, which carry neither field, keep both markets and the devnet path.
 */
import { describe, expect, it } from 'vitest';
import { GovOpKind, operationBytes, readOperation, type AddedPair, type GovOperation } from '../../src/codec/txs/governance';
import { Reader } from '../../src/codec/binary';
import { GovJsonError, operationFromJson, operationToJson } from '../../src/codec/txs/governance-json';
import { PAIR_MARKET_PERP, PAIR_MARKET_SPOT } from '../../src/genesis/types';
import { hasPerp, hasSpot, marketNames, oracleSourceOf } from '../../src/state/pair-markets';
import { perpPairIds } from '../../src/state/perps/markets';
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signObservation } from '../../src/codec/txs/oracle';
import { failure, GovChain, OWNERS, TRADER, TRADER2, VALIDATOR_SIGNERS } from './harness';

const [A, B, C] = OWNERS;
const P = 1_000_000n;
const E18 = 10n ** 18n;

const base = { tickSize: 1_000n, lotSize: 10n ** 16n, minSize: 10n ** 16n, maxLeverage: 10, maintenanceMarginBps: 500, openInterestCapBps: 2_000, initialPrice: 2n * P };
const SPOT_ONLY: AddedPair = { id: 100, symbol: 'SPOTX', ...base, markets: PAIR_MARKET_SPOT, oracleSource: 'devnet-path' };
const PERP_ONLY: AddedPair = { id: 101, symbol: 'PERPX', ...base, markets: PAIR_MARKET_PERP, oracleSource: 'chainlink:perpx-usd' };
const addPair = (pair: AddedPair): GovOperation => ({ kind: GovOpKind.AddPair, pair });

const ok = (r: { status: string; code?: string; message?: string }) => expect(r.status, `${r.code}: ${r.message}`).toBe('ok');

/** Proposed by A, approved by B, executed by C at its ready time. */
function pass(g: GovChain, op: GovOperation): void {
  const p = g.propose(A, op);
  ok(g.one(p.tx));
  ok(g.one(g.approve(B, p.id)));
  ok(g.one(g.execute(C, p.id), g.state.governance.get(p.id)!.context.readyAtMs));
}

/** Every genesis validator's observation of both added pairs at `atMs`, in one block. */
function observeBoth(g: GovChain, atMs: number) {
  const prices = [SPOT_ONLY, PERP_ONLY].map((p) => ({ pairId: p.id, price: 2n * P }));
  const txs = VALIDATOR_SIGNERS.map((v) => encodeTx(g.chainId, TxKind.OracleObservation, signObservation(g.chainId, { validator: v.address, timestampMs: atMs, prices }, v)));
  const result = g.block(txs, atMs);
  for (const r of result.receipts) ok(r);
  return result;
}

/** Both pairs added, and the genesis validators' observations giving each a fresh median. */
function withBothPairs(): GovChain {
  const g = new GovChain();
  pass(g, addPair(SPOT_ONLY));
  pass(g, addPair(PERP_ONLY));
  observeBoth(g, g.timeMs + 1000);
  return g;
}

describe('a pair added with its markets (decision 76)', () => {
  // Shows contract [C-res-pairs-dynamic].
  it('stores the markets and the oracle source as proposed; genesis pairs keep both markets and the devnet path', () => {
    const g = withBothPairs();
    expect(g.state.pairs.get('100')).toEqual(SPOT_ONLY);
    expect(g.state.pairs.get('101')).toEqual(PERP_ONLY);
    expect(marketNames(g.state.pairs.get('100')!)).toEqual(['spot']);
    expect(marketNames(g.state.pairs.get('101')!)).toEqual(['perp']);
    expect(oracleSourceOf(g.state.pairs.get('101')!)).toBe('chainlink:perpx-usd');
    const genesisPair = g.state.pairs.get('1')!;
    expect(genesisPair.markets).toBeUndefined();
    expect(genesisPair.oracleSource).toBeUndefined();
    expect([hasSpot(genesisPair), hasPerp(genesisPair), oracleSourceOf(genesisPair)]).toEqual([true, true, 'devnet-path']);
    // The perp markets: every genesis pair and the perp-only one, not the spot-only one.
    expect(perpPairIds(g.state)).toContain(1);
    expect(perpPairIds(g.state)).toContain(101);
    expect(perpPairIds(g.state)).not.toContain(100);
  });

  it('a spot-only pair trades spot (native and REST) and refuses perp opens with 422 MARKET_NOT_LISTED', () => {
    const g = withBothPairs();
    ok(g.one(g.orderOn(TRADER2, SPOT_ONLY.id, 1, 2n * P, E18)));
    const buy = g.one(g.orderOn(TRADER, SPOT_ONLY.id, 0, 2n * P, E18));
    ok(buy);
    expect(buy.events.filter((e) => e.type === 'TradeExecuted')).toHaveLength(1);
    ok(g.one(g.restOrder(TRADER2, 'SPOTX', 'sell', '2.001', '0.5')));
    ok(g.one(g.restOrder(TRADER, 'SPOTX', 'buy', '2.001', '0.5')));
    expect(g.state.position(TRADER.address, SPOT_ONLY.id).size).toBe(E18 + E18 / 2n);

    // The pair has a fresh oracle price, so only the missing market refuses the open.
    const free = g.state.account(TRADER.address).usdcFree;
    const open = g.one(g.perpOpen(TRADER, SPOT_ONLY.id, '100', 5));
    expect(failure(open)).toEqual({ status: 422, code: 'MARKET_NOT_LISTED' });
    expect(open.message).toMatch(/SPOTX \(pair 100\) has no perp market/);
    expect(g.state.account(TRADER.address).usdcFree).toBe(free);
    expect(g.state.perp.markets.get(SPOT_ONLY.id)?.long.count ?? 0).toBe(0);
    // Shape first: a leverage beyond the pair's is still 400 (contract [D-envelope-order]).
    expect(failure(g.one(g.perpOpen(TRADER, SPOT_ONLY.id, '100', 20)))).toEqual({ status: 400, code: 'INVALID_LEVERAGE' });
  });

  it('a perp-only pair opens perps and refuses spot orders, native and REST, with 422 MARKET_NOT_LISTED', () => {
    const g = withBothPairs();
    const native = g.one(g.orderOn(TRADER, PERP_ONLY.id, 0, 2n * P, E18));
    expect(failure(native)).toEqual({ status: 422, code: 'MARKET_NOT_LISTED' });
    expect(native.message).toMatch(/PERPX \(pair 101\) has no spot market/);
    expect(failure(g.one(g.restOrder(TRADER, 'PERPX', 'buy', '2', '1')))).toEqual({ status: 422, code: 'MARKET_NOT_LISTED' });
    expect(g.state.book(PERP_ONLY.id).bestBid()).toBeNull();
    expect(g.state.openOrderIds(TRADER.address)).toEqual([]);

    const open = g.one(g.perpOpen(TRADER, PERP_ONLY.id, '100', 5));
    ok(open);
    expect(open.events.some((e) => e.type === 'PerpOpened')).toBe(true);
    expect(g.state.perp.markets.get(PERP_ONLY.id)!.long.count).toBe(1);
  });

  it('funding settles the perp markets only: not the spot-only pair, though its price is fresh', () => {
    const g = withBothPairs();
    const intervalMs = g.state.params().limits.fundingIntervalMs;
    const boundary = (Math.floor(g.timeMs / intervalMs) + 1) * intervalMs;
    const result = observeBoth(g, boundary);
    const settled = result.blockEvents.filter((e) => e.type === 'FundingSettled').map((e) => (e as { pairId: number }).pairId);
    expect(settled).toContain(PERP_ONLY.id);
    expect(settled).not.toContain(SPOT_ONLY.id);
  });
});

describe('AddPair markets and oracle source refused at proposal', () => {
  function refused(op: GovOperation, field: RegExp) {
    const g = new GovChain();
    const r = g.one(g.propose(A, op).tx);
    expect(failure(r)).toEqual({ status: 400, code: 'INVALID_OPERATION' });
    expect(r.message).toMatch(field);
    expect(g.state.governance.size).toBe(0);
  }

  it('a markets value other than spot, perp or both', () => {
    for (const markets of [0, 4, 7, 255]) refused(addPair({ ...SPOT_ONLY, markets }), /operation\.pair\.markets: must be 1 \(spot\), 2 \(perp\) or 3 \(both\)/);
  });

  it('an oracle source empty, too long, or outside its charset', () => {
    for (const oracleSource of ['', 'Chainlink', 'feed id', '-feed', 'feed\n', 'é', 'a'.repeat(65)]) {
      refused(addPair({ ...SPOT_ONLY, oracleSource }), /operation\.pair\.oracleSource: must be 1 to 64 characters/);
    }
    // The longest and a feed id with every allowed mark are taken.
    const g = new GovChain();
    ok(g.one(g.propose(A, addPair({ ...SPOT_ONLY, oracleSource: 'a'.repeat(64) })).tx));
    ok(g.one(g.propose(A, addPair({ ...PERP_ONLY, oracleSource: 'pyth:crypto.btc/usd_v2-1' })).tx));
  });
});

describe('the codec and JSON form of the markets and oracle source', () => {
  it('round-trip through the codec and the JSON form, which names the markets', () => {
    for (const op of [addPair(SPOT_ONLY), addPair(PERP_ONLY), addPair({ ...SPOT_ONLY, markets: 3 })]) {
      expect(readOperation(new Reader(operationBytes(op)))).toEqual(op);
      expect(operationFromJson(JSON.parse(JSON.stringify(operationToJson(op))))).toEqual(op);
    }
    expect((operationToJson(addPair(PERP_ONLY)) as { pair: unknown }).pair).toMatchObject({ markets: ['perp'], oracleSource: 'chainlink:perpx-usd' });
    expect((operationToJson(addPair({ ...SPOT_ONLY, markets: 3 })) as { pair: unknown }).pair).toMatchObject({ markets: ['spot', 'perp'] });
    // Any order of names reads the same.
    const json = operationToJson(addPair(SPOT_ONLY)) as { kind: string; pair: Record<string, unknown> };
    expect(operationFromJson({ ...json, pair: { ...json.pair, markets: ['perp', 'spot'] } })).toEqual(addPair({ ...SPOT_ONLY, markets: 3 }));
    // An empty list reads as 0, which the node refuses (above); names and shapes the form refuses itself.
    expect(operationFromJson({ ...json, pair: { ...json.pair, markets: [] } })).toEqual(addPair({ ...SPOT_ONLY, markets: 0 }));
    const bad: [unknown, RegExp][] = [
      ['spot', /^pair\.markets: must be an array of "spot" and\/or "perp"/],
      [3, /^pair\.markets: must be an array/],
      [['options'], /^pair\.markets\[0\]: must be "spot" or "perp", got "options"/],
      [['spot', 'spot'], /^pair\.markets\[1\]: "spot" is listed twice/],
    ];
    for (const [markets, message] of bad) {
      expect(() => operationFromJson({ ...json, pair: { ...json.pair, markets } })).toThrow(GovJsonError);
      expect(() => operationFromJson({ ...json, pair: { ...json.pair, markets } })).toThrow(message);
    }
    const { oracleSource: _omitted, ...withoutSource } = json.pair;
    expect(() => operationFromJson({ ...json, pair: withoutSource })).toThrow(/^pair\.oracleSource: required field of a pair is missing/);
    expect(() => operationFromJson({ ...json, pair: { ...json.pair, oracleSource: 7 } })).toThrow(/^pair\.oracleSource: must be a string/);
  });
});
