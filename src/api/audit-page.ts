/**
 * The /audit page (issue 23 item 2; docs/audit.md): one self-contained HTML document,
 * its CSS and script inline, loading nothing from elsewhere. It reads
 * GET /v1/audit/machines (every machine drawn), /v1/audit/instances (per machine, with
 * the address filter) and /v1/audit/transitions (an instance's recent transitions), and
 * subscribes to the WebSocket topic `audit` (/ws) to update as transitions happen.
 * Plain DOM script, no framework: what it shows is built with textContent (never HTML
 * from data), and the drawings are the node's own SVG.
 */

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#0f172a;background:#f1f5f9}
header{display:flex;align-items:center;gap:16px;padding:10px 20px;background:#0f172a;color:#f8fafc}
header h1{font-size:18px;margin:0;font-weight:600}
header .meta{color:#cbd5e1;font-size:13px}
#conn{margin-left:auto;font-size:13px;padding:2px 10px;border-radius:10px;background:#475569}
#conn.on{background:#15803d}#conn.off{background:#b91c1c}
.layout{display:flex;align-items:flex-start}
nav{width:250px;flex:none;padding:14px;position:sticky;top:0;height:100vh;overflow:auto;border-right:1px solid #cbd5e1;background:#fff}
nav h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:#475569;margin:14px 0 6px}
nav ul{list-style:none;margin:0;padding:0}
#machine-list button{display:flex;width:100%;justify-content:space-between;align-items:center;border:0;background:none;padding:6px 8px;border-radius:6px;font:inherit;color:inherit;cursor:pointer;text-align:left}
#machine-list button:hover{background:#e2e8f0}
#machine-list button.selected{background:#1d4ed8;color:#fff}
.count{font-size:12px;min-width:24px;text-align:center;padding:0 6px;border-radius:9px;background:#e2e8f0;color:#334155}
button.selected .count{background:#93c5fd;color:#0f172a}
#address{width:100%;padding:6px 8px;font:12px ui-monospace,"DejaVu Sans Mono",monospace;border:1px solid #94a3b8;border-radius:6px}
#address.bad{border-color:#b91c1c;background:#fef2f2}
.hint{font-size:12px;color:#64748b;margin:4px 0 0}
#feed li{font-size:12px;padding:5px 6px;border-bottom:1px solid #e2e8f0;cursor:pointer}
#feed li:hover{background:#f1f5f9}
#feed li.fresh{animation:fresh 2s ease-out}
@keyframes fresh{from{background:#fde68a}to{background:transparent}}
main{flex:1;min-width:0;padding:16px 20px}
.intro{margin:0 0 14px;color:#334155;max-width:1100px}
.legend{display:inline-flex;gap:14px;margin-left:6px;font-size:12px}
.legend span::before{content:"";display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:-1px;border:1.5px solid #334155;border-radius:3px}
.legend .l-cur::before{background:#fde047;border-color:#a16207;border-width:2.5px}
.legend .l-occ::before{background:#dbeafe;border-color:#1d4ed8}
section.machine{background:#fff;border:1px solid #cbd5e1;border-radius:10px;margin-bottom:18px;overflow:hidden}
section.machine>h2{margin:0;padding:10px 14px;font-size:16px;border-bottom:1px solid #e2e8f0;display:flex;gap:12px;align-items:baseline;background:#f8fafc}
section.machine>h2 small{font-weight:400;color:#64748b;font-size:12px}
details.role{padding:6px 14px;font-size:13px;color:#334155;border-bottom:1px solid #e2e8f0}
details.role summary{cursor:pointer;color:#1d4ed8}
.body{display:flex;flex-wrap:wrap;align-items:stretch}
.drawing{flex:1 1 auto;max-width:100%;padding:10px;overflow:auto}
.drawing svg{display:block;max-width:none;margin:0 auto}
.drawing.fit svg{max-width:100%;height:auto}
button.fit{margin-left:auto;font:inherit;font-size:12px;font-weight:400;cursor:pointer}
.side{flex:1 0 460px;display:flex;flex-direction:column;max-height:720px;border-left:1px solid #e2e8f0;border-top:1px solid #e2e8f0;margin:-1px 0 0 -1px}
.side h3{font-size:13px;margin:0;padding:8px 12px;background:#f8fafc;border-bottom:1px solid #e2e8f0;color:#334155}
.instances{overflow:auto;flex:1;min-height:80px}
table{border-collapse:collapse;width:100%;font-size:12.5px}
th{text-align:left;font-weight:600;color:#475569;padding:4px 8px;border-bottom:1px solid #e2e8f0;position:sticky;top:0;background:#fff}
td{padding:5px 8px;border-bottom:1px solid #f1f5f9;vertical-align:top}
td.mono,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;overflow-wrap:anywhere}
tr.instance{cursor:pointer}
tr.instance:hover{background:#f1f5f9}
tr.instance.selected{background:#fef9c3;outline:2px solid #ca8a04;outline-offset:-2px}
tr.instance.changed{animation:fresh 2.5s ease-out}
.pill{display:inline-block;padding:0 8px;border-radius:9px;background:#dbeafe;color:#1e3a8a;font-weight:600;font-size:12px;white-space:nowrap}
.empty{padding:10px 12px;color:#64748b;font-size:13px}
.more{margin:6px 12px;font:inherit;font-size:12px}
.transitions{border-top:2px solid #e2e8f0;max-height:300px;overflow:auto}
.transitions .head{display:flex;justify-content:space-between;align-items:center}
svg g.state.occupied>rect{fill:#dbeafe;stroke:#1d4ed8}
svg g.state.current>rect{fill:#fde047;stroke:#a16207;stroke-width:3.5}
svg g.state.compound.current>rect,svg g.state.parallel.current>rect,svg g.state.region.current>rect{fill:#fcfcfd;stroke:#a16207;stroke-width:2}
svg g.edge.last path{stroke:#c2410c;stroke-width:3}
svg g.edge.last .bg{fill:#ffedd5;fill-opacity:1}
`;

const SCRIPT = `
'use strict';
const $ = (sel, el = document) => el.querySelector(sel);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
};
const short = (s) => (typeof s === 'string' && /^0x[0-9a-f]{40,}$/i.test(s) ? s.slice(0, 8) + '…' + s.slice(-6) : s);
const timeOf = (ms) => new Date(ms).toISOString().slice(11, 19);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

const view = { machines: [], byName: new Map(), filter: null, address: '', selected: null, instances: new Map(), counts: new Map() };

async function get(path) {
  const r = await fetch(path);
  const body = await r.json();
  if (!body.success) throw new Error(body.error ? body.error.code + ': ' + body.error.message : 'HTTP ' + r.status);
  return body.data;
}

function stateIdOf(m, path) { return m.machineId + '.' + path; }

function highlight(name) {
  const m = view.byName.get(name);
  if (!m) return;
  const svg = $('section[data-machine="' + name + '"] svg');
  if (!svg) return;
  for (const g of svg.querySelectorAll('g.state.current, g.state.occupied, g.edge.last')) g.classList.remove('current', 'occupied', 'last');
  const occupied = new Set();
  for (const inst of view.instances.get(name) || []) for (const id of inst.stateIds) occupied.add(id);
  for (const id of occupied) { const g = svg.querySelector('g.state[data-state="' + CSS.escape(id) + '"]'); if (g && (g.classList.contains('atomic') || g.classList.contains('final'))) g.classList.add('occupied'); }
  const sel = view.selected && view.selected.machine === name ? (view.instances.get(name) || []).find((i) => i.id === view.selected.id) : null;
  if (sel) for (const id of sel.stateIds) svg.querySelector('g.state[data-state="' + CSS.escape(id) + '"]')?.classList.add('current');
  const last = view.selected && view.selected.machine === name ? view.selected.last : null;
  if (last && last.from !== null) {
    const from = last.from.split(' '), to = last.to.split(' ');
    m.model.transitions.forEach((t, i) => {
      if (to.some((p) => t.targets.includes(stateIdOf(m, p))) && from.some((p) => stateIdOf(m, p) === t.source || stateIdOf(m, p).startsWith(t.source + '.'))) svg.querySelector('g.edge[data-transition="' + i + '"]')?.classList.add('last');
    });
  }
}

function renderInstances(name, page) {
  const box = $('section[data-machine="' + name + '"] .instances');
  box.replaceChildren();
  view.counts.set(name, page.total);
  const badge = $('#machine-list button[data-machine="' + name + '"] .count');
  if (badge) badge.textContent = String(page.total);
  if (page.items.length === 0) {
    box.append(el('p', { class: 'empty', text: view.address ? 'No instance belongs to ' + view.address + '.' : name === 'consensus-round' ? 'No round running here: a round runs on a node of a BFT network (not on a solo producer, nor while it block-syncs).' : 'No instance on this node now.' }));
    return;
  }
  const rows = page.items.map((inst) => {
    const tr = el('tr', { class: 'instance', 'data-machine': name, 'data-id': inst.id, 'data-state': inst.state, title: 'Show its transitions', onclick: () => select(name, inst.id) },
      el('td', { class: 'mono', text: short(inst.id), title: inst.id }), el('td', { text: inst.label.replace(/0x[0-9a-fA-F]{40}/g, short), title: inst.label }), el('td', {}, el('span', { class: 'pill', text: inst.state })));
    if (view.selected && view.selected.machine === name && view.selected.id === inst.id) tr.classList.add('selected');
    const prev = (view.instances.get(name) || []).find((p) => p.id === inst.id);
    if (view.instances.has(name) && (!prev || prev.state !== inst.state)) tr.classList.add('changed');
    return tr;
  });
  box.append(el('table', {}, el('thead', {}, el('tr', {}, el('th', { text: 'instance' }), el('th', { text: 'what' }), el('th', { text: 'state' }))), el('tbody', {}, ...rows)));
  if (page.total > page.items.length) box.append(el('p', { class: 'empty', text: 'Showing ' + page.items.length + ' of ' + page.total + '; filter by address to find one.' }));
}

async function loadInstances(name) {
  const m = view.byName.get(name);
  if (!m || !m.hasInstances) return;
  const q = new URLSearchParams({ machine: name, limit: '100' });
  if (view.address) q.set('address', view.address);
  const page = await get('/v1/audit/instances?' + q);
  renderInstances(name, page);
  view.instances.set(name, page.items);
  highlight(name);
}

async function loadTransitions() {
  const s = view.selected;
  for (const p of document.querySelectorAll('.transitions')) p.hidden = true;
  if (!s) return;
  const panel = $('section[data-machine="' + s.machine + '"] .transitions');
  const data = await get('/v1/audit/transitions?' + new URLSearchParams({ machine: s.machine, id: s.id, limit: '50' }));
  s.last = data.items[0] || null;
  panel.hidden = false;
  panel.replaceChildren(el('h3', { class: 'head' }, el('span', { text: 'Transitions of ' + short(s.id) }), el('button', { class: 'more', text: 'close', onclick: () => select(null) })));
  if (data.items.length === 0) {
    panel.append(el('p', { class: 'empty', text: 'None seen since this node started (the log covers blocks committed since then).' }));
  } else {
    const rows = data.items.map((t) => el('tr', { 'data-seq': String(t.seq) },
      el('td', { text: t.height === null ? '—' : String(t.height) }), el('td', { text: timeOf(t.timeMs) }),
      el('td', { title: t.from === null ? 'this node had not seen the instance before (it records blocks since it started)' : '' }, (t.from === null ? '(first seen)' : t.from) + ' → ', el('b', { text: t.to })),
      el('td', { class: 'mono', text: t.cause.event + (t.cause.txKind ? ' (' + t.cause.txKind + ' ' + short(t.cause.txHash) + ')' : '') })));
    panel.append(el('table', {}, el('thead', {}, el('tr', {}, el('th', { text: 'height' }), el('th', { text: 'time' }), el('th', { text: 'from → to' }), el('th', { text: 'cause' }))), el('tbody', {}, ...rows)));
  }
  highlight(s.machine);
}

function select(name, id) {
  const prev = view.selected;
  view.selected = name ? { machine: name, id, last: null } : null;
  for (const tr of document.querySelectorAll('tr.instance.selected')) tr.classList.remove('selected');
  if (name) $('tr.instance[data-machine="' + name + '"][data-id="' + CSS.escape(id) + '"]')?.classList.add('selected');
  if (prev) highlight(prev.machine);
  loadTransitions().catch(showError);
}

function applyFilter() {
  for (const s of document.querySelectorAll('section.machine')) s.hidden = view.filter !== null && s.dataset.machine !== view.filter;
  for (const b of document.querySelectorAll('#machine-list button')) b.classList.toggle('selected', (b.dataset.machine || null) === view.filter);
}

function showError(err) { $('#error').textContent = String(err && err.message || err); }

function addFeed(t, fresh) {
  if (view.address && !t.addresses.includes(view.address)) return;
  const li = el('li', { 'data-machine': t.machine, 'data-id': t.id, 'data-addresses': t.addresses.join(' '), onclick: () => { view.filter = t.machine; applyFilter(); select(t.machine, t.id); } },
    el('b', { text: t.machine }), ' ' + short(t.id) + ': ' + (t.from === null ? '' : t.from + ' → ') + t.to,
    el('div', { class: 'hint', text: (t.height === null ? 'actor' : 'height ' + t.height) + ' · ' + t.cause.event + (t.cause.txKind ? ' · ' + t.cause.txKind : '') }));
  if (fresh) li.classList.add('fresh');
  const feed = $('#feed');
  feed.prepend(li);
  while (feed.children.length > 40) feed.lastChild.remove();
}

const pending = new Set();
let timer = null;
function refreshSoon(name) {
  pending.add(name);
  if (timer) return;
  timer = setTimeout(async () => {
    timer = null;
    const names = [...pending];
    pending.clear();
    for (const n of names) await loadInstances(n).catch(showError);
    if (view.selected && names.includes(view.selected.machine)) await loadTransitions().catch(showError);
  }, 150);
}

let heads = null;
function connect() {
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
  const conn = $('#conn');
  ws.onopen = () => { conn.textContent = 'live'; conn.className = 'on'; ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['audit', {}] })); ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] })); };
  ws.onclose = () => { conn.textContent = 'disconnected: retrying'; conn.className = 'off'; setTimeout(connect, 2000); };
  ws.onmessage = (msg) => {
    const m = JSON.parse(msg.data);
    if (m.id === 2 && typeof m.result === 'string') { heads = m.result; return; }
    if (m.method !== 'eth_subscription') return;
    const r = m.params.result;
    if (m.params.subscription === heads) { $('#height').textContent = String(parseInt(r.number, 16)); return; }
    if (r && r.snapshot) { $('#feed').replaceChildren(); for (const t of [...r.data].reverse()) addFeed(t, false); return; }
    addFeed(r, true);
    if (r.height !== null) $('#height').textContent = String(r.height);
    refreshSoon(r.machine);
  };
}

async function main() {
  const [{ machines }, status] = await Promise.all([get('/v1/audit/machines'), fetch('/status').then((r) => r.json()).catch(() => null)]);
  if (status && status.data) { $('#chain').textContent = status.data.chain + ' · chain ' + status.data.chainId; $('#height').textContent = String(status.data.height); }
  view.machines = machines;
  const list = $('#machine-list');
  list.append(el('li', {}, el('button', { class: 'selected', onclick: () => { view.filter = null; applyFilter(); } }, el('span', { text: 'All machines' }), el('span', { class: 'count', text: String(machines.length) }))));
  for (const m of machines) {
    view.byName.set(m.name, m);
    list.append(el('li', {}, el('button', { 'data-machine': m.name, onclick: () => { view.filter = m.name; applyFilter(); } }, el('span', { text: m.name }), el('span', { class: 'count', text: m.hasInstances ? '…' : '—' }))));
    const drawing = el('div', { class: 'drawing' });
    drawing.innerHTML = m.svg; // the node's own drawing (src/audit/svg.ts), not data from a client
    const side = el('div', { class: 'side' },
      el('h3', { text: m.hasInstances ? 'Instances on this node (click one)' : 'Instances' }),
      el('div', { class: 'instances' }, el('p', { class: 'empty', text: m.hasInstances ? 'Loading…' : 'None on a node: this machine runs in the onboarding service (its own store).' })),
      el('div', { class: 'transitions', hidden: '' }));
    const states = m.model.transitions.length;
    document.querySelector('main').append(el('section', { class: 'machine', 'data-machine': m.name, id: 'm-' + m.name },
      el('h2', {}, el('span', { text: m.name }), el('small', { text: m.file + ' · ' + m.model.events.length + ' events · ' + states + ' transitions' }),
        el('button', { class: 'fit', title: 'Shrink a wide drawing to the page, or back to its actual size (scroll)', onclick: (e) => { e.target.textContent = drawing.classList.toggle('fit') ? 'actual size' : 'fit to width'; } }, 'fit to width')),
      el('details', { class: 'role' }, el('summary', { text: 'How execution uses it' }), el('p', { text: m.role })),
      el('div', { class: 'body' }, drawing, side)));
  }
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('machine') && view.byName.has(hash.get('machine'))) view.filter = hash.get('machine');
  applyFilter();
  await Promise.all(machines.map((m) => loadInstances(m.name).catch(showError)));
  connect();
  $('#address').addEventListener('input', (e) => {
    const v = e.target.value.trim();
    const bad = v !== '' && !ADDRESS.test(v);
    e.target.classList.toggle('bad', bad);
    if (bad) return;
    view.address = v.toLowerCase();
    for (const m of machines) loadInstances(m.name).catch(showError);
    for (const li of [...$('#feed').children]) li.hidden = view.address !== '' && !(li.dataset.addresses || '').split(' ').includes(view.address);
  });
}
main().catch(showError);
`;

export const AUDIT_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audit: state machines of this node</title>
<style>${CSS}</style>
</head>
<body>
<header><h1>State machines: audit</h1><span class="meta"><span id="chain"></span> · height <span id="height">…</span></span><span id="conn">connecting…</span></header>
<div class="layout">
<nav>
<h2>Machines</h2>
<ul id="machine-list"></ul>
<h2>Filter by address</h2>
<input id="address" placeholder="0x… owner, session key, validator" spellcheck="false" autocomplete="off">
<p class="hint">Shows only the instances and transitions that belong to it.</p>
<h2>Live transitions</h2>
<ul id="feed"></ul>
<p class="hint">Since this node started (an in-memory log, newest first).</p>
</nav>
<main>
<p class="intro">Every state machine of the node, drawn from the machine objects execution runs: boxes are states, arrows transitions labelled <i>event [guard] / actions</i>. Beside each drawing are its instances on this node (live actors, this node's consensus round, and what the chain's state holds). Click an instance to see its current state highlighted and its recent transitions with the block height and cause.
<span class="legend"><span class="l-cur">selected instance's state</span><span class="l-occ">states some instance is in</span></span></p>
<p id="error" class="hint" style="color:#b91c1c"></p>
</main>
</div>
<script>${SCRIPT}</script>
</body>
</html>
`;
