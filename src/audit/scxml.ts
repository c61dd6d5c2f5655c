/**
 * A machine model as SCXML (W3C, "State Chart XML", 2015): the root `<scxml>` with the
 * SCXML namespace, version 1.0 and `initial` naming the machine's root state, which is
 * the one top-level `<state>` or `<parallel>` (xstate's root is a state with its own
 * transitions, so it is kept). Nested states are `<state>`, parallel ones `<parallel>`,
 * final ones `<final>`; a compound state names its initial child in `initial`.
 * Transitions carry `event`, `target` (space-separated ids) and the guard in `cond`
 * (its label: the machine's guards are named functions, not SCXML expressions). An
 * xstate transition back to its own source without `reenter` neither exits nor enters:
 * SCXML's targetless transition; without `reenter` to a descendant: `type="internal"`. Actions appear by name as
 * `<xc:action name=… params=…/>` in `<onentry>`, `<onexit>` and transitions: the
 * schema lets executable content hold elements of another namespace, and SCXML's own
 * elements (`<send>`, `<assign>`) would claim semantics the named actions do not have.
 * Ids are xstate's own unique ids, XML-escaped.
 *
 * Pure: returns text.
 */
import { actionLabel, allStates, guardLabel, type ActionModel, type MachineModel, type StateModel, type TransitionModel } from './machine-model';
import { xmlEscape } from './xml-text';

export const SCXML_NS = 'http://www.w3.org/2005/07/scxml';
/** The namespace of the named-action elements (not fetched: a namespace name only). */
export const ACTION_NS = 'urn:exchange-chain:machine-action';

const attr = (name: string, value: string) => ` ${name}="${xmlEscape(value)}"`;

function actionXml(a: ActionModel, indent: string): string {
  const params = a.params === null ? '' : attr('params', actionLabel(a).slice(a.type.length));
  return `${indent}<xc:action${attr('name', a.type)}${params}/>`;
}

/** Whether state `id` is `ancestor` or below it (by path: xstate ids may be custom). */
type Within = (id: string, ancestor: string) => boolean;

function transitionXml(t: TransitionModel, within: Within, indent: string): string {
  let open = `${indent}<transition`;
  if (t.event !== null) open += attr('event', t.event);
  if (t.guard !== null) open += attr('cond', guardLabel(t.guard));
  // xstate without `reenter`, to the source itself: no exit, no entry, which SCXML says
  // with a targetless transition; to descendants: SCXML's internal transition. Anything
  // else is the same in both (external).
  const inside = t.targets.length > 0 && t.targets.every((id) => within(id, t.source));
  const stays = !t.reenter && t.targets.length > 0 && t.targets.every((id) => id === t.source);
  if (t.targets.length > 0 && !stays) open += attr('target', t.targets.join(' '));
  if (!t.reenter && inside && !stays) open += attr('type', 'internal');
  if (t.actions.length === 0) return `${open}/>`;
  return [`${open}>`, ...t.actions.map((a) => actionXml(a, `${indent}  `)), `${indent}</transition>`].join('\n');
}

function stateXml(s: StateModel, bySource: Map<string, TransitionModel[]>, within: Within, indent: string): string {
  const tag = s.type === 'parallel' ? 'parallel' : s.type === 'final' ? 'final' : s.type === 'history' ? 'history' : 'state';
  let open = `${indent}<${tag}${attr('id', s.id)}`;
  if (s.initial !== null) open += attr('initial', s.initial);
  const inner: string[] = [];
  const i2 = `${indent}  `;
  if (s.entry.length > 0) inner.push(`${i2}<onentry>`, ...s.entry.map((a) => actionXml(a, `${i2}  `)), `${i2}</onentry>`);
  if (s.exit.length > 0) inner.push(`${i2}<onexit>`, ...s.exit.map((a) => actionXml(a, `${i2}  `)), `${i2}</onexit>`);
  for (const t of bySource.get(s.id) ?? []) inner.push(transitionXml(t, within, i2));
  for (const c of s.states) inner.push(stateXml(c, bySource, within, i2));
  if (inner.length === 0) return `${open}/>`;
  return [`${open}>`, ...inner, `${indent}</${tag}>`].join('\n');
}

export function modelToScxml(model: MachineModel): string {
  const paths = new Map(allStates(model).map((s) => [s.id, s.path]));
  const within: Within = (id, ancestor) => {
    const p = paths.get(id)!;
    const a = paths.get(ancestor)!;
    return a.length <= p.length && a.every((k, i) => p[i] === k);
  };
  const bySource = new Map<string, TransitionModel[]>();
  for (const t of model.transitions) {
    const list = bySource.get(t.source) ?? [];
    list.push(t);
    bySource.set(t.source, list);
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!-- Exported from the machine object (src/audit/scxml.ts): guards and actions by name. -->',
    `<scxml xmlns="${SCXML_NS}" xmlns:xc="${ACTION_NS}" version="1.0"${attr('name', model.name)}${attr('initial', model.root.id)}>`,
    stateXml(model.root, bySource, within, '  '),
    '</scxml>',
    '',
  ].join('\n');
}
