/**
 * What xstate's own `transition()` does to a flat machine's state `value` with `context`
 * on `event`: the reference the machines' compiled steppers are compared with. Undefined
 * when the machine refuses the event, after checking a refusal leaves the snapshot as it
 * was (as the steppers answer it).
 */
import { expect } from 'vitest';
import { transition, type AnyStateMachine, type EventObject } from 'xstate';

export function viaXstate<C>(machine: AnyStateMachine, value: string, context: C, event: EventObject): { value: string; context: C } | undefined {
  const s = machine.resolveState({ value, context });
  const [next] = transition(machine, s, event);
  if (!s.can(event)) {
    expect(next.value).toBe(value);
    expect(next.context).toEqual(context);
    return undefined;
  }
  return { value: next.value as string, context: next.context as C };
}
