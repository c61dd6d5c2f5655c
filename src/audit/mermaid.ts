/**
 * A machine model as mermaid `stateDiagram-v2` text: a compound state is a composite
 * (`state id { … }`) with `[*] --> initial` inside, a parallel state a composite whose
 * regions are separated by `--`, a final state `id --> [*]`. Every state is declared
 * `state "key" as id` (mermaid ids take only letters, digits and `_`; xstate's ids hold
 * dots and dashes), entry and exit actions are the state's description lines, and each
 * transition is `source --> target : EVENT [guard] / action, …` (a targetless one is
 * drawn as a loop on its source). The root is drawn as a composite when it is parallel
 * or has transitions or actions of its own; otherwise its children are the diagram.
 *
 * Pure: returns text.
 */
import { actionLabel, allStates, transitionLabel, type MachineModel, type StateModel } from './machine-model';

/** Mermaid-safe ids for every state, unique, derived from the state's path. */
export function mermaidIds(model: MachineModel): Map<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const s of allStates(model)) {
    const base = ([model.machineId, ...s.path].join('_').replace(/[^A-Za-z0-9_]/g, '_') || 'state').replace(/^([0-9])/, 's$1');
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    ids.set(s.id, id);
  }
  return ids;
}

/** A label mermaid keeps as text: `;` and `#` are its own, written as its entity codes. */
const label = (text: string) => text.replace(/#/g, '#35;').replace(/;/g, '#59;').replace(/\n/g, ' ');
const quoted = (text: string) => text.replace(/"/g, '#quot;');

export function modelToMermaid(model: MachineModel): string {
  const ids = mermaidIds(model);
  const id = (stateId: string) => ids.get(stateId)!;
  const lines: string[] = ['stateDiagram-v2'];
  const emit = (s: StateModel, indent: string) => {
    lines.push(`${indent}state "${quoted(s.key)}" as ${id(s.id)}`);
    for (const a of s.entry) lines.push(`${indent}${id(s.id)} : entry / ${label(actionLabel(a))}`);
    for (const a of s.exit) lines.push(`${indent}${id(s.id)} : exit / ${label(actionLabel(a))}`);
    if (s.states.length > 0) {
      lines.push(`${indent}state ${id(s.id)} {`);
      body(s, `${indent}  `);
      lines.push(`${indent}}`);
    }
  };
  const body = (s: StateModel, indent: string) => {
    s.states.forEach((c, i) => {
      if (s.type === 'parallel' && i > 0) lines.push(`${indent}--`);
      emit(c, indent);
    });
    if (s.initial !== null) lines.push(`${indent}[*] --> ${id(s.initial)}`);
    for (const c of s.states) if (c.type === 'final') lines.push(`${indent}${id(c.id)} --> [*]`);
  };
  const root = model.root;
  const rootHasOwn = root.type === 'parallel' || root.entry.length + root.exit.length > 0 || model.transitions.some((t) => t.source === root.id);
  if (rootHasOwn) {
    lines.push(`  [*] --> ${id(root.id)}`);
    emit(root, '  ');
  } else body(root, '  ');
  for (const t of model.transitions) {
    const targets = t.targets.length > 0 ? t.targets : [t.source];
    for (const target of targets) lines.push(`  ${id(t.source)} --> ${id(target)} : ${label(transitionLabel(t))}`);
  }
  return `${lines.join('\n')}\n`;
}
