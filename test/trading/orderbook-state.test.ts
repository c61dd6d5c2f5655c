/**
 * Property tests over random order streams through the real execution path
 * (placeOrder / cancelOrder under a journal checkpoint, as applyBlock runs them):
 * the book is never crossed; USDC is conserved (Σ balances − Σ position cost = supply)
 * and every other invariant holds after every operation; a rejected order changes
 * nothing (the state root is unchanged); price-time priority is the engine's own
 * property (test/orderbook).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ZERO_HASH, type BlockHeader } from '../../src/codec/block';
import type { ChainEvent, ExecContext } from '../../src/state/context';
import { TxError } from '../../src/state/errors';
import { genesisState } from '../../src/state/genesis';
import { cancelOrder, placeOrder } from '../../src/state/orders/execution';
import type { State } from '../../src/state/state';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';

const { genesis, hash } = devnetGenesis(1);
const traders = DEVNET_KEYS.accounts.slice(0, 4).map((a) => a.address);
const ETH = genesis.pairs.find((p) => p.symbol === 'ETH')!;

function fresh(): State {
  return genesisState(genesis, hash).state;
}

function ctxFor(state: State, events: ChainEvent[]): ExecContext {
  const header = { chainId: genesis.chainId, height: 1, timestampMs: genesis.genesisTimeMs + 1, round: 0, parentHash: ZERO_HASH, parentStateRoot: ZERO_HASH, validatorsHash: ZERO_HASH, proposer: traders[0], txRoot: ZERO_HASH, txCount: 0, lastCommitHash: ZERO_HASH } as BlockHeader;
  return { state, params: state.params(), header, emit: (e) => events.push(e) };
}

/** Runs an operation the way applyTx does: checkpoint, rollback on TxError. */
function run(state: State, fn: (ctx: ExecContext) => void): { ok: boolean; events: ChainEvent[]; code?: string } {
  const events: ChainEvent[] = [];
  const cp = state.journal.checkpoint();
  try {
    fn(ctxFor(state, events));
    return { ok: true, events };
  } catch (err) {
    if (!(err instanceof TxError)) throw err;
    state.journal.rollback(cp);
    return { ok: false, events: [], code: err.code };
  }
}

const op = fc.oneof(
  fc.record({
    kind: fc.constant('limit' as const),
    trader: fc.nat(3),
    side: fc.constantFrom(0 as const, 1 as const),
    // a small price grid around 2000 so orders cross often; ticks of the pair
    ticks: fc.integer({ min: -20, max: 20 }),
    lots: fc.integer({ min: 1, max: 400 }),
    leverage: fc.constantFrom(1, 2, 5, 50),
  }),
  fc.record({ kind: fc.constant('market' as const), trader: fc.nat(3), side: fc.constantFrom(0 as const, 1 as const), lots: fc.integer({ min: 1, max: 600 }), leverage: fc.constantFrom(1, 3) }),
  fc.record({ kind: fc.constant('cancel' as const), trader: fc.nat(3), pick: fc.nat() }),
  // deliberately oversized: must be rejected for balance, changing nothing
  fc.record({ kind: fc.constant('huge' as const), trader: fc.nat(3), side: fc.constantFrom(0 as const, 1 as const) }),
);

describe('orderbook execution over random streams', () => {
  it('never crosses, conserves USDC, keeps every invariant, and rejected orders change nothing', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 20, maxLength: 120 }), (ops) => {
        const state = fresh();
        state.flush();
        const book = state.book(ETH.id);
        let rejectedCount = 0;
        for (const o of ops) {
          const rootBefore = state.flush().root;
          const trader = traders[o.trader];
          let r;
          if (o.kind === 'cancel') {
            const ids = state.openOrderIds(trader);
            r = run(state, (ctx) => void cancelOrder(ctx, trader, ids.length ? ids[o.pick % ids.length] : 999_999n));
          } else {
            const size = o.kind === 'huge' ? ETH.lotSize * 10n ** 9n : ETH.lotSize * BigInt(o.lots) * 1000n;
            const price = o.kind === 'limit' ? 2_000_000_000n + BigInt(o.ticks) * ETH.tickSize * 100n : 0n;
            r = run(state, (ctx) =>
              void placeOrder(ctx, {
                owner: trader, signer: trader, pairId: ETH.id, side: o.side, orderType: o.kind === 'market' ? 0 : 1,
                price: o.kind === 'huge' ? 2_000_000_000n : price, size, leverage: o.kind === 'huge' ? 1 : o.leverage, isAgent: false,
              }),
            );
          }
          if (!r.ok) {
            rejectedCount++;
            expect(state.flush().root).toEqual(rootBefore);
          }
          state.checkInvariants();
          const bid = book.bestBid();
          const ask = book.bestAsk();
          if (bid !== null && ask !== null) expect(bid).toBeLessThan(ask);
          // every resting order in the book is in state with the same remaining size
          for (const resting of book.orders()) expect(state.orders.get(String(resting.id))?.remaining).toBe(resting.remaining);
          expect(book.size).toBe(state.orders.size);
        }
        expect(rejectedCount).toBeGreaterThanOrEqual(ops.filter((o) => o.kind === 'huge').length);
      }),
      { numRuns: 60 },
    );
  });

  // Shows contract [D-orders-priority], [C-limits-fees].
  it('a limit buy crossing two asks fills at the makers\' prices, charges the taker 3 bps, rests the rest', () => {
    const state = fresh();
    const [a, b] = traders;
    const E = 10n ** 18n;
    const fee0 = state.account(genesis.feeAccount).usdcFree;
    run(state, (ctx) => void placeOrder(ctx, { owner: a, signer: a, pairId: ETH.id, side: 1, orderType: 1, price: 2_000_000_000n, size: E, leverage: 1, isAgent: false }));
    run(state, (ctx) => void placeOrder(ctx, { owner: a, signer: a, pairId: ETH.id, side: 1, orderType: 1, price: 2_010_000_000n, size: E, leverage: 1, isAgent: false }));
    expect(state.account(a).usdcLocked).toBe(4_010_000_000n); // two shorts at leverage 1 lock their notional
    const bBefore = state.account(b);
    const r = run(state, (ctx) => void placeOrder(ctx, { owner: b, signer: b, pairId: ETH.id, side: 0, orderType: 1, price: 2_020_000_000n, size: 3n * E, leverage: 1, isAgent: false }));
    expect(r.ok).toBe(true);
    const trades = r.events.filter((e) => e.type === 'TradeExecuted');
    expect(trades.map((t) => t.price)).toEqual([2_000_000_000n, 2_010_000_000n]);
    // fees: 3 bps of 2000 and of 2010 = 0.6 + 0.603
    expect(state.account(genesis.feeAccount).usdcFree - fee0).toBe(600_000n + 603_000n);
    // b: 4010 in positions, 2020 locked for the resting 1 ETH, fees paid from free
    const bAfter = state.account(b);
    expect(bAfter.usdcInPositions).toBe(4_010_000_000n);
    expect(bAfter.usdcLocked).toBe(2_020_000_000n);
    expect(bBefore.usdcFree - bAfter.usdcFree).toBe(4_010_000_000n + 2_020_000_000n + 1_203_000n);
    expect(state.position(b, ETH.id)).toEqual({ size: 2n * E, cost: 4_010_000_000n, margin: 4_010_000_000n });
    expect(state.position(a, ETH.id)).toEqual({ size: -2n * E, cost: -4_010_000_000n, margin: 4_010_000_000n });
    const last = r.events.at(-1)!;
    expect(last).toMatchObject({ type: 'OrderUpdated', status: 'partial', filled: 2n * E, remaining: E });
    state.checkInvariants();
  });
});
