/**
 * The validator-lifecycle machine's fast stepper (`stepValidatorLifecycle`, compiled from
 * the machine by machines/stepper.ts, the function every validator status change goes
 * through: src/state/validators/records.ts) agrees with xstate's `transition()`: for every
 * state × every kind of event, refused ones included, over a fixed grid that takes every
 * drawn transition, along every xstate/graph shortest path, and for random sequences.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { viaXstate as viaXstateOf } from './via-xstate';
import { getShortestPaths, toDirectedGraph } from 'xstate/graph';
import {
  EMPTY_VALIDATOR_CONTEXT,
  slashed,
  stepValidatorLifecycle,
  VALIDATOR_STATES,
  validatorLifecycleMachine,
  type ValidatorContext,
  type ValidatorEvent,
  type ValidatorStateName,
} from '../../machines/validator-lifecycle';

const stringify = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

const viaXstate = (value: ValidatorStateName, context: ValidatorContext, event: ValidatorEvent) => viaXstateOf<ValidatorContext>(validatorLifecycleMachine, value, context, event);

const EVENTS: ValidatorEvent[] = [
  { type: 'REGISTER', bondWei: 1000n, lockedWei: 1000n },
  { type: 'REGISTER', bondWei: 2000n, lockedWei: 0n },
  { type: 'EPOCH_BOUNDARY', selected: true },
  { type: 'EPOCH_BOUNDARY', selected: false },
  { type: 'UNBOND', epoch: 3, unbondingEpochs: 2, candidatesAfter: 4, activeSetMin: 4 },
  { type: 'UNBOND', epoch: 3, unbondingEpochs: 2, candidatesAfter: 3, activeSetMin: 4 },
  { type: 'UNBONDING_DONE', epoch: 4 },
  { type: 'UNBONDING_DONE', epoch: 5 },
  { type: 'JAIL_DOWNTIME', epoch: 3, jailEpochs: 2, slashBps: 10, candidatesAfter: 4, activeSetMin: 4 },
  { type: 'JAIL_DOWNTIME', epoch: 3, jailEpochs: 2, slashBps: 10, candidatesAfter: 3, activeSetMin: 4 },
  { type: 'UNJAIL', epoch: 4 },
  { type: 'UNJAIL', epoch: 5 },
  { type: 'DOUBLE_SIGN', slashBps: 500 },
];

const CONTEXTS: ValidatorContext[] = [
  { ...EMPTY_VALIDATOR_CONTEXT },
  { bondWei: 10_000n, lockedWei: 10_000n, unbondingDoneEpoch: 5, jailedUntilEpoch: 5 },
  { bondWei: 10_000n, lockedWei: 3n, unbondingDoneEpoch: 0, jailedUntilEpoch: 0 },
];

const guardName = (g: unknown): string => (typeof g === 'string' ? g : '-');

describe('stepValidatorLifecycle agrees with transition()', () => {
  it('for every state × context × event of the grid, refused ones included, and the grid takes every drawn transition', () => {
    const taken = new Set<string>();
    let refused = 0;
    for (const value of VALIDATOR_STATES) {
      for (const context of CONTEXTS) {
        for (const event of EVENTS) {
          const want = viaXstate(value, context, event);
          const got = stepValidatorLifecycle(value, context, event);
          expect(got, `${value} ${stringify(context)} ${stringify(event)}`).toEqual(want);
          if (want === undefined) refused++;
          else {
            const [t] = validatorLifecycleMachine.getTransitionData(validatorLifecycleMachine.resolveState({ value, context }), event);
            taken.add(`${value}|${event.type}|${guardName(t.guard)}|${want.value}`);
          }
        }
      }
    }
    const drawn = new Set<string>();
    for (const node of toDirectedGraph(validatorLifecycleMachine).children) {
      for (const e of node.edges) drawn.add(`${e.source.key}|${e.label.text}|${guardName((e.transition as { guard?: unknown }).guard)}|${e.target.key}`);
    }
    expect([...taken].sort()).toEqual([...drawn].sort());
    // exited and tombstoned refuse everything.
    expect(refused).toBeGreaterThan(2 * CONTEXTS.length * EVENTS.length);
  });

  // States are told apart by value only: a jail-unjail cycle slashes the bond each time,
  // so contexts would make the graph endless.
  it('along every shortest path xstate/graph finds, reaching every state', () => {
    const paths = getShortestPaths(validatorLifecycleMachine, { events: EVENTS, serializeState: (s) => String(s.value), serializeEvent: stringify });
    expect(new Set(paths.map((p) => p.state.value))).toEqual(new Set(VALIDATOR_STATES));
    for (const path of paths) {
      let at = { value: 'observer' as ValidatorStateName, context: { ...EMPTY_VALIDATOR_CONTEXT } };
      for (const st of path.steps) {
        if ((st.event.type as string) === 'xstate.init') continue;
        const next = stepValidatorLifecycle(at.value, at.context, st.event);
        expect(next).toBeDefined();
        expect(next).toEqual(viaXstate(at.value, at.context, st.event));
        at = next!;
      }
      expect(at.value).toBe(path.state.value);
    }
  });

  it('for random states, contexts and event sequences', () => {
    const epoch = fc.integer({ min: 0, max: 10 });
    const context = fc.record({
      bondWei: fc.bigInt({ min: 0n, max: 10n ** 24n }),
      lockedWei: fc.bigInt({ min: 0n, max: 10n ** 24n }),
      unbondingDoneEpoch: epoch,
      jailedUntilEpoch: epoch,
    });
    const floor = { candidatesAfter: fc.integer({ min: 0, max: 25 }), activeSetMin: fc.integer({ min: 1, max: 21 }) };
    const event: fc.Arbitrary<ValidatorEvent> = fc.oneof(
      fc.record({ type: fc.constant('REGISTER' as const), bondWei: fc.bigInt({ min: 1n, max: 10n ** 24n }), lockedWei: fc.bigInt({ min: 0n, max: 10n ** 24n }) }),
      fc.record({ type: fc.constant('EPOCH_BOUNDARY' as const), selected: fc.boolean() }),
      fc.record({ type: fc.constant('UNBOND' as const), epoch, unbondingEpochs: fc.integer({ min: 1, max: 3 }), ...floor }),
      fc.record({ type: fc.constant('UNBONDING_DONE' as const), epoch }),
      fc.record({ type: fc.constant('JAIL_DOWNTIME' as const), epoch, jailEpochs: fc.integer({ min: 1, max: 3 }), slashBps: fc.integer({ min: 0, max: 10_000 }), ...floor }),
      fc.record({ type: fc.constant('UNJAIL' as const), epoch }),
      fc.record({ type: fc.constant('DOUBLE_SIGN' as const), slashBps: fc.integer({ min: 0, max: 10_000 }) }),
    );
    fc.assert(
      fc.property(fc.constantFrom(...VALIDATOR_STATES), context, fc.array(event, { minLength: 1, maxLength: 10 }), (value, c, events) => {
        let at: { value: ValidatorStateName; context: ValidatorContext } = { value, context: c };
        for (const e of events) {
          const want = viaXstate(at.value, at.context, e);
          const got = stepValidatorLifecycle(at.value, at.context, e);
          expect(got).toEqual(want);
          if (got) at = got;
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('what the drawing says', () => {
  it('registered becomes active only when selected; an active validator left out goes back to registered', () => {
    const c = { ...EMPTY_VALIDATOR_CONTEXT, bondWei: 5n };
    expect(stepValidatorLifecycle('registered', c, { type: 'EPOCH_BOUNDARY', selected: true })?.value).toBe('active');
    expect(stepValidatorLifecycle('registered', c, { type: 'EPOCH_BOUNDARY', selected: false })?.value).toBe('registered');
    expect(stepValidatorLifecycle('active', c, { type: 'EPOCH_BOUNDARY', selected: false })?.value).toBe('registered');
  });

  it('unbonding ends at its epoch and releases the bond; UNJAIL waits for the window; tombstoned takes nothing', () => {
    const unb = stepValidatorLifecycle('active', { ...EMPTY_VALIDATOR_CONTEXT, bondWei: 9n, lockedWei: 9n }, { type: 'UNBOND', epoch: 3, unbondingEpochs: 2, candidatesAfter: 4, activeSetMin: 4 })!;
    expect(unb).toEqual({ value: 'unbonding', context: { bondWei: 9n, lockedWei: 9n, unbondingDoneEpoch: 5, jailedUntilEpoch: 0 } });
    expect(stepValidatorLifecycle(unb.value, unb.context, { type: 'UNBONDING_DONE', epoch: 4 })).toBeUndefined();
    expect(stepValidatorLifecycle(unb.value, unb.context, { type: 'UNBONDING_DONE', epoch: 5 })?.context).toEqual({ bondWei: 0n, lockedWei: 0n, unbondingDoneEpoch: 0, jailedUntilEpoch: 0 });
    const jailed = stepValidatorLifecycle('active', { ...EMPTY_VALIDATOR_CONTEXT, bondWei: 10_000n, lockedWei: 10_000n }, { type: 'JAIL_DOWNTIME', epoch: 3, jailEpochs: 2, slashBps: 10, candidatesAfter: 4, activeSetMin: 4 })!;
    expect(jailed.context).toMatchObject({ bondWei: 9_990n, lockedWei: 9_990n, jailedUntilEpoch: 5 });
    expect(stepValidatorLifecycle('jailed', jailed.context, { type: 'UNJAIL', epoch: 4 })).toBeUndefined();
    expect(stepValidatorLifecycle('jailed', jailed.context, { type: 'UNJAIL', epoch: 5 })?.value).toBe('registered');
    for (const e of EVENTS) expect(stepValidatorLifecycle('tombstoned', jailed.context, e)).toBeUndefined();
  });

  it('a slash takes the locked part first and never more than it', () => {
    expect(slashed({ bondWei: 1_000_000n, lockedWei: 1_000_000n }, 500)).toEqual({ bondWei: 950_000n, lockedWei: 950_000n });
    expect(slashed({ bondWei: 1_000_000n, lockedWei: 10n }, 500)).toEqual({ bondWei: 950_000n, lockedWei: 0n });
  });
});
