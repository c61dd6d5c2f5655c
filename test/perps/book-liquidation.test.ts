/**
 * Liquidation of orderbook positions (src/state/perps/book-liquidation.ts, decision
 * 53, docs/economics.md "Orderbook positions: liquidation"): hand-computed liquidation
 * prices and payouts, the pool taking the position over, counterparties realizing their
 * profit, bad debt paid by the pool, stale oracle pausing it, the index rebuilt on load,
 * and a property test over random price paths with orderbook trades at random leverage.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/state/context';
import { placeOrder } from '../../src/state/orders/execution';
import { oraclePrice } from '../../src/state/oracle';
import { bookLiquidatable, bookLiquidationKey, bookLiquidationPrice, POOL_BOOK_OWNER } from '../../src/state/perps/book-index';
import { poolValuation } from '../../src/state/perps/pool';
import { accountUsdc, type Position } from '../../src/state/records';
import { State } from '../../src/state/state';
import { credit, mint } from '../../src/state/accounts/vault';
import type { Address } from '../../src/util/bytes';
import { BTC, ETH, PerpFixture, PRICE, USDC } from './fixture';

const ONE = 10n ** 18n;
const who = (i: number) => `0x${(0xb00c0000 + i).toString(16).padStart(40, '0')}` as Address;
const A = who(1); // the leveraged trader
const B = who(2); // A's counterparty
const C = who(3); // provides the liquidity B closes against
const D = who(4); // a bystander with no position

function fund(f: PerpFixture, a: Address, usdc: bigint): void {
  mint(f.state, usdc, 0n);
  credit(f.state, a, usdc);
}

function order(f: PerpFixture, owner: Address, o: { side: 0 | 1; price: bigint; size: bigint; leverage: number; pairId?: number; market?: boolean }) {
  return f.run((ctx) =>
    placeOrder(ctx, { owner, signer: owner, pairId: o.pairId ?? ETH.id, side: o.side, orderType: o.market ? 0 : 1, price: o.price, size: o.size, leverage: o.leverage, isAgent: false }),
  );
}

/** USDC recomputed from the tables: Σ accounts − Σ orderbook cost (the pool's included) + pool + funding pots. */
function usdcHeld(f: PerpFixture): bigint {
  let sum = 0n;
  for (const [, a] of f.state.accounts.entries()) sum += accountUsdc(a);
  for (const [, p] of f.state.positions.entries()) sum -= p.cost;
  for (const [, m] of f.state.perpMarkets.entries()) sum += m.fundingPot;
  return sum + f.state.poolRecord().usdc;
}

const liquidations = (events: ChainEvent[]) => events.filter((e) => e.type === 'BookLiquidated');

/** A long 1 ETH at 3000 at 50x (taker A) against B's 50x short (maker). */
function fiftyX(f: PerpFixture, aFunds = 60_900_000n): void {
  fund(f, A, aFunds);
  fund(f, B, 1_000n * USDC);
  fund(f, C, 10_000n * USDC);
  fund(f, D, 500n * USDC);
  f.price(ETH.id, 3000n * PRICE);
  expect(order(f, B, { side: 1, price: 3000n * PRICE, size: ONE, leverage: 50 }).ok).toBe(true);
  const r = order(f, A, { side: 0, price: 3000n * PRICE, size: ONE, leverage: 50 });
  expect(r.ok).toBe(true);
  f.endBlock();
}

describe('orderbook position liquidation: formulas', () => {
  it('hand-computed liquidation prices of a 50x long and short of 1 ETH at 3000 (mm 1%)', () => {
    // Long: margin 60 USDC, cost 3000 USDC. Liquidatable iff 60e6 + P − 3000e6 < ⌊P / 100⌋
    // (size 1e18, so the notional is P itself). P = 100k + r: 99k + r < 2,940,000,000
    // → k = 29,696,969, r ≤ 68 → 2,969,696,968 (closed form 2940 / 0.99 = 2969.69697).
    const long: Position = { size: ONE, cost: 3000n * USDC, margin: 60n * USDC };
    expect(bookLiquidationPrice(long, 100)).toBe(2_969_696_968n);
    expect(bookLiquidatable(long, 2_969_696_968n, 100)).toBe(true);
    expect(bookLiquidatable(long, 2_969_696_969n, 100)).toBe(false);
    // Key: ⌈((3000e6 − 60e6) × 10⁴ + 9,900) / 9,900⌉ = 2,969,696,971 ≥ the exact price.
    expect(bookLiquidationKey(long, 100)).toBe(2_969_696_971);
    // Short: margin 60, proceeds 3000. Liquidatable iff 3060e6 − P < ⌊P / 100⌋:
    // 101k + r > 3,060,000,000 → k = 30,297,029, r ≥ 72 → 3,029,702,972 (3060 / 1.01).
    const short: Position = { size: -ONE, cost: -3000n * USDC, margin: 60n * USDC };
    expect(bookLiquidationPrice(short, 100)).toBe(3_029_702_972n);
    expect(bookLiquidatable(short, 3_029_702_972n, 100)).toBe(true);
    expect(bookLiquidatable(short, 3_029_702_971n, 100)).toBe(false);
    expect(bookLiquidationKey(short, 100)).toBe(3_029_702_970); // ⌊3060e6 × 10⁴ / 10,100⌋ < the exact price
    // A fully funded long (leverage 1) is never liquidated.
    expect(bookLiquidationPrice({ size: ONE, cost: 3000n * USDC, margin: 3000n * USDC }, 100)).toBe(0n);
  });

  it('the key never misses a liquidatable position (random positions and prices)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 21n }),
        fc.bigInt({ min: 1n, max: 10n ** 11n }),
        fc.integer({ min: 1, max: 50 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 500 }),
        fc.bigInt({ min: 1n, max: 2n * 10n ** 11n }),
        (size, entry, lev, isLong, mm, price) => {
          const n = (entry * size) / ONE;
          const p: Position = { size: isLong ? size : -size, cost: isLong ? n : -n, margin: n / BigInt(lev) };
          const key = BigInt(bookLiquidationKey(p, mm));
          const exact = bookLiquidationPrice(p, mm);
          if (bookLiquidatable(p, price, mm)) {
            if (isLong) expect(price <= key && price <= exact).toBe(true);
            else expect(price > key && price >= exact).toBe(true);
          } else if (isLong) expect(price > exact).toBe(true);
          else expect(price < exact).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('orderbook position liquidation: at the end of the block', () => {
  it('a 50x long is liquidated in the very block the oracle crosses its liquidation price; the pool holds it; the counterparty realizes its profit in full', () => {
    const f = new PerpFixture();
    fiftyX(f);
    const supply = f.state.supply().usdc;
    expect(f.state.position(A, ETH.id)).toEqual({ size: ONE, cost: 3000n * USDC, margin: 60n * USDC });
    expect(f.free(A)).toBe(0n); // 60 margin + 0.9 taker fee
    const poolBefore = f.poolUsdc();
    const feeBefore = f.free(f.state.params().feeAccount);
    const dBefore = f.state.account(D);
    // One unit above the liquidation price: nothing.
    f.price(ETH.id, 2_969_696_969n);
    expect(liquidations(f.endBlock())).toEqual([]);
    expect(f.state.position(A, ETH.id).size).toBe(ONE);
    // The oracle crosses it: liquidated in this very block.
    f.price(ETH.id, 2_969_696_968n);
    const ev = liquidations(f.endBlock());
    expect(ev).toHaveLength(1);
    // PnL 2,969,696,968 − 3,000,000,000 = −30,303,032; equity 29,696,968 < maintenance
    // 29,696,969; fee ⌈2,969,696,968 × 3 / 10⁴⌉ = 890,910; payout 28,806,058.
    expect(ev[0]).toMatchObject({ owner: A, pairId: ETH.id, size: ONE, price: 2_969_696_968n, pnl: -30_303_032n, fee: 890_910n, payout: 28_806_058n });
    expect(ev[0].shortfall).toBeUndefined();
    expect(f.state.positions.get(`${A}:${ETH.id}`)).toBeUndefined();
    expect(f.state.account(A)).toMatchObject({ usdcFree: 28_806_058n, usdcInPositions: 0n, usdcLocked: 0n });
    expect(f.free(f.state.params().feeAccount) - feeBefore).toBe(890_910n);
    // The pool holds the same size at the oracle price; its USDC is untouched (no bad debt).
    expect(f.state.position(POOL_BOOK_OWNER, ETH.id)).toEqual({ size: ONE, cost: 2_969_696_968n, margin: 0n });
    expect(f.poolUsdc()).toBe(poolBefore);
    expect(f.state.netSize.get(ETH.id)).toBe(0n);
    expect(usdcHeld(f)).toBe(supply);

    // B, short 1 ETH from 3000, closes against C's ask at 2969.70: profit 30.30 USDC in full.
    const bFree = f.free(B);
    const bMargin = f.state.position(B, ETH.id).margin;
    expect(order(f, C, { side: 1, price: 2_969_700_000n, size: ONE, leverage: 1 }).ok).toBe(true);
    expect(order(f, B, { side: 0, price: 2_969_700_000n, size: ONE, leverage: 50, market: true }).ok).toBe(true);
    const fee = (2_969_700_000n * 3n + 9_999n) / 10_000n;
    expect(f.free(B) - bFree).toBe(bMargin + 30_300_000n - fee);
    expect(f.state.positions.get(`${B}:${ETH.id}`)).toBeUndefined();
    f.price(ETH.id, 2_969_700_000n);
    f.endBlock();
    // Nobody else paid: the bystander is untouched, the pool's USDC unchanged, USDC conserved.
    expect(f.state.account(D)).toEqual(dBefore);
    expect(f.poolUsdc()).toBe(poolBefore);
    expect(usdcHeld(f)).toBe(supply);
    // The pool's mark-to-market counts its book position: (2,969,700,000 − 2,969,696,968).
    const v = poolValuation(f.state, f.nowMs);
    expect(v.bookUpnl).toBe(3_032n);
    expect(v.realPoolValue).toBe(v.usdc - v.traderPnl + 3_032n);
  });

  it('cancels the liquidated owner\'s resting orders on that pair (locks released), not on another pair', () => {
    const f = new PerpFixture();
    fiftyX(f, 200n * USDC);
    f.price(BTC.id, 90_000n * PRICE);
    const eth = order(f, A, { side: 0, price: 2_000n * PRICE, size: ONE / 10n, leverage: 10 });
    const btc = order(f, A, { side: 0, price: 50_000n * PRICE, size: ONE / 100n, leverage: 10, pairId: BTC.id });
    expect(eth.ok && btc.ok).toBe(true);
    const locked = f.state.account(A).usdcLocked;
    expect(locked).toBe(20n * USDC + 50n * USDC);
    f.price(ETH.id, 2_969_000_000n);
    f.price(BTC.id, 90_000n * PRICE);
    const events = f.endBlock();
    expect(liquidations(events)).toHaveLength(1);
    expect(f.state.orders.get(String(eth.ok && eth.value.orderId))).toBeUndefined();
    expect(f.state.orders.get(String(btc.ok && btc.value.orderId))).toBeDefined();
    expect(f.state.account(A).usdcLocked).toBe(50n * USDC);
    expect(events.some((e) => e.type === 'OrderUpdated' && e.reason === 'liquidation')).toBe(true);
  });

  it('a gap beyond the margin: the owner\'s free balance first, then the pool pays the rest; nobody else', () => {
    // A has nothing besides margin and fee: the pool pays the whole 40 USDC.
    const f = new PerpFixture();
    fiftyX(f);
    const supply = f.state.supply().usdc;
    const pool = f.poolUsdc();
    const bBefore = f.state.account(B);
    f.price(ETH.id, 2900n * PRICE);
    const [e] = liquidations(f.endBlock());
    // equity 60 − 100 = −40 USDC: no fee, no payout.
    expect(e).toMatchObject({ pnl: -100n * USDC, fee: 0n, payout: 0n, shortfall: 40n * USDC, coveredByOwner: 0n, coveredByPool: 40n * USDC });
    expect(f.poolUsdc()).toBe(pool - 40n * USDC);
    expect(f.state.account(A)).toMatchObject({ usdcFree: 0n, usdcInPositions: 0n });
    expect(f.state.position(POOL_BOOK_OWNER, ETH.id)).toEqual({ size: ONE, cost: 2900n * USDC, margin: 0n });
    expect(f.state.account(B)).toEqual(bBefore);
    expect(usdcHeld(f)).toBe(supply);

    // A with 25 USDC spare: it covers 25, the pool 15.
    const g = new PerpFixture();
    fiftyX(g, 60_900_000n + 25n * USDC);
    const pool2 = g.poolUsdc();
    g.price(ETH.id, 2900n * PRICE);
    const [e2] = liquidations(g.endBlock());
    expect(e2).toMatchObject({ shortfall: 40n * USDC, coveredByOwner: 25n * USDC, coveredByPool: 15n * USDC });
    expect(g.free(A)).toBe(0n);
    expect(g.poolUsdc()).toBe(pool2 - 15n * USDC);
  });

  it('a stale oracle pauses it; the next fresh price liquidates', () => {
    const f = new PerpFixture();
    fiftyX(f);
    f.price(ETH.id, 2900n * PRICE, f.nowMs - 6_000); // older than maxStalenessMs (5 s)
    expect(oraclePrice(f.state, ETH.id, f.nowMs)!.fresh).toBe(false);
    expect(liquidations(f.endBlock())).toEqual([]);
    expect(f.state.position(A, ETH.id).size).toBe(ONE);
    f.price(ETH.id, 2900n * PRICE);
    expect(liquidations(f.endBlock())).toHaveLength(1);
  });

  it('the pool nets a later opposite takeover against what it holds (realized into its USDC)', () => {
    const f = new PerpFixture();
    fiftyX(f); // A long 1 @3000 (50x) vs B short
    f.price(ETH.id, 2_950n * PRICE);
    expect(liquidations(f.endBlock())).toHaveLength(1); // pool long 1 @2950
    // B's short is at a profit; E goes short 1 at 50x at 2950 against C, then the price rises.
    const E = who(5);
    fund(f, E, 59_885_000n);
    expect(order(f, C, { side: 0, price: 2_950n * PRICE, size: ONE, leverage: 1 }).ok).toBe(true);
    expect(order(f, E, { side: 1, price: 2_950n * PRICE, size: ONE, leverage: 50, market: true }).ok).toBe(true);
    const pool = f.poolUsdc();
    f.price(ETH.id, 2_990n * PRICE);
    expect(liquidations(f.endBlock()).map((e) => e.owner)).toEqual([E]);
    // The pool's long (2950) is closed by taking E's short at 2990: +40 USDC realized.
    expect(f.state.positions.get(`${POOL_BOOK_OWNER}:${ETH.id}`)).toBeUndefined();
    expect(f.poolUsdc()).toBe(pool + 40n * USDC);
    expect(usdcHeld(f)).toBe(f.state.supply().usdc);
  });

  it('a restarted node (records loaded, indexes rebuilt) has the same index', () => {
    const f = new PerpFixture();
    fiftyX(f);
    const E = who(5);
    fund(f, E, 1_000n * USDC);
    expect(order(f, E, { side: 1, price: 3_010n * PRICE, size: ONE / 2n, leverage: 20 }).ok).toBe(true);
    expect(order(f, C, { side: 0, price: 3_010n * PRICE, size: ONE / 2n, leverage: 7, market: true }).ok).toBe(true);
    f.price(ETH.id, 2_950n * PRICE);
    f.endBlock();
    const live = f.state.bookLiq.snapshot();
    expect(live.length).toBeGreaterThanOrEqual(3);
    const s2 = new State();
    // Load positions before pairs (the adverse order: keys need the pairs' maintenance margin).
    const tables = [...(f.state as unknown as { tables: Map<number, any> }).tables.values()].sort((a, b) => b.id - a.id);
    for (const t of tables) for (const [k, v] of t.entries()) s2.loadRecord(t.storageKey(k), t.codec.encode(v));
    s2.rebuildIndexes();
    expect(s2.bookLiq.snapshot()).toEqual(live);
    expect([...s2.bookLiq.poolPositions]).toEqual([...f.state.bookLiq.poolPositions]);
    expect(s2.root()).toEqual(f.state.root());
  });
});

describe('orderbook positions over random price paths', () => {
  const action = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('order' as const), who: fc.nat(5), side: fc.constantFrom(0 as const, 1 as const), market: fc.boolean(),
        offsetBps: fc.integer({ min: -150, max: 150 }), lots: fc.integer({ min: 5, max: 400 }), leverage: fc.constantFrom(1, 2, 5, 10, 20, 25, 40, 50),
      }),
    },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('block' as const), moveBps: fc.integer({ min: -400, max: 400 }), dtMs: fc.constantFrom(22, 22, 500, 1000), stale: fc.boolean() }) },
  );

  it('after every block no orderbook position is below maintenance at a fresh oracle price, USDC is conserved, bystanders pay nothing, and the index equals a rebuilt one', () => {
    const seen = { fills: 0, liquidated: 0, badDebt: 0 };
    fc.assert(
      fc.property(fc.array(action, { minLength: 10, maxLength: 80 }), (actions) => {
        const f = new PerpFixture();
        const traders = [0, 1, 2, 3, 4, 5].map((i) => who(100 + i));
        for (const t of traders) fund(f, t, 20_000n * USDC);
        fund(f, D, 777n * USDC);
        const dBefore = f.state.account(D);
        let price = 3000n * PRICE;
        let stale = false;
        f.price(ETH.id, price);
        const supply = () => f.state.supply().usdc;
        for (const a of actions) {
          if (a.kind === 'order') {
            const px = ((price * BigInt(10_000 + a.offsetBps)) / 10_000n / ETH.tickSize) * ETH.tickSize;
            const r = order(f, traders[a.who], { side: a.side, price: px, size: BigInt(a.lots) * ETH.lotSize, leverage: a.leverage, market: a.market });
            if (r.ok && r.value.filled > 0n) seen.fills++;
            continue;
          }
          const at = f.nowMs;
          price = (price * BigInt(10_000 + a.moveBps)) / 10_000n;
          stale = a.stale && !stale; // stale spells of one block, so fresh blocks follow
          f.price(ETH.id, price, stale ? f.nowMs - 10_000 : f.nowMs);
          for (const e of liquidations(f.endBlock(a.dtMs))) {
            seen.liquidated++;
            if (e.coveredByPool) seen.badDebt++;
          }
          expect(usdcHeld(f)).toBe(supply());
          expect(f.poolUsdc()).toBeGreaterThanOrEqual(0n);
          const op = oraclePrice(f.state, ETH.id, at);
          if (op?.fresh) {
            for (const t of traders) {
              const p = f.state.position(t, ETH.id);
              expect(bookLiquidatable(p, op.price, ETH.maintenanceMarginBps), `${t} below maintenance after the block`).toBe(false);
            }
          }
          expect(f.state.account(D)).toEqual(dBefore);
        }
        const rebuilt = new State();
        for (const [k, p] of f.state.pairs.entries()) rebuilt.pairs.load(k, p);
        for (const [k, p] of f.state.positions.entries()) rebuilt.positions.load(k, p);
        rebuilt.rebuildIndexes();
        expect(rebuilt.bookLiq.snapshot()).toEqual(f.state.bookLiq.snapshot());
      }),
      { numRuns: 120 },
    );
    // The runs must have exercised what they claim to.
    expect(seen.fills).toBeGreaterThan(100);
    expect(seen.liquidated).toBeGreaterThan(10);
  });
});
