/**
 * The node's Prometheus metrics (issue 23 item 4), served as text at GET /metrics
 * (src/api/routes/metrics.ts). One prom-client Registry per node, never the global
 * default: tests run several nodes in one process, and each shows only its own numbers.
 *
 * Most numbers are read at scrape time from the node's own counters (collect()
 * callbacks over MetricSources): the head, the mempool, peers, sync, each actor's
 * restarts and mailbox drops, the bridge actor's counters. Three are observed as blocks
 * commit, because nothing keeps them otherwise: the interval between consecutive
 * blocks' timestamps, the rounds a height took, and the transactions, orders and trades
 * the block executed (blockCommitted, called by the chain actor once per block). API
 * latency is observed by the API actor's fastify hook (apiRequest), labelled by the
 * route's pattern, never the raw URL, so the series stay bounded.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ActorStats } from '../../actors/actor';
import type { BridgeStats } from '../../actors/bridge/messages';
import type { Block, Commit } from '../codec/block';
import type { BlockResult } from '../state/apply';

/** Prometheus text exposition format 0.0.4, what GET /metrics is served as. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Every metric's name starts with this. */
export const METRIC_PREFIX = 'exchange_chain_';

/** Seconds between consecutive blocks: devnet aims at ~1/45 s; a slow round or a stall shows in the upper buckets. */
export const BLOCK_INTERVAL_BUCKETS_S = [0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2, 5, 10];
/** Rounds a height took to commit (1: decided in its first round). */
export const ROUNDS_BUCKETS = [1, 2, 3, 4, 5, 8, 13];
/** Seconds from a request's arrival to its answer; a write waits for finality (a block or two). */
export const API_LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The `route` label of a request no route matched (404s): one series for all of them. */
export const UNMATCHED_ROUTE = 'unmatched';

/** What the metrics read of the node at scrape time. */
export interface MetricSources {
  /** The executed head; undefined while the chain is not open. */
  height(): number | undefined;
  /** The pool's pending transactions and their encoded bytes; undefined before the mempool started. */
  mempool(): { txs: number; bytes: number } | undefined;
  /** Connected p2p peers (0 without p2p). */
  peers(): number;
  /** Each actor's counters, by name. */
  actors(): Record<string, ActorStats>;
  /** Block sync: catching up or not, and the highest head peers have shown (the head itself without BFT consensus). */
  sync(): { syncing: boolean; target: number } | undefined;
  /** The bridge actor's counters; undefined on a node that runs none. */
  bridge(): BridgeStats | undefined;
  /** The bridge alerts recorded in chain state (decision 154); undefined while the chain is not open. Given only on a network with a bridge (no gauge without). */
  bridgeAlerts?(): number | undefined;
}

export class NodeMetrics {
  readonly registry = new Registry();
  private lastBlockTimestampMs: number | undefined;
  private readonly blockInterval: Histogram;
  private readonly rounds: Histogram;
  private readonly txs: Counter<'status'>;
  private readonly orders: Counter;
  private readonly trades: Counter;
  private readonly apiLatency: Histogram<'route' | 'method' | 'status_class'>;

  constructor(sources: MetricSources, info: { version: string; chainId: number; network: string }) {
    const registers = [this.registry];
    const name = (n: string) => METRIC_PREFIX + n;

    new Gauge({ name: name('info'), help: 'Always 1; the labels name the software version and the chain.', labelNames: ['version', 'chain_id', 'network'], registers }).set(
      { version: info.version, chain_id: String(info.chainId), network: info.network },
      1,
    );
    new Gauge({
      name: name('height'),
      help: 'Height of the last block executed.',
      registers,
      collect() {
        const h = sources.height();
        if (h !== undefined) this.set(h);
      },
    });

    this.blockInterval = new Histogram({ name: name('block_interval_seconds'), help: "Seconds between consecutive blocks' timestamps.", buckets: BLOCK_INTERVAL_BUCKETS_S, registers });
    this.rounds = new Histogram({ name: name('block_rounds'), help: 'Consensus rounds a height took to commit (1: its first round).', buckets: ROUNDS_BUCKETS, registers });
    this.txs = new Counter({ name: name('transactions_total'), help: 'Transactions executed in committed blocks, by receipt status (ok, failed).', labelNames: ['status'], registers });
    this.orders = new Counter({ name: name('orders_total'), help: 'Orders accepted by execution (OrderPlaced events of committed blocks).', registers });
    this.trades = new Counter({ name: name('trades_total'), help: 'Trades executed (TradeExecuted events of committed blocks).', registers });

    new Gauge({
      name: name('mempool_transactions'),
      help: 'Transactions waiting in the mempool.',
      registers,
      collect() {
        const m = sources.mempool();
        if (m) this.set(m.txs);
      },
    });
    new Gauge({
      name: name('mempool_bytes'),
      help: 'Encoded bytes of the transactions waiting in the mempool.',
      registers,
      collect() {
        const m = sources.mempool();
        if (m) this.set(m.bytes);
      },
    });
    new Gauge({
      name: name('peers'),
      help: 'Connected p2p peers.',
      registers,
      collect() {
        this.set(sources.peers());
      },
    });

    // Counters the actors keep themselves: read, not incremented, at each scrape.
    const actorCounter = (metric: string, help: string, read: (s: ActorStats) => number) =>
      new Counter({
        name: name(metric),
        help,
        labelNames: ['actor'],
        registers,
        collect() {
          this.reset();
          for (const [actor, s] of Object.entries(sources.actors())) this.inc({ actor }, read(s));
        },
      });
    actorCounter('actor_restarts_total', 'Restarts of each actor after a failure.', (s) => s.restarts);
    actorCounter('actor_mailbox_dropped_total', "Messages each actor's mailbox lost: refused or evicted when full, sent after stop.", (s) => s.dropped);
    new Gauge({
      name: name('actor_mailbox_messages'),
      help: "Messages waiting in each actor's mailbox.",
      labelNames: ['actor'],
      registers,
      collect() {
        this.reset();
        for (const [actor, s] of Object.entries(sources.actors())) this.set({ actor }, s.mailboxSize);
      },
    });

    new Gauge({
      name: name('sync_head_height'),
      help: 'Block sync: the head of this node.',
      registers,
      collect() {
        const h = sources.height();
        if (h !== undefined) this.set(h);
      },
    });
    new Gauge({
      name: name('sync_target_height'),
      help: 'Block sync: the highest head peers have shown (the head itself without BFT consensus).',
      registers,
      collect() {
        const s = sources.sync();
        if (s) this.set(s.target);
      },
    });
    new Gauge({
      name: name('syncing'),
      help: '1 while the node catches up by block sync, else 0.',
      registers,
      collect() {
        this.set(sources.sync()?.syncing ? 1 : 0);
      },
    });

    this.apiLatency = new Histogram({
      name: name('api_request_duration_seconds'),
      help: "Seconds from a REST request's arrival to its answer, by route pattern, method and status class.",
      labelNames: ['route', 'method', 'status_class'],
      buckets: API_LATENCY_BUCKETS_S,
      registers,
    });

    // Chain state, the same on every node of a network with a bridge, validator or not.
    if (sources.bridgeAlerts) {
      const read = sources.bridgeAlerts;
      new Gauge({
        name: name('bridge_alerts'),
        help: 'Bridge alerts recorded in chain state: a forged or altered withdrawal queued or paid, a set or owner change no chain decision explains (GET /reserves lists them).',
        registers,
        collect() {
          const n = read();
          if (n !== undefined) this.set(n);
        },
      });
    }

    // Only on a node that runs the bridge actor: a node without one shows none of these.
    if (sources.bridge()) bridgeMetrics(sources, name, registers);
  }

  /** A block committed: called once per block by the chain actor, in height order. */
  blockCommitted(block: Block, commit: Commit, result: BlockResult): void {
    const ts = block.header.timestampMs;
    if (this.lastBlockTimestampMs !== undefined) this.blockInterval.observe((ts - this.lastBlockTimestampMs) / 1000);
    this.lastBlockTimestampMs = ts;
    this.rounds.observe(commit.round + 1);
    let ok = 0;
    let failed = 0;
    let orders = 0;
    let trades = 0;
    for (const r of result.receipts) {
      if (r.status === 'ok') ok++;
      else failed++;
      for (const e of r.events) {
        if (e.type === 'OrderPlaced') orders++;
        else if (e.type === 'TradeExecuted') trades++;
      }
    }
    if (ok) this.txs.inc({ status: 'ok' }, ok);
    if (failed) this.txs.inc({ status: 'failed' }, failed);
    if (orders) this.orders.inc(orders);
    if (trades) this.trades.inc(trades);
  }

  /** A REST request answered: `route` is the matched route's pattern (undefined when none matched), never the raw URL. */
  apiRequest(route: string | undefined, method: string, statusCode: number, seconds: number): void {
    this.apiLatency.observe({ route: route ?? UNMATCHED_ROUTE, method, status_class: `${Math.floor(statusCode / 100)}xx` }, seconds);
  }

  /** The exposition text and its content type. */
  async text(): Promise<{ contentType: string; text: string }> {
    return { contentType: PROMETHEUS_CONTENT_TYPE, text: await this.registry.metrics() };
  }
}

/** The bridge actor's counters (docs/bridge.md), read at scrape time. */
function bridgeMetrics(sources: MetricSources, name: (n: string) => string, registers: Registry[]): void {
  const counter = (metric: string, help: string, read: (s: BridgeStats) => Record<string, number> | number, labelNames: string[] = []) =>
    new Counter({
      name: name(metric),
      help,
      labelNames,
      registers,
      collect() {
        const s = sources.bridge();
        if (!s) return;
        this.reset();
        const v = read(s);
        if (typeof v === 'number') this.inc(v);
        else for (const [label, n] of Object.entries(v)) this.inc({ [labelNames[0]]: label }, n);
      },
    });
  const gauge = (metric: string, help: string, read: (s: BridgeStats) => number) =>
    new Gauge({
      name: name(metric),
      help,
      registers,
      collect() {
        const s = sources.bridge();
        if (s) this.set(read(s));
      },
    });
  counter('bridge_polls_total', 'Polls of the external chain, by result (ok: every read answered; failed).', (s) => ({ ok: s.polls, failed: s.pollFailures }), ['result']);
  gauge('bridge_active', "1 while this node's key is in the active set (only then it attests, signs and relays).", (s) => (s.active ? 1 : 0));
  gauge('bridge_external_ok', '1 while the external chain answers as expected, 0 while starting, unreachable or refused.', (s) => (s.external === 'ok' ? 1 : 0));
  gauge('bridge_watcher_confirmed_block', 'The last external block with enough confirmations, as last read.', (s) => Number(s.watcher.confirmedBlock));
  counter('bridge_watcher_attestations_total', 'Attestation transactions offered to the mempool, by result (submitted, refused).', (s) => ({ submitted: s.watcher.attestationsSubmitted, refused: s.watcher.attestationsRefused }), ['result']);
  counter('bridge_watcher_claims_submitted_total', 'Claims carried by the attestations the mempool took.', (s) => s.watcher.claimsSubmitted);
  gauge('bridge_watcher_claims_pending', 'Claims seen on the external chain, not yet settled here nor voted by this validator.', (s) => s.watcher.claimsPending);
  counter('bridge_watcher_alerts_total', 'Alerts this watcher was sure of: a queue or payout that is not the chain\'s record, or of an id it never made.', (s) => s.watcher.alertsDetected);
  counter('bridge_watcher_pauses_total', "pause() transactions this validator's watcher sent on an alert, by result (sent, failed).", (s) => ({ sent: s.watcher.pausesSent, failed: s.watcher.pauseFailures }), ['result']);
  gauge('bridge_watcher_finalized_block', 'The external block confirmations count from (finalized, else safe, else the head), as last read.', (s) => Number(s.watcher.finalizedBlock));
  counter('bridge_watcher_expiries_total', 'Withdrawals found expired unpaid at a confirmed block (Void claims made).', (s) => s.watcher.expiriesDetected);
  counter('bridge_relayer_signature_txs_total', 'WithdrawalSignatures transactions offered to the mempool, by result (submitted, refused).', (s) => ({ submitted: s.relayer.signatureTxsSubmitted, refused: s.relayer.signatureTxsRefused }), ['result']);
  counter('bridge_relayer_external_txs_total', 'External transactions this validator sent that were mined successfully, by call (queue, execute).', (s) => ({ queue: s.relayer.queued, execute: s.relayer.executed }), ['call']);
  counter('bridge_relayer_send_failures_total', 'External sends that failed (reverted, timed out, unreachable).', (s) => s.relayer.sendFailures);
  gauge('bridge_relayer_in_flight', 'External sends waiting for their receipt.', (s) => s.relayer.inFlight);
}
