/**
 * The withdrawal machine's fast stepper (`stepWithdrawalMachine`, compiled from the
 * machine by machines/stepper.ts, the function every withdrawal's status change goes
 * through: src/state/bridge/withdrawals.ts) agrees with xstate's `transition()`: for
 * every state × context × event, refused ones included, over a grid that takes every
 * drawn transition, along every xstate/graph shortest path, and for random sequences;
 * and the drawing says what decision 83 says.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viaXstate as viaXstateOf } from './via-xstate';
import { getShortestPaths, toDirectedGraph } from 'xstate/graph';
import {
  stepWithdrawalMachine,
  WITHDRAWAL_STATES,
  withdrawalMachine,
  type WithdrawalContext,
  type WithdrawalEvent,
  type WithdrawalStateName,
} from '../../machines/withdrawal';


const viaXstate = (value: WithdrawalStateName, context: WithdrawalContext, event: WithdrawalEvent) => viaXstateOf<WithdrawalContext>(withdrawalMachine, value, context, event);

const tx = (b: number) => new Uint8Array(32).fill(b);

const EVENTS: WithdrawalEvent[] = [
  { type: 'SIGNED', nowMs: 1000 },
  { type: 'QUEUED', nowMs: 2000, externalTx: tx(1) },
  { type: 'PAID', nowMs: 3000, externalTx: tx(2) },
  { type: 'VOID', nowMs: 4000, reason: 1, externalTx: tx(0) },
  { type: 'VOID', nowMs: 4000, reason: 2, externalTx: tx(3) },
];

const CONTEXTS: WithdrawalContext[] = [{ updatedMs: 0 }, { updatedMs: 2000, queuedTx: tx(1) }];

describe('stepWithdrawalMachine agrees with transition()', () => {
  it('for every state × context × event of the grid, refused ones included, and the grid takes every drawn transition', () => {
    const taken = new Set<string>();
    for (const value of WITHDRAWAL_STATES) {
      for (const context of CONTEXTS) {
        for (const event of EVENTS) {
          const want = viaXstate(value, context, event);
          const got = stepWithdrawalMachine(value, context, event);
          expect(got, `${value} ${event.type}`).toEqual(want);
          if (want !== undefined) taken.add(`${value}|${event.type}|${want.value}`);
        }
      }
    }
    const drawn = new Set<string>();
    for (const node of toDirectedGraph(withdrawalMachine).children) for (const e of node.edges) drawn.add(`${e.source.key}|${e.label.text}|${e.target.key}`);
    expect([...taken].sort()).toEqual([...drawn].sort());
  });

  it('along every shortest path xstate/graph finds, reaching every state', () => {
    const paths = getShortestPaths(withdrawalMachine, { events: EVENTS, serializeState: (s) => String(s.value), serializeEvent: (e) => JSON.stringify({ ...e, externalTx: undefined }) });
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(WITHDRAWAL_STATES));
    for (const path of paths) {
      let at: { value: WithdrawalStateName; context: WithdrawalContext } = { value: 'requested', context: { updatedMs: 0 } };
      for (const st of path.steps) {
        if ((st.event.type as string) === 'xstate.init') continue;
        const next = stepWithdrawalMachine(at.value, at.context, st.event);
        expect(next).toBeDefined();
        expect(next).toEqual(viaXstate(at.value, at.context, st.event));
        at = next!;
      }
      expect(at.value).toBe(path.state.value);
    }
  });

  it('for random states, contexts and event sequences', () => {
    const ms = fc.integer({ min: 0, max: 10_000 });
    const bytes = fc.uint8Array({ minLength: 32, maxLength: 32 });
    const event: fc.Arbitrary<WithdrawalEvent> = fc.oneof(
      fc.record({ type: fc.constant('SIGNED' as const), nowMs: ms }),
      fc.record({ type: fc.constant('QUEUED' as const), nowMs: ms, externalTx: bytes }),
      fc.record({ type: fc.constant('PAID' as const), nowMs: ms, externalTx: bytes }),
      fc.record({ type: fc.constant('VOID' as const), nowMs: ms, reason: fc.constantFrom(1, 2), externalTx: bytes }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...WITHDRAWAL_STATES), ms, fc.array(event, { minLength: 1, maxLength: 8 }), (value, updatedMs, events) => {
        let at: { value: WithdrawalStateName; context: WithdrawalContext } = { value, context: { updatedMs } };
        for (const e of events) {
          const got = stepWithdrawalMachine(at.value, at.context, e);
          expect(got).toEqual(viaXstate(at.value, at.context, e));
          if (got) at = got;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('what the drawing says (decision 83)', () => {
  const step = stepWithdrawalMachine;

  it('requested → signed → submitted → paid, each recording its block time and external transaction', () => {
    const s = step('requested', { updatedMs: 0 }, { type: 'SIGNED', nowMs: 1000 })!;
    expect(s).toEqual({ value: 'signed', context: { updatedMs: 1000 } });
    const q = step(s.value, s.context, { type: 'QUEUED', nowMs: 2000, externalTx: tx(1) })!;
    expect(q).toEqual({ value: 'submitted', context: { updatedMs: 2000, queuedTx: tx(1) } });
    const p = step(q.value, q.context, { type: 'PAID', nowMs: 3000, externalTx: tx(2) })!;
    expect(p).toEqual({ value: 'paid', context: { updatedMs: 3000, queuedTx: tx(1), paidTx: tx(2) } });
  });

  it('PAID from signed (queueing and payout seen in one scan); never from requested; QUEUED only from signed', () => {
    expect(step('signed', { updatedMs: 0 }, { type: 'PAID', nowMs: 5, externalTx: tx(2) })!.value).toBe('paid');
    expect(step('requested', { updatedMs: 0 }, { type: 'PAID', nowMs: 5, externalTx: tx(2) })).toBeUndefined();
    expect(step('requested', { updatedMs: 0 }, { type: 'QUEUED', nowMs: 5, externalTx: tx(1) })).toBeUndefined();
    expect(step('submitted', { updatedMs: 0 }, { type: 'QUEUED', nowMs: 5, externalTx: tx(1) })).toBeUndefined();
    expect(step('signed', { updatedMs: 0 }, { type: 'SIGNED', nowMs: 5 })).toBeUndefined();
  });

  it('VOID refunds from every non-final state; paid and refunded take no event at all', () => {
    for (const v of ['requested', 'signed', 'submitted'] as const) {
      expect(step(v, { updatedMs: 0 }, { type: 'VOID', nowMs: 7, reason: 1, externalTx: tx(0) })).toEqual({
        value: 'refunded',
        context: { updatedMs: 7, voidReason: 1, voidTx: tx(0) },
      });
    }
    for (const v of ['paid', 'refunded'] as const) for (const e of EVENTS) expect(step(v, { updatedMs: 1 }, e)).toBeUndefined();
  });
});
