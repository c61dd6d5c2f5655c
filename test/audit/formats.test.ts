/**
 * The drawings of every machine (issue 23 item 1): SCXML with the W3C schema's
 * structure (checked over a strict XML parser, test/audit/xml-parse.ts: no XML parser
 * or xmllint is installed), mermaid `stateDiagram-v2` naming every transition, and the
 * SVG laid out by elkjs: well-formed, every state and transition drawn, and the
 * geometry sane (boxes inside their parent, no two boxes of one level overlapping,
 * every edge starting on its source's border and ending on its target's, every label
 * where ELK put it, inside the drawing).
 */
import { describe, expect, it } from 'vitest';
import { MACHINE_ROLES } from '../../machines/index';
import { layoutMachine, type Box, type LaidOutMachine } from '../../src/audit/layout';
import { allStates, machineModel, transitionLabel, type MachineModel } from '../../src/audit/machine-model';
import { mermaidIds, modelToMermaid } from '../../src/audit/mermaid';
import { ACTION_NS, modelToScxml, SCXML_NS } from '../../src/audit/scxml';
import { laidOutToSvg } from '../../src/audit/svg';
import { xmlEscape } from '../../src/audit/xml-text';
import { elements, parseXml, type XmlElement } from './xml-parse';

const models = MACHINE_ROLES.map((r) => machineModel(r.id, r.machine, r.file));

describe('the test XML parser', () => {
  it('refuses what is not well-formed', () => {
    for (const bad of ['<a><b></a>', '<a x="1" x="2"/>', '<a>&foo;</a>', '<a>1 & 2</a>', '<a/><b/>', '<a x=1/>', '<p:a/>', '<a><!-- x -- y --></a>', '<a>x</a><?xml version="1.0"?>']) {
      expect(() => parseXml(bad), bad).toThrow();
    }
    const ok = parseXml('<?xml version="1.0" encoding="UTF-8"?>\n<a xmlns="u" xmlns:p="v" k="&lt;&amp;&#x41;"><p:b/>t</a>');
    expect(ok.ns).toBe('u');
    expect(ok.attrs.k).toBe('<&A');
    expect(ok.children[0].ns).toBe('v');
    expect(parseXml(`<a v="${xmlEscape(`"<'&>`)}"/>`).attrs.v).toBe(`"<'&>`);
  });
});

// ---- SCXML ----------------------------------------------------------------------------

/** Allowed attributes and children per SCXML element (W3C SCXML 1.0 schema, scxml-module-*.xsd). */
const EXECUTABLE = ['raise', 'if', 'elseif', 'else', 'foreach', 'send', 'script', 'assign', 'log', 'cancel'];
const SCXML_RULES: Record<string, { attrs: string[]; children: string[] }> = {
  scxml: { attrs: ['initial', 'name', 'version', 'datamodel', 'binding'], children: ['state', 'parallel', 'final', 'datamodel', 'script'] },
  state: { attrs: ['id', 'initial'], children: ['onentry', 'onexit', 'transition', 'initial', 'state', 'parallel', 'final', 'history', 'datamodel', 'invoke'] },
  parallel: { attrs: ['id'], children: ['onentry', 'onexit', 'transition', 'state', 'parallel', 'history', 'datamodel', 'invoke'] },
  final: { attrs: ['id'], children: ['onentry', 'onexit', 'donedata'] },
  transition: { attrs: ['event', 'cond', 'target', 'type'], children: EXECUTABLE },
  onentry: { attrs: [], children: EXECUTABLE },
  onexit: { attrs: [], children: EXECUTABLE },
};

function checkScxml(model: MachineModel, doc: XmlElement): void {
  expect(doc.local).toBe('scxml');
  expect(doc.ns).toBe(SCXML_NS);
  expect(doc.attrs.version).toBe('1.0');
  expect(doc.attrs.initial).toBe(model.root.id);
  expect(doc.attrs.name).toMatch(/^[\w.:-]+$/); // xsd:NMTOKEN
  const all = elements(doc);
  const ids = new Map<string, XmlElement>();
  for (const el of all) {
    if (el.ns !== SCXML_NS) {
      // Other-namespace elements are allowed inside executable content only.
      expect(el.ns, `${el.name}`).toBe(ACTION_NS);
      expect(el.local).toBe('action');
      expect(el.attrs.name).toMatch(/\S/);
      continue;
    }
    const rule = SCXML_RULES[el.local];
    expect(rule, `<${el.local}> is not an element the export may write`).toBeDefined();
    for (const a of Object.keys(el.attrs)) if (!a.startsWith('xmlns')) expect(rule.attrs, `<${el.local} ${a}>`).toContain(a);
    for (const c of el.children) if (c.ns === SCXML_NS) expect(rule.children, `<${c.local}> inside <${el.local}>`).toContain(c.local);
    expect(el.text.trim(), `text inside <${el.local}>`).toBe('');
    if (el.attrs.id !== undefined) {
      expect(el.attrs.id).toMatch(/^[A-Za-z_][\w.-]*$/); // xsd:ID: an NCName (letters, digits, '_', '.', '-'; no colon)
      expect(ids.has(el.attrs.id), `id ${el.attrs.id} twice`).toBe(false);
      ids.set(el.attrs.id, el);
    }
    if (el.local === 'transition') {
      if (el.attrs.type !== undefined) expect(['internal', 'external']).toContain(el.attrs.type);
      if (el.attrs.event !== undefined) expect(el.attrs.event).toMatch(/^\S+$/);
    }
    if (el.local === 'state' && el.attrs.initial !== undefined) {
      // SCXML: `initial` only on a compound state, naming its descendants.
      expect(el.children.some((c) => ['state', 'parallel', 'final'].includes(c.local)), `${el.attrs.id} initial on an atomic state`).toBe(true);
    }
  }
  const descendantIds = (el: XmlElement) => new Set(elements(el).slice(1).map((e) => e.attrs.id).filter((x) => x !== undefined));
  for (const el of all) {
    for (const ref of (el.attrs.target ?? '').split(/\s+/).filter(Boolean)) expect(ids.has(ref), `target ${ref}`).toBe(true);
    if (el.local === 'state' && el.attrs.initial !== undefined) expect(descendantIds(el).has(el.attrs.initial)).toBe(true);
  }
  expect(ids.has(doc.attrs.initial)).toBe(true);
  // The model, state by state and transition by transition.
  for (const s of allStates(model)) {
    const el = ids.get(s.id);
    expect(el, s.id).toBeDefined();
    expect(el!.local).toBe(s.type === 'parallel' ? 'parallel' : s.type === 'final' ? 'final' : 'state');
    if (s.initial !== null) expect(el!.attrs.initial).toBe(s.initial);
    const transitions = el!.children.filter((c) => c.local === 'transition');
    const own = model.transitions.filter((t) => t.source === s.id);
    expect(transitions.map((t) => t.attrs.event ?? null)).toEqual(own.map((t) => t.event));
    own.forEach((t, i) => {
      const x = transitions[i];
      const stays = !t.reenter && t.targets.length > 0 && t.targets.every((id) => id === t.source);
      expect((x.attrs.target ?? '').split(' ').filter(Boolean)).toEqual(stays ? [] : t.targets);
      expect(x.children.filter((c) => c.local === 'action').map((c) => c.attrs.name)).toEqual(t.actions.map((a) => a.type));
      expect(x.attrs.cond !== undefined).toBe(t.guard !== null);
    });
    const onentry = el!.children.filter((c) => c.local === 'onentry').flatMap((c) => c.children.map((a) => a.attrs.name));
    expect(onentry).toEqual(s.entry.map((a) => a.type));
  }
}

describe.each(models.map((m) => [m.name, m] as const))('SCXML of %s', (_name, model) => {
  it("has the W3C schema's structure, and says what the model says", () => {
    checkScxml(model, parseXml(modelToScxml(model)));
  });
});

describe('SCXML escaping', () => {
  it('escapes ids, events and guards, and the result still parses to the same values', () => {
    const model = structuredClone(models.find((m) => m.name === 'session')!);
    model.transitions[0].event = 'A&B<"x">';
    const doc = parseXml(modelToScxml(model));
    expect(elements(doc).some((e) => e.attrs.event === 'A&B<"x">')).toBe(true);
  });
});

// ---- mermaid --------------------------------------------------------------------------

describe.each(models.map((m) => [m.name, m] as const))('mermaid of %s', (_name, model) => {
  it('is a stateDiagram-v2 naming every state and transition, with ids mermaid takes', () => {
    const text = modelToMermaid(model);
    const lines = text.split('\n');
    expect(lines[0]).toBe('stateDiagram-v2');
    const ids = mermaidIds(model);
    expect(new Set(ids.values()).size).toBe(ids.size);
    for (const id of ids.values()) expect(id).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    for (const s of allStates(model).slice(1)) expect(lines.some((l) => l.trim() === `state "${s.key}" as ${ids.get(s.id)}`), `state ${s.id}`).toBe(true);
    const transitionLines = lines.filter((l) => / --> /.test(l) && !l.includes('[*]'));
    const expected = model.transitions.flatMap((t) =>
      (t.targets.length > 0 ? t.targets : [t.source]).map((target) => `  ${ids.get(t.source)} --> ${ids.get(target)} : ${transitionLabel(t).replace(/#/g, '#35;').replace(/;/g, '#59;')}`),
    );
    expect(transitionLines).toEqual(expected);
    for (const s of allStates(model)) {
      if (s.initial !== null) expect(lines.some((l) => l.trim() === `[*] --> ${ids.get(s.initial!)}`), `initial of ${s.id}`).toBe(true);
      if (s.type === 'final') expect(lines.some((l) => l.trim() === `${ids.get(s.id)} --> [*]`), `final ${s.id}`).toBe(true);
    }
    // Braces balance: every composite closes.
    expect(lines.filter((l) => l.trim().endsWith('{')).length).toBe(lines.filter((l) => l.trim() === '}').length);
  });
});

// ---- SVG ------------------------------------------------------------------------------

const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const inside = (inner: Box, outer: Box) => inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5 && inner.y + inner.height <= outer.y + outer.height + 0.5;
/** Whether a point lies on a box's border (within `tolPx`). */
function onBorder(p: { x: number; y: number }, b: Box, tolPx = 1.5): boolean {
  const withinX = p.x >= b.x - tolPx && p.x <= b.x + b.width + tolPx;
  const withinY = p.y >= b.y - tolPx && p.y <= b.y + b.height + tolPx;
  const nearVertical = Math.abs(p.x - b.x) <= tolPx || Math.abs(p.x - (b.x + b.width)) <= tolPx;
  const nearHorizontal = Math.abs(p.y - b.y) <= tolPx || Math.abs(p.y - (b.y + b.height)) <= tolPx;
  return withinX && withinY && (nearVertical || nearHorizontal);
}

function checkGeometry(model: MachineModel, laid: LaidOutMachine): void {
  const boxes = new Map<string, Box>([...laid.states.map((s) => [s.id, s] as const), ...laid.initials.map((i) => [i.id, i] as const)]);
  expect(laid.states.map((s) => s.id).sort()).toEqual(allStates(model).map((s) => s.id).sort());
  for (const s of laid.states) {
    expect(s.width, s.id).toBeGreaterThan(0);
    expect(s.height, s.id).toBeGreaterThan(0);
    expect(inside(s, { x: 0, y: 0, width: laid.width, height: laid.height }), `${s.id} inside the drawing`).toBe(true);
    if (s.parent !== null) expect(inside(s, boxes.get(s.parent)!), `${s.id} inside ${s.parent}`).toBe(true);
    expect(inside(s.label, s), `${s.id}'s label inside its box`).toBe(true);
  }
  for (const i of laid.initials) expect(inside(i, boxes.get(i.parent)!), `initial dot of ${i.parent}`).toBe(true);
  // Siblings (states and the initial dot of one parent) never overlap.
  const parentOf = (id: string) => laid.states.find((s) => s.id === id)?.parent ?? laid.initials.find((i) => i.id === id)!.parent;
  const ids = [...boxes.keys()].filter((id) => id !== model.root.id);
  for (let a = 0; a < ids.length; a++) {
    for (let b = a + 1; b < ids.length; b++) {
      if (parentOf(ids[a]) === parentOf(ids[b])) expect(overlap(boxes.get(ids[a])!, boxes.get(ids[b])!), `${ids[a]} overlaps ${ids[b]}`).toBe(false);
    }
  }
  const atomics = laid.states.filter((s) => s.type === 'atomic' || s.type === 'final');
  const drawn = new Map<number, number>();
  for (const e of laid.edges) {
    expect(e.points.length, e.id).toBeGreaterThanOrEqual(2);
    expect(onBorder(e.points[0], boxes.get(e.source)!), `${e.id} starts on ${e.source}: ${JSON.stringify(e.points[0])} ${JSON.stringify(boxes.get(e.source))}`).toBe(true);
    expect(onBorder(e.points.at(-1)!, boxes.get(e.target)!), `${e.id} ends on ${e.target}`).toBe(true);
    for (const p of e.points) expect(p.x >= 0 && p.y >= 0 && p.x <= laid.width && p.y <= laid.height, `${e.id} inside the drawing`).toBe(true);
    if (e.transition !== null) {
      drawn.set(e.transition, (drawn.get(e.transition) ?? 0) + 1);
      expect(e.label, e.id).not.toBeNull();
      expect(inside(e.label!, { x: 0, y: 0, width: laid.width, height: laid.height })).toBe(true);
      for (const s of atomics) expect(overlap(e.label!, s), `${e.id}'s label over ${s.id}`).toBe(false);
    }
  }
  model.transitions.forEach((t, i) => expect(drawn.get(i), `transition ${i} drawn`).toBe(Math.max(1, t.targets.length)));
  expect(laid.edges.filter((e) => e.transition === null).length).toBe(allStates(model).filter((s) => s.initial !== null).length);
}

describe.each(models.map((m) => [m.name, m] as const))('SVG of %s', (_name, model) => {
  it('is laid out by ELK with sane geometry, and the SVG is well-formed and draws every state and transition', async () => {
    const laid = await layoutMachine(model);
    checkGeometry(model, laid);
    const svg = laidOutToSvg(laid);
    const doc = parseXml(svg);
    expect(doc.local).toBe('svg');
    expect(doc.ns).toBe('http://www.w3.org/2000/svg');
    const all = elements(doc);
    // Self-contained: no external reference, no script, no font import.
    expect(all.some((e) => e.local === 'script' || e.local === 'image' || e.local === 'foreignObject')).toBe(false);
    expect(svg).not.toMatch(/@import|@font-face|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    for (const e of all) for (const [k, v] of Object.entries(e.attrs)) if (k === 'href' || k.endsWith(':href')) expect(v.startsWith('#'), `${k}=${v}`).toBe(true);
    const stateGroups = all.filter((e) => e.attrs['data-state'] !== undefined);
    expect(stateGroups.map((g) => g.attrs['data-state']).sort()).toEqual(allStates(model).map((s) => s.id).sort());
    for (const g of stateGroups) {
      const s = allStates(model).find((x) => x.id === g.attrs['data-state'])!;
      expect(g.children.filter((c) => c.local === 'rect').length, s.id).toBe(s.type === 'final' ? 2 : 1);
      expect(elements(g).filter((c) => c.local === 'tspan')[0].text).toBe(s.key);
    }
    const edgeGroups = all.filter((e) => e.attrs['data-transition'] !== undefined);
    model.transitions.forEach((t, i) => {
      const groups = edgeGroups.filter((g) => g.attrs['data-transition'] === String(i));
      expect(groups.length, `transition ${i}`).toBe(Math.max(1, t.targets.length));
      for (const g of groups) {
        expect(g.children.find((c) => c.local === 'path')?.attrs['marker-end']).toMatch(/^url\(#m-/);
        expect(elements(g).filter((c) => c.local === 'tspan')[0].text).toBe(t.event ?? '(always)');
      }
    });
    expect(all.filter((e) => e.local === 'circle').length).toBe(allStates(model).filter((s) => s.initial !== null).length);
  });
});
