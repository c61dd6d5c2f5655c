/**
 * Property tests of the perp engine over random price paths and random actions (opens,
 * closes whole and partial, TP/SL, pool deposits and withdrawals, vault withdrawals,
 * stale oracle spells, hours of funding), checked after every block:
 *   - USDC is conserved: Σ over all accounts (free + locked + in positions) − Σ
 *     orderbook cost + pool + funding pots = supply, recomputed here from the tables;
 *   - the pool never goes negative;
 *   - no open position (perp, or orderbook: issue 7's liquidation of book positions, with
 *     orderbook trades at random leverage among the actions) on a market with a fresh
 *     price is below maintenance;
 *   - a vault or pool withdrawal never leaves the account below its margin requirement
 *     (its positions untouched, each still above maintenance);
 * and separately: open and close at the same price returns the margin minus the fees.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../src/codec/tx';
import type { WithdrawBody } from '../../src/codec/txs/withdraw';
import { withdrawOp } from '../../src/state/ops/withdrawal-request';
import { closePosition, openPosition, setTpsl } from '../../src/state/perps/engine';
import { collateralOf } from '../../src/state/perps/markets';
import { liquidatable, notional, perpFee } from '../../src/state/perps/math';
import { orderbookMarginShortfall } from '../../src/state/perps/margin';
import { poolDeposit, poolWithdraw } from '../../src/state/perps/pool';
import { oraclePrice } from '../../src/state/oracle';
import { accountUsdc } from '../../src/state/records';
import { placeOrder } from '../../src/state/orders/execution';
import { bookLiquidatable, POOL_BOOK_OWNER } from '../../src/state/perps/book-index';
import type { Address } from '../../src/util/bytes';
import { BTC, ETH, genesis, PerpFixture, PRICE, traders, USDC } from './fixture';

const PAIRS = [ETH, BTC];
const START: Record<number, bigint> = { [ETH.id]: 3000n * PRICE, [BTC.id]: 90_000n * PRICE };

const action = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('open' as const), who: fc.nat(5), pair: fc.nat(1), isLong: fc.boolean(), leverage: fc.constantFrom(1, 2, 5, 10, 25, 50), margin: fc.integer({ min: 1, max: 200_000 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('close' as const), pick: fc.nat(), partsPer1000: fc.constantFrom(0, 0, 250, 500, 999) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tpsl' as const), pick: fc.nat(), tpBps: fc.integer({ min: 10, max: 2000 }), slBps: fc.integer({ min: 10, max: 2000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deposit' as const), who: fc.nat(5), amount: fc.integer({ min: 1, max: 2_000_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('poolWithdraw' as const), who: fc.nat(5), fraction: fc.integer({ min: 1, max: 100 }) }) },
  // An orderbook order near the oracle price at random leverage (limit rests, market takes).
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('order' as const), who: fc.nat(5), pair: fc.nat(1), side: fc.constantFrom(0 as const, 1 as const), market: fc.boolean(), offsetBps: fc.integer({ min: -100, max: 100 }), lots: fc.integer({ min: 10, max: 300 }), leverage: fc.constantFrom(1, 5, 10, 25, 50) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('vaultWithdraw' as const), who: fc.nat(5), fraction: fc.integer({ min: 1, max: 100 }) }) },
  // A block: prices move (bps, per pair), time passes; sometimes the oracle goes stale.
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('block' as const), moves: fc.tuple(fc.integer({ min: -800, max: 800 }), fc.integer({ min: -800, max: 800 })), dtMs: fc.constantFrom(22, 22, 500, 1000, 61_000, 1_800_000, 3_600_000), stale: fc.boolean() }) },
);

function allOpen(f: PerpFixture): bigint[] {
  return [...f.state.perpPositions.entries()].map(([, p]) => p.id).sort((a, b) => (a < b ? -1 : 1));
}

/** USDC recomputed from the tables, independently of the running totals. */
function usdcHeld(f: PerpFixture): bigint {
  let sum = 0n;
  for (const [, a] of f.state.accounts.entries()) sum += accountUsdc(a);
  for (const [, p] of f.state.positions.entries()) sum -= p.cost;
  for (const [, m] of f.state.perpMarkets.entries()) sum += m.fundingPot;
  return sum + f.state.poolRecord().usdc;
}

function checkAfterBlock(f: PerpFixture, atMs: number): void {
  expect(usdcHeld(f)).toBe(f.state.supply().usdc);
  expect(f.state.poolRecord().usdc).toBeGreaterThanOrEqual(0n);
  let margins = 0n;
  for (const [, p] of f.state.perpPositions.entries()) {
    margins += p.margin;
    const op = oraclePrice(f.state, p.pairId, atMs);
    if (!op?.fresh) continue;
    const pair = PAIRS.find((x) => x.id === p.pairId)!;
    const { collateral } = collateralOf(f.state, p);
    expect(liquidatable({ isLong: p.isLong, entryPrice: p.entryPrice, size: p.size, collateral }, op.price, pair.maintenanceMarginBps), `position ${p.id} below maintenance after the block`).toBe(false);
  }
  expect(margins).toBe(f.state.perp.totalMargin);
  for (const [key, p] of f.state.positions.entries()) {
    const [owner, pairId] = [key.slice(0, key.indexOf(':')), Number(key.slice(key.indexOf(':') + 1))];
    if (owner === POOL_BOOK_OWNER) continue;
    const op = oraclePrice(f.state, pairId, atMs);
    if (!op?.fresh) continue;
    const pair = PAIRS.find((x) => x.id === pairId)!;
    expect(bookLiquidatable(p, op.price, pair.maintenanceMarginBps), `orderbook position ${key} below maintenance after the block`).toBe(false);
  }
}

/** The owner's positions and their margin: a withdrawal must leave them exactly as they were. */
function positionsOf(f: PerpFixture, owner: Address) {
  return { inPositions: f.state.account(owner).usdcInPositions, positions: f.state.perp.ownerIds(owner).map((id) => f.state.perpPositions.get(String(id))) };
}

describe('perp engine over random price paths and actions', () => {
  it('conserves USDC, keeps the pool non-negative, leaves no position below maintenance, and withdrawals keep margin', () => {
    // What the runs exercised, so that the property cannot pass vacuously.
    const seen = { opened: 0, closed: 0, liquidated: 0, tpsl: 0, funding: 0, poolOut: 0, vaultOut: 0, bookFills: 0, bookLiquidated: 0 };
    fc.assert(
      fc.property(fc.array(action, { minLength: 10, maxLength: 70 }), (actions) => {
        const f = new PerpFixture();
        const prices = { ...START };
        for (const p of PAIRS) f.price(p.id, prices[p.id]);
        // Two LPs whose shares are unlocked by the time the actions start.
        for (const lp of [traders[4], traders[5]]) f.must((ctx) => poolDeposit(ctx, lp, 100_000n * USDC));
        f.endBlock(genesis.limits.poolLockupMs);
        let stale = false;
        const setPrices = () => {
          for (const p of PAIRS) f.price(p.id, prices[p.id], stale ? f.nowMs - 10_000 : f.nowMs);
        };
        setPrices();
        for (const a of actions) {
          switch (a.kind) {
            case 'open': {
              const who = traders[a.who];
              const r = f.run((ctx) => openPosition(ctx, { owner: who, signer: who, pairId: PAIRS[a.pair].id, isLong: a.isLong, leverage: a.leverage, margin: BigInt(a.margin) * USDC, isAgent: false }));
              if (r.ok) seen.opened++;
              break;
            }
            case 'close': {
              const open = allOpen(f);
              if (!open.length) break;
              const p = f.state.perpPositions.get(String(open[a.pick % open.length]))!;
              if (f.run((ctx) => closePosition(ctx, p.owner, p.id, (p.size * BigInt(a.partsPer1000)) / 1000n)).ok) seen.closed++;
              break;
            }
            case 'tpsl': {
              const open = allOpen(f);
              if (!open.length) break;
              const p = f.state.perpPositions.get(String(open[a.pick % open.length]))!;
              const px = prices[p.pairId];
              const up = (px * BigInt(10_000 + a.tpBps)) / 10_000n;
              const down = (px * BigInt(10_000 - a.slBps)) / 10_000n;
              f.run((ctx) => setTpsl(ctx, p.owner, p.id, p.isLong ? up : down, p.isLong ? down : up));
              break;
            }
            case 'deposit': {
              const who = traders[a.who];
              f.run((ctx) => poolDeposit(ctx, who, BigInt(a.amount) * USDC));
              break;
            }
            case 'poolWithdraw': {
              const who = traders[a.who];
              const held = f.state.poolShares.get(who);
              if (!held) break;
              const before = positionsOf(f, who);
              const r = f.run((ctx) => poolWithdraw(ctx, who, (held.shares * BigInt(a.fraction)) / 100n || 1n));
              if (r.ok) {
                seen.poolOut++;
                expect(f.free(who)).toBeGreaterThanOrEqual(orderbookMarginShortfall(f.state, who, f.nowMs));
                expect(positionsOf(f, who)).toEqual(before);
              }
              break;
            }
            case 'order': {
              const pair = PAIRS[a.pair];
              const owner = traders[a.who];
              const px = ((prices[pair.id] * BigInt(10_000 + a.offsetBps)) / 10_000n / pair.tickSize) * pair.tickSize;
              const size = BigInt(a.lots) * (pair.minSize > pair.lotSize ? pair.minSize / 5n : pair.lotSize);
              const r = f.run((ctx) => placeOrder(ctx, { owner, signer: owner, pairId: pair.id, side: a.side, orderType: a.market ? 0 : 1, price: px, size, leverage: a.leverage, isAgent: false }));
              if (r.ok && r.value.filled > 0n) seen.bookFills++;
              break;
            }
            case 'vaultWithdraw': {
              const who = traders[a.who];
              const free = f.free(who);
              const amount = (free * BigInt(a.fraction)) / 100n;
              if (amount < 1_000_000n) break;
              const before = positionsOf(f, who);
              const r = f.run((ctx) =>
                withdrawOp.apply(ctx, { body: { owner: who, signer: who, amount, destination: who, nonce: 1n, signature: new Uint8Array(65) } } as Tx<WithdrawBody>, who),
              );
              if (r.ok) {
                seen.vaultOut++;
                // Free balance still covers the orderbook requirement; isolated perp margins untouched.
                expect(f.free(who)).toBeGreaterThanOrEqual(orderbookMarginShortfall(f.state, who, f.nowMs));
                expect(positionsOf(f, who)).toEqual(before);
              }
              break;
            }
            case 'block': {
              const at = f.nowMs;
              for (const e of f.endBlock(a.dtMs)) {
                if (e.type === 'PerpClosed' && e.reason === 'liquidation') seen.liquidated++;
                if (e.type === 'PerpClosed' && (e.reason === 'tp' || e.reason === 'sl')) seen.tpsl++;
                if (e.type === 'FundingSettled' && (e.amount as bigint) > 0n) seen.funding++;
                if (e.type === 'BookLiquidated') seen.bookLiquidated++;
              }
              checkAfterBlock(f, at);
              PAIRS.forEach((p, i) => {
                const next = (prices[p.id] * BigInt(10_000 + a.moves[i])) / 10_000n;
                prices[p.id] = next > 0n ? next : 1n;
              });
              stale = a.stale && a.dtMs < 60_000;
              setPrices();
              break;
            }
          }
        }
        const at = f.nowMs;
        f.endBlock();
        checkAfterBlock(f, at);
      }),
      // 300 runs: at 100, about one seed in 17 drew no orderbook liquidation at all and
      // the coverage check below failed; at 300 that is about one in 5,000.
      { numRuns: 300 },
    );
    for (const [what, n] of Object.entries(seen)) expect(n, `runs exercised ${what}`).toBeGreaterThan(0);
  });

  it('open and close at the same price return the margin minus the two fees', () => {
    fc.assert(
      fc.property(
        fc.nat(1), fc.boolean(), fc.integer({ min: 1, max: 50 }), fc.bigInt({ min: 1n * USDC, max: 50_000n * USDC }), fc.bigInt({ min: 1n * PRICE, max: 200_000n * PRICE }),
        (pair, isLong, leverage, margin, price) => {
          const p = PAIRS[pair];
          fc.pre(leverage <= p.maxLeverage);
          const f = new PerpFixture();
          f.price(p.id, price);
          const who = traders[0];
          const free0 = f.free(who);
          const pool0 = f.poolUsdc();
          const r = f.run((ctx) => openPosition(ctx, { owner: who, signer: who, pairId: p.id, isLong, leverage, margin, isAgent: false }));
          fc.pre(r.ok);
          const pos = (r as { value: { id: bigint; size: bigint } }).value;
          const s = f.must((ctx) => closePosition(ctx, who, pos.id, 0n));
          const fee = perpFee(notional(price, pos.size), 3);
          expect(s.pnl).toBe(0n);
          expect(f.free(who)).toBe(free0 - 2n * fee);
          expect(f.poolUsdc()).toBe(pool0);
          f.endBlock();
        },
      ),
      { numRuns: 200 },
    );
  });
});
