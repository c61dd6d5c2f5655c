/**
 * GET /metrics (issue 23 item 4): Prometheus text exposition format, read by a strict
 * parser written here (HELP and TYPE lines, sample lines, names, labels, histogram
 * buckets against their _count); the height moving while blocks are produced; orders
 * and trades counted from executed blocks; API latency per route pattern; two
 * in-process nodes, each with its own numbers; the bridge actor's counters; every
 * metric named in docs/operations.md "Metrics" and no other. Two single-validator
 * devnet nodes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExchangeClient } from '../../src/client';
import type { Node } from '../../src/node/node';
import { NodeMetrics } from '../../src/metrics/node-metrics';
import { newBridgeStats } from '../../actors/bridge/bridge-actor';
import { DEVNET_KEYS, ROOT, startNode, tempDir, waitFor } from '../helpers/devnet';

// ---- a strict reader of the text exposition format (version 0.0.4) ----

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface Family {
  name: string;
  help: string | undefined;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value ${JSON.stringify(text)} in: ${line}`);
  return Number(text);
}

/** `a="x",b="y\"z"` → labels; escapes \\, \" and \n only. */
function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`label without value in: ${line}`);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${JSON.stringify(name)} in: ${line}`);
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`);
    if (text[eq + 1] !== '"') throw new Error(`unquoted label value in: ${line}`);
    let value = '';
    let j = eq + 2;
    for (;;) {
      if (j >= text.length) throw new Error(`unterminated label value in: ${line}`);
      const c = text[j];
      if (c === '"') break;
      if (c === '\\') {
        const next = text[j + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new Error(`bad escape in: ${line}`);
        j += 2;
      } else {
        value += c;
        j++;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (i < text.length) {
      if (text[i] !== ',') throw new Error(`labels not separated by a comma in: ${line}`);
      i++;
    }
  }
  return labels;
}

/** The family a sample belongs to, by its name and the declared types. */
function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  const exact = families.get(sampleName);
  if (exact && exact.type !== 'histogram') return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const f = families.get(sampleName.slice(0, -suffix.length));
    if (f?.type === 'histogram' || (f?.type === 'summary' && suffix !== '_bucket')) return f;
  }
  return undefined;
}

const seriesKey = (name: string, labels: Record<string, string>) =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',')}}`;

/** Parses the whole text or throws naming the first line that breaks the format. */
function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the text does not end with a newline');
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  const series = new Set<string>();
  let current: Family | undefined;
  const enter = (f: Family, line: string) => {
    if (current === f) return;
    if (closed.has(f.name)) throw new Error(`family ${f.name} is not contiguous at: ${line}`);
    if (current) closed.add(current.name);
    current = f;
  };
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue; // the format ignores empty lines (prom-client puts one between families)
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`malformed: ${line}`);
        continue; // a comment
      }
      const [, kind, name, rest] = m;
      if (!METRIC_NAME.test(name)) throw new Error(`bad metric name ${JSON.stringify(name)}`);
      let f = families.get(name);
      if (!f) {
        f = { name, help: undefined, type: 'untyped', samples: [] };
        families.set(name, f);
      }
      enter(f, line);
      if (f.samples.length) throw new Error(`${kind} after samples of ${name}`);
      if (kind === 'HELP') {
        if (f.help !== undefined) throw new Error(`HELP twice for ${name}`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) throw new Error(`bad escape in HELP of ${name}`);
        f.help = rest;
      } else {
        if (!TYPES.has(rest)) throw new Error(`unknown type ${rest} of ${name}`);
        if ((f as Family & { typed?: true }).typed) throw new Error(`TYPE twice for ${name}`);
        f.type = rest as Family['type'];
        (f as Family & { typed?: true }).typed = true;
      }
      continue;
    }
    const m = /^([^\s{]+)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (!m) throw new Error(`malformed sample: ${line}`);
    const [, name, labelText, valueText] = m;
    if (!METRIC_NAME.test(name)) throw new Error(`bad metric name ${JSON.stringify(name)}`);
    const labels = parseLabels(labelText ?? '', line);
    const value = parseValue(valueText, line);
    const f = familyOf(name, families);
    if (!f) throw new Error(`sample ${name} of no declared family`);
    enter(f, line);
    const key = seriesKey(name, labels);
    if (series.has(key)) throw new Error(`series twice: ${key}`);
    series.add(key);
    if (f.type === 'counter' && !(value >= 0)) throw new Error(`counter ${name} is ${value}`);
    f.samples.push({ name, labels, value });
  }
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

/** Each label set: ascending `le` buckets ending at +Inf, cumulative, +Inf equal to _count, and a _sum. */
function checkHistogram(f: Family): void {
  const groups = new Map<string, { buckets: { le: number; v: number }[]; count?: number; sum?: number }>();
  const group = (labels: Record<string, string>) => {
    const { le: _le, ...rest } = labels;
    const key = seriesKey('', rest);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { buckets: [] }));
    return g;
  };
  for (const s of f.samples) {
    if (s.name === `${f.name}_bucket`) {
      if (s.labels.le === undefined) throw new Error(`${f.name}_bucket without le`);
      group(s.labels).buckets.push({ le: parseValue(s.labels.le, s.labels.le), v: s.value });
    } else if (s.name === `${f.name}_count`) group(s.labels).count = s.value;
    else if (s.name === `${f.name}_sum`) group(s.labels).sum = s.value;
    else throw new Error(`histogram ${f.name} has sample ${s.name}`);
  }
  for (const [key, g] of groups) {
    if (g.count === undefined || g.sum === undefined) throw new Error(`${f.name}${key} lacks _count or _sum`);
    const last = g.buckets[g.buckets.length - 1];
    if (!last || last.le !== Infinity) throw new Error(`${f.name}${key} does not end at le="+Inf"`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i].le > g.buckets[i - 1].le)) throw new Error(`${f.name}${key} buckets not ascending`);
      if (g.buckets[i].v < g.buckets[i - 1].v) throw new Error(`${f.name}${key} buckets not cumulative`);
    }
    if (last.v !== g.count) throw new Error(`${f.name}${key}: +Inf bucket ${last.v}, _count ${g.count}`);
  }
}

// ---- the nodes ----

const dirs = [tempDir('exchain-metrics-'), tempDir('exchain-metrics-')];
const nodes: Node[] = [];
const [alice, bob] = DEVNET_KEYS.accounts.slice(0, 2).map((a) => privateKeyToAccount(a.privateKey));

beforeAll(async () => {
  for (const d of dirs) nodes.push((await startNode(d.path)).node);
});
afterAll(async () => {
  for (const n of nodes) await n.stop();
  for (const d of dirs) d.remove();
});

async function scrape(node: Node): Promise<Map<string, Family>> {
  const res = await fetch(`${node.apiAddress}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(await res.text());
}

/** The value of the one sample of `name` whose labels include `labels` (0 when `orZero` and there is none yet). */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}, orZero = false): number {
  const f = familyOf(name, families);
  const found = f?.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
  if (found.length === 0 && orZero) return 0;
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0].value;
}

const P = 'exchange_chain_';

/** The API latency _count of `route` and `method`, by status class: what a test reads before and after its own requests. */
function routeCounts(m: Map<string, Family>, route: string, method: string): Record<string, number> {
  const samples = m.get(`${P}api_request_duration_seconds`)?.samples ?? [];
  return Object.fromEntries(samples.filter((s) => s.name.endsWith('_count') && s.labels.route === route && s.labels.method === method).map((s) => [s.labels.status_class, s.value]));
}

describe('the parser', () => {
  it('refuses what breaks the format', () => {
    const ok = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 2\n';
    expect(parseExposition(ok).get('a_total')!.samples).toEqual([{ name: 'a_total', labels: { x: '1' }, value: 2 }]);
    const bad = [
      '# TYPE a counter\na 1', // no final newline
      '# TYPE 1a gauge\n1a 1\n', // a name that starts with a digit
      'a 1\n', // a sample of no declared family
      '# TYPE a gauge\na{x=1} 1\n', // an unquoted label value
      '# TYPE a gauge\na one\n', // not a number
      '# TYPE a counter\na -1\n', // a counter below zero
      '# TYPE a gauge\na 1\na 2\n', // the same series twice
      '# TYPE a gauge\n# TYPE b gauge\nb 1\na 1\n', // a family not contiguous
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 3\nh_sum 1\nh_count 4\n', // +Inf ≠ _count
      '# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n', // not cumulative
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_sum 1\nh_count 2\n', // no +Inf bucket
    ];
    for (const text of bad) expect(() => parseExposition(text), text).toThrow();
  });
});

describe('GET /metrics', () => {
  it('is Prometheus text with every family named in docs/operations.md', async () => {
    const m = await scrape(nodes[0]);
    const types: Record<string, Family['type']> = {
      info: 'gauge',
      height: 'gauge',
      block_interval_seconds: 'histogram',
      block_rounds: 'histogram',
      transactions_total: 'counter',
      orders_total: 'counter',
      trades_total: 'counter',
      mempool_transactions: 'gauge',
      mempool_bytes: 'gauge',
      peers: 'gauge',
      actor_restarts_total: 'counter',
      actor_mailbox_dropped_total: 'counter',
      actor_mailbox_messages: 'gauge',
      api_request_duration_seconds: 'histogram',
      sync_head_height: 'gauge',
      sync_target_height: 'gauge',
      syncing: 'gauge',
    };
    for (const [name, type] of Object.entries(types)) {
      expect(m.get(P + name)?.type, P + name).toBe(type);
      expect(m.get(P + name)?.help, P + name).toBeTruthy();
    }
    // No bridge actor on this node: none of its families; the network's genesis names a bridge, so the chain's alert count (decision 154).
    expect(nodes[0].config.genesis.bridge).toBeDefined();
    expect([...m.keys()].filter((n) => n.startsWith(`${P}bridge_`))).toEqual([`${P}bridge_alerts`]);
    expect(value(m, `${P}bridge_alerts`)).toBe(0);
    // The operators' page names exactly these (and the bridge's).
    const page = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const section = page.slice(page.indexOf('## Metrics'), page.indexOf('\n## ', page.indexOf('## Metrics') + 1));
    const documented = new Set([...section.matchAll(/`(exchange_chain_[a-z_]+)/g)].map((x) => x[1]));
    expect([...documented].filter((n) => !n.startsWith(`${P}bridge_`)).sort()).toEqual([...m.keys()].filter((n) => !n.startsWith(`${P}bridge_`)).sort());
    expect(documented.has(`${P}bridge_alerts`)).toBe(true);
    expect(value(m, `${P}info`, { version: nodes[0].version, chain_id: String(nodes[0].config.genesis.chainId) })).toBe(1);
    for (const actor of ['chain', 'indexer', 'mempool', 'consensus', 'oracle', 'api']) {
      expect(value(m, `${P}actor_restarts_total`, { actor })).toBe(0);
      expect(value(m, `${P}actor_mailbox_dropped_total`, { actor })).toBe(0);
    }
    expect(value(m, `${P}peers`)).toBe(0);
    expect(value(m, `${P}syncing`)).toBe(0);
    expect(value(m, `${P}sync_target_height`)).toBeGreaterThanOrEqual(value(m, `${P}sync_head_height`));
    expect(value(m, `${P}mempool_transactions`)).toBeGreaterThanOrEqual(0);
  });

  it('the height moves while blocks are produced; intervals and rounds are observed per block', async () => {
    const first = await scrape(nodes[0]);
    const h0 = value(first, `${P}height`);
    const later = await waitFor(async () => {
      const m = await scrape(nodes[0]);
      return value(m, `${P}height`) >= h0 + 3 ? m : undefined;
    }, 10_000, 'the height metric to move');
    const h1 = value(later, `${P}height`);
    expect(h1).toBeLessThanOrEqual(nodes[0].chain().height);
    expect(value(later, `${P}sync_head_height`)).toBeGreaterThanOrEqual(h1);
    const intervals = value(later, `${P}block_interval_seconds_count`);
    expect(intervals - value(first, `${P}block_interval_seconds_count`)).toBeGreaterThanOrEqual(3);
    // The solo producer decides every height in its first round.
    const rounds = value(later, `${P}block_rounds_count`);
    expect(rounds).toBeGreaterThan(intervals - 1);
    expect(value(later, `${P}block_rounds_bucket`, { le: '1' })).toBe(rounds);
    // Blocks of ~22 ms: the mean interval is within the buckets around it.
    expect(value(later, `${P}block_interval_seconds_sum`) / intervals).toBeLessThan(1);
  });

  it('an order placed counts in orders_total; a crossing pair in trades_total', async () => {
    const client = new ExchangeClient(nodes[0].apiAddress!, { chainId: nodes[0].config.genesis.chainId });
    const before = await scrape(nodes[0]);
    const orders0 = value(before, `${P}orders_total`);
    const trades0 = value(before, `${P}trades_total`);
    const ok0 = value(before, `${P}transactions_total`, { status: 'ok' }, true);
    const post0 = routeCounts(before, '/v1/order', 'POST');

    const ask = await client.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: '2000', amount: '1' });
    expect(ask.status).toBe('open');
    const afterAsk = await scrape(nodes[0]);
    expect(value(afterAsk, `${P}orders_total`)).toBe(orders0 + 1);
    expect(value(afterAsk, `${P}trades_total`)).toBe(trades0);
    // The oracle's observations are transactions too: at least the order's.
    expect(value(afterAsk, `${P}transactions_total`, { status: 'ok' })).toBeGreaterThanOrEqual(ok0 + 1);

    const bid = await client.placeOrder(bob, { symbol: 'ETH', side: 'buy', type: 'limit', price: '2000', amount: '0.5' });
    expect(bid.status).toBe('filled');
    const afterBid = await scrape(nodes[0]);
    expect(value(afterBid, `${P}orders_total`)).toBe(orders0 + 2);
    expect(value(afterBid, `${P}trades_total`)).toBe(trades0 + 1);

    // The route that took them, by its pattern: these two, both 2xx, and no other status class.
    expect(routeCounts(afterBid, '/v1/order', 'POST')).toEqual({ ...post0, '2xx': (post0['2xx'] ?? 0) + 2 });
  });

  it('API latency has a series per route pattern, method and status class; never a raw URL', async () => {
    const node = nodes[0];
    const blockOk = { route: '/block/:height', method: 'GET', status_class: '2xx' };
    const unmatched = { route: 'unmatched', method: 'GET', status_class: '4xx' };
    const before = await scrape(node);
    expect((await fetch(`${node.apiAddress}/block/1`)).status).toBe(200);
    expect((await fetch(`${node.apiAddress}/block/2`)).status).toBe(200);
    expect((await fetch(`${node.apiAddress}/no/such/route`)).status).toBe(404);
    const m = await scrape(node);
    // Counted from what this test asked (another test may have asked the same routes before).
    expect(value(m, `${P}api_request_duration_seconds_count`, blockOk)).toBe(value(before, `${P}api_request_duration_seconds_count`, blockOk, true) + 2);
    expect(value(m, `${P}api_request_duration_seconds_count`, unmatched)).toBe(value(before, `${P}api_request_duration_seconds_count`, unmatched, true) + 1);
    const routes = new Set(m.get(`${P}api_request_duration_seconds`)!.samples.map((s) => s.labels.route));
    expect(routes.has('/block/1')).toBe(false);
    expect(routes.has('/no/such/route')).toBe(false);
    const sum = value(m, `${P}api_request_duration_seconds_sum`, blockOk) - value(before, `${P}api_request_duration_seconds_sum`, blockOk, true);
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(10);
  });

  it('two nodes in one process keep their own numbers', async () => {
    const [a, b] = nodes;
    expect(a.metrics.registry).not.toBe(b.metrics.registry);
    // Orders placed on the first node only, and a block read from it only: here, a crossing pair that leaves nothing resting.
    const client = new ExchangeClient(a.apiAddress!, { chainId: a.config.genesis.chainId });
    await client.placeOrder(alice, { symbol: 'ETH', side: 'sell', type: 'limit', price: '2000', amount: '0.5' });
    await client.placeOrder(bob, { symbol: 'ETH', side: 'buy', type: 'limit', price: '2000', amount: '0.5' });
    expect((await fetch(`${a.apiAddress}/block/1`)).status).toBe(200);
    const ma = await scrape(a);
    const mb = await scrape(b);
    // The orders were placed on the first node only; the routes called on it only.
    expect(value(ma, `${P}orders_total`)).toBeGreaterThanOrEqual(2);
    expect(value(ma, `${P}trades_total`)).toBeGreaterThanOrEqual(1);
    const aRoutes = new Set(ma.get(`${P}api_request_duration_seconds`)!.samples.map((s) => s.labels.route));
    expect(aRoutes.has('/block/:height')).toBe(true);
    expect(aRoutes.has('/v1/order')).toBe(true);
    expect(value(mb, `${P}orders_total`)).toBe(0);
    expect(value(mb, `${P}trades_total`)).toBe(0);
    const bRoutes = new Set(mb.get(`${P}api_request_duration_seconds`)!.samples.map((s) => s.labels.route));
    expect(bRoutes.has('/block/:height')).toBe(false);
    expect(bRoutes.has('/v1/order')).toBe(false);
    // Each height is its own chain's.
    expect(value(mb, `${P}height`)).toBeGreaterThan(0);
    expect(value(mb, `${P}height`)).toBeLessThanOrEqual(b.chain().height);
  });
});

describe("the bridge actor's counters", () => {
  it('read from its stats at each scrape, on a node that runs one', async () => {
    // The registry over the same stats object the bridge actor updates in place (src/node/node.ts wires the node's own).
    let alerts = 0;
    const stats = newBridgeStats({ chainId: 31337, rpcUrl: 'http://127.0.0.1:1', bridge: `0x${'11'.repeat(20)}`, usdc: `0x${'22'.repeat(20)}`, deployBlock: 5 });
    const metrics = new NodeMetrics(
      { height: () => 7, mempool: () => undefined, peers: () => 0, actors: () => ({}), sync: () => undefined, bridge: () => stats, bridgeAlerts: () => alerts },
      { version: 'test', chainId: 1, network: 'devnet' },
    );
    const scrapeText = async () => parseExposition((await metrics.text()).text);
    let m = await scrapeText();
    expect(value(m, `${P}bridge_polls_total`, { result: 'ok' })).toBe(0);
    expect(value(m, `${P}bridge_external_ok`)).toBe(0);
    stats.external = 'ok';
    stats.active = true;
    stats.polls = 12;
    stats.pollFailures = 2;
    stats.watcher.confirmedBlock = '40';
    stats.watcher.attestationsSubmitted = 3;
    stats.watcher.claimsPending = 1;
    stats.relayer.queued = 2;
    stats.relayer.executed = 1;
    stats.relayer.inFlight = 1;
    stats.watcher.alertsDetected = 1;
    stats.watcher.pausesSent = 1;
    stats.watcher.finalizedBlock = '41';
    alerts = 2;
    m = await scrapeText();
    expect(value(m, `${P}bridge_polls_total`, { result: 'ok' })).toBe(12);
    expect(value(m, `${P}bridge_polls_total`, { result: 'failed' })).toBe(2);
    expect(value(m, `${P}bridge_active`)).toBe(1);
    expect(value(m, `${P}bridge_external_ok`)).toBe(1);
    expect(value(m, `${P}bridge_watcher_confirmed_block`)).toBe(40);
    expect(value(m, `${P}bridge_watcher_attestations_total`, { result: 'submitted' })).toBe(3);
    expect(value(m, `${P}bridge_watcher_claims_pending`)).toBe(1);
    expect(value(m, `${P}bridge_relayer_external_txs_total`, { call: 'queue' })).toBe(2);
    expect(value(m, `${P}bridge_relayer_external_txs_total`, { call: 'execute' })).toBe(1);
    expect(value(m, `${P}bridge_relayer_in_flight`)).toBe(1);
    expect(m.get(`${P}bridge_relayer_send_failures_total`)?.type).toBe('counter');
    expect(value(m, `${P}bridge_watcher_alerts_total`)).toBe(1);
    expect(value(m, `${P}bridge_watcher_pauses_total`, { result: 'sent' })).toBe(1);
    expect(value(m, `${P}bridge_watcher_finalized_block`)).toBe(41);
    expect(value(m, `${P}bridge_alerts`)).toBe(2);
    const page = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    const bridgeFamilies = [...m.keys()].filter((n) => n.startsWith(`${P}bridge_`));
    expect(bridgeFamilies).toHaveLength(16);
    for (const name of bridgeFamilies) expect(page, `${name} documented`).toContain(`\`${name}`);
    // Scraping twice does not add: each scrape reads the actor's own totals.
    m = await scrapeText();
    expect(value(m, `${P}bridge_polls_total`, { result: 'ok' })).toBe(12);
  });
});
