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

/** What the steppers read of a machine's drawing. */
interface FlatConfig {
  type?: string;
  initial?: unknown;
  states?: Record<string, { type?: string; states?: unknown; entry?: unknown; exit?: unknown; always?: unknown; after?: unknown; invoke?: unknown; on?: Record<string, unknown> }>;
  on?: unknown;
  entry?: unknown;
  exit?: unknown;
}

/** The machine's drawing, refused unless flat at the root; `fail` throws naming the machine and the compiler. */
function flatConfig(machine: AnyStateMachine, compiler: string): { fail: (why: string) => never; config: FlatConfig } {
  const fail = (why: string): never => {
    throw new Error(`machine ${machine.id}: ${why}; ${compiler} covers flat machines only (machines/stepper.ts)`);
  };
  const config = machine.config as FlatConfig;
  if (config.type === 'parallel') fail('parallel regions');
  if (config.on !== undefined || config.entry !== undefined || config.exit !== undefined) fail('root-level transitions or actions');
  return { fail, config };
}

export function compileFlatStepper<V extends string, C extends object, E extends { type: string }>(
  machine: AnyStateMachine,
  updates: Readonly<Record<string, ContextUpdate<C, E>>>,
): FlatStepper<V, C, E> {
  const { fail, config } = flatConfig(machine, 'compileFlatStepper');
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

/**
 * A step of a machine with effects: the next state and the effects its actions name,
 * in the order xstate executes them, with their params resolved.
 */
export interface EffectStep<V extends string, C, A> {
  value: V;
  context: C;
  effects: A[];
}

export interface EffectStepper<V extends string, C, E extends { type: string }, I, A> {
  /** The initial state for `input` and its entry effects (what `initialTransition()` answers). */
  initial(input: I): EffectStep<V, C, A>;
  /** What `transition()` answers, effects only; undefined when the machine refuses the event (`!snapshot.can(event)`). */
  step(value: V, context: C, event: E): EffectStep<V, C, A> | undefined;
  /** `snapshot.can(event)`: whether a transition's guard passes, without running it. */
  accepts(value: V, context: C, event: E): boolean;
}

type ActionSpec = string | { type: string; params?: unknown };
type Resolved<C, E> = { update: ContextUpdate<C, E> } | { effect: string; params: ((args: { context: C; event: E }) => unknown) | unknown };

interface CompiledEffectful<C, E> {
  guard: ((args: { context: C; event: E }) => boolean) | null;
  target: string | null;
  actions: Resolved<C, E>[];
}

/**
 * compileFlatStepper for a flat machine whose actions are effects to execute elsewhere
 * (the consensus round machine: sign a vote, schedule a timeout). Beyond what
 * compileFlatStepper covers: entry actions, actions and guards given as `{ type, params }`
 * (params a value or a function of context and event), `reenter`, and effect actions,
 * named in `effects`, which are collected with their params instead of run. xstate's
 * order is kept: the transition's actions, then the entered state's entry actions, each
 * seeing the context the previous one left; a transition targeting its own state enters
 * it again only with `reenter: true`. The initial context is `initialContext(input)`,
 * the function the machine's own `context` calls.
 */
export function compileEffectStepper<V extends string, C extends object, E extends { type: string }, I, A extends { type: string }>(
  machine: AnyStateMachine,
  updates: Readonly<Record<string, ContextUpdate<C, E>>>,
  effects: readonly string[],
  initialContext: (input: I) => C,
): EffectStepper<V, C, E, I, A> {
  const { fail, config } = flatConfig(machine, 'compileEffectStepper');
  const states = config.states ?? {};
  if (typeof config.initial !== 'string' || !(config.initial in states)) fail('no initial sibling state');
  const initialState = config.initial as V;
  const guards = (machine.implementations.guards ?? {}) as Record<string, GuardImpl<C, E>>;
  const effectSet = new Set(effects);
  const action = (where: string, spec: ActionSpec): Resolved<C, E> => {
    const { type, params, ...rest } = typeof spec === 'string' ? { type: spec, params: undefined } : (spec as { type: unknown; params?: unknown });
    if (typeof type !== 'string' || Object.keys(rest).length > 0) return fail(`${where}: action is not a name or { type, params }`);
    if (effectSet.has(type)) return { effect: type, params };
    if (updates[type] === undefined) return fail(`${where}: action ${type} is neither an effect nor in the update table`);
    if (params !== undefined) return fail(`${where}: update ${type} takes no params`);
    return { update: updates[type] };
  };
  const guardOf = (where: string, spec: unknown): CompiledEffectful<C, E>['guard'] => {
    if (spec === undefined) return null;
    const { type, params, ...rest } = typeof spec === 'string' ? { type: spec, params: undefined } : (spec as { type: unknown; params?: unknown });
    if (typeof type !== 'string' || Object.keys(rest).length > 0) return fail(`${where}: guard is not a name or { type, params }`);
    const impl = guards[type];
    if (impl === undefined) return fail(`${where}: guard ${type} has no implementation`);
    return typeof params === 'function' ? (args) => impl(args, (params as (a: unknown) => unknown)(args)) : (args) => impl(args, params);
  };
  const entries = new Map<string, Resolved<C, E>[]>();
  for (const [name, node] of Object.entries(states)) {
    if (node.states !== undefined) fail(`state ${name} has child states`);
    for (const key of ['exit', 'always', 'after', 'invoke'] as const) if (node[key] !== undefined) fail(`state ${name} has ${key}`);
    entries.set(name, listOf(node.entry as ActionSpec | readonly ActionSpec[] | undefined).map((a) => action(`${name} entry`, a)));
  }
  const table = new Map<string, Map<string, CompiledEffectful<C, E>[]>>();
  for (const [name, node] of Object.entries(states)) {
    const byEvent = new Map<string, CompiledEffectful<C, E>[]>();
    for (const [eventType, raw] of Object.entries(node.on ?? {})) {
      const list: CompiledEffectful<C, E>[] = [];
      for (const raw1 of listOf(raw as string | object | readonly (string | object)[])) {
        const t = typeof raw1 === 'string' ? { target: raw1 } : raw1;
        const { guard, target, actions, reenter, ...rest } = t as { guard?: unknown; target?: unknown; actions?: unknown; reenter?: unknown };
        const where = `${name} ${eventType}`;
        if (Object.keys(rest).length > 0) fail(`${where}: transition keys ${Object.keys(rest).join(', ')}`);
        if (target !== undefined && (typeof target !== 'string' || !(target in states))) fail(`${where}: target ${String(target)} is not a sibling state`);
        const acts = listOf(actions as ActionSpec | readonly ActionSpec[] | undefined).map((a) => action(where, a));
        // xstate's can() says no to a transition that neither moves nor acts: refuse to draw one.
        if (target === undefined && acts.length === 0) fail(`${where}: a transition without target or actions`);
        // xstate enters the target (running its entry) unless it is the source itself without reenter.
        const enters = target !== undefined && (target !== name || reenter === true);
        list.push({
          guard: guardOf(where, guard),
          target: (target as string | undefined) ?? null,
          actions: enters ? [...acts, ...entries.get(target as string)!] : acts,
        });
      }
      byEvent.set(eventType, list);
    }
    table.set(name, byEvent);
  }
  const run = (value: string, context: C, event: E, actions: readonly Resolved<C, E>[]): EffectStep<V, C, A> => {
    let ctx = context;
    const out: A[] = [];
    for (const a of actions) {
      if ('update' in a) ctx = { ...ctx, ...a.update(ctx, event) };
      else out.push({ type: a.effect, params: typeof a.params === 'function' ? (a.params as (x: unknown) => unknown)({ context: ctx, event }) : a.params } as unknown as A);
    }
    return { value: value as V, context: ctx, effects: out };
  };
  const select = (value: V, context: C, event: E): CompiledEffectful<C, E> | undefined => {
    const candidates = table.get(value)?.get(event.type);
    if (candidates === undefined) return undefined;
    for (const t of candidates) if (t.guard === null || t.guard({ context, event })) return t;
    return undefined;
  };
  return {
    initial(input) {
      return run(initialState, initialContext(input), { type: 'xstate.init', input } as unknown as E, entries.get(initialState)!);
    },
    step(value, context, event) {
      const t = select(value, context, event);
      return t === undefined ? undefined : run(t.target ?? value, context, event, t.actions);
    },
    accepts(value, context, event) {
      return select(value, context, event) !== undefined;
    },
  };
}
