/**
 * Scenario tests of the known failure patterns of perp venues with a liquidity pool:
 *   1. a whale withdrawing unrealized profit, then getting liquidated;
 *   2. a thin market pushed against the pool (price, and the book for funding);
 *   3. liquidation at a stale oracle price (must not happen).
 * Every block of the fixture checks the state invariants (USDC conserved, pool ≥ 0).
 */
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../src/codec/tx';
import type { WithdrawBody } from '../../src/codec/txs/withdraw';
import type { FundingSettledEvent } from '../../src/state/events';
import { withdrawOp } from '../../src/state/ops/withdrawal-request';
import { placeOrder } from '../../src/state/orders/execution';
import { closePosition, openPosition, setTpsl } from '../../src/state/perps/engine';
import { poolValuation } from '../../src/state/perps/pool';
import type { Address } from '../../src/util/bytes';
import { ETH, genesis, PerpFixture, PRICE, traders, USDC } from './fixture';

const [whale, lp, bystander, attacker, accomplice, maker] = traders;
const POL = genesis.pairs.find((p) => p.symbol === 'POL')!;
const withdraw = (f: PerpFixture, owner: Address, amount: bigint) =>
  f.run((ctx) => withdrawOp.apply(ctx, { body: { owner, signer: owner, amount, destination: owner, nonce: 1n, signature: new Uint8Array(65) } } as Tx<WithdrawBody>, owner));

describe('a whale withdrawing unrealized profit, then liquidated', () => {
  it('unrealized profit cannot leave; realized profit can; the crash costs the whale only its remaining margin', () => {
    const f = new PerpFixture();
    f.price(ETH.id, 3000n * PRICE);
    f.endBlock();
    f.price(ETH.id, 3000n * PRICE);
    const pos = f.open(whale, { isLong: true, leverage: 20, margin: 100_000n * USDC }); // 2,000,000 notional
    const others = [lp, bystander].map((a) => f.state.account(a));
    f.endBlock();
    // +10%: the whale is up 200,000 USDC, unrealized.
    f.price(ETH.id, 3300n * PRICE);
    f.endBlock();
    f.price(ETH.id, 3300n * PRICE);
    const free = f.free(whale);
    const wfee = genesis.fees.withdrawalFeeUsdc;
    expect(withdraw(f, whale, free - wfee + 1n)).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    expect(withdraw(f, whale, free + 150_000n * USDC)).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' });
    // Realizing half: the pool pays 100,000 of profit, which may then leave.
    const pool0 = f.poolUsdc();
    const half = f.must((ctx) => closePosition(ctx, whale, pos.id, pos.size / 2n));
    expect(half.pnl).toBeGreaterThan(99_999n * USDC);
    expect(pool0 - f.poolUsdc()).toBe(half.pnl);
    expect(withdraw(f, whale, f.free(whale) - wfee)).toMatchObject({ ok: true });
    f.endBlock();
    // The crash: the rest is liquidated at the oracle price; the pool receives the loss.
    const rest = f.position(pos.id)!;
    const poolBefore = f.poolUsdc();
    f.price(ETH.id, rest.liquidationPrice);
    const events = f.endBlock();
    expect(events.find((e) => e.type === 'PerpClosed')).toMatchObject({ reason: 'liquidation' });
    expect(f.position(pos.id)).toBeUndefined();
    expect(f.state.account(whale).usdcInPositions).toBe(0n);
    // The pool got back more than the remaining margin's worth of loss … and never went below zero.
    expect(f.poolUsdc()).toBeGreaterThan(poolBefore);
    // Nobody else paid for any of it.
    expect([lp, bystander].map((a) => f.state.account(a))).toEqual(others);
  });
});

describe('a thin market pushed against the pool', () => {
  // POL: 10x at most, open interest capped at 1,000 bps (10%) of the pool's value.
  it('open interest stops at the cap, and ADL keeps a 20x pump from draining the pool', () => {
    const f = new PerpFixture();
    const entry = 200_000n; // 0.20
    let price = entry;
    f.price(POL.id, price);
    f.endBlock();
    f.price(POL.id, price);
    // Pool value 10,000,000: the cap is 1,000,000 of notional.
    const a = f.open(attacker, { pairId: POL.id, isLong: true, leverage: 10, margin: 60_000n * USDC });
    const b = f.open(accomplice, { pairId: POL.id, isLong: true, leverage: 10, margin: 39_000n * USDC });
    const more = f.run((ctx) => openPosition(ctx, { owner: attacker, signer: attacker, pairId: POL.id, isLong: true, leverage: 10, margin: 2_000n * USDC, isAgent: false }));
    expect(more).toMatchObject({ ok: false, code: 'OPEN_INTEREST_CAP' });
    f.endBlock();
    const pool0 = f.poolUsdc();
    // The oracle is pushed up 10% a block, to 20x.
    let adl = 0;
    while (price < 20n * entry) {
      price = (price * 110n) / 100n;
      f.price(POL.id, price);
      adl += f.endBlock().filter((e) => e.type === 'AdlExecuted').length;
      const v = poolValuation(f.state, f.nowMs - 22);
      expect(v.traderProfit).toBeLessThanOrEqual((v.usdc * BigInt(genesis.perps.adlPoolPnlThresholdBps)) / 10_000n);
      expect(v.usdc).toBeGreaterThan(0n);
    }
    // Held to the end, the two longs would have won more than the whole pool …
    const unchecked = (price * (a.size + b.size)) / 10n ** 18n - (entry * (a.size + b.size)) / 10n ** 18n;
    expect(unchecked).toBeGreaterThan(pool0);
    // … but ADL closed them on the way, while their profit was within half the pool.
    expect(adl).toBeGreaterThan(0);
    expect(f.state.perp.markets.get(POL.id)!.long.count).toBe(0);
    const paid = pool0 - f.poolUsdc();
    expect(paid).toBeLessThan(pool0);
    expect(f.poolUsdc()).toBeGreaterThan(0n);
  });

  it('a book pushed far from the oracle moves funding by at most 4% an hour, and never the pool', () => {
    const f = new PerpFixture();
    const price = 200_000n;
    f.price(POL.id, price);
    f.endBlock();
    f.price(POL.id, price);
    const long = f.open(attacker, { pairId: POL.id, isLong: true, leverage: 2, margin: 1_000n * USDC }); // 10,000 POL
    const short = f.open(bystander, { pairId: POL.id, isLong: false, leverage: 2, margin: 1_000n * USDC });
    // A thin two-sided book quoted at twice the oracle: premium ~ +100%.
    f.must((ctx) => placeOrder(ctx, { owner: maker, signer: maker, pairId: POL.id, side: 0, orderType: 1, price: 390_000n, size: 50n * 10n ** 18n, leverage: 1, isAgent: false }));
    f.must((ctx) => placeOrder(ctx, { owner: maker, signer: maker, pairId: POL.id, side: 1, orderType: 1, price: 410_000n, size: 50n * 10n ** 18n, leverage: 1, isAgent: false }));
    const pool0 = f.poolUsdc();
    const events = f.advanceTo(genesis.genesisTimeMs + 3_600_000 + 1, { [POL.id]: price }, 1000);
    const settled = events.find((e) => e.type === 'FundingSettled' && e.pairId === POL.id)! as FundingSettledEvent;
    expect(settled.rateHourlyPpb).toBe(40_000_000n); // the 4% cap
    // 4% of 2,000 USDC of notional on the smaller side = 80 USDC, long to short.
    expect(settled.amount).toBe(80n * USDC);
    f.price(POL.id, price);
    const l = f.must((ctx) => closePosition(ctx, attacker, long.id, 0n));
    const s = f.must((ctx) => closePosition(ctx, bystander, short.id, 0n));
    expect([l.funding, s.funding]).toEqual([80n * USDC, -80n * USDC]);
    expect(f.poolUsdc()).toBe(pool0);
    f.endBlock();
  });
});

describe('liquidation at a stale oracle price', () => {
  it('never happens: a stale median far beyond the liquidation price leaves the position open; a fresh one decides', () => {
    const f = new PerpFixture();
    f.price(ETH.id, 3000n * PRICE);
    f.endBlock();
    f.price(ETH.id, 3000n * PRICE);
    const pos = f.open(whale, { isLong: true, leverage: 50, margin: 1_000n * USDC });
    f.must((ctx) => setTpsl(ctx, whale, pos.id, 3100n * PRICE, 2_990n * PRICE));
    f.endBlock(1000);
    // A bad print far below the liquidation price (2,969.70), stale on arrival, and no
    // fresh median for a minute: every block, every second crossed, an hour boundary.
    f.price(ETH.id, 1_000n * PRICE, f.nowMs - genesis.oracle.maxStalenessMs - 1);
    const events = f.advanceTo(genesis.genesisTimeMs + 3_600_000 + 60_000, {}, 997);
    expect(events.filter((e) => e.type === 'PerpClosed' || e.type === 'FundingSettled')).toEqual([]);
    expect(f.position(pos.id)).toMatchObject({ size: pos.size, margin: pos.margin });
    // A fresh price above the liquidation price and inside TP/SL: nothing happens either.
    f.price(ETH.id, 3_050n * PRICE);
    expect(f.endBlock(1000).filter((e) => e.type === 'PerpClosed')).toEqual([]);
    expect(f.position(pos.id)).toBeDefined();
  });
});
