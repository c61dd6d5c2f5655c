/**
 * A laid-out machine (layout.ts, positions from ELK) drawn as one self-contained SVG:
 * rounded boxes for states (a compound state titled at the top-left where ELK put its
 * label, a region of a parallel state dashed, a final state with a double border),
 * a filled dot for each initial state, transitions as ELK routed them (its sections'
 * points joined, an arrowhead at the target) with their label (the event, `[guard]`,
 * `/ actions`, a line each) where ELK placed it. No external font, script or image;
 * styles inline.
 *
 * Every state group carries `data-state="<xstate id>"` and every transition
 * `data-transition="<index in model.transitions>"`, so the /audit page (issue 23
 * item 2) can highlight the current state without drawing again. Ids inside the SVG
 * are prefixed with the machine's name, so several drawings can share one page.
 *
 * Pure: returns text.
 */
import { FONT, type LaidOutLabel, type LaidOutMachine } from './layout';
import { xmlEscape } from './xml-text';

const n = (v: number) => (Math.round(v * 10) / 10).toString();

function textLines(label: LaidOutLabel, className: string, anchor: 'start' | 'middle', firstBold: boolean): string {
  const x = anchor === 'middle' ? label.x + label.width / 2 : label.x + 2;
  const tspans = label.lines
    .map((line, i) => {
      const cls = firstBold && i === 0 ? ' class="title"' : '';
      return `<tspan x="${n(x)}" y="${n(label.y + (i + 1) * FONT.lineHeightPx - 3)}"${cls}>${xmlEscape(line)}</tspan>`;
    })
    .join('');
  return `<text class="${className}" text-anchor="${anchor}">${tspans}</text>`;
}

export function laidOutToSvg(laid: LaidOutMachine): string {
  const prefix = `m-${laid.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const arrow = `${prefix}-arrow`;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${laid.width}" height="${laid.height}" viewBox="0 0 ${laid.width} ${laid.height}" data-machine="${xmlEscape(laid.name)}">`,
    `<title>${xmlEscape(laid.name)}</title>`,
    '<defs>',
    `<marker id="${arrow}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#334155"/></marker>`,
    '</defs>',
    '<style>',
    `text{font-family:${FONT.family};font-size:${FONT.textSizePx}px;fill:#0f172a}`,
    `.title{font-size:${FONT.titleSizePx}px;font-weight:600}`,
    '.state rect{fill:#f8fafc;stroke:#334155;stroke-width:1.4}',
    '.state.compound>rect,.state.parallel>rect{fill:#ffffff}',
    '.state.region>rect{stroke-dasharray:6 4;fill:#fcfcfd}',
    '.state.final>rect.inner{fill:none}',
    '.state.root>rect{fill:#ffffff;stroke:#64748b}',
    '.edge path{fill:none;stroke:#334155;stroke-width:1.2}',
    '.edge .bg{fill:#ffffff;fill-opacity:0.85;stroke:none}',
    '.edge text{fill:#1e293b}',
    '.initial circle{fill:#0f172a}',
    '</style>',
    `<rect width="${laid.width}" height="${laid.height}" fill="#ffffff"/>`,
  );
  // Outer states first, so inner boxes are drawn over them.
  const states = [...laid.states].sort((a, b) => a.depth - b.depth);
  for (const s of states) {
    const classes = ['state', s.type];
    if (s.region) classes.push('region');
    if (s.parent === null) classes.push('root');
    const radius = s.type === 'compound' || s.type === 'parallel' ? 10 : 8;
    const rect = `<rect x="${n(s.x)}" y="${n(s.y)}" width="${n(s.width)}" height="${n(s.height)}" rx="${radius}" ry="${radius}"/>`;
    const inner =
      s.type === 'final'
        ? `<rect class="inner" x="${n(s.x + 4)}" y="${n(s.y + 4)}" width="${n(s.width - 8)}" height="${n(s.height - 8)}" rx="${radius - 3}" ry="${radius - 3}"/>`
        : '';
    const atomic = s.type === 'atomic' || s.type === 'final';
    out.push(`<g class="${classes.join(' ')}" data-state="${xmlEscape(s.id)}">${rect}${inner}${textLines(s.label, 'label', atomic ? 'middle' : 'start', true)}</g>`);
  }
  for (const i of laid.initials) {
    out.push(`<g class="initial" data-initial-of="${xmlEscape(i.parent)}"><circle cx="${n(i.x + i.width / 2)}" cy="${n(i.y + i.height / 2)}" r="${n(i.width / 2)}"/></g>`);
  }
  for (const e of laid.edges) {
    if (e.points.length < 2) continue;
    const d = e.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(p.x)},${n(p.y)}`).join(' ');
    const data = e.transition === null ? `data-initial="${xmlEscape(e.target)}"` : `data-transition="${e.transition}"`;
    let label = '';
    if (e.label !== null) {
      const l = e.label;
      label = `<rect class="bg" x="${n(l.x)}" y="${n(l.y)}" width="${n(l.width)}" height="${n(l.height)}" rx="3"/>${textLines(l, 'event', 'start', false)}`;
    }
    out.push(`<g class="edge" ${data}><path d="${d}" marker-end="url(#${arrow})"/>${label}</g>`);
  }
  out.push('</svg>', '');
  return out.join('\n');
}
