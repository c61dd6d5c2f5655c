/**
 * GET /docs: the API browsable by a person. One self-contained HTML page (its style and
 * script inline; served with a CSP that lets it load nothing and connect only to its own
 * origin) that reads /openapi.json and lists every route grouped by tag: method, path,
 * summary, description, parameters, request body, responses with their schemas and
 * examples, and the error envelope; a filter box narrows the list by path, summary or tag.
 * Schemas are shown as indented trees (type, limits, description), not raw JSON.
 */

const STYLE = `
:root { --bg:#f7f7f5; --fg:#1d2125; --muted:#5d6670; --line:#d9dcdf; --card:#fff; --get:#1f6feb; --post:#1a7f37; --delete:#cf222e; --ws:#8250df; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { position:sticky; top:0; z-index:2; background:#1d2125; color:#fff; padding:14px 24px; display:flex; gap:24px; align-items:center; flex-wrap:wrap; }
header h1 { font-size:18px; margin:0; font-weight:600; }
header .meta { color:#b8c0c8; font-size:13px; }
header input { margin-left:auto; width:min(420px, 100%); padding:8px 12px; border-radius:6px; border:0; font-size:14px; }
main { display:grid; grid-template-columns: 200px minmax(0, 1fr); gap:24px; padding:20px 24px; max-width:1400px; margin:0 auto; }
nav { position:sticky; top:76px; align-self:start; font-size:14px; }
nav a { display:flex; justify-content:space-between; color:var(--fg); text-decoration:none; padding:4px 8px; border-radius:4px; }
nav a:hover { background:#e8eaed; }
nav .count { color:var(--muted); }
nav a.none { color:#aab1b8; }
.body code, .intro code, .summary code { background:#eceef0; border-radius:3px; padding:0 4px; }
.intro { color:var(--muted); margin:0 0 16px; max-width:900px; }
section.tag h2 { font-size:17px; margin:22px 0 4px; }
section.tag > p { margin:0 0 10px; color:var(--muted); }
details.op { background:var(--card); border:1px solid var(--line); border-radius:8px; margin:6px 0; }
details.op > summary { list-style:none; cursor:pointer; padding:8px 12px; display:grid; grid-template-columns: 72px minmax(240px, 38%) 1fr; gap:12px; align-items:baseline; }
details.op > summary::-webkit-details-marker { display:none; }
details.op[open] > summary { border-bottom:1px solid var(--line); }
.method { font:600 12px/1 ui-monospace, monospace; color:#fff; border-radius:4px; padding:5px 0; text-align:center; }
.m-get { background:var(--get); } .m-post { background:var(--post); } .m-delete { background:var(--delete); } .m-ws { background:var(--ws); }
.path { font:14px ui-monospace, SFMono-Regular, Menlo, monospace; word-break:break-all; }
.summary { color:var(--muted); }
.body { padding:6px 16px 14px; }
.body h4 { margin:14px 0 6px; font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); }
.desc { margin:8px 0; max-width:900px; }
table.params { border-collapse:collapse; width:100%; font-size:14px; }
table.params td, table.params th { text-align:left; border-top:1px solid var(--line); padding:5px 8px; vertical-align:top; }
code, .tree { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:13px; }
.tree { background:#f3f4f6; border-radius:6px; padding:8px 10px; overflow-x:auto; white-space:pre; line-height:1.5; }
.tree .k { color:#0b4f9c; } .tree .t { color:#7a3e9d; } .tree .c { color:#6a737d; } .tree .r { color:#cf222e; }
.status { font:600 13px ui-monospace, monospace; display:inline-block; min-width:44px; }
.s2 { color:var(--post); } .s4, .s5 { color:var(--delete); }
pre.example { background:#0f1419; color:#e6e6e6; border-radius:6px; padding:8px 10px; white-space:pre-wrap; word-break:break-all; font-size:13px; margin:6px 0; }
.label { font-size:12px; color:var(--muted); margin-top:6px; }
.errenv { color:var(--muted); font-size:13px; margin:2px 0 4px 48px; }
.empty { color:var(--muted); padding:20px 0; }
.hidden { display:none !important; }
`;

const SCRIPT = `
'use strict';
const $ = (tag, attrs = {}, ...kids) => {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (k === 'class') el.className = v; else el.setAttribute(k, v);
  for (const kid of kids) if (kid !== null && kid !== undefined) el.append(kid);
  return el;
};
let doc;
/** Text with \`code\` spans as <code> elements (no HTML is ever parsed from the document). */
const inline = (text) => {
  const out = document.createDocumentFragment();
  String(text).split('\u0060').forEach((part, i) => out.append(i % 2 ? $('code', {}, part) : part));
  return out;
};
const resolve = (s) => (s && s.$ref ? s.$ref.split('/').slice(1).reduce((o, k) => o[k], doc) : s);

/** One line per property: name, type, limits, description, as an indented tree. */
function tree(schema, out, indent, name, required) {
  schema = resolve(schema) || {};
  const pad = '  '.repeat(indent);
  const line = $('span');
  line.append(pad);
  if (name !== undefined) line.append($('span', { class: 'k' }, name), required ? $('span', { class: 'r' }, '*') : '', ': ');
  line.append($('span', { class: 't' }, typeName(schema)));
  const lim = limits(schema);
  if (lim) line.append(' ', $('span', { class: 'c' }, lim));
  if (schema.description) line.append(' ', $('span', { class: 'c' }, '\u2014 ' + schema.description));
  out.append(line, '\\n');
  const alts = schema.anyOf || schema.oneOf;
  if (alts) alts.forEach((a, i) => tree(a, out, indent + 1, 'option ' + (i + 1), false));
  if (schema.properties) {
    const req = new Set(schema.required || []);
    for (const [k, v] of Object.entries(schema.properties)) tree(v, out, indent + 1, k, req.has(k));
  }
  if (schema.items) tree(schema.items, out, indent + 1, '[item]', false);
}
function typeName(s) {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(' | ');
  if (s.anyOf || s.oneOf) return 'one of';
  const t = Array.isArray(s.type) ? s.type.join(' | ') : s.type || 'any';
  if (t === 'object' && s.additionalProperties === true && !s.properties) return 'object (open)';
  return t;
}
function limits(s) {
  const l = [];
  if (s.pattern) l.push('pattern ' + s.pattern);
  if (s.minLength !== undefined) l.push('minLength ' + s.minLength);
  if (s.maxLength !== undefined) l.push('maxLength ' + s.maxLength);
  if (s.minimum !== undefined) l.push('min ' + s.minimum);
  if (s.maximum !== undefined) l.push('max ' + s.maximum);
  if (s.minItems !== undefined) l.push('minItems ' + s.minItems);
  if (s.maxItems !== undefined) l.push('maxItems ' + s.maxItems);
  if (s.default !== undefined) l.push('default ' + JSON.stringify(s.default));
  if (s.additionalProperties === true && s.properties) l.push('more keys allowed');
  return l.length ? '(' + l.join(', ') + ')' : '';
}
function schemaBlock(schema) {
  const out = $('div', { class: 'tree' });
  tree(schema, out, 0);
  return out;
}
function examples(media) {
  const list = Object.values(media.examples || {});
  return list.flatMap((e) => [$('div', { class: 'label' }, 'Example'), $('pre', { class: 'example' }, JSON.stringify(e.value, null, 2))]);
}
function operationBody(op) {
  const body = $('div', { class: 'body' });
  if (op.description) body.append($('p', { class: 'desc' }, inline(op.description)));
  if (op.parameters && op.parameters.length) {
    const table = $('table', { class: 'params' }, $('tr', {}, $('th', {}, 'name'), $('th', {}, 'in'), $('th', {}, 'schema'), $('th', {}, 'description')));
    for (const p of op.parameters) {
      const s = p.schema || {};
      table.append($('tr', {}, $('td', {}, $('code', {}, p.name + (p.required ? ' *' : ''))), $('td', {}, p.in), $('td', {}, $('code', {}, typeName(s) + ' ' + limits(s))), $('td', {}, p.description || '')));
    }
    body.append($('h4', {}, 'Parameters'), table);
  }
  if (op.requestBody) {
    const media = op.requestBody.content['application/json'];
    body.append($('h4', {}, 'Request body (application/json)'), schemaBlock(media.schema), ...examples(media));
  }
  body.append($('h4', {}, 'Responses'));
  for (const [code, r0] of Object.entries(op.responses)) {
    const r = resolve(r0);
    body.append($('div', {}, $('span', { class: 'status s' + code[0] }, code), ' ', inline(r.description || '')));
    const media = r.content && r.content['application/json'];
    if (!media) {
      const other = r.content && Object.entries(r.content)[0];
      if (other) body.append($('div', { class: 'errenv' }, inline('Content type \u0060' + other[0] + '\u0060.')), ...examples(other[1]));
      continue;
    }
    if (r0.$ref) {
      // The shared error envelope: named, not drawn again under every route.
      const ex = Object.values(media.examples || {})[0];
      body.append($('div', { class: 'errenv' }, inline('The error envelope \u0060{success: false, error: {code, message}, timestamp}\u0060' + (ex ? ', e.g. \u0060' + JSON.stringify(ex.value.error) + '\u0060' : '') + '.')));
    } else body.append(schemaBlock(media.schema), ...examples(media));
  }
  return body;
}
function render() {
  const main = document.getElementById('ops');
  const nav = document.getElementById('nav');
  const groups = new Map(doc.tags.map((t) => [t.name, { tag: t, ops: [] }]));
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || 'other';
      if (!groups.has(tag)) groups.set(tag, { tag: { name: tag }, ops: [] });
      groups.get(tag).ops.push({ path, method, op });
    }
  }
  let total = 0;
  for (const { tag, ops } of groups.values()) {
    if (!ops.length) continue;
    ops.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : 1));
    total += ops.length;
    const section = $('section', { class: 'tag', id: 'tag-' + tag.name }, $('h2', {}, tag.name), tag.description ? $('p', {}, tag.description) : null);
    for (const { path, method, op } of ops) {
      const ws = op.responses && op.responses['101'];
      const label = ws ? 'WS' : method.toUpperCase();
      const details = $('details', { class: 'op', 'data-search': (label + ' ' + path + ' ' + (op.summary || '') + ' ' + tag.name + ' ' + (op.description || '')).toLowerCase(), 'data-route': method.toUpperCase() + ' ' + path },
        $('summary', {}, $('span', { class: 'method m-' + (ws ? 'ws' : method) }, label), $('span', { class: 'path' }, path), $('span', { class: 'summary' }, inline(op.summary || ''))));
      details.addEventListener('toggle', () => { if (details.open && details.childElementCount === 1) details.append(operationBody(op)); }, { once: false });
      section.append(details);
    }
    main.append(section);
    nav.append($('a', { href: '#tag-' + tag.name, 'data-tag': tag.name }, $('span', {}, tag.name), $('span', { class: 'count' }, String(ops.length))));
  }
  document.getElementById('meta').textContent = 'version ' + doc.info.version + ' \\u00b7 OpenAPI ' + doc.openapi + ' \\u00b7 ' + total + ' routes';
  document.getElementById('intro').append(inline(doc.info.description));
}
function filter(text) {
  const q = text.trim().toLowerCase();
  let shown = 0;
  for (const section of document.querySelectorAll('section.tag')) {
    let any = 0;
    for (const op of section.querySelectorAll('details.op')) {
      const hit = !q || q.split(/\\s+/).every((w) => op.dataset.search.includes(w));
      op.classList.toggle('hidden', !hit);
      any += hit ? 1 : 0;
    }
    section.classList.toggle('hidden', any === 0);
    const link = document.querySelector('nav a[data-tag="' + section.id.slice(4) + '"] .count');
    if (link) {
      link.textContent = String(any);
      link.parentElement.classList.toggle('none', any === 0);
    }
    shown += any;
  }
  document.getElementById('empty').classList.toggle('hidden', shown > 0);
}
fetch('/openapi.json')
  .then((r) => r.json())
  .then((d) => { doc = d; render(); const box = document.getElementById('filter'); box.addEventListener('input', () => filter(box.value)); document.body.dataset.ready = '1'; })
  .catch((err) => { document.getElementById('ops').textContent = 'Could not load /openapi.json: ' + err; });
`;

export const DOCS_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API \u00b7 exchange chain node</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>Exchange chain node API</h1>
  <span class="meta" id="meta">loading /openapi.json\u2026</span>
  <input id="filter" type="search" placeholder="Filter: path, summary, tag (e.g. perp, POST, order)" aria-label="Filter routes" autocomplete="off">
</header>
<main>
  <nav id="nav" aria-label="Tags"></nav>
  <div>
    <p class="intro" id="intro"></p>
    <div id="ops"></div>
    <p class="empty hidden" id="empty">No route matches the filter.</p>
    <p class="intro">The machine-readable document: <a href="/openapi.json">/openapi.json</a>. Click a route to see its parameters, body, responses and examples.</p>
  </div>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
