/**
 * Exchange REST market data and account reads (contract [C-market-*], [C-account-*]). Book, balances and pairs come from the executed state; trades, candles,
 * fills, orders history, leaderboard and stats from the indexer.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { IndexReader, NodeApi } from '../node-api';
import { CANDLE_INTERVAL_NAMES, isCandleInterval } from '../../indexer/candles';
import { AGENTS_LIMIT_MAX, type AgentItem } from '../../indexer/indexer';
import { AGENT_MODES, AGENT_MODE_WIRE } from '../../../machines/agent-mode';
import { agentCapsOf, hasAgentSettings } from '../../state/agents';
import { activeSession } from '../../state/sessions';
import { hasSpot, marketNames, oracleSourceOf } from '../../state/pair-markets';
import { agentCapsObject } from './sessions';
import type { Address } from '../../util/bytes';
import type { PairParams } from '../../genesis/types';
import { toAddress } from '../../util/bytes';
import { ApiError, errorSchema, ok } from '../envelope';
import { INDEX_MAX_LAG_BLOCKS } from '../limits';
import { address, checkNetwork, price6, size18, usdc } from '../common';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const networkQuery = { network: { type: 'string', maxLength: 16 } } as const;

function limitQuery(max: number, dflt: number) {
  return { type: 'integer', minimum: 1, maximum: max, default: dflt } as const;
}

export const marketRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;
  const limits = genesis.limits;

  /**
   * The index with every block final before this read (read-your-writes; bounded wait),
   * if it is (nearly) level with the chain; 503 while it rebuilds or lags.
   */
  const index = async (): Promise<IndexReader> => {
    const ix = await node.indexAt();
    const behind = ix ? node.chain().height - ix.indexedHeight() : Infinity;
    if (behind > INDEX_MAX_LAG_BLOCKS) {
      throw new ApiError(503, 'NOT_SYNCED', `the index is ${ix ? `${behind} blocks behind the chain` : 'starting'}; retry shortly`);
    }
    return ix!;
  };
  const pairBySymbol = (symbol: string): PairParams => {
    const id = state().symbolToPair.get(symbol.toUpperCase());
    if (id === undefined) throw new ApiError(404, 'UNKNOWN_PAIR', `symbol: no pair ${symbol}`);
    return state().pairs.get(String(id))!;
  };
  const pairsSorted = () => [...state().pairs.entries()].map(([, p]) => p).sort((a, b) => a.id - b.id);
  const midPrice = (pairId: number): bigint | null => {
    const book = state().book(pairId);
    const bid = book.bestBid();
    const ask = book.bestAsk();
    return bid !== null && ask !== null ? (bid + ask) / 2n : (bid ?? ask);
  };
  /** Last trade, else the book's mid, else the pair's reference price. */
  const lastPrice = async (p: PairParams): Promise<string> => {
    const [last] = await (await index()).trades(p.symbol, 1);
    if (last) return last.price;
    return price6(midPrice(p.id) ?? p.initialPrice);
  };
  /**
   * A registered agent (decision 16): the owner set caps or a mode, or an order
   * signed by its session key was placed. The second half comes from the index; while
   * the index is starting, only the first is known.
   */
  const isRegisteredAgent = async (a: Address): Promise<boolean> => {
    if (hasAgentSettings(state(), a)) return true;
    const ix = await node.indexAt();
    return ix ? (await ix.agent(a)) !== undefined : false;
  };
  const agentItem = (a: Address, traded: AgentItem | undefined) => {
    const caps = agentCapsOf(state(), a);
    return {
      address: a,
      mode: AGENT_MODE_WIRE[AGENT_MODES[caps.mode]],
      capsSet: caps.capsSet,
      sessionActive: activeSession(state(), a, state().head().timestampMs) !== undefined,
      trades: traded?.trades ?? 0,
      volume: traded?.volume ?? '0',
      firstSeen: traded?.firstSeen ?? null,
    };
  };
  const priceItem = async (p: PairParams) => ({ symbol: p.symbol, pair: `${p.symbol}/USDC`, pairId: p.id, price: await lastPrice(p) });

  app.get<{ Params: { symbol: string } }>('/v1/price/:symbol', {
    schema: { response: errors },
    handler: async (req) => ({ success: true, ...(await priceItem(pairBySymbol(req.params.symbol))), timestamp: Date.now() }),
  });

  let priceAllCache: { at: number; data: unknown } | undefined;
  app.get('/v1/price/all', {
    schema: { response: errors },
    handler: async () => {
      const now = Date.now();
      if (!priceAllCache || now - priceAllCache.at >= limits.priceAllCacheMs) {
        priceAllCache = { at: now, data: await Promise.all(pairsSorted().map(priceItem)) };
      }
      return ok(priceAllCache.data);
    },
  });

  app.get<{ Params: { symbol: string }; Querystring: { interval: string; limit: number } }>('/v1/candles/:symbol', {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { interval: { type: 'string', enum: CANDLE_INTERVAL_NAMES, default: '1m' }, limit: limitQuery(limits.maxCandles, 100), ...networkQuery },
      },
      response: errors,
    },
    handler: async (req) => {
      const p = pairBySymbol(req.params.symbol);
      const { interval, limit } = req.query;
      if (!isCandleInterval(interval)) throw new ApiError(400, 'INVALID_INTERVAL', `interval: one of ${CANDLE_INTERVAL_NAMES.join(', ')}`);
      const data = await (await index()).candles(p.symbol, interval, limit);
      return { success: true, data, symbol: p.symbol, interval, count: data.length, timestamp: Date.now() };
    },
  });

  app.get<{ Params: { symbol: string }; Querystring: { limit: number; network?: string } }>('/v1/trades/:symbol', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(limits.maxTrades, 50), ...networkQuery } }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const p = pairBySymbol(req.params.symbol);
      return ok(await (await index()).trades(p.symbol, req.query.limit));
    },
  });

  app.get<{ Params: { symbol: string }; Querystring: { depth: number; network?: string } }>('/v1/orderbook/:symbol', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { depth: limitQuery(limits.maxDepth, 20), ...networkQuery } }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const p = pairBySymbol(req.params.symbol);
      const { bids, asks } = state().book(p.id).topOrders(req.query.depth);
      const level = (o: { id: bigint; price: bigint; remaining: bigint; isAgent: boolean }) => ({ id: String(o.id), price: price6(o.price), amount: size18(o.remaining), isAgent: o.isAgent });
      const mid = midPrice(p.id);
      return ok({ symbol: p.symbol, midPrice: mid === null ? '0' : price6(mid), bids: bids.map(level), asks: asks.map(level) });
    },
  });

  // The spot listing: the pairs with a spot book (a perp-only pair is listed by /api/pairs/perps; decision 76).
  app.get('/v1/pairs', async () =>
    ok(
      pairsSorted()
        .filter(hasSpot)
        .map((p) => ({
          pairId: p.id, symbol: p.symbol, pair: `${p.symbol}/USDC`, tickSize: price6(p.tickSize), lotSize: size18(p.lotSize), minSize: size18(p.minSize), maxLeverage: p.maxLeverage,
          markets: marketNames(p), oracleSource: oracleSourceOf(p),
        })),
    ),
  );

  app.get('/v1/stats', async () => {
    const s = await (await index()).stats();
    return ok({ totalPairs: state().pairs.size, totalOrders: s.totalOrders, tvl: usdc(state().supply().usdc), agentTrades: s.agentTrades, humanTrades: s.humanTrades, totalTrades: s.totalTrades, volume: s.volumeUsdc });
  });

  app.get<{ Querystring: { type: 'agents' | 'all'; limit: number; network?: string } }>('/v1/leaderboard', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { type: { type: 'string', enum: ['agents', 'all'], default: 'all' }, limit: limitQuery(500, 100), ...networkQuery } }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      return ok((await (await index()).leaderboard(req.query.type, req.query.limit)).map((item, i) => ({ rank: i + 1, ...item })));
    },
  });

  app.get<{ Params: { address: string }; Querystring: { network?: string } }>('/v1/account/:address', {
    schema: { params: { type: 'object', properties: { address } }, querystring: { type: 'object', additionalProperties: false, properties: networkQuery }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const a = state().account(toAddress(req.params.address));
      return ok({
        address: req.params.address.toLowerCase(),
        freeBalance: usdc(a.usdcFree),
        lockedBalance: usdc(a.usdcLocked),
        inPositions: usdc(a.usdcInPositions),
        totalBalance: usdc(a.usdcFree + a.usdcLocked + a.usdcInPositions),
        isAgent: await isRegisteredAgent(toAddress(req.params.address)),
      });
    },
  });

  app.get<{ Querystring: { limit: number; network?: string } }>('/v1/agents', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(AGENTS_LIMIT_MAX, 100), ...networkQuery } }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const traded = await (await index()).agents(AGENTS_LIMIT_MAX);
      const seen = new Set(traded.map((t) => t.address));
      // Then the accounts that set caps or a mode but never traded through a session key.
      const configured = [...state().agents.entries()].map(([a]) => a as Address).filter((a) => !seen.has(a)).sort();
      const items = [...traded.map((t) => agentItem(t.address as Address, t)), ...configured.map((a) => agentItem(a, undefined))];
      return ok(items.slice(0, req.query.limit));
    },
  });

  app.get<{ Params: { address: string }; Querystring: { network?: string } }>('/v1/agents/:address', {
    schema: { params: { type: 'object', properties: { address } }, querystring: { type: 'object', additionalProperties: false, properties: networkQuery }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const a = toAddress(req.params.address);
      const traded = await (await index()).agent(a);
      const registered = traded !== undefined || hasAgentSettings(state(), a);
      return ok({ ...agentItem(a, traded), isAgent: registered, caps: agentCapsObject(state(), a) });
    },
  });

  app.get<{ Params: { address: string }; Querystring: { network?: string; limit: number } }>('/v1/orders/:address', {
    schema: { params: { type: 'object', properties: { address } }, querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(limits.maxOrdersListed, limits.maxOrdersListed), ...networkQuery } }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      return ok(await (await index()).orders(req.params.address.toLowerCase(), req.query.limit));
    },
  });

  app.get<{ Params: { address: string }; Querystring: { network?: string; limit: number } }>('/v1/fills/:address', {
    schema: { params: { type: 'object', properties: { address } }, querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(200, 50), ...networkQuery } }, response: errors },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      return ok(await (await index()).fills(req.params.address.toLowerCase(), req.query.limit));
    },
  });

  app.get<{ Params: { orderId: string } }>('/v1/order/:orderId', {
    schema: { params: { type: 'object', properties: { orderId: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } } }, response: errors },
    handler: async (req) => {
      const item = await (await index()).order(req.params.orderId);
      if (!item) throw new ApiError(404, 'UNKNOWN_ORDER', `orderId: no order ${req.params.orderId}`);
      return ok(item);
    },
  });
};
