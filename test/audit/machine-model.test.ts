/**
 * The machine model (src/audit/machine-model.ts), the ground of every export (issue 23
 * item 1): it lists every machine a file of machines/ defines (a machine left out of
 * machines/index.ts, or of the export, fails here), its JSON round-trips, its states
 * and transitions are xstate's own drawing (`toDirectedGraph`), and it is the executed
 * truth: for every state configuration, every event and a sample of guard outcomes,
 * what the model says happens (which transition, which states left and entered, which
 * named actions in which order) is what xstate's pure `transition()` does with the
 * machine's guards answering as sampled.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { initialTransition, StateMachine, transition, type AnyStateMachine } from 'xstate';
import { toDirectedGraph } from 'xstate/graph';
import { MACHINE_ROLES } from '../../machines/index';
import { allMachineModels, exportAll } from '../../src/audit/export';
import { allStates, guardNames, machineModel, parseMachineModel, type GuardModel, type MachineModel, type StateModel, type TransitionModel } from '../../src/audit/machine-model';

const root = path.resolve(__dirname, '../..');

/** Every machine a file of machines/ exports, found by what it is (as test/machines/index.test.ts does). */
async function definedMachines(): Promise<{ file: string; machine: AnyStateMachine }[]> {
  const out: { file: string; machine: AnyStateMachine }[] = [];
  for (const name of readdirSync(path.join(root, 'machines')).filter((f) => f.endsWith('.ts')).sort()) {
    const mod = (await import(path.join(root, 'machines', name))) as Record<string, unknown>;
    for (const value of Object.values(mod)) if (value instanceof StateMachine) out.push({ file: `machines/${name}`, machine: value });
  }
  return out;
}

describe('machine export: every machine', () => {
  it('exports every machine a file of machines/ defines, once, under its file', async () => {
    const defined = await definedMachines();
    expect(defined.length).toBeGreaterThanOrEqual(9);
    const models = allMachineModels();
    const { index } = await exportAll(['json']);
    for (const d of defined) {
      const role = MACHINE_ROLES.find((r) => r.machine === d.machine);
      expect(role, `${d.file} defines a machine the export does not list`).toBeDefined();
      const model = models.find((m) => m.name === role!.id);
      expect(model, `no model for ${role!.id}`).toBeDefined();
      expect(model!.file).toBe(d.file);
      expect(model!.machineId).toBe(d.machine.id);
      expect(index.machines.find((m) => m.name === role!.id)?.files.json).toBe(`${role!.id}.json`);
    }
    expect(new Set(models.map((m) => m.name)).size).toBe(models.length);
    expect(index.machines.map((m) => m.name)).toEqual(models.map((m) => m.name));
  });
});

describe.each(MACHINE_ROLES.map((r) => [r.id, r.machine] as const))('machine model of %s', (name, machine) => {
  const model = machineModel(name, machine, `machines/${name}.ts`);

  it('round-trips through its JSON export, and the JSON is plain data', () => {
    const text = JSON.stringify(model);
    expect(JSON.parse(text)).toEqual(model);
    expect(parseMachineModel(text)).toEqual(model);
    expect(parseMachineModel(JSON.stringify(model, null, 2))).toEqual(model);
  });

  it("has xstate's own states and transitions (toDirectedGraph)", () => {
    const graphStates: string[] = [];
    const graphEdges: string[] = [];
    const walk = (g: ReturnType<typeof toDirectedGraph>) => {
      graphStates.push(g.id);
      for (const e of g.edges) graphEdges.push(`${e.source.id} -${e.label.text}-> ${e.target.id}`);
      g.children.forEach(walk);
    };
    walk(toDirectedGraph(machine));
    expect(allStates(model).map((s) => s.id)).toEqual(graphStates);
    const modelEdges = model.transitions
      .filter((t) => t.event !== null)
      .flatMap((t) => (t.targets.length > 0 ? t.targets : [t.source]).map((target) => `${t.source} -${t.event}-> ${target}`));
    expect(modelEdges.sort()).toEqual(graphEdges.sort());
    expect(model.events.length).toBeGreaterThan(0);
    // Every guard and action is named: the drawing says what runs.
    for (const g of model.guards) expect(g, name).not.toMatch(/^inline:/);
    for (const a of model.actions) expect(a, name).not.toMatch(/^inline:/);
  });

  it('is the executed truth: transition() does what the model says for every configuration, event and sampled guard outcome', () => {
    const checked = checkAgainstXstate(model, machine);
    expect(checked.pairs).toBeGreaterThan(0);
    expect(checked.taken).toBeGreaterThan(0);
  });
});

describe('parseMachineModel', () => {
  const model = machineModel('agent-mode', MACHINE_ROLES.find((r) => r.id === 'agent-mode')!.machine);
  it('refuses a model that names a state it does not have, or has the wrong shape', () => {
    const bad = structuredClone(model);
    bad.transitions[0].targets = ['agent.nowhere'];
    expect(() => parseMachineModel(JSON.stringify(bad))).toThrow(/unknown state agent\.nowhere/);
    expect(() => parseMachineModel(JSON.stringify({ ...model, version: 2 }))).toThrow(/format\/version/);
    expect(() => parseMachineModel(JSON.stringify({ ...model, transitions: [{ ...model.transitions[0], guard: { kind: 'xor', guards: [] } }] }))).toThrow(/guard/);
  });
});

// ---- the model's own reading of a step, written from the statechart rules -----------

/** Inputs and context a machine needs to be stepped without the event payloads (the sampled guards replace them). */
const INPUT: Record<string, unknown> = { 'consensus-round': { height: 1 } };
/** The Commit step's params read a committed value (decideFromContext): give one. */
const CONTEXT_PATCH: Record<string, Record<string, unknown>> = { 'consensus-round': { commitValue: `0x${'ab'.repeat(32)}` } };

interface Index {
  byId: Map<string, StateModel>;
  parent: Map<string, string | null>;
}

function indexOf(model: MachineModel): Index {
  const byId = new Map(allStates(model).map((s) => [s.id, s]));
  const parent = new Map<string, string | null>([[model.root.id, null]]);
  for (const s of byId.values()) for (const c of s.states) parent.set(c.id, s.id);
  return { byId, parent };
}

function ancestors(ix: Index, id: string): string[] {
  const out: string[] = [];
  for (let p = ix.parent.get(id) ?? null; p !== null; p = ix.parent.get(p) ?? null) out.push(p);
  return out;
}
const isDescendant = (ix: Index, id: string, of: string) => ancestors(ix, id).includes(of);

/** Default entry of a state: itself, and below it the initial child of a compound or every region of a parallel state. */
function defaultEntry(ix: Index, id: string, into: Set<string>): void {
  into.add(id);
  const s = ix.byId.get(id)!;
  if (s.type === 'compound' && !s.states.some((c) => into.has(c.id))) defaultEntry(ix, s.initial!, into);
  else if (s.type === 'compound') for (const c of s.states) if (into.has(c.id)) defaultEntry(ix, c.id, into);
  if (s.type === 'parallel') for (const c of s.states) defaultEntry(ix, c.id, into);
}

/** Every legal configuration (active states) of the machine. */
function configurations(ix: Index, id: string): Set<string>[] {
  const s = ix.byId.get(id)!;
  if (s.states.length === 0) return [new Set([id])];
  if (s.type === 'parallel') {
    let acc: Set<string>[] = [new Set([id])];
    for (const c of s.states) acc = acc.flatMap((a) => configurations(ix, c.id).map((cc) => new Set([...a, ...cc])));
    return acc;
  }
  return s.states.flatMap((c) => configurations(ix, c.id).map((cc) => new Set([id, ...cc])));
}

/** The xstate state value of a configuration. */
function valueOf(ix: Index, id: string, active: Set<string>): unknown {
  const s = ix.byId.get(id)!;
  if (s.type === 'parallel') return Object.fromEntries(s.states.map((c) => [c.key, c.states.length === 0 ? {} : valueOf(ix, c.id, active)]));
  const child = s.states.find((c) => active.has(c.id))!;
  return child.states.length === 0 ? child.key : { [child.key]: valueOf(ix, child.id, active) };
}

function guardPasses(g: GuardModel | null, pass: (name: string) => boolean, active: Set<string>): boolean {
  if (g === null) return true;
  switch (g.kind) {
    case 'named':
      return pass(g.type);
    case 'and':
      return g.guards.every((x) => guardPasses(x, pass, active));
    case 'or':
      return g.guards.some((x) => guardPasses(x, pass, active));
    case 'not':
      return !guardPasses(g.guards[0], pass, active);
    case 'stateIn':
      return active.has(g.state);
  }
}

/** The document order of the states (xstate sorts exits and entries by it). */
const orderOf = (model: MachineModel) => new Map(allStates(model).map((s, i) => [s.id, i]));

/**
 * What the model says one event does: per active atomic state (document order), the
 * first transition of it or its nearest ancestor whose guard passes; its domain, the
 * states it leaves and enters; the named actions in order (exits innermost first,
 * the transition's, entries outermost first). null: no transition is enabled.
 */
function predict(model: MachineModel, ix: Index, active: Set<string>, event: string, pass: (name: string) => boolean): { active: Set<string>; actions: string[] } | null {
  const order = orderOf(model);
  const atomics = [...active].filter((id) => ix.byId.get(id)!.states.length === 0).sort((a, b) => order.get(a)! - order.get(b)!);
  const chosen: TransitionModel[] = [];
  for (const leaf of atomics) {
    for (const s of [leaf, ...ancestors(ix, leaf)]) {
      const t = model.transitions.filter((x) => x.source === s && x.event === event).find((x) => guardPasses(x.guard, pass, active));
      if (t !== undefined) {
        if (!chosen.includes(t)) chosen.push(t);
        break;
      }
    }
  }
  if (chosen.length === 0) return null;
  const next = new Set(active);
  const actions: string[] = [];
  for (const t of chosen) {
    let domain: string | null = null;
    if (t.targets.length > 0) {
      if (!t.reenter && t.targets.every((x) => x === t.source || isDescendant(ix, x, t.source))) domain = t.source;
      else {
        const [head, ...tail] = [...t.targets, t.source];
        domain = ancestors(ix, head).find((a) => tail.every((x) => isDescendant(ix, x, a))) ?? model.root.id;
      }
    }
    const exited = domain === null ? [] : [...next].filter((id) => isDescendant(ix, id, domain)).sort((a, b) => order.get(b)! - order.get(a)!);
    for (const id of exited) {
      next.delete(id);
      actions.push(...ix.byId.get(id)!.exit.map((a) => a.type));
    }
    actions.push(...t.actions.map((a) => a.type));
    const entered = new Set<string>();
    for (const target of t.targets) {
      for (const a of [target, ...ancestors(ix, target)]) {
        if (a === domain) break;
        entered.add(a);
      }
    }
    for (const id of [...entered]) defaultEntry(ix, id, entered);
    for (const id of [...entered].sort((a, b) => order.get(a)! - order.get(b)!)) {
      next.add(id);
      actions.push(...ix.byId.get(id)!.entry.map((a) => a.type));
    }
  }
  return { active: next, actions };
}

/** Guard outcomes sampled per (configuration, event): all fail, all pass, each alone passing, each alone failing. */
function guardSamples(model: MachineModel): ((name: string) => boolean)[] {
  const out: ((name: string) => boolean)[] = [() => false, () => true];
  for (const g of model.guards) out.push((n) => n === g, (n) => n !== g);
  return out;
}

function checkAgainstXstate(model: MachineModel, machine: AnyStateMachine): { pairs: number; taken: number } {
  const ix = indexOf(model);
  const named = new Set(model.actions);
  const noop = Object.fromEntries(model.actions.map((a) => [a, () => {}]));
  let pairs = 0;
  let taken = 0;
  // Every sampled guard answer as a provided implementation, the actions inert (they would read payloads).
  for (const pass of guardSamples(model)) {
    const guards = Object.fromEntries(model.guards.map((g) => [g, () => pass(g)]));
    const provided = machine.provide({ guards, actions: noop } as never) as AnyStateMachine;
    const [initial, initialActions] = initialTransition(provided, INPUT[model.name] as never);
    // The initial configuration and its entry actions.
    const start = new Set<string>();
    defaultEntry(ix, model.root.id, start);
    expect(initial.value, `${model.name} initial`).toEqual(valueOf(ix, model.root.id, start));
    const order = orderOf(model);
    const entryActions = [...start].sort((a, b) => order.get(a)! - order.get(b)!).flatMap((id) => ix.byId.get(id)!.entry.map((a) => a.type));
    expect(initialActions.map((a) => a.type).filter((t) => named.has(t))).toEqual(entryActions);
    const context = { ...(initial.context as object), ...CONTEXT_PATCH[model.name] };
    for (const active of configurations(ix, model.root.id)) {
      const snapshot = provided.resolveState({ value: valueOf(ix, model.root.id, active) as never, context });
      for (const event of [...model.events, 'NOT_AN_EVENT_OF_ANY_MACHINE']) {
        pairs++;
        const [next, actions] = transition(provided, snapshot, { type: event } as never);
        const expected = predict(model, ix, active, event, pass);
        const where = `${model.name}: ${JSON.stringify(snapshot.value)} + ${event}`;
        if (expected === null) {
          expect(next.value, where).toEqual(snapshot.value);
          expect(actions.filter((a) => named.has(a.type)), where).toEqual([]);
          continue;
        }
        taken++;
        expect(next.value, where).toEqual(valueOf(ix, model.root.id, expected.active));
        expect(
          actions.map((a) => a.type).filter((t) => named.has(t)),
          where,
        ).toEqual(expected.actions);
      }
    }
  }
  return { pairs, taken };
}

// guardNames is part of the model's API the page will use; keep it honest here too.
describe('guardNames', () => {
  it('lists the names inside and/or/not', () => {
    expect(guardNames({ kind: 'and', guards: [{ kind: 'named', type: 'a', params: null }, { kind: 'not', guards: [{ kind: 'named', type: 'b', params: null }] }] })).toEqual(['a', 'b']);
  });
});
