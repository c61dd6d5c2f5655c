/**
 * The position machine (machines/position.ts) in execution: every state reached by
 * xstate/graph paths; its guards agree with the functions execution calls for its error
 * codes (`snapshot.can(event)` against openRefusal, tpslRefusal, tpslTrigger,
 * liquidatable); every position change the engine makes over a random run is one
 * `stepPosition` call, paired one to one with the event it emits, and each stored
 * position is what the machine's last step left (closed and liquidated ones gone); the
 * same run replayed through xstate ends in the same states; an event the machine
 * refuses halts the node (InvariantError). The stepper's agreement with `transition()`
 * is test/machines/position.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { machines } from '../../machines/index';
import { closesAll, openRefusal, positionMachine, tpslRefusal, tpslTrigger, type OpenFacts, type PositionContext, type PositionEvent, type PositionStep } from '../../machines/position';
import { closePosition, openPosition, setTpsl, settlePosition } from '../../src/state/perps/engine';
import type { ChainEvent } from '../../src/state/context';
import { InvariantError } from '../../src/state/state';
import { ETH, PerpFixture, PRICE, traders, USDC } from './fixture';

/** Every call the engine makes to the position machine's stepper, in order. */
const stepped = vi.hoisted(() => ({ calls: [] as { from: string; event: { type: string }; to: { value: string; context: { size: bigint; takeProfit: bigint; stopLoss: bigint } } | undefined }[] }));
vi.mock('../../machines/position', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../machines/position')>();
  return {
    ...real,
    stepPosition: (value: Parameters<typeof real.stepPosition>[0], context: Parameters<typeof real.stepPosition>[1], event: Parameters<typeof real.stepPosition>[2]) => {
      const to = real.stepPosition(value, context, event);
      stepped.calls.push({ from: value, event, to });
      return to;
    },
  };
});

type Snapshot = SnapshotFrom<typeof positionMachine>;
const init = (): Snapshot => initialTransition(positionMachine)[0];
const step = (s: Snapshot, e: PositionEvent) => transition(positionMachine, s, e)[0];
const stringify = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

const facts = (f: Partial<OpenFacts> = {}): OpenFacts => ({ perpListed: true, hasPrice: true, fresh: true, leverage: 10, maxLeverage: 50, margin: 100n, minMargin: 1n, size: 5n, ...f });
const ctx = (c: Partial<PositionContext> = {}): PositionContext => ({ isLong: true, size: 10n, entryPrice: 3000n, margin: 100n, leverage: 10, takeProfit: 0n, stopLoss: 0n, maintenanceMarginBps: 100, ...c });
const OPEN = (c: Partial<PositionContext> = {}, f: Partial<OpenFacts> = {}): PositionEvent => ({ type: 'OPEN', facts: facts(f), position: ctx(c) });
const opened = (c: Partial<PositionContext> = {}) => step(init(), OPEN(c));

describe('position machine', () => {
  it('is listed in machines/index.ts', () => {
    expect(machines.position).toBe(positionMachine);
  });

  it('reaches none, open, closed and liquidated by shortest paths', () => {
    const events: PositionEvent[] = [
      OPEN({ takeProfit: 3100n }),
      OPEN({}, { fresh: false }),
      { type: 'CLOSE', size: 4n, fresh: true },
      { type: 'CLOSE', size: 0n, fresh: true },
      { type: 'CLOSE', size: 0n, fresh: false },
      { type: 'SET_TPSL', takeProfit: 3200n, stopLoss: 2800n },
      { type: 'TICK_SECOND', price: 3200n, fresh: true },
      { type: 'TICK_SECOND', price: 3200n, fresh: false },
      { type: 'CHECK_BLOCK', price: 2700n, fresh: true, liquidatable: true },
      { type: 'CHECK_BLOCK', price: 2700n, fresh: false, liquidatable: true },
      { type: 'ADL', size: 3n },
    ];
    const paths = getShortestPaths(positionMachine, { events, serializeState: (s) => stringify({ v: s.value, c: s.context }), serializeEvent: stringify });
    const reached = new Set(paths.map((p) => p.state.value));
    expect(reached).toEqual(new Set(['none', 'open', 'closed', 'liquidated']));
    for (const path of paths) {
      let s = init();
      for (const st of path.steps) s = step(s, st.event);
      expect(s.value).toEqual(path.state.value);
    }
  });

  it('partial closes and ADL reduce; whole closes end it; a stale price changes nothing', () => {
    let s = opened();
    s = step(s, { type: 'CLOSE', size: 4n, fresh: true });
    expect([s.value, s.context.size]).toEqual(['open', 6n]);
    s = step(s, { type: 'ADL', size: 1n });
    expect([s.value, s.context.size]).toEqual(['open', 5n]);
    expect(step(s, { type: 'CLOSE', size: 0n, fresh: false }).value).toBe('open');
    expect(step(s, { type: 'CHECK_BLOCK', price: 1n, fresh: false, liquidatable: true }).value).toBe('open');
    expect(step(s, { type: 'ADL', size: 5n }).value).toBe('closed');
    expect(step(s, { type: 'CLOSE', size: 99n, fresh: true }).value).toBe('closed');
    // A part leaving less than the minimum margin behind closes it whole (no dust).
    expect(step(opened(), { type: 'CLOSE', size: 9n, fresh: true, collateral: 100n, minMargin: 20n }).value).toBe('closed');
    expect(step(opened(), { type: 'CLOSE', size: 8n, fresh: true, collateral: 100n, minMargin: 20n }).context.size).toBe(2n);
  });

  it('its guards are the functions execution calls', () => {
    fc.assert(
      fc.property(
        fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 60 }), fc.bigInt({ min: 0n, max: 200n }), fc.bigInt({ min: 0n, max: 20n }),
        fc.boolean(), fc.bigInt({ min: 0n, max: 5000n }), fc.bigInt({ min: 0n, max: 5000n }), fc.bigInt({ min: 1n, max: 6000n }), fc.boolean(),
        (hasPrice, fresh, leverage, margin, size, isLong, tp, sl, price, liq) => {
          const f = facts({ hasPrice, fresh, leverage, margin, size, minMargin: 50n });
          expect(init().can({ type: 'OPEN', facts: f, position: ctx() })).toBe(openRefusal(f) === null);
          const s = opened({ isLong, takeProfit: tp, stopLoss: sl });
          expect(s.can({ type: 'SET_TPSL', takeProfit: tp, stopLoss: sl })).toBe(tpslRefusal(isLong, tp, sl) === null);
          expect(s.can({ type: 'TICK_SECOND', price, fresh })).toBe(fresh && tpslTrigger(s.context, price) !== null);
          expect(s.can({ type: 'CHECK_BLOCK', price, fresh, liquidatable: liq })).toBe(fresh && liq);
          const closed = step(s, { type: 'CLOSE', size, fresh: true });
          expect(closed.value).toBe(closesAll(10n, size) ? 'closed' : 'open');
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** Random perp operations on one market: opens, closes (whole and part), TP/SL, price moves and blocks. */
const perpOps = fc.array(
  fc.oneof(
    fc.record({ k: fc.constant('open' as const), who: fc.nat(3), isLong: fc.boolean(), leverage: fc.constantFrom(2, 10, 50), margin: fc.integer({ min: 1, max: 50_000 }) }),
    fc.record({ k: fc.constant('close' as const), pick: fc.nat(), per1000: fc.constantFrom(0, 300, 700) }),
    fc.record({ k: fc.constant('tpsl' as const), pick: fc.nat(), bps: fc.integer({ min: 10, max: 600 }) }),
    fc.record({ k: fc.constant('move' as const), bps: fc.integer({ min: -500, max: 500 }), dt: fc.constantFrom(22, 1000) }),
  ),
  { minLength: 5, maxLength: 60 },
);

type PerpOp = typeof perpOps extends fc.Arbitrary<(infer T)[]> ? T : never;

/** Runs the operations through the engine as blocks would; every event, in emission order. */
function runOps(actions: PerpOp[]): { f: PerpFixture; all: ChainEvent[] } {
  const f = new PerpFixture();
  let price = 3000n * PRICE;
  f.price(ETH.id, price);
  const all: ChainEvent[] = [];
  const pick = (n: number) => {
    const ids = [...f.state.perpPositions.entries()].map(([, p]) => p).sort((a, b) => (a.id < b.id ? -1 : 1));
    return ids.length ? ids[n % ids.length] : undefined;
  };
  for (const a of actions) {
    if (a.k === 'open') {
      const r = f.run((c) => openPosition(c, { owner: traders[a.who], signer: traders[a.who], pairId: ETH.id, isLong: a.isLong, leverage: a.leverage, margin: BigInt(a.margin) * USDC, isAgent: false }));
      all.push(...r.events);
    } else if (a.k === 'close') {
      const p = pick(a.pick);
      if (p) all.push(...f.run((c) => closePosition(c, p.owner, p.id, (p.size * BigInt(a.per1000)) / 1000n)).events);
    } else if (a.k === 'tpsl') {
      const p = pick(a.pick);
      const up = (price * BigInt(10_000 + a.bps)) / 10_000n;
      const down = (price * BigInt(10_000 - a.bps)) / 10_000n;
      if (p) all.push(...f.run((c) => setTpsl(c, p.owner, p.id, p.isLong ? up : down, p.isLong ? down : up)).events);
    } else {
      all.push(...f.endBlock(a.dt));
      price = (price * BigInt(10_000 + a.bps)) / 10_000n;
      f.price(ETH.id, price);
    }
  }
  all.push(...f.endBlock());
  return { f, all };
}

describe('execution replayed through the machine', () => {
  /** Feeds one position's engine events into the machine. */
  function replay(events: ChainEvent[]): Snapshot {
    let s = init();
    for (const e of events) {
      if (e.type === 'PerpOpened') {
        const position = ctx({ isLong: e.isLong as boolean, size: e.size as bigint, entryPrice: e.entryPrice as bigint, margin: e.margin as bigint, leverage: e.leverage as number });
        s = step(s, { type: 'OPEN', facts: facts({ leverage: e.leverage as number, margin: e.margin as bigint, size: e.size as bigint }), position });
      } else if (e.type === 'PerpTpslSet') s = step(s, { type: 'SET_TPSL', takeProfit: e.takeProfit as bigint, stopLoss: e.stopLoss as bigint });
      else if (e.type === 'PerpClosed') {
        const size = e.size as bigint;
        const price = e.price as bigint;
        switch (e.reason) {
          case 'close':
            s = step(s, { type: 'CLOSE', size: e.remaining === 0n ? 0n : size, fresh: true });
            break;
          case 'tp':
          case 'sl':
            expect(tpslTrigger(s.context, price)).toBe(e.reason);
            s = step(s, { type: 'TICK_SECOND', price, fresh: true });
            break;
          case 'liquidation':
            s = step(s, { type: 'CHECK_BLOCK', price, fresh: true, liquidatable: true });
            break;
          case 'adl':
            s = step(s, { type: 'ADL', size: e.remaining === 0n ? s.context.size : size });
            break;
        }
        if (s.value === 'open') expect(s.context.size).toBe(e.remaining);
      }
    }
    return s;
  }

  it('ends every position in the state execution left it in', () => {
    fc.assert(
      fc.property(perpOps, (actions) => {
        const { f, all } = runOps(actions);
        const ids = new Set(all.filter((e) => e.type === 'PerpOpened').map((e) => e.positionId as string));
        for (const id of ids) {
          const s = replay(all.filter((e) => (e.type === 'PerpOpened' || e.type === 'PerpClosed' || e.type === 'PerpTpslSet') && e.positionId === id));
          const inState = f.state.perpPositions.get(id);
          expect(s.value === 'open', `position ${id}: machine ${String(s.value)}, state ${inState ? 'open' : 'gone'}`).toBe(inState !== undefined);
          if (inState) expect(s.context.size).toBe(inState.size);
        }
      }),
      { numRuns: 60 },
    );
  });
});

/** The machine event each engine event must have been stepped as, and the state it must have left. */
function expectedStep(e: ChainEvent): { from: string; type: string; to: string } {
  if (e.type === 'PerpOpened') return { from: 'none', type: 'OPEN', to: 'open' };
  if (e.type === 'PerpTpslSet') return { from: 'open', type: 'SET_TPSL', to: 'open' };
  if (e.type !== 'PerpClosed') throw new Error(`not a position change: ${e.type}`);
  const reason = e.reason;
  const type = { close: 'CLOSE', tp: 'TICK_SECOND', sl: 'TICK_SECOND', liquidation: 'CHECK_BLOCK', adl: 'ADL' }[reason]!;
  return { from: 'open', type, to: e.remaining !== 0n ? 'open' : reason === 'liquidation' ? 'liquidated' : 'closed' };
}

describe('the engine asks the machine', () => {
  it('every position change is one stepPosition call, paired with its event, and the stored position is what the step left', () => {
    const kinds = new Set<string>();
    fc.assert(
      fc.property(perpOps, (actions) => {
        stepped.calls.length = 0;
        const { f, all } = runOps(actions);
        const changes = all.filter((e) => e.type === 'PerpOpened' || e.type === 'PerpClosed' || e.type === 'PerpTpslSet');
        // One step per change, in the same order; nothing stepped without a change (a refused step would have thrown).
        expect(stepped.calls.map((c) => c.event.type)).toEqual(changes.map((e) => expectedStep(e).type));
        const last = new Map<string, PositionStep>();
        changes.forEach((e, i) => {
          const call = stepped.calls[i];
          const want = expectedStep(e);
          expect(call.from).toBe(want.from);
          expect(call.to?.value).toBe(want.to);
          const to = call.to!;
          if (e.type === 'PerpOpened') expect(to.context.size).toBe(e.size);
          if (e.type === 'PerpTpslSet') expect([to.context.takeProfit, to.context.stopLoss]).toEqual([e.takeProfit, e.stopLoss]);
          if (e.type === 'PerpClosed' && to.value === 'open') expect(to.context.size).toBe(e.remaining);
          last.set(e.positionId as string, to as PositionStep);
          kinds.add(`${want.type}->${want.to}`);
        });
        for (const [id, to] of last) {
          const stored = f.state.perpPositions.get(id);
          expect(stored !== undefined, `position ${id}: machine ${to.value}`).toBe(to.value === 'open');
          if (stored) expect([stored.size, stored.takeProfit, stored.stopLoss]).toEqual([to.context.size, to.context.takeProfit, to.context.stopLoss]);
        }
      }),
      { numRuns: 60 },
    );
    // The runs took the engine through opens, partial and whole closes, TP/SL and liquidations.
    for (const k of ['OPEN->open', 'SET_TPSL->open', 'CLOSE->open', 'CLOSE->closed', 'TICK_SECOND->closed', 'CHECK_BLOCK->liquidated']) expect(kinds).toContain(k);
  });

  it("an event the machine refuses in the position's state halts the node (InvariantError), not the transaction", () => {
    const f = new PerpFixture();
    f.price(ETH.id, 3000n * PRICE);
    const p = f.open(traders[0], { isLong: true, leverage: 10, margin: 1_000n * USDC });
    // A healthy position: the machine has no CHECK_BLOCK transition to liquidated for it.
    expect(() => f.run((c) => settlePosition(c, p, p.size, 3000n * PRICE, 'liquidation'))).toThrow(InvariantError);
    // No take-profit or stop-loss set: TICK_SECOND cannot close it.
    expect(() => f.run((c) => settlePosition(c, p, p.size, 3000n * PRICE, 'tp'))).toThrow(InvariantError);
    // A stale price pauses closing: CLOSE is refused.
    f.endBlock(f.state.params().oracle.maxStalenessMs + 1_000);
    expect(() => f.run((c) => settlePosition(c, p, p.size, 3000n * PRICE, 'close'))).toThrow(InvariantError);
    // ADL needs no fresh price (it covers a loss already taken): the machine allows it.
    const adl = f.run((c) => settlePosition(c, p, p.size, 3000n * PRICE, 'adl'));
    expect(adl.ok).toBe(true);
    expect(f.position(p.id)).toBeUndefined();
  });
});
