/**
 * compileFlatStepper (machines/stepper.ts): it follows xstate's order of transitions and
 * guards on a small machine, and refuses at load every construct it does not cover, so a
 * machine that outgrows it cannot run with a stepper that no longer matches it.
 */
import { describe, expect, it } from 'vitest';
import { assign, setup, transition } from 'xstate';
import { compileFlatStepper } from '../../machines/stepper';

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
