/**
 * compileFlatStepper (machines/stepper.ts): it follows xstate's order of transitions and
 * guards on a small machine, and refuses at load every construct it does not cover, so a
 * machine that outgrows it cannot run with a stepper that no longer matches it.
 */
import { describe, expect, it } from 'vitest';
import { assign, initialTransition, setup, transition } from 'xstate';
import { compileEffectStepper, compileFlatStepper } from '../../machines/stepper';

type Ctx = { n: number };
type Ev = { type: 'GO'; by: number } | { type: 'STOP' };

const updates = {
  add: (c: Ctx, e: Ev) => ({ n: c.n + (e.type === 'GO' ? e.by : 0) }),
  double: (c: Ctx) => ({ n: c.n * 2 }),
};
const base = setup({
  types: { context: {} as Ctx, events: {} as Ev },
  actions: { add: assign(({ context, event }) => updates.add(context, event)), double: assign(({ context }) => updates.double(context)) },
  guards: { big: ({ event }) => event.type === 'GO' && event.by > 10, positive: ({ event }) => event.type === 'GO' && event.by > 0 },
});

describe('compileFlatStepper', () => {
  const machine = base.createMachine({
    id: 'toy',
    initial: 'a',
    context: { n: 1 },
    states: {
      a: {
        on: {
          GO: [
            { guard: 'big', target: 'c', actions: ['add', 'double'] },
            { guard: 'positive', actions: 'add' },
          ],
          STOP: 'c',
        },
      },
      c: { type: 'final' },
    },
  });
  const step = compileFlatStepper<'a' | 'c', Ctx, Ev>(machine, updates);

  it('takes the first transition whose guard passes, runs actions in order, and refuses the rest as transition() does', () => {
    const cases: ['a' | 'c', Ev][] = [
      ['a', { type: 'GO', by: 20 }],
      ['a', { type: 'GO', by: 3 }],
      ['a', { type: 'GO', by: -3 }],
      ['a', { type: 'STOP' }],
      ['c', { type: 'GO', by: 20 }],
    ];
    for (const [value, event] of cases) {
      const s = machine.resolveState({ value, context: { n: 1 } });
      const [next] = transition(machine, s, event);
      const got = step(value, { n: 1 }, event);
      if (s.can(event)) expect(got).toEqual({ value: next.value, context: next.context });
      else expect(got).toBeUndefined();
    }
    expect(step('a', { n: 1 }, { type: 'GO', by: 20 })).toEqual({ value: 'c', context: { n: 42 } });
  });

  it('refuses at load what it does not cover', () => {
    const nested = base.createMachine({ id: 'nested', initial: 'a', context: { n: 0 }, states: { a: { initial: 'x', states: { x: {} } } } });
    expect(() => compileFlatStepper(nested, updates)).toThrow(/child states/);
    const parallel = base.createMachine({ id: 'par', type: 'parallel', context: { n: 0 }, states: { a: {}, b: {} } });
    expect(() => compileFlatStepper(parallel, updates)).toThrow(/parallel/);
    const entry = base.createMachine({ id: 'entry', initial: 'a', context: { n: 0 }, states: { a: { entry: 'double' } } });
    expect(() => compileFlatStepper(entry, updates)).toThrow(/entry/);
    const unknownAction = base.createMachine({ id: 'act', initial: 'a', context: { n: 0 }, states: { a: { on: { STOP: { actions: 'double' } } } } });
    expect(() => compileFlatStepper(unknownAction, { add: updates.add })).toThrow(/update table/);
    const deepTarget = base.createMachine({ id: 'deep', initial: 'a', context: { n: 0 }, states: { a: { on: { STOP: '#deep.a' } } } });
    expect(() => compileFlatStepper(deepTarget, updates)).toThrow(/sibling/);
  });
});

describe('compileEffectStepper', () => {
  type Fx = { type: 'ping'; params: unknown };
  const fx = setup({
    types: { context: {} as Ctx, events: {} as Ev, input: {} as { n: number } },
    actions: { add: assign(({ context, event }) => updates.add(context, event)), double: assign(({ context }) => updates.double(context)), ping: (_, _p: unknown) => {} },
    guards: { big: ({ event }) => event.type === 'GO' && event.by > 10, atLeast: ({ event }, p: { by: number }) => event.type === 'GO' && event.by >= p.by },
  });
  const machine = fx.createMachine({
    id: 'fx',
    initial: 'a',
    context: ({ input }) => ({ n: input.n }),
    states: {
      a: {
        entry: { type: 'ping', params: ({ context }: { context: Ctx }) => ({ entered: 'a', n: context.n }) },
        on: {
          GO: [
            { guard: 'big', target: 'b', actions: ['add', { type: 'ping', params: ({ context }: { context: Ctx }) => ({ n: context.n }) }, 'double'] },
            { guard: { type: 'atLeast', params: { by: 5 } }, target: 'a', actions: 'add' },
            { guard: { type: 'atLeast', params: { by: 2 } }, target: 'a', reenter: true, actions: 'add' },
          ],
        },
      },
      b: { entry: [{ type: 'ping', params: 'b' }], on: { STOP: 'a' } },
    },
  });
  const stepper = compileEffectStepper<'a' | 'b', Ctx, Ev, { n: number }, Fx>(machine, updates, ['ping'], (input) => ({ n: input.n }));
  const effects = (acts: readonly { type: string; params?: unknown }[]) => acts.filter((a) => a.type === 'ping').map((a) => ({ type: a.type, params: a.params }));

  it('runs transition actions, then the entered state entry, in order; re-enters a state only with reenter; as transition() does', () => {
    const [s0, a0] = initialTransition(machine, { n: 1 });
    expect(stepper.initial({ n: 1 })).toEqual({ value: s0.value, context: s0.context, effects: effects(a0) });
    const cases: ['a' | 'b', Ev][] = [
      ['a', { type: 'GO', by: 20 }],
      ['a', { type: 'GO', by: 6 }],
      ['a', { type: 'GO', by: 3 }],
      ['a', { type: 'GO', by: 1 }],
      ['b', { type: 'STOP' }],
      ['b', { type: 'GO', by: 20 }],
    ];
    for (const [value, event] of cases) {
      const s = machine.resolveState({ value, context: { n: 1 } });
      const [next, acts] = transition(machine, s, event);
      expect(stepper.accepts(value, { n: 1 }, event)).toBe(s.can(event));
      const got = stepper.step(value, { n: 1 }, event);
      if (s.can(event)) expect(got).toEqual({ value: next.value, context: next.context, effects: effects(acts) });
      else expect(got).toBeUndefined();
    }
  });

  it('refuses at load an action that is neither an effect nor an update, and a transition that does nothing', () => {
    expect(() => compileEffectStepper(machine, { add: updates.add }, ['ping'], () => ({ n: 0 }))).toThrow(/neither an effect nor in the update table/);
    const idle = base.createMachine({ id: 'idle', initial: 'a', context: { n: 0 }, states: { a: { on: { STOP: { guard: 'big' } } } } });
    expect(() => compileEffectStepper(idle, updates, [], () => ({ n: 0 }))).toThrow(/without target or actions/);
  });
});
