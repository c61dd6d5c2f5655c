/**
 * A machine model laid out by elkjs (the Eclipse Layout Kernel compiled to JS), layered
 * algorithm with hierarchy: every state is an ELK node (a compound or parallel state a
 * node with children; the root too, titled with its xstate id), every transition
 * an ELK edge with its label, and each compound state an initial pseudo-node (the dot)
 * with an edge to its initial child. ELK places every box, routes every edge
 * (orthogonal sections with bend points) and places every label; this module only
 * measures the texts and turns ELK's relative coordinates into absolute ones
 * (`LaidOutMachine`), which svg.ts draws as they are. No box is placed by hand.
 *
 * The only module of src/audit that imports elkjs. No fs: the /audit page reuses it.
 */
import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkExtendedEdge, ElkLabel, ElkNode } from 'elkjs/lib/elk-api.js';
import { actionLabel, allStates, guardLabel, type MachineModel, type StateModel, type StateType } from './machine-model';

/** Text metrics of the drawing: monospace, so a text's width is its length times one advance. */
export const FONT = {
  family: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
  titleSizePx: 13,
  textSizePx: 11,
  /** Advance of one character, generous for the fonts above (0.6 em and under). */
  titleAdvancePx: 8.2,
  textAdvancePx: 6.9,
  lineHeightPx: 14,
} as const;

const INITIAL_DOT_PX = 12;
const PAD_PX = 8;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LaidOutLabel extends Box {
  lines: string[];
}

export interface LaidOutState extends Box {
  id: string;
  key: string;
  type: StateType;
  /** The parent state's id; null for the root. */
  parent: string | null;
  /** Depth below the root (0: the root). */
  depth: number;
  /** A region of a parallel state (drawn dashed). */
  region: boolean;
  /** Title and entry/exit lines, where ELK placed the node's label. */
  label: LaidOutLabel;
}

export interface LaidOutInitial extends Box {
  /** The dot's own id: `<parent id>#initial` (the source of its edge). */
  id: string;
  /** The compound state whose initial child the dot points to. */
  parent: string;
  target: string;
}

export interface LaidOutEdge {
  id: string;
  /** Index into model.transitions; null for the edge from an initial dot. */
  transition: number | null;
  /** A state's id, or an initial dot's id (`…#initial`). */
  source: string;
  target: string;
  /** Absolute points from start to end (ELK's start, bend points, end, section after section). */
  points: { x: number; y: number }[];
  label: LaidOutLabel | null;
}

export interface LaidOutMachine {
  name: string;
  width: number;
  height: number;
  states: LaidOutState[];
  initials: LaidOutInitial[];
  edges: LaidOutEdge[];
}

const initialId = (stateId: string) => `${stateId}#initial`;

function textWidth(lines: string[]): number {
  return Math.ceil(Math.max(0, ...lines.map((l, i) => l.length * (i === 0 ? FONT.titleAdvancePx : FONT.textAdvancePx))));
}

function stateLines(s: StateModel): string[] {
  return [s.key, ...s.entry.map((a) => `entry / ${actionLabel(a)}`), ...s.exit.map((a) => `exit / ${actionLabel(a)}`)];
}

function labelOf(lines: string[], id: string): ElkLabel & { width: number; height: number } {
  return { id, text: lines.join('\n'), width: textWidth(lines) + 4, height: lines.length * FONT.lineHeightPx + 2 };
}

function edgeLines(t: MachineModel['transitions'][number]): string[] {
  const lines = [t.event ?? '(always)'];
  if (t.guard !== null) lines.push(`[${guardLabel(t.guard)}]`);
  if (t.actions.length > 0) lines.push(`/ ${t.actions.map(actionLabel).join(', ')}`);
  return lines;
}

/** Edge label width: all lines in the small font. */
function edgeLabel(lines: string[], id: string): ElkLabel {
  return { id, text: lines.join('\n'), width: Math.ceil(Math.max(...lines.map((l) => l.length * FONT.textAdvancePx))) + 6, height: lines.length * FONT.lineHeightPx + 4 };
}

/** The ELK graph of a model (exported for tests and for callers with their own ELK). */
function modelToElkGraph(model: MachineModel): ElkNode {
  const node = (s: StateModel): ElkNode => {
    const lines = stateLines(s);
    const label = labelOf(lines, `${s.id}#label`);
    if (s.states.length === 0) {
      return {
        id: s.id,
        width: Math.max(label.width + 2 * PAD_PX, 72),
        height: label.height + 2 * PAD_PX,
        labels: [{ ...label, layoutOptions: { 'elk.nodeLabels.placement': 'INSIDE H_CENTER V_CENTER' } }],
      };
    }
    const children: ElkNode[] = [];
    if (s.initial !== null) children.push({ id: initialId(s.id), width: INITIAL_DOT_PX, height: INITIAL_DOT_PX });
    children.push(...s.states.map(node));
    return {
      id: s.id,
      labels: [{ ...label, layoutOptions: { 'elk.nodeLabels.placement': 'INSIDE H_LEFT V_TOP' } }],
      layoutOptions: {
        'elk.padding': `[top=${label.height + 14},left=14,bottom=14,right=14]`,
        'elk.nodeSize.constraints': 'NODE_LABELS MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${label.width + 28}, ${label.height + 28})`,
      },
      children,
    };
  };
  const edges: ElkExtendedEdge[] = [];
  for (const s of allStates(model)) {
    if (s.initial !== null) edges.push({ id: `init:${s.id}`, sources: [initialId(s.id)], targets: [s.initial] });
  }
  model.transitions.forEach((t, i) => {
    const targets = t.targets.length > 0 ? t.targets : [t.source];
    targets.forEach((target, k) => {
      const id = `t${i}.${k}`;
      edges.push({ id, sources: [t.source], targets: [target], labels: [edgeLabel(edgeLines(t), `${id}#label`)] });
    });
  });
  return {
    id: `${model.name}#graph`,
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.spacing.nodeNodeBetweenLayers': '36',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeEdge': '10',
      'elk.spacing.edgeNode': '14',
      'elk.spacing.edgeLabel': '4',
      'elk.layered.spacing.edgeNodeBetweenLayers': '14',
      'elk.layered.nodePlacement.strategy': 'NETWORK_SIMPLEX',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    children: [node(model.root)],
    edges,
  };
}

/** Absolute positions from ELK's result (node positions are relative to the parent, edge points to the edge's container). */
function readLayout(model: MachineModel, graph: ElkNode): LaidOutMachine {
  const abs = new Map<string, { x: number; y: number; node: ElkNode }>();
  const walk = (n: ElkNode, ox: number, oy: number) => {
    const x = ox + (n.x ?? 0);
    const y = oy + (n.y ?? 0);
    abs.set(n.id, { x, y, node: n });
    for (const c of n.children ?? []) walk(c, x, y);
  };
  walk(graph, -(graph.x ?? 0), -(graph.y ?? 0));
  const byId = new Map(allStates(model).map((s) => [s.id, s]));
  const parents = new Map<string, string | null>([[model.root.id, null]]);
  for (const s of byId.values()) for (const c of s.states) parents.set(c.id, s.id);
  const boxOf = (id: string): Box => {
    const a = abs.get(id);
    if (a === undefined) throw new Error(`ELK left out ${id}`);
    return { x: a.x, y: a.y, width: a.node.width ?? 0, height: a.node.height ?? 0 };
  };
  const states: LaidOutState[] = [];
  for (const s of byId.values()) {
    const box = boxOf(s.id);
    const l = abs.get(s.id)!.node.labels?.[0];
    const parent = parents.get(s.id) ?? null;
    states.push({
      ...box,
      id: s.id,
      key: s.key,
      type: s.type,
      parent,
      depth: s.path.length,
      region: parent !== null && byId.get(parent)!.type === 'parallel',
      label: { x: box.x + (l?.x ?? 0), y: box.y + (l?.y ?? 0), width: l?.width ?? 0, height: l?.height ?? 0, lines: stateLines(s) },
    });
  }
  const initials: LaidOutInitial[] = allStates(model)
    .filter((s) => s.initial !== null)
    .map((s) => ({ ...boxOf(initialId(s.id)), id: initialId(s.id), parent: s.id, target: s.initial! }));
  const edges: LaidOutEdge[] = [];
  const collect = (n: ElkNode) => {
    for (const e of (n.edges ?? []) as (ElkExtendedEdge & { container?: string })[]) {
      const c = abs.get(e.container ?? n.id) ?? abs.get(n.id)!;
      const points: { x: number; y: number }[] = [];
      for (const sec of e.sections ?? []) {
        for (const p of [sec.startPoint, ...(sec.bendPoints ?? []), sec.endPoint]) points.push({ x: c.x + p.x, y: c.y + p.y });
      }
      const m = /^t(\d+)\.\d+$/.exec(e.id);
      const transition = m === null ? null : Number(m[1]);
      const l = e.labels?.[0];
      edges.push({
        id: e.id,
        transition,
        source: e.sources[0],
        target: e.targets[0],
        points,
        label:
          l === undefined || transition === null
            ? null
            : { x: c.x + (l.x ?? 0), y: c.y + (l.y ?? 0), width: l.width ?? 0, height: l.height ?? 0, lines: edgeLines(model.transitions[transition]) },
      });
    }
    for (const child of n.children ?? []) collect(child);
  };
  collect(graph);
  edges.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { name: model.name, width: Math.ceil(graph.width ?? 0), height: Math.ceil(graph.height ?? 0), states, initials, edges };
}

/** Lays the model out with elkjs (layered, hierarchy included). */
export async function layoutMachine(model: MachineModel): Promise<LaidOutMachine> {
  const elk = new ELK();
  const result = await elk.layout(modelToElkGraph(model));
  return readLayout(model, result);
}
