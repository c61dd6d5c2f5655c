/**
 * Property: for random trade streams (two pairs, random prices, sizes, block times and
 * block groupings), the indexed candles of every interval conserve volume (Σ candle
 * volume = Σ trade size), satisfy high ≥ max(open, close) ≥ min(open, close) ≥ low,
 * and equal a naive model that groups the trades by bucket.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CANDLE_INTERVALS, CANDLE_INTERVAL_NAMES, mergeTrade, mergeTrades, type CandleRecord } from '../../src/indexer/candles';
import { Indexer } from '../../src/indexer/indexer';
import type { Receipt } from '../../src/state/context';
import type { TradeExecutedEvent } from '../../src/state/events';
import { formatDecimal, parseDecimal } from '../../src/util/decimal';
import { A, H1, T0, tempDir, txh } from './fixture';

const dir = tempDir('exchain-candles-');
afterAll(() => dir.remove());
let runs = 0;

const PAIR_IDS: Record<string, number> = { ETH: 1, BTC: 2 };

const tradeArb = fc.record({
  symbol: fc.constantFrom('ETH', 'BTC'),
  price: fc.bigInt({ min: 1n, max: 10n ** 12n }), // ×1e6
  size: fc.bigInt({ min: 1n, max: 10n ** 22n }), // ×1e18
  newBlock: fc.boolean(),
  // Mostly small steps (same bucket), sometimes across minutes, hours or days.
  gapMs: fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 1, max: 400_000 }), fc.integer({ min: 1, max: 2 * 86_400_000 })),
});

function event(t: { symbol: string; price: bigint; size: bigint }, n: number): TradeExecutedEvent {
  const usdc = (t.price * t.size) / 10n ** 18n;
  return {
    type: 'TradeExecuted',
    pairId: PAIR_IDS[t.symbol],
    symbol: t.symbol,
    price: t.price,
    size: t.size,
    usdc,
    buyer: n % 2 ? A : H1,
    seller: n % 2 ? H1 : A,
    buyerIsAgent: n % 2 === 1,
    sellerIsAgent: false,
    takerSide: (n % 2) as 0 | 1,
    makerOrderId: String(2 * n + 1),
    takerOrderId: String(2 * n + 2),
    takerFee: (usdc * 3n) / 10_000n,
  };
}

describe('candles (property)', () => {
  it('conserve volume, keep low ≤ open/close ≤ high, and match a naive model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tradeArb, { minLength: 1, maxLength: 60 }), async (stream) => {
        // Group the stream into blocks with strictly increasing times.
        const blocks: { timestampMs: number; trades: { symbol: string; price: bigint; size: bigint; time: number }[] }[] = [];
        let time = T0;
        for (const t of stream) {
          if (blocks.length === 0 || t.newBlock) {
            time += t.gapMs;
            blocks.push({ timestampMs: time, trades: [] });
          }
          blocks[blocks.length - 1].trades.push({ ...t, time });
        }

        const idx = await Indexer.open(`${dir.path}/run-${++runs}`);
        try {
          let n = 0;
          for (let i = 0; i < blocks.length; i++) {
            const h = i + 1;
            const receipts: Receipt[] = blocks[i].trades.map((t, j) => ({
              txHash: txh(h, j),
              index: j,
              kind: 'order',
              signer: H1,
              status: 'ok',
              events: [event(t, n++) as unknown as Receipt['events'][number]],
            }));
            await idx.indexBlock(h, blocks[i].timestampMs, receipts);
          }

          const all = blocks.flatMap((b) => b.trades);
          for (const symbol of ['ETH', 'BTC']) {
            const trades = all.filter((t) => t.symbol === symbol);
            const sizeSum = trades.reduce((s, t) => s + t.size, 0n);
            for (const interval of CANDLE_INTERVAL_NAMES) {
              const got = await idx.candles(symbol, interval, 500);
              let volume = 0n;
              for (const c of got) {
                const [o, h, l, cl] = [c.open, c.high, c.low, c.close].map((x) => parseDecimal(x, 6)!);
                expect(h >= o && h >= cl && l <= o && l <= cl, `${symbol} ${interval} ${JSON.stringify(c)}`).toBe(true);
                expect(c.time % CANDLE_INTERVALS[interval]).toBe(0);
                volume += parseDecimal(c.volume, 18)!;
              }
              expect(volume).toBe(sizeSum);
              // Oldest first, strictly increasing bucket times.
              for (let i = 1; i < got.length; i++) expect(got[i].time).toBeGreaterThan(got[i - 1].time);

              // Naive model.
              const model = new Map<number, CandleRecord>();
              for (const t of trades) {
                const ms = CANDLE_INTERVALS[interval] * 1000;
                const start = (t.time - (t.time % ms)) / 1000; // independent of bucketStart
                model.set(start, mergeTrade(model.get(start), start, t.price, t.size));
              }
              const want = [...model.values()]
                .sort((x, y) => x.time - y.time)
                .map((c) => ({
                  time: c.time,
                  open: formatDecimal(c.open, 6),
                  high: formatDecimal(c.high, 6),
                  low: formatDecimal(c.low, 6),
                  close: formatDecimal(c.close, 6),
                  volume: formatDecimal(c.volume, 18),
                }));
              expect(got).toEqual(want);
            }
          }
        } finally {
          await idx.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('mergeTrade: a naive max/min/sum agrees on random sequences', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ price: fc.bigInt({ min: 1n, max: 10n ** 15n }), size: fc.bigInt({ min: 1n, max: 10n ** 24n }) }), { minLength: 1, maxLength: 100 }), (ts) => {
        let c: CandleRecord | undefined;
        for (const t of ts) c = mergeTrade(c, 60, t.price, t.size);
        const prices = ts.map((t) => t.price);
        expect(c).toEqual({
          time: 60,
          open: prices[0],
          close: prices[prices.length - 1],
          high: prices.reduce((a, b) => (b > a ? b : a)),
          low: prices.reduce((a, b) => (b < a ? b : a)),
          volume: ts.reduce((s, t) => s + t.size, 0n),
        });
      }),
    );
  });

  it('mergeTrades of a block\'s trades equals merging them one by one, onto any earlier candle', () => {
    const trade = fc.record({ price: fc.bigInt({ min: 1n, max: 10n ** 15n }), size: fc.bigInt({ min: 1n, max: 10n ** 24n }) });
    fc.assert(
      fc.property(fc.array(trade, { maxLength: 20 }), fc.array(trade, { minLength: 1, maxLength: 50 }), (before, block) => {
        let prev: CandleRecord | undefined;
        for (const t of before) prev = mergeTrade(prev, 60, t.price, t.size);
        let oneByOne = prev;
        for (const t of block) oneByOne = mergeTrade(oneByOne, 60, t.price, t.size);
        const agg = { open: block[0].price, high: block[0].price, low: block[0].price, close: block[0].price, volume: 0n };
        for (const t of block) {
          if (t.price > agg.high) agg.high = t.price;
          if (t.price < agg.low) agg.low = t.price;
          agg.close = t.price;
          agg.volume += t.size;
        }
        expect(mergeTrades(prev, 60, agg)).toEqual(oneByOne);
      }),
    );
    expect(() => mergeTrades({ time: 0, open: 1n, high: 1n, low: 1n, close: 1n, volume: 1n }, 60, { open: 1n, high: 1n, low: 1n, close: 1n, volume: 1n })).toThrow(/bucket 60/);
  });
});
