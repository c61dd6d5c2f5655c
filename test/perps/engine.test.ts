/**
 * The perp engine through its operations and end-of-block steps, with hand-computed
 * figures: open and close, partial close, TP/SL on the second, liquidation at the exact
 * price, funding between longs and shorts, ADL of a bad debt, the open-interest cap, the
 * pool's share pricing and lockup, and the margin a vault withdrawal must leave. Every
 * block of the fixture ends with State.checkInvariants (USDC conserved to the unit).
 */
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../src/codec/tx';
import type { WithdrawBody } from '../../src/codec/txs/withdraw';
import type { PerpClosedEvent } from '../../src/state/events';
import type { SubAccountCreateBody, SubAccountTransferBody } from '../../src/codec/txs/subaccounts';
import { deriveSubAccount } from '../../src/state/accounts/subaccounts';
import { subAccountCreateOp, subAccountTransferOp } from '../../src/state/ops/subaccount-actions';
import { withdrawOp } from '../../src/state/ops/withdrawal-request';
import { placeOrder } from '../../src/state/orders/execution';
import { closePosition, coverShortfall, openPosition, setTpsl } from '../../src/state/perps/engine';
import { poolDeposit, poolValuation, poolWithdraw } from '../../src/state/perps/pool';
import { BTC, ETH, genesis, PerpFixture, PRICE, traders, USDC } from './fixture';

const [alice, bob, carol, dave, erin, frank] = traders;
const fee = genesis.feeAccount;

function fresh(price = 3000n * PRICE): PerpFixture {
  const f = new PerpFixture();
  f.price(ETH.id, price);
  f.endBlock();
  f.price(ETH.id, price);
  return f;
}

// Shows contract [C-service-perps].
describe('open and close', () => {
  it('open and close at the same price return the margin minus two fees; the pool is untouched', () => {
    const f = fresh();
    const free0 = f.free(alice);
    const fee0 = f.free(fee);
    const pool0 = f.poolUsdc();
    const pos = f.open(alice, { isLong: true, leverage: 10, margin: 100n * USDC });
    expect(pos).toMatchObject({ size: 333_333_333_333_333_333n, entryPrice: 3000n * PRICE, margin: 100n * USDC, liquidationPrice: 2_727_272_724n });
    expect(f.free(alice)).toBe(free0 - 100_300_000n);
    expect(f.state.account(alice).usdcInPositions).toBe(100n * USDC);
    f.endBlock();
    f.price(ETH.id, 3000n * PRICE);
    const s = f.must((ctx) => closePosition(ctx, alice, pos.id, 0n));
    expect(s).toMatchObject({ full: true, pnl: 0n, fee: 300_000n, payout: 99_700_000n });
    expect(f.free(alice)).toBe(free0 - 600_000n);
    expect(f.free(fee) - fee0).toBe(600_000n);
    expect(f.poolUsdc()).toBe(pool0);
    expect(f.state.account(alice).usdcInPositions).toBe(0n);
    f.endBlock();
  });

  // Long 0.333… ETH at 3,000 (10x, 100 USDC); at 3,300 close 0.166666666666666666 ETH:
  //   entry notional of the closed part 999.999999 − 500.000000 = 499.999999
  //   exit notional ⌊3,300 × 0.166666666666666666⌋ = 549.999999 → PnL +50.000000
  //   released margin ⌊100 × 0.1666…/0.3333…⌋ = 49.999999; fee ⌈549.999999 × 3 bps⌉ = 0.165
  //   payout 49.999999 + 50 − 0.165 = 99.834999; left: 0.166666666666666667 ETH, margin 50.000001
  it('a partial close realizes the closed part only', () => {
    const f = fresh();
    const pos = f.open(alice, { isLong: true, leverage: 10, margin: 100n * USDC });
    f.endBlock();
    f.price(ETH.id, 3300n * PRICE);
    const pool0 = f.poolUsdc();
    const s = f.must((ctx) => closePosition(ctx, alice, pos.id, 166_666_666_666_666_666n));
    expect(s).toMatchObject({ full: false, size: 166_666_666_666_666_666n, pnl: 50_000_000n, fee: 165_000n, payout: 99_834_999n });
    expect(f.position(pos.id)).toMatchObject({ size: 166_666_666_666_666_667n, margin: 50_000_001n });
    expect(f.poolUsdc()).toBe(pool0 - 50_000_000n);
    f.endBlock();
  });

  it('a partial close that would leave less than 1 USDC of margin closes the whole position', () => {
    const f = fresh();
    const pos = f.open(alice, { isLong: true, leverage: 10, margin: 10n * USDC });
    const s = f.must((ctx) => closePosition(ctx, alice, pos.id, (pos.size * 95n) / 100n)); // would leave 0.5 USDC
    expect(s).toMatchObject({ full: true, size: pos.size });
    expect(f.position(pos.id)).toBeUndefined();
    f.endBlock();
  });

  // Shows contract [C-limits-leverage].
  it('refuses what the rules refuse, changing nothing', () => {
    const f = fresh();
    const open = (o: Partial<Parameters<typeof openPosition>[1]>) =>
      f.run((ctx) => openPosition(ctx, { owner: alice, signer: alice, pairId: ETH.id, isLong: true, leverage: 10, margin: 100n * USDC, isAgent: false, ...o }));
    expect(open({ leverage: 51 })).toMatchObject({ ok: false, status: 400, code: 'INVALID_LEVERAGE' });
    expect(open({ margin: 999_999n })).toMatchObject({ ok: false, status: 400, code: 'INVALID_MARGIN' });
    expect(open({ pairId: 999 })).toMatchObject({ ok: false, status: 400, code: 'UNKNOWN_PAIR' });
    expect(open({ pairId: BTC.id })).toMatchObject({ ok: false, status: 422, code: 'NO_ORACLE_PRICE' });
    expect(open({ margin: 10n ** 18n })).toMatchObject({ ok: false, status: 422, code: 'OPEN_INTEREST_CAP' });
    expect(open({ owner: '0x00000000000000000000000000000000000000aa', signer: '0x00000000000000000000000000000000000000aa' })).toMatchObject({ ok: false, status: 422, code: 'INSUFFICIENT_BALANCE' });
    const pos = f.open(alice, { isLong: true, leverage: 10, margin: 100n * USDC });
    expect(f.run((ctx) => closePosition(ctx, bob, pos.id, 0n))).toMatchObject({ ok: false, status: 403, code: 'NOT_OWNER' });
    expect(f.run((ctx) => closePosition(ctx, alice, 9999n, 0n))).toMatchObject({ ok: false, status: 404, code: 'UNKNOWN_POSITION' });
    expect(f.run((ctx) => setTpsl(ctx, alice, pos.id, 2900n * PRICE, 3100n * PRICE))).toMatchObject({ ok: false, status: 400, code: 'INVALID_TPSL' });
    f.endBlock();
  });
});

describe('open interest cap', () => {
  // ETH: 5,000 bps of the pool's value (10,000,000 USDC) = 5,000,000 USDC of notional.
  it('allows up to 50% of pool value on ETH, then refuses', () => {
    const f = fresh();
    f.open(alice, { isLong: true, leverage: 50, margin: 98_000n * USDC }); // 4,900,000 notional
    const more = f.run((ctx) => openPosition(ctx, { owner: bob, signer: bob, pairId: ETH.id, isLong: false, leverage: 50, margin: 2_001n * USDC, isAgent: false }));
    expect(more).toMatchObject({ ok: false, code: 'OPEN_INTEREST_CAP' });
    f.open(bob, { isLong: false, leverage: 50, margin: 1_999n * USDC }); // 99,950: total 4,999,950
    f.endBlock();
  });
});

describe('TP/SL', () => {
  // Shows contract [C-limits-tpsl], [D-time-block].
  it('checked on each whole second of block time, closing at the oracle price', () => {
    const f = fresh();
    const long = f.open(alice, { isLong: true, leverage: 10, margin: 100n * USDC });
    const short = f.open(bob, { isLong: false, leverage: 10, margin: 100n * USDC });
    f.must((ctx) => setTpsl(ctx, alice, long.id, 3100n * PRICE, 2900n * PRICE));
    f.must((ctx) => setTpsl(ctx, bob, short.id, 2900n * PRICE, 3100n * PRICE)); // short: TP below, SL above
    f.endBlock(400); // now 422 ms past the genesis second
    // 3,150 reached mid-second: nothing yet.
    f.price(ETH.id, 3150n * PRICE);
    expect(f.endBlock(600)).toEqual([]);
    expect(f.position(long.id)).toBeDefined();
    // The block that crosses the second: long TP and short SL fire, at 3,150 (not at 3,100).
    f.price(ETH.id, 3150n * PRICE);
    const events = f.endBlock();
    const closed = events.filter((e) => e.type === 'PerpClosed');
    expect(closed.map((e) => [e.positionId, e.reason, e.price])).toEqual([
      [String(long.id), 'tp', 3150n * PRICE],
      [String(short.id), 'sl', 3150n * PRICE],
    ]);
    // Long: +50 (⌊3,150 × 0.333…⌋ = 1,049.999999 − 999.999999) less fee ⌈1,049.999999 × 3 bps⌉ = 0.315.
    expect(closed[0]).toMatchObject({ pnl: 50_000_000n, fee: 315_000n, payout: 149_685_000n });
    expect(f.state.perpPositions.size).toBe(0);
  });
});

describe('liquidation', () => {
  // Long 50x, 100 USDC at 3,000: size 1.666666666666666666 ETH, notional 4,999.999999.
  // Liquidation price 2,969.696968: there equity 100 − 50.505053 = 49.494947 is below
  // 1% of 4,949.494946. Closed at the oracle price; fee ⌈4,949.494946 × 3 bps⌉ = 1.484849;
  // the owner gets back 100 − 50.505053 − 1.484849 = 48.010098; the pool 50.505053.
  // Shows contract [C-state-position-liquidate], [C-limits-liquidation], [D-orders-liquidation].
  it('happens in the block whose fresh price reaches the liquidation price, not one unit before', () => {
    const f = fresh();
    const pos = f.open(alice, { isLong: true, leverage: 50, margin: 100n * USDC });
    expect(pos.liquidationPrice).toBe(2_969_696_968n);
    f.endBlock();
    f.price(ETH.id, 2_969_696_969n);
    expect(f.endBlock()).toEqual([]);
    const free0 = f.free(alice);
    const pool0 = f.poolUsdc();
    f.price(ETH.id, 2_969_696_968n);
    const [ev] = f.endBlock();
    expect(ev).toMatchObject({ type: 'PerpClosed', reason: 'liquidation', pnl: -50_505_053n, fee: 1_484_849n, payout: 48_010_098n });
    expect(f.free(alice) - free0).toBe(48_010_098n);
    expect(f.poolUsdc() - pool0).toBe(50_505_053n);
    expect(f.position(pos.id)).toBeUndefined();
  });

  it('a stale oracle pauses opening, closing, TP/SL and liquidation on that market', () => {
    const f = fresh();
    const pos = f.open(alice, { isLong: true, leverage: 50, margin: 100n * USDC });
    f.must((ctx) => setTpsl(ctx, alice, pos.id, 0n, 2_990n * PRICE));
    f.endBlock(1000);
    // A median far below the liquidation price, but observed 6 s ago (staleness bound 5 s).
    f.price(ETH.id, 2_000n * PRICE, f.nowMs - 6000);
    expect(f.endBlock(1000)).toEqual([]);
    expect(f.position(pos.id)).toBeDefined();
    expect(f.run((ctx) => openPosition(ctx, { owner: bob, signer: bob, pairId: ETH.id, isLong: true, leverage: 2, margin: 10n * USDC, isAgent: false }))).toMatchObject({ ok: false, code: 'ORACLE_STALE' });
    expect(f.run((ctx) => closePosition(ctx, alice, pos.id, 0n))).toMatchObject({ ok: false, code: 'ORACLE_STALE' });
    expect(f.endBlock(1000)).toEqual([]);
    // A fresh price arrives: liquidated (the stop-loss closes it first, at that price).
    f.price(ETH.id, 2_960n * PRICE);
    const events = f.endBlock(1000);
    expect(events.find((e) => e.type === 'PerpClosed')).toMatchObject({ positionId: String(pos.id), price: 2_960n * PRICE });
    expect(f.position(pos.id)).toBeUndefined();
  });
});

describe('funding', () => {
  // 10 ETH long (3,000 USDC at 10x) and 4 ETH short (1,200 at 10x) at 3,000, no book:
  // premium 0, hourly rate 0.00125%, T = 0.00125% × min(30,000, 12,000) = 0.15 USDC.
  // Shows contract [C-limits-funding], [D-orders-funding].
  it('settles on the first block of the hour: longs pay shorts 0.15 USDC, peer to peer', () => {
    const f = fresh();
    const long = f.open(alice, { isLong: true, leverage: 10, margin: 3_000n * USDC });
    const short = f.open(bob, { isLong: false, leverage: 10, margin: 1_200n * USDC });
    expect([long.size, short.size]).toEqual([10n * 10n ** 18n, 4n * 10n ** 18n]);
    const pool0 = f.poolUsdc();
    const hour = genesis.genesisTimeMs + 3_600_000;
    const before = f.advanceTo(hour - 1000, { [ETH.id]: 3000n * PRICE }, 60_000);
    expect(before.filter((e) => e.type === 'FundingSettled')).toEqual([]);
    const at = f.advanceTo(hour + 1, { [ETH.id]: 3000n * PRICE }, 1000);
    const settled = at.find((e) => e.type === 'FundingSettled' && e.pairId === ETH.id);
    expect(settled).toMatchObject({ rateHourlyPpb: 12_500n, amount: 150_000n });
    f.price(ETH.id, 3000n * PRICE);
    const l = f.must((ctx) => closePosition(ctx, alice, long.id, 0n));
    const s = f.must((ctx) => closePosition(ctx, bob, short.id, 0n));
    expect(l).toMatchObject({ funding: 150_000n, fee: 9_000_000n, payout: 3_000n * USDC - 150_000n - 9_000_000n });
    expect(s).toMatchObject({ funding: -150_000n, fee: 3_600_000n, payout: 1_200n * USDC + 150_000n - 3_600_000n });
    expect(f.state.perpMarkets.get(String(ETH.id))!.fundingPot).toBe(0n);
    expect(f.poolUsdc()).toBe(pool0);
    expect(f.state.perpMarkets.get(String(ETH.id))!.recent[0]).toMatchObject({ rateHourlyPpb: 12_500n, amount: 150_000n });
    f.endBlock();
  });
});

describe('ADL of a loss beyond margin', () => {
  // Shows contract [C-state-position-liquidate], [D-orders-liquidation].
  it('the most profitable opposing position covers the shortfall; bystanders pay nothing', () => {
    const f = fresh();
    const short = f.open(bob, { isLong: false, leverage: 10, margin: 1_000n * USDC });
    const long = f.open(alice, { isLong: true, leverage: 50, margin: 100n * USDC });
    f.endBlock();
    const bystander = [carol, dave].map((a) => f.state.account(a));
    // A gap to 2,900 in one block: the long's loss (166.666666) exceeds its margin (100).
    f.price(ETH.id, 2_900n * PRICE);
    const pool0 = f.poolUsdc();
    const events = f.endBlock();
    const liq = events.find((e) => e.type === 'PerpClosed' && e.positionId === String(long.id));
    expect(liq).toMatchObject({ reason: 'liquidation', pnl: -166_666_666n, payout: 0n, shortfall: 66_666_666n });
    const adl = events.find((e) => e.type === 'PerpClosed' && e.positionId === String(short.id));
    expect(adl).toMatchObject({ reason: 'adl', withheld: 66_666_666n });
    expect(events.find((e) => e.type === 'AdlExecuted')).toMatchObject({ shortfall: 66_666_666n, recovered: 66_666_666n });
    // The pool received the long's whole margin and paid the short's closed profit less what ADL kept back.
    expect(f.poolUsdc() - pool0).toBe(100n * USDC - (((adl as PerpClosedEvent).pnl as bigint) - 66_666_666n));
    // The short was reduced, not closed: only the size needed.
    expect(f.position(short.id)!.size).toBeLessThan(short.size);
    expect([carol, dave].map((a) => f.state.account(a))).toEqual(bystander);
  });

  it('recovers nothing when no opposing position is in profit', () => {
    const f = fresh();
    f.open(bob, { isLong: true, leverage: 10, margin: 1_000n * USDC });
    const got = f.must((ctx) => coverShortfall(ctx, ETH.id, true, 10n * USDC, 3000n * PRICE));
    expect(got).toBe(0n);
    f.endBlock();
  });
});

describe('ADL on the pool threshold', () => {
  it('keeps traders\' profit within 50% of the pool\'s USDC after every block, and the pool positive', () => {
    const f = fresh();
    f.open(alice, { isLong: true, leverage: 50, margin: 50_000n * USDC }); // 2,500,000 notional
    f.open(bob, { isLong: true, leverage: 10, margin: 240_000n * USDC }); // 2,400,000
    f.endBlock();
    let price = 3000n * PRICE;
    let adl = 0;
    for (let i = 0; i < 80 && price < 9000n * PRICE; i++) {
      price = (price * 102n) / 100n;
      f.price(ETH.id, price);
      adl += f.endBlock().filter((e) => e.type === 'AdlExecuted').length;
      const v = poolValuation(f.state, f.nowMs - 22);
      expect(v.traderProfit).toBeLessThanOrEqual((v.usdc * 5000n) / 10_000n);
      expect(v.usdc).toBeGreaterThan(0n);
    }
    expect(adl).toBeGreaterThan(0);
    // The higher PnL-ratio × leverage position (alice's 50x) went first.
    const closes = f.blockEvents.filter((e) => e.type === 'PerpClosed' && e.reason === 'adl');
    expect((closes[0] as PerpClosedEvent).owner).toBe(alice);
  });
});

describe('the pool', () => {
  // Alice's 1,000,000-notional long is up 5% (+50,000): realPoolValue 9,950,000.
  // 99,500 USDC buy 99,500 × 10,000,000 / 9,950,000 = 100,000 USDC-worth of share units.
  // Shows contract [C-limits-pool-lockup].
  it('prices shares at realPoolValue, locks them for an hour, and burns them at the value then', () => {
    const f = fresh();
    const pos = f.open(alice, { isLong: true, leverage: 10, margin: 100_000n * USDC });
    f.endBlock();
    f.price(ETH.id, 3150n * PRICE);
    expect(poolValuation(f.state, f.nowMs).realPoolValue).toBe(9_950_000n * USDC);
    const dep = f.must((ctx) => poolDeposit(ctx, carol, 99_500n * USDC));
    expect(dep.shares).toBe(100_000n * USDC);
    expect(f.run((ctx) => poolWithdraw(ctx, carol, 1n))).toMatchObject({ ok: false, code: 'POOL_LOCKED' });
    expect(f.run((ctx) => poolWithdraw(ctx, dave, 1n))).toMatchObject({ ok: false, code: 'INSUFFICIENT_SHARES' });
    f.endBlock();
    f.price(ETH.id, 3000n * PRICE);
    f.must((ctx) => closePosition(ctx, alice, pos.id, 0n));
    f.advanceTo(dep.unlockMs, { [ETH.id]: 3000n * PRICE }, 60_000);
    // Back at 3,000 with no position: value 10,099,500 for 10,100,000e6 shares.
    const free0 = f.free(carol);
    const w = f.must((ctx) => poolWithdraw(ctx, carol, 100_000n * USDC));
    expect(w.amount).toBe(99_995_049_504n);
    expect(f.free(carol) - free0).toBe(99_995_049_504n);
    expect(f.state.poolShares.get(carol)).toBeUndefined();
    f.endBlock();
  });

  it('refuses a withdrawal that would leave open interest above its cap', () => {
    const f = fresh();
    f.must((ctx) => poolDeposit(ctx, carol, 1_000_000n * USDC));
    f.open(alice, { isLong: true, leverage: 50, margin: 108_000n * USDC }); // 5,400,000 notional: within 50% of 11,000,000, not of 10,000,000
    f.advanceTo(f.nowMs + 3_600_000, { [ETH.id]: 3000n * PRICE }, 60_000);
    f.price(ETH.id, 3000n * PRICE);
    const shares = f.state.poolShares.get(carol)!.shares;
    expect(f.run((ctx) => poolWithdraw(ctx, carol, shares))).toMatchObject({ ok: false, code: 'POOL_UTILIZED' });
    f.endBlock();
  });
});

describe('withdrawals and margin', () => {
  const withdraw = (f: PerpFixture, owner: `0x${string}`, amount: bigint) =>
    f.run((ctx) => withdrawOp.apply(ctx, { body: { owner, signer: owner, amount, destination: owner, nonce: 1n, signature: new Uint8Array(65) } } as Tx<WithdrawBody>, owner));

  // Erin buys 1 ETH at 3,000 on the book at 10x (margin 300). At an oracle price of 2,700
  // her position's equity is 300 − 300 = 0, below maintenance 1% × 2,700 = 27: a
  // withdrawal must leave 27 USDC of free balance.
  it('a vault withdrawal leaves what the orderbook positions require', () => {
    const f = fresh();
    f.must((ctx) => placeOrder(ctx, { owner: dave, signer: dave, pairId: ETH.id, side: 1, orderType: 1, price: 3000n * PRICE, size: 10n ** 18n, leverage: 1, isAgent: false }));
    f.must((ctx) => placeOrder(ctx, { owner: erin, signer: erin, pairId: ETH.id, side: 0, orderType: 0, price: 0n, size: 10n ** 18n, leverage: 10, isAgent: false }));
    f.endBlock();
    f.price(ETH.id, 2700n * PRICE);
    const free = f.free(erin);
    const wfee = genesis.fees.withdrawalFeeUsdc;
    expect(withdraw(f, erin, free - wfee)).toMatchObject({ ok: false, code: 'MARGIN_REQUIRED' });
    expect(withdraw(f, erin, free - wfee - 27n * USDC + 1n)).toMatchObject({ ok: false, code: 'MARGIN_REQUIRED' });
    expect(withdraw(f, erin, free - wfee - 27n * USDC)).toMatchObject({ ok: true });
    f.endBlock();
  });

  // The same position, the collateral leaving by a SubAccountTransfer instead (issue 37):
  // out of the master into its sub-account, and out of a sub-account holding the position.
  it('a SubAccountTransfer out of an account leaves what its orderbook positions require', () => {
    const f = fresh();
    const opts = { nonce: 1n, signature: new Uint8Array(65) };
    const subOf = (master: `0x${string}`) => {
      f.must((ctx) => subAccountCreateOp.apply(ctx, { body: { owner: master, name: 'desk', ...opts } } as Tx<SubAccountCreateBody>, master));
      return deriveSubAccount(master, 0);
    };
    const transfer = (master: `0x${string}`, subAccount: `0x${string}`, deposit: boolean, usdc: bigint) =>
      f.run((ctx) => subAccountTransferOp.apply(ctx, { body: { owner: master, subAccount, deposit, usdc, ...opts } } as Tx<SubAccountTransferBody>, master));
    const erinSub = subOf(erin);
    const frankSub = subOf(frank);
    f.must((ctx) => subAccountTransferOp.apply(ctx, { body: { owner: frank, subAccount: frankSub, deposit: true, usdc: 1_000n * USDC, ...opts } } as Tx<SubAccountTransferBody>, frank));
    f.must((ctx) => placeOrder(ctx, { owner: dave, signer: dave, pairId: ETH.id, side: 1, orderType: 1, price: 3000n * PRICE, size: 2n * 10n ** 18n, leverage: 1, isAgent: false }));
    f.must((ctx) => placeOrder(ctx, { owner: erin, signer: erin, pairId: ETH.id, side: 0, orderType: 0, price: 0n, size: 10n ** 18n, leverage: 10, isAgent: false }));
    f.must((ctx) => placeOrder(ctx, { owner: frankSub, signer: frank, pairId: ETH.id, side: 0, orderType: 0, price: 0n, size: 10n ** 18n, leverage: 10, isAgent: false }));
    f.endBlock();
    f.price(ETH.id, 2700n * PRICE);
    const erinFree = f.free(erin);
    expect(transfer(erin, erinSub, true, erinFree - 27n * USDC + 1n)).toMatchObject({ ok: false, code: 'MARGIN_REQUIRED' });
    expect(f.free(erin)).toBe(erinFree);
    expect(transfer(erin, erinSub, true, erinFree - 27n * USDC)).toMatchObject({ ok: true });
    const subFree = f.free(frankSub);
    expect(transfer(frank, frankSub, false, subFree - 27n * USDC + 1n)).toMatchObject({ ok: false, code: 'MARGIN_REQUIRED' });
    expect(transfer(frank, frankSub, false, subFree - 27n * USDC)).toMatchObject({ ok: true });
    f.endBlock();
  });

  it('isolated perp margin is out of free balance: the whole free balance may leave', () => {
    const f = fresh();
    f.open(alice, { isLong: true, leverage: 10, margin: 100n * USDC });
    const free = f.free(alice);
    expect(withdraw(f, alice, free - genesis.fees.withdrawalFeeUsdc)).toMatchObject({ ok: true });
    f.endBlock();
  });
});
