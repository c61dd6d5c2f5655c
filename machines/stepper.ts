/**
 * A fast pure stepper compiled from a flat XState machine: what `transition()` answers,
 * at the cost of a table lookup and the machine's own guard calls (xstate's pure
 * `transition()` builds a throw-away actor per call, ~45 µs; this is well under 1 µs).
 *
 * Nothing in the stepper is written twice. At load it reads the machine's drawing
 * (`machine.config`: which state has which transitions for which event, in what order,
 * with which guard, target and actions) and the machine's own guard implementations;
 * context updates are the functions the machine's `assign` actions call (the machine
 * file passes the same table to both). So an edit to the drawing changes execution.
 *
 * Semantics kept (those of xstate v5 for a flat machine): the first transition of a
 * state's list for the event whose guard passes is taken; no passing guard, or no
 * transition for the event (a final state has none), is a refusal (`undefined`); a
 * transition without a target stays in the state; actions run in order, each seeing
 * the context the previous one left.
 *
 * Only what that covers compiles: a flat machine (no nested or parallel states), no
 * entry/exit actions, `always` or `after`, guards named by string, actions named by
 * string and found in the update table. Anything else throws at load, so a machine that
 * outgrows the stepper cannot run with a stepper that no longer matches it; each
 * machine's agreement test walks every (state, event) against `transition()`.
 */
import { assign, type AnyStateMachine, type EventObject, type MachineContext } from 'xstate';

export interface FlatStep<V extends string, C> {
  value: V;
  context: C;
}

/** A context update: what one named `assign` action of the machine returns. */
export type ContextUpdate<C, E> = (context: C, event: E) => Partial<C>;

/**
 * The machine's `assign` actions, one per update of the table, under the update's name:
 * what `setup({ actions })` takes, so the machine and its stepper apply the same table.
 */
export function assignUpdates<C extends MachineContext, E extends EventObject, K extends string>(updates: Readonly<Record<K, ContextUpdate<C, E>>>) {
  const out = {} as Record<K, ReturnType<typeof assign<C, E, undefined, E, never>>>;
  for (const name of Object.keys(updates) as K[]) out[name] = assign<C, E, undefined, E, never>(({ context, event }) => updates[name](context, event));
  return out;
}

export type FlatStepper<V extends string, C, E extends { type: string }> = (value: V, context: C, event: E) => FlatStep<V, C> | undefined;

interface Compiled<C, E> {
  guard: ((args: { context: C; event: E }) => boolean) | null;
  target: string | null;
  updates: ContextUpdate<C, E>[];
}

type GuardImpl<C, E> = (args: { context: C; event: E }, params?: unknown) => boolean;

const listOf = <T>(v: T | readonly T[] | undefined): readonly T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v as T]);

export function compileFlatStepper<V extends string, C extends object, E extends { type: string }>(
  machine: AnyStateMachine,
  updates: Readonly<Record<string, ContextUpdate<C, E>>>,
): FlatStepper<V, C, E> {
  const id = machine.id;
  const fail = (why: string): never => {
    throw new Error(`machine ${id}: ${why}; compileFlatStepper covers flat machines only (machines/stepper.ts)`);
  };
  const config = machine.config as {
    type?: string;
    states?: Record<string, { type?: string; states?: unknown; entry?: unknown; exit?: unknown; always?: unknown; after?: unknown; invoke?: unknown; on?: Record<string, unknown> }>;
    on?: unknown;
    entry?: unknown;
    exit?: unknown;
  };
  if (config.type === 'parallel') fail('parallel regions');
  if (config.on !== undefined || config.entry !== undefined || config.exit !== undefined) fail('root-level transitions or actions');
  const guards = (machine.implementations.guards ?? {}) as Record<string, GuardImpl<C, E>>;
  const states = config.states ?? {};
  const table = new Map<string, Map<string, Compiled<C, E>[]>>();
  for (const [name, node] of Object.entries(states)) {
    if (node.states !== undefined) fail(`state ${name} has child states`);
    for (const key of ['entry', 'exit', 'always', 'after', 'invoke'] as const) if (node[key] !== undefined) fail(`state ${name} has ${key}`);
    const byEvent = new Map<string, Compiled<C, E>[]>();
    for (const [eventType, raw] of Object.entries(node.on ?? {})) {
      const list: Compiled<C, E>[] = [];
      for (const raw1 of listOf(raw as string | object | readonly (string | object)[])) {
        // `EVENT: 'target'` is shorthand for `{ target }`.
        const t = typeof raw1 === 'string' ? { target: raw1 } : raw1;
        const { guard, target, actions, reenter, ...rest } = t as { guard?: unknown; target?: unknown; actions?: unknown; reenter?: unknown };
        if (Object.keys(rest).length > 0) fail(`${name} ${eventType}: transition keys ${Object.keys(rest).join(', ')}`);
        if (reenter !== undefined && typeof reenter !== 'boolean') fail(`${name} ${eventType}: reenter`);
        let g: Compiled<C, E>['guard'] = null;
        if (guard !== undefined) {
          if (typeof guard !== 'string') fail(`${name} ${eventType}: guard is not a name`);
          const impl = guards[guard as string];
          if (impl === undefined) fail(`${name} ${eventType}: guard ${String(guard)} has no implementation`);
          g = (args) => impl(args, undefined);
        }
        if (target !== undefined && (typeof target !== 'string' || !(target in states))) fail(`${name} ${eventType}: target ${String(target)} is not a sibling state`);
        const ups = listOf(actions as string | readonly string[] | undefined).map((a) => {
          if (typeof a !== 'string' || updates[a] === undefined) fail(`${name} ${eventType}: action ${String(a)} is not in the update table`);
          return updates[a];
        });
        list.push({ guard: g, target: (target as string | undefined) ?? null, updates: ups });
      }
      byEvent.set(eventType, list);
    }
    table.set(name, byEvent);
  }
  return (value, context, event) => {
    const candidates = table.get(value)?.get(event.type);
    if (candidates === undefined) return undefined;
    for (const t of candidates) {
      if (t.guard !== null && !t.guard({ context, event })) continue;
      let next = context;
      for (const u of t.updates) next = { ...next, ...u(next, event) };
      return { value: (t.target ?? value) as V, context: next };
    }
    return undefined;
  };
}
