/**
 * The oracle concern (docs/oracle.md): on a validator, once per interval (default one
 * second) while its address is in the active set (execution refuses anyone else's
 * observation, and a key joins and leaves the set without a restart), sign an OracleObservation of the price source's prices for a whole second,
 * for every pair in state, and submit it to the mempool like any transaction.
 *
 * The second observed is the one `lagSeconds` (default 1) before the current one, and
 * the observation's timestamp is its start. The chain refuses an observation timestamped
 * after the including block, and the proposer's clock may lag this validator's by up to
 * the allowed drift (contract [D-time-proposer]: 1 s): observing the second just completed keeps
 * the observation valid on any proposer within that drift, at the cost of a one-second
 * older price (the median stays far inside the staleness bound). One observation per
 * second is strictly newer than the last. On a network without a price source (no
 * devnet path, no price sources file) the actor stays idle and says so once.
 *
 * Each pair names its oracle source (decision 76; src/state/pair-markets.ts). The one
 * named source this node implements is `devnet-path`, the price source above: a pair naming
 * another (an external feed id), unless the price sources below list its symbol, is left
 * out of the observations, and the actor says so once per pair. Execution takes an observation without that pair, so the pair has no
 * median from this validator; it gets one once validators holding more than 2/3 of the
 * power observe it, and until then perp opens and TP/SL on it wait as on a stale market.
 *
 * On any network, the operator's price sources (`--price-sources FILE`; decision 168;
 * src/oracle/feeds/) price the pairs whose symbols they list, whatever source the pair
 * names: each second the reader reads them all (each within its timeout), refuses stale
 * and outlying values and takes the median; a market left with too few sources is left
 * out of that second's observation. The devnet path prices the devnet's other pairs.
 *
 * Wall-clock time is fine here: this is the validator's own observation, not execution;
 * the chain judges it against the block's time.
 */
import { encodeTx, TxKind } from '../../src/codec/tx';
import { signObservation, type ObservedPrice } from '../../src/codec/txs/oracle';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { DevnetPriceSource, type DevnetPair } from '../../src/oracle/devnet-source';
import { FeedReader, newFeedStats, type FeedStats } from '../../src/oracle/feeds/reader';
import type { NodeConfig } from '../../src/config/node-config';
import type { State } from '../../src/state/state';
import { TxError } from '../../src/state/errors';
import { DEVNET_ORACLE_SOURCE, oracleSourceOf } from '../../src/state/pair-markets';
import { activeValidators } from '../../src/state/validators/set';
import { ActorError, type ActorBehavior, type ActorContext, type ActorRef } from '../actor';
import type { MempoolMsg } from '../mempool/messages';
import type { OracleMsg } from './messages';

/** What the oracle uses of the node (built by src/node/node.ts). */
export interface OracleDeps {
  /** Its key, and the network and pairs of genesis (the devnet's price source). */
  config: Pick<NodeConfig, 'validatorKey' | 'genesis' | 'priceSources'>;
  /** The executed state, read-only: the pairs, the active set, its last stored observation. */
  state: () => State;
  /** The mempool, which takes its observations like any transaction. */
  actors: { mempool: ActorRef<MempoolMsg> };
}

/** Where prices come from: a price ×1e6 for a pair during a whole Unix second. */
export interface PriceSource {
  price(pair: DevnetPair, unixSecond: number): bigint;
}

export interface OracleOptions {
  /** Time between observations; default 1000 ms. Shorter intervals still sign at most one per second. */
  intervalMs?: number;
  /** Default: the devnet source from genesis on a devnet, none elsewhere (the configured price sources come first). */
  source?: PriceSource;
  /** Observe the second this many seconds before the current one; default 1 (see above). */
  lagSeconds?: number;
  /** Wall clock in ms; default Date.now (tests may drive it). */
  now?: () => number;
  /** Where the price sources reader keeps its states (the node's, for /metrics); default a fresh one. */
  feedStats?: FeedStats;
}

/** Counters for status pages and tests. */
export interface OracleStats {
  submitted: number;
  refused: number;
  lastTimestampMs: number;
  lastError: string | undefined;
}

export const ORACLE_INTERVAL_MS_DEFAULT = 1_000;
export const ORACLE_LAG_SECONDS_DEFAULT = 1;
/** Past the second boundary, so the new second has begun on this clock. */
const TICK_OFFSET_MS = 5;

export function oracleBehavior(
  deps: OracleDeps,
  self: () => { send(m: OracleMsg): boolean },
  opts: OracleOptions = {},
  stats: OracleStats = { submitted: 0, refused: 0, lastTimestampMs: 0, lastError: undefined },
): ActorBehavior<OracleMsg> {
  const intervalMs = opts.intervalMs ?? ORACLE_INTERVAL_MS_DEFAULT;
  if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) throw new RangeError(`oracle interval ${intervalMs} ms`);
  const now = opts.now ?? Date.now;
  const lagSeconds = opts.lagSeconds ?? ORACLE_LAG_SECONDS_DEFAULT;
  if (!Number.isSafeInteger(lagSeconds) || lagSeconds < 0) throw new RangeError(`oracle lag ${lagSeconds} s`);
  let timer: NodeJS.Timeout | undefined;
  let signer: Secp256k1Signer | undefined;
  let source: PriceSource | undefined;
  let feeds: FeedReader | undefined;
  let lastCode: string | undefined;
  /** Whether the last tick found the key in the active set (logged when it changes). */
  let inSet: boolean | undefined;

  const schedule = () => {
    const wait = intervalMs - (now() % intervalMs) + TICK_OFFSET_MS;
    timer = setTimeout(() => self().send({ type: 'tick' }), wait);
  };

  /** Pairs already reported as naming a source this node does not implement (said once each). */
  const unsupported = new Set<number>();
  let fedSymbols = new Set<string>();

  /** The observation's prices, ascending by pair id: the pairs whose oracle source this node implements. */
  const pricesAt = (second: number, fed: Map<string, bigint> | undefined, log: ActorContext['log']): ObservedPrice[] => {
    const state = deps.state();
    const out: ObservedPrice[] = [];
    for (const p of state.pairs
      .sortedKeys()
      .map((k) => state.pairs.get(k)!)
      .sort((a, b) => a.id - b.id)) {
      if (feeds && fedSymbols.has(p.symbol)) {
        // The reader said it once already if the market has no price this second.
        const price = fed?.get(p.symbol);
        if (price !== undefined) out.push({ pairId: p.id, price });
        continue;
      }
      const named = oracleSourceOf(p);
      if (named !== DEVNET_ORACLE_SOURCE || !source) {
        if (!unsupported.has(p.id))
          log.warn(
            { pairId: p.id, symbol: p.symbol, oracleSource: named },
            named !== DEVNET_ORACLE_SOURCE
              ? `oracle: no implementation of the oracle source ${named} and no price source configured for ${p.symbol}; pair ${p.symbol} is left out of this validator's observations`
              : `oracle: no price source configured for ${p.symbol} (--price-sources); pair ${p.symbol} is left out of this validator's observations`,
          );
        unsupported.add(p.id);
        continue;
      }
      out.push({ pairId: p.id, price: source.price(p, second) });
    }
    return out;
  };

  return {
    start(ctx) {
      const { config } = deps;
      const key = config.validatorKey;
      if (!key) {
        ctx.log.warn('oracle: this node has no validator key; it signs no observations');
        return;
      }
      source = opts.source ?? (config.genesis.network === 'devnet' ? DevnetPriceSource.fromGenesis(config.genesis) : undefined);
      if (config.priceSources) {
        feeds = new FeedReader(config.priceSources, opts.feedStats ?? newFeedStats(), { now });
        fedSymbols = new Set(feeds.symbols);
        ctx.log.info({ markets: feeds.symbols }, `oracle: reading the configured price sources of ${feeds.symbols.length} markets`);
      }
      if (!source && !feeds) {
        ctx.log.warn({ network: config.genesis.network }, 'oracle: no price source for this network (give the node --price-sources FILE, docs/operations.md); it signs no observations');
        return;
      }
      signer = new Secp256k1Signer(key);
      // After a restart: never sign a timestamp the chain already holds for us.
      const stored = deps.state().oracleObservations.get(signer.address);
      stats.lastTimestampMs = Math.max(stats.lastTimestampMs, stored?.timestampMs ?? 0);
      schedule();
    },
    async handle(msg, ctx) {
      if (msg.type !== 'tick' || !signer) return;
      try {
        const active = activeValidators(deps.state()).byAddress.has(signer.address);
        if (active !== inSet) ctx.log.info({ validator: signer.address, active }, active ? 'oracle: in the active set, signing observations' : 'oracle: not in the active set, signing no observations');
        inSet = active;
        if (!active) return;
        const second = Math.floor(now() / 1000) - lagSeconds;
        const timestampMs = second * 1000;
        if (timestampMs <= stats.lastTimestampMs) return;
        const fed = feeds ? await feeds.read(ctx.log) : undefined;
        const prices = pricesAt(second, fed, ctx.log);
        if (prices.length === 0) return;
        const chainId = deps.config.genesis.chainId;
        const body = signObservation(chainId, { validator: signer.address, timestampMs, prices }, signer);
        const tx = encodeTx(chainId, TxKind.OracleObservation, body);
        stats.lastTimestampMs = timestampMs;
        try {
          await deps.actors.mempool.ask((reply) => ({ type: 'submit', tx, signer: signer!.address, reply }));
          stats.submitted++;
          lastCode = undefined;
        } catch (err) {
          // Refused (TxError) or not delivered (ActorError: mempool full, restarting): the next second tries again.
          const code = err instanceof TxError || err instanceof ActorError ? err.code : 'ERROR';
          stats.refused++;
          stats.lastError = `${code}: ${(err as Error).message}`;
          // Once per kind of refusal at warn (a validator voted out would otherwise log every second).
          if (code !== lastCode) ctx.log.warn({ code, err: (err as Error).message }, 'oracle: observation refused');
          lastCode = code;
        }
      } finally {
        schedule();
      }
    },
    stop() {
      clearTimeout(timer);
    },
  };
}
