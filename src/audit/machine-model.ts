/**
 * The auditors' model of a state machine (issue 23 item 1): what one XState v5 machine
 * of machines/ is, read from xstate's own structures (machine.root and its StateNodes:
 * `.states`, `.type`, `.initial`, `.entry`, `.exit`, `.transitions`, `.always`), never
 * from source text. The JSON export is this model as it stands (`JSON.stringify`), and
 * the SCXML, mermaid and SVG exports are drawn from it, so all four say the same thing.
 *
 * The shape is stable (`MACHINE_MODEL_FORMAT`, `MACHINE_MODEL_VERSION`): plain JSON
 * values only, keys always present (null or [] when empty), states and transitions in
 * xstate's document order, so `parseMachineModel(JSON.stringify(m))` deep-equals `m`.
 * Guards and actions appear by name, with their static params; params computed from the
 * event or context at run time are marked `computed`, not evaluated.
 *
 * Pure: no fs, no layout library; the /audit page (issue 23 item 2) reuses it.
 */
import type { AnyStateMachine } from 'xstate';

const MACHINE_MODEL_FORMAT = 'exchange-chain/machine-model';
const MACHINE_MODEL_VERSION = 1;

/** A JSON value (what static guard and action params may hold). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Static params as given in the machine, or `computed` when a function derives them at run time. */
export type ParamsModel = { kind: 'static'; value: JsonValue } | { kind: 'computed' } | null;

/** A named action (an effect or a context update); `inline:<name>` for an unnamed function. */
export interface ActionModel {
  type: string;
  params: ParamsModel;
}

/** A guard: named (with its params), or `and`/`or`/`not` over guards, or `stateIn`. */
export type GuardModel =
  | { kind: 'named'; type: string; params: ParamsModel }
  | { kind: 'and' | 'or' | 'not'; guards: GuardModel[] }
  | { kind: 'stateIn'; state: string };

export type StateType = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

export interface StateModel {
  /** xstate's unique id (`machineId.path.to.state`), used by transitions and exports. */
  id: string;
  /** The state's key within its parent (the root's key is the machine id). */
  key: string;
  /** Keys from the root (excluded) down to this state; [] for the root. */
  path: string[];
  type: StateType;
  /** A compound state's initial child, by id; null otherwise. */
  initial: string | null;
  entry: ActionModel[];
  exit: ActionModel[];
  description: string | null;
  /** Child states, in document order. */
  states: StateModel[];
}

export interface TransitionModel {
  /** The state the transition is declared on, by id. */
  source: string;
  /** The event type; null for an eventless (`always`) transition. */
  event: string | null;
  /** Target states by id; [] for a targetless transition (actions only, the state stays). */
  targets: string[];
  guard: GuardModel | null;
  actions: ActionModel[];
  /** xstate's `reenter`: a transition to itself or a descendant exits and re-enters the source. */
  reenter: boolean;
  /** Position among the source's transitions for this event: the first whose guard passes is taken. */
  order: number;
}

export interface MachineModel {
  format: typeof MACHINE_MODEL_FORMAT;
  version: typeof MACHINE_MODEL_VERSION;
  /** The name in machines/index.ts (`machines`, MACHINE_ROLES). */
  name: string;
  /** xstate's machine id (the root state's id). */
  machineId: string;
  /** The file of machines/ that defines it, when known. */
  file: string | null;
  root: StateModel;
  /** Every event type the machine's transitions name, sorted. */
  events: string[];
  /** Every guard name used, sorted. */
  guards: string[];
  /** Every action name used (transitions, entry, exit), sorted. */
  actions: string[];
  /** Every transition, states in document order, then events and candidates in declared order. */
  transitions: TransitionModel[];
}

// ---- reading xstate's structures ---------------------------------------------------

/** What this module reads of an xstate StateNode (xstate v5's public fields). */
interface NodeLike {
  id: string;
  key: string;
  path: string[];
  type: StateType;
  states: Record<string, NodeLike>;
  entry: unknown[];
  exit: unknown[];
  description?: string;
  initial?: { target?: readonly NodeLike[] };
  transitions: Map<string, readonly TransitionLike[]>;
  always?: readonly TransitionLike[];
}

interface TransitionLike {
  target?: readonly NodeLike[];
  guard?: unknown;
  actions: readonly unknown[];
  reenter: boolean;
}

function toJson(value: unknown, where: string): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${where}: a non-finite number cannot be exported`);
    return value;
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map((v, i) => toJson(v, `${where}[${i}]`));
  if (typeof value === 'object') {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) out[k] = toJson(v, `${where}.${k}`);
    return out;
  }
  throw new Error(`${where}: ${typeof value} is not exportable`);
}

function paramsOf(params: unknown, where: string): ParamsModel {
  if (params === undefined) return null;
  if (typeof params === 'function') return { kind: 'computed' };
  return { kind: 'static', value: toJson(params, where) };
}

function actionOf(raw: unknown, where: string): ActionModel {
  if (typeof raw === 'string') return { type: raw, params: null };
  if (typeof raw === 'function') {
    // Built-in actions (assign, raise, …) carry their type; a bare function has only its name.
    const fn = raw as { type?: unknown; name?: string };
    return { type: typeof fn.type === 'string' ? fn.type : `inline:${fn.name || 'anonymous'}`, params: null };
  }
  if (typeof raw === 'object' && raw !== null && typeof (raw as { type?: unknown }).type === 'string') {
    const a = raw as { type: string; params?: unknown };
    return { type: a.type, params: paramsOf(a.params, `${where} ${a.type}`) };
  }
  throw new Error(`${where}: an action xstate would not accept`);
}

function guardOf(raw: unknown, where: string): GuardModel {
  if (typeof raw === 'string') return { kind: 'named', type: raw, params: null };
  if (typeof raw === 'function') {
    // xstate's higher-order guards are functions named and/or/not with `.guards`, stateIn with `.stateValue`.
    const fn = raw as { name?: string; guards?: unknown[]; stateValue?: unknown };
    if ((fn.name === 'and' || fn.name === 'or' || fn.name === 'not') && Array.isArray(fn.guards)) {
      return { kind: fn.name, guards: fn.guards.map((g, i) => guardOf(g, `${where} ${fn.name}[${i}]`)) };
    }
    if (fn.name === 'stateIn' && fn.stateValue !== undefined) {
      return { kind: 'stateIn', state: typeof fn.stateValue === 'string' ? fn.stateValue : JSON.stringify(toJson(fn.stateValue, where)) };
    }
    return { kind: 'named', type: `inline:${fn.name || 'anonymous'}`, params: null };
  }
  if (typeof raw === 'object' && raw !== null && typeof (raw as { type?: unknown }).type === 'string') {
    const g = raw as { type: string; params?: unknown };
    return { kind: 'named', type: g.type, params: paramsOf(g.params, `${where} ${g.type}`) };
  }
  throw new Error(`${where}: a guard xstate would not accept`);
}

function stateOf(node: NodeLike): StateModel {
  const initial = node.type === 'compound' ? (node.initial?.target?.[0]?.id ?? null) : null;
  return {
    id: node.id,
    key: node.key,
    path: [...node.path],
    type: node.type,
    initial,
    entry: node.entry.map((a) => actionOf(a, `${node.id} entry`)),
    exit: node.exit.map((a) => actionOf(a, `${node.id} exit`)),
    description: node.description ?? null,
    states: Object.values(node.states).map(stateOf),
  };
}

function transitionsOf(node: NodeLike, out: TransitionModel[]): void {
  const add = (event: string | null, list: readonly TransitionLike[]) => {
    list.forEach((t, order) => {
      const where = `${node.id} ${event ?? '(always)'}`;
      out.push({
        source: node.id,
        event,
        targets: (t.target ?? []).map((s) => s.id),
        guard: t.guard === undefined ? null : guardOf(t.guard, where),
        actions: t.actions.map((a) => actionOf(a, where)),
        reenter: t.reenter === true,
        order,
      });
    });
  };
  for (const [event, list] of node.transitions) add(event, list);
  if (node.always !== undefined) add(null, node.always);
  for (const child of Object.values(node.states)) transitionsOf(child, out);
}

/** Every state of the model, the root first, in document order. */
export function allStates(model: Pick<MachineModel, 'root'>): StateModel[] {
  const out: StateModel[] = [];
  const walk = (s: StateModel) => {
    out.push(s);
    s.states.forEach(walk);
  };
  walk(model.root);
  return out;
}

/** The guard names inside a guard (and/or/not walked). */
export function guardNames(g: GuardModel | null): string[] {
  if (g === null || g.kind === 'stateIn') return [];
  if (g.kind === 'named') return [g.type];
  return g.guards.flatMap(guardNames);
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

/** The model of one machine, read from the machine object execution runs. */
export function machineModel(name: string, machine: AnyStateMachine, file: string | null = null): MachineModel {
  const root = machine.root as unknown as NodeLike;
  const transitions: TransitionModel[] = [];
  transitionsOf(root, transitions);
  const states = allStates({ root: stateOf(root) });
  return {
    format: MACHINE_MODEL_FORMAT,
    version: MACHINE_MODEL_VERSION,
    name,
    machineId: machine.id,
    file,
    root: states[0],
    events: sorted(transitions.flatMap((t) => (t.event === null ? [] : [t.event]))),
    guards: sorted(transitions.flatMap((t) => guardNames(t.guard))),
    actions: sorted([...transitions.flatMap((t) => t.actions), ...states.flatMap((s) => [...s.entry, ...s.exit])].map((a) => a.type)),
    transitions,
  };
}

// ---- labels shared by the drawings --------------------------------------------------

function paramsText(p: ParamsModel): string {
  if (p === null) return '';
  if (p.kind === 'computed') return '(…)';
  const v = p.value;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    return `(${Object.entries(v).map(([k, x]) => `${k}: ${JSON.stringify(x)}`).join(', ')})`;
  }
  return `(${JSON.stringify(v)})`;
}

export function actionLabel(a: ActionModel): string {
  return `${a.type}${paramsText(a.params)}`;
}

export function guardLabel(g: GuardModel): string {
  switch (g.kind) {
    case 'named':
      return `${g.type}${paramsText(g.params)}`;
    case 'stateIn':
      return `in(${g.state})`;
    case 'not':
      return `!${guardLabel(g.guards[0])}`;
    default:
      return `${g.kind}(${g.guards.map(guardLabel).join(', ')})`;
  }
}

/** A transition's label in the usual statechart notation: `EVENT [guard] / action, action`. */
export function transitionLabel(t: TransitionModel): string {
  let label = t.event ?? '(always)';
  if (t.guard !== null) label += ` [${guardLabel(t.guard)}]`;
  if (t.actions.length > 0) label += ` / ${t.actions.map(actionLabel).join(', ')}`;
  return label;
}

// ---- parsing an export back ---------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function need(cond: boolean, where: string): asserts cond {
  if (!cond) throw new Error(`not a machine model: ${where}`);
}
const strings = (v: unknown, where: string): string[] => {
  need(Array.isArray(v) && v.every((x) => typeof x === 'string'), `${where} is not a list of strings`);
  return [...(v as string[])];
};

function parseParams(v: unknown, where: string): ParamsModel {
  if (v === null) return null;
  need(isObj(v) && (v.kind === 'computed' || (v.kind === 'static' && 'value' in v)), `${where}.params`);
  return v.kind === 'computed' ? { kind: 'computed' } : { kind: 'static', value: v.value as JsonValue };
}

function parseAction(v: unknown, where: string): ActionModel {
  need(isObj(v) && typeof v.type === 'string', `${where} is not an action`);
  return { type: v.type, params: parseParams(v.params, where) };
}

function parseGuard(v: unknown, where: string): GuardModel {
  need(isObj(v), `${where} is not a guard`);
  if (v.kind === 'named') {
    need(typeof v.type === 'string', `${where}.type`);
    return { kind: 'named', type: v.type, params: parseParams(v.params, where) };
  }
  if (v.kind === 'stateIn') {
    need(typeof v.state === 'string', `${where}.state`);
    return { kind: 'stateIn', state: v.state };
  }
  need((v.kind === 'and' || v.kind === 'or' || v.kind === 'not') && Array.isArray(v.guards), `${where}.kind`);
  return { kind: v.kind, guards: (v.guards as unknown[]).map((g, i) => parseGuard(g, `${where}.guards[${i}]`)) };
}

const STATE_TYPES: readonly StateType[] = ['atomic', 'compound', 'parallel', 'final', 'history'];

function parseState(v: unknown, where: string): StateModel {
  need(isObj(v) && typeof v.id === 'string' && typeof v.key === 'string', `${where} is not a state`);
  need(STATE_TYPES.includes(v.type as StateType), `${where}.type`);
  need(v.initial === null || typeof v.initial === 'string', `${where}.initial`);
  need(v.description === null || typeof v.description === 'string', `${where}.description`);
  need(Array.isArray(v.entry) && Array.isArray(v.exit) && Array.isArray(v.states), `${where} lists`);
  return {
    id: v.id,
    key: v.key,
    path: strings(v.path, `${where}.path`),
    type: v.type as StateType,
    initial: v.initial as string | null,
    entry: (v.entry as unknown[]).map((a, i) => parseAction(a, `${where}.entry[${i}]`)),
    exit: (v.exit as unknown[]).map((a, i) => parseAction(a, `${where}.exit[${i}]`)),
    description: v.description as string | null,
    states: (v.states as unknown[]).map((s, i) => parseState(s, `${where}.states[${i}]`)),
  };
}

function parseTransition(v: unknown, where: string): TransitionModel {
  need(isObj(v) && typeof v.source === 'string', `${where} is not a transition`);
  need(v.event === null || typeof v.event === 'string', `${where}.event`);
  need(typeof v.reenter === 'boolean' && Number.isInteger(v.order), `${where}.reenter/order`);
  need(Array.isArray(v.actions), `${where}.actions`);
  return {
    source: v.source,
    event: v.event as string | null,
    targets: strings(v.targets, `${where}.targets`),
    guard: v.guard === null ? null : parseGuard(v.guard, `${where}.guard`),
    actions: (v.actions as unknown[]).map((a, i) => parseAction(a, `${where}.actions[${i}]`)),
    reenter: v.reenter as boolean,
    order: v.order as number,
  };
}

/**
 * A machine model from its JSON export, checked: the shape above, and every state a
 * transition or an initial names exists. Throws on anything else.
 */
export function parseMachineModel(text: string): MachineModel {
  const v: unknown = JSON.parse(text);
  need(isObj(v) && v.format === MACHINE_MODEL_FORMAT && v.version === MACHINE_MODEL_VERSION, 'format/version');
  need(typeof v.name === 'string' && typeof v.machineId === 'string' && (v.file === null || typeof v.file === 'string'), 'name/machineId/file');
  need(Array.isArray(v.transitions), 'transitions');
  const model: MachineModel = {
    format: MACHINE_MODEL_FORMAT,
    version: MACHINE_MODEL_VERSION,
    name: v.name,
    machineId: v.machineId,
    file: v.file as string | null,
    root: parseState(v.root, 'root'),
    events: strings(v.events, 'events'),
    guards: strings(v.guards, 'guards'),
    actions: strings(v.actions, 'actions'),
    transitions: (v.transitions as unknown[]).map((t, i) => parseTransition(t, `transitions[${i}]`)),
  };
  const ids = new Set<string>();
  for (const s of allStates(model)) {
    need(!ids.has(s.id), `state id ${s.id} twice`);
    ids.add(s.id);
  }
  for (const s of allStates(model)) need(s.initial === null || s.states.some((c) => c.id === s.initial), `${s.id}.initial is not a child`);
  for (const t of model.transitions) for (const id of [t.source, ...t.targets]) need(ids.has(id), `transition names unknown state ${id}`);
  return model;
}
