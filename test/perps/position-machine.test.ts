/**
 * The position machine (machines/position.ts): every state reached by xstate/graph
 * paths; its guards agree with the functions execution calls (`snapshot.can(event)`
 * against openRefusal, tpslRefusal, tpslTrigger, liquidatable); and what the engine did
 * to positions over a random run, replayed through the machine, ends in the same states
 * (open positions in state, closed and liquidated ones gone).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { machines } from '../../machines/index';
import { closesAll, openRefusal, positionMachine, tpslRefusal, tpslTrigger, type OpenFacts, type PositionContext, type PositionEvent } from '../../machines/position';
import { closePosition, openPosition, setTpsl } from '../../src/state/perps/engine';
import type { ChainEvent } from '../../src/state/context';
import { ETH, PerpFixture, PRICE, traders, USDC } from './fixture';

type Snapshot = SnapshotFrom<typeof positionMachine>;
const init = (): Snapshot => initialTransition(positionMachine)[0];
const step = (s: Snapshot, e: PositionEvent) => transition(positionMachine, s, e)[0];
const stringify = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

const facts = (f: Partial<OpenFacts> = {}): OpenFacts => ({ hasPrice: true, fresh: true, leverage: 10, maxLeverage: 50, margin: 100n, minMargin: 1n, size: 5n, ...f });
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
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ k: fc.constant('open' as const), who: fc.nat(3), isLong: fc.boolean(), leverage: fc.constantFrom(2, 10, 50), margin: fc.integer({ min: 1, max: 50_000 }) }),
            fc.record({ k: fc.constant('close' as const), pick: fc.nat(), per1000: fc.constantFrom(0, 300, 700) }),
            fc.record({ k: fc.constant('tpsl' as const), pick: fc.nat(), bps: fc.integer({ min: 10, max: 600 }) }),
            fc.record({ k: fc.constant('move' as const), bps: fc.integer({ min: -500, max: 500 }), dt: fc.constantFrom(22, 1000) }),
          ),
          { minLength: 5, maxLength: 60 },
        ),
        (actions) => {
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
          const ids = new Set(all.filter((e) => e.type === 'PerpOpened').map((e) => e.positionId as string));
          for (const id of ids) {
            const s = replay(all.filter((e) => (e.type === 'PerpOpened' || e.type === 'PerpClosed' || e.type === 'PerpTpslSet') && e.positionId === id));
            const inState = f.state.perpPositions.get(id);
            expect(s.value === 'open', `position ${id}: machine ${String(s.value)}, state ${inState ? 'open' : 'gone'}`).toBe(inState !== undefined);
            if (inState) expect(s.context.size).toBe(inState.size);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
