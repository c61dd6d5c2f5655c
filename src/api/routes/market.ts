/**
 * Exchange REST market data and account reads (contract [C-market-*], [C-account-*]). Book, balances and pairs come from the executed state; trades, candles,
 * fills, orders history, leaderboard and stats from the indexer.
 */
import { refusePrunedTime } from '../pruned';
import type { RetainedKind } from '../../indexer/retention';
import { subAccountMaster } from '../../state/accounts/subaccounts';
import type { FastifyPluginAsync } from 'fastify';
import type { IndexReader, NodeApi } from '../node-api';
import { CANDLE_INTERVAL_NAMES, isCandleInterval } from '../../indexer/candles';
import { AGENTS_LIMIT_MAX, CANDLES_LIMIT_MAX, checkPageQuery, CURSOR_MAX_CHARS, CursorKind, FILLS_LIMIT_MAX, ORDERS_LIMIT_MAX, PageQueryError, TRADES_LIMIT_MAX, type AgentItem, type PageQuery } from '../../indexer/indexer';
import { AGENT_MODES, AGENT_MODE_WIRE } from '../../../machines/agent-mode';
import { agentCapsOf, hasAgentSettings } from '../../state/accounts/agents';
import { activeSession } from '../../state/accounts/sessions';
import { hasSpot, marketNames, oracleSourceOf } from '../../state/pair-markets';
import { agentCapsExample, agentCapsObject, agentCapsSchema } from './sessions';
import type { Address } from '../../util/bytes';
import type { PairParams } from '../../genesis/types';
import { toAddress } from '../../util/bytes';
import { ApiError, errorSchema, ok } from '../envelope';
import { INDEX_MAX_LAG_BLOCKS } from '../limits';
import { address, checkNetwork, price6, size18, usdc } from '../common';
import { addr, arr, bool, dec, envelope, EX, hex, int, nullable, obj, pagedEnvelope, reply, str } from '../schemas';

const errors = { '4xx': errorSchema, '5xx': errorSchema };
const symbolParam = { type: 'object', properties: { symbol: { type: 'string', description: 'The pair\u2019s base symbol, case-insensitive (404 UNKNOWN_PAIR if none).', examples: ['BTC'] } } } as const;
const side = { type: 'string', enum: ['buy', 'sell'] } as const;
const cloidSchema = { type: 'string', pattern: '^0x[0-9a-f]{32}$', description: 'The client order id given at placement; absent when none.' };

const priceItemSchema = { symbol: str(), pair: str('SYMBOL/USDC.'), pairId: int(), price: dec('Last trade, else the book\u2019s mid, else the reference price.') };
const priceExample = { symbol: 'BTC', pair: 'BTC/USDC', pairId: 1, price: '65000' };
const tradeSchema = obj({ symbol: str(), price: dec(), amount: dec(), buyer: addr(), seller: addr(), buyerIsAgent: bool(), txHash: hex(), time: int('Block time, ms.'), takerSide: side });
const candleSchema = obj({ time: int('Bucket start, Unix seconds.'), open: dec(), high: dec(), low: dec(), close: dec(), volume: dec('Base-asset volume.') });
const levelSchema = obj({ id: dec(), price: dec(), amount: dec(), isAgent: bool() });
const orderItemSchema = obj({
  orderId: dec(), symbol: str(), pairId: int(), side, type: { type: 'string', enum: ['limit', 'market'] }, price: dec(), amount: dec(), filled: dec(), remaining: dec(),
  status: { type: 'string', enum: ['open', 'partial', 'filled', 'cancelled', 'rejected'] }, isAgent: bool(), leverage: int(), avgPrice: nullable(dec()),
  reason: str('Why the engine ended the order, when it said.'), txHash: hex(), time: int(), updatedTime: int(), cloid: cloidSchema,
}, ['reason', 'cloid']);
const orderExample = { orderId: '42', symbol: 'BTC', pairId: 1, side: 'buy', type: 'limit', price: '65000', amount: '0.01', filled: '0', remaining: '0.01', status: 'open', isAgent: false, leverage: 1, avgPrice: null, txHash: EX.hash, time: EX.timestampMs, updatedTime: EX.timestampMs };
const fillSchema = obj({ symbol: str(), side, price: dec(), amount: dec(), usdcSettled: dec(), txHash: hex(), time: int(), orderId: dec(), fee: dec(), cloid: cloidSchema }, ['cloid']);
const agentItemSchema = { address: addr(), mode: str(), capsSet: bool(), sessionActive: bool(), trades: int(), volume: dec(), firstSeen: nullable(int()) };
const agentExample = { address: EX.address, mode: 'ACTIVE', capsSet: true, sessionActive: true, trades: 3, volume: '1950', firstSeen: EX.timestampMs };
const pairListingSchema = obj({ pairId: int(), symbol: str(), pair: str(), tickSize: dec(), lotSize: dec(), minSize: dec(), maxLeverage: int(), markets: arr(str()), oracleSource: str() });
const networkQuery = { network: { type: 'string', maxLength: 16 } } as const;
/** The querystring of a route whose only parameter is `network` (checked, decision 100). */
const networkOnly = { type: 'object', additionalProperties: false, properties: networkQuery } as const;
type NetworkQs = { Querystring: { network?: string } };

function limitQuery(max: number, dflt: number) {
  return { type: 'integer', minimum: 1, maximum: max, default: dflt } as const;
}

/** The paging parameters of the histories (decision 95); any of them makes the request a page. */
const pageParams = {
  startTime: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Oldest block time included, Unix ms.' },
  endTime: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Newest block time included, Unix ms.' },
  cursor: { type: 'string', minLength: 1, maxLength: CURSOR_MAX_CHARS, description: 'The `nextCursor` of the previous page, unchanged (repeat the other parameters with it).' },
} as const;

interface PageParams {
  startTime?: number;
  endTime?: number;
  cursor?: string;
  limit: number;
}

/**
 * The page a request asks for, checked (400 naming the parameter), or undefined when it
 * passes none of startTime, endTime, cursor: then it is answered as before paging existed.
 */
function pageOf(kind: CursorKind, q: PageParams, maxLimit: number): PageQuery | undefined {
  if (q.startTime === undefined && q.endTime === undefined && q.cursor === undefined) return undefined;
  const page: PageQuery = { limit: q.limit };
  if (q.startTime !== undefined) page.startTime = q.startTime;
  if (q.endTime !== undefined) page.endTime = q.endTime;
  if (q.cursor !== undefined) page.cursor = q.cursor;
  try {
    checkPageQuery(kind, page, maxLimit);
  } catch (err) {
    if (err instanceof PageQueryError) throw new ApiError(400, 'INVALID_REQUEST', err.message);
    throw err;
  }
  return page;
}

export const marketRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const { genesis } = node;
  const state = () => node.chain().state;
  const limits = genesis.limits;

  /**
   * The index with every block final before this read (read-your-writes; bounded wait),
   * if it is (nearly) level with the chain; 503 while it rebuilds or lags.
   */
  /** A page reaching back before what the index keeps answers 410 PRUNED (decision 135). */
  const refusePruned = (idx: IndexReader, kind: RetainedKind, startTime: number | undefined) => {
    const lowest = idx.lowestKept?.();
    if (lowest) refusePrunedTime(lowest, kind, startTime);
  };
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

  app.get<{ Params: { symbol: string } } & NetworkQs>('/v1/price/:symbol', {
    schema: {
      querystring: networkOnly,
      tags: ['market'],
      summary: 'A pair\u2019s last price',
      description: 'The item at the top level beside `success` and `timestamp` (no `data`).',
      params: symbolParam,
      response: { 200: reply(obj({ success: { type: 'boolean', const: true }, ...priceItemSchema, timestamp: int() }), { success: true, ...priceExample, timestamp: EX.timestampMs }), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      return { success: true, ...(await priceItem(pairBySymbol(req.params.symbol))), timestamp: Date.now() };
    },
  });

  let priceAllCache: { at: number; data: unknown } | undefined;
  app.get<NetworkQs>('/v1/price/all', {
    schema: {
      querystring: networkOnly,
      tags: ['market'],
      summary: 'Every pair\u2019s last price',
      description: 'By pair id; cached for the genesis `priceAllCacheMs`.',
      response: { 200: envelope(arr(obj(priceItemSchema)), [priceExample]), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const now = Date.now();
      if (!priceAllCache || now - priceAllCache.at >= limits.priceAllCacheMs) {
        priceAllCache = { at: now, data: await Promise.all(pairsSorted().map(priceItem)) };
      }
      return ok(priceAllCache.data);
    },
  });

  app.get<{ Params: { symbol: string }; Querystring: { interval: string; network?: string } & PageParams }>('/v1/candles/:symbol', {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { interval: { type: 'string', enum: CANDLE_INTERVAL_NAMES, default: '1m' }, limit: limitQuery(limits.maxCandles, 100), ...pageParams, ...networkQuery },
      },
      tags: ['market'],
      summary: 'OHLCV candles',
      description:
        'Newest buckets of `interval`, from the index. `data` and beside it `symbol`, `interval`, `count`. With `startTime`/`endTime` (Unix ms, on the bucket start) or `cursor`: a page, the newest `limit` buckets of the range (oldest first), and `nextCursor` for the older ones (null at the end).',
      params: symbolParam,
      response: {
        200: reply(obj({ success: { type: 'boolean', const: true }, data: arr(candleSchema), symbol: str(), interval: str(), count: int(), nextCursor: nullable(str('Only on paged requests: the next (older) page\u2019s cursor, null at the end.')), timestamp: int() }, ['nextCursor']), {
          success: true, data: [{ time: 1767225600, open: '65000', high: '65100', low: '64950', close: '65050', volume: '0.5' }], symbol: 'BTC', interval: '1m', count: 1, timestamp: EX.timestampMs,
        }),
        ...errors,
      },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const p = pairBySymbol(req.params.symbol);
      const { interval, limit } = req.query;
      if (!isCandleInterval(interval)) throw new ApiError(400, 'INVALID_INTERVAL', `interval: one of ${CANDLE_INTERVAL_NAMES.join(', ')}`);
      const page = pageOf(CursorKind.Candles, req.query, Math.min(limits.maxCandles, CANDLES_LIMIT_MAX));
      if (page) {
        const idx = await index();
        refusePruned(idx, 'candles', page.startTime);
        const { items, nextCursor } = await idx.candlesPage(p.symbol, interval, page);
        return { success: true, data: items, symbol: p.symbol, interval, count: items.length, nextCursor, timestamp: Date.now() };
      }
      const data = await (await index()).candles(p.symbol, interval, limit);
      return { success: true, data, symbol: p.symbol, interval, count: data.length, timestamp: Date.now() };
    },
  });

  app.get<{ Params: { symbol: string }; Querystring: PageParams & { network?: string } }>('/v1/trades/:symbol', {
    schema: {
      tags: ['market'],
      summary: 'Recent trades of a pair',
      description: 'Newest first, from the index. With `startTime`, `endTime` (block time, Unix ms, inclusive) or `cursor`: a page of at most `limit`, and `nextCursor` for the older rest (null at the end).',
      params: symbolParam,
      querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(limits.maxTrades, 50), ...pageParams, ...networkQuery } },
      response: { 200: pagedEnvelope(arr(tradeSchema), [{ symbol: 'BTC', price: '65000', amount: '0.01', buyer: EX.address, seller: EX.sessionKey, buyerIsAgent: false, txHash: EX.hash, time: EX.timestampMs, takerSide: 'buy' }]), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const p = pairBySymbol(req.params.symbol);
      const page = pageOf(CursorKind.Trades, req.query, Math.min(limits.maxTrades, TRADES_LIMIT_MAX));
      if (page) {
        const idx = await index();
        refusePruned(idx, 'trades', page.startTime);
        const { items, nextCursor } = await idx.tradesPage(p.symbol, page);
        return { success: true, data: items, nextCursor, timestamp: Date.now() };
      }
      return ok(await (await index()).trades(p.symbol, req.query.limit));
    },
  });

  app.get<{ Params: { symbol: string }; Querystring: { depth: number; network?: string } }>('/v1/orderbook/:symbol', {
    schema: {
      tags: ['market'],
      summary: 'A pair\u2019s order book',
      description: 'Resting orders per side, best first, `depth` of each; `midPrice` "0" on an empty book.',
      params: symbolParam,
      querystring: { type: 'object', additionalProperties: false, properties: { depth: limitQuery(limits.maxDepth, 20), ...networkQuery } },
      response: {
        200: envelope(obj({ symbol: str(), midPrice: dec(), bids: arr(levelSchema), asks: arr(levelSchema) }), { symbol: 'BTC', midPrice: '65000', bids: [{ id: '41', price: '64990', amount: '0.02', isAgent: false }], asks: [{ id: '42', price: '65010', amount: '0.01', isAgent: true }] }),
        ...errors,
      },
    },
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
  app.get<NetworkQs>('/v1/pairs', {
    schema: {
      querystring: networkOnly,
      tags: ['market'],
      summary: 'The spot pairs',
      description: 'The pairs with a spot book (a perp-only pair is listed by /api/pairs/perps).',
      response: { 200: envelope(arr(pairListingSchema), [{ pairId: 1, symbol: 'BTC', pair: 'BTC/USDC', tickSize: '0.01', lotSize: '0.0001', minSize: '0.0001', maxLeverage: 50, markets: ['spot', 'perp'], oracleSource: 'feed' }]), ...errors },
    },
  }, async (req) => {
    checkNetwork(genesis, req.query.network);
    return ok(
      pairsSorted()
        .filter(hasSpot)
        .map((p) => ({
          pairId: p.id, symbol: p.symbol, pair: `${p.symbol}/USDC`, tickSize: price6(p.tickSize), lotSize: size18(p.lotSize), minSize: size18(p.minSize), maxLeverage: p.maxLeverage,
          markets: marketNames(p), oracleSource: oracleSourceOf(p),
        })),
    );
  });

  app.get<NetworkQs>('/v1/stats', {
    schema: {
      querystring: networkOnly,
      tags: ['market'],
      summary: 'Exchange totals',
      response: {
        200: envelope(obj({ totalPairs: int(), totalOrders: int(), tvl: dec('USDC issued.'), agentTrades: int(), humanTrades: int(), totalTrades: int(), volume: dec('USDC.') }), { totalPairs: 3, totalOrders: 120, tvl: '1000000', agentTrades: 10, humanTrades: 30, totalTrades: 40, volume: '52000' }),
        ...errors,
      },
    },
  }, async (req) => {
    checkNetwork(genesis, req.query.network);
    const s = await (await index()).stats();
    return ok({ totalPairs: state().pairs.size, totalOrders: s.totalOrders, tvl: usdc(state().supply().usdc), agentTrades: s.agentTrades, humanTrades: s.humanTrades, totalTrades: s.totalTrades, volume: s.volumeUsdc });
  });

  app.get<{ Querystring: { type: 'agents' | 'all'; limit: number; network?: string } }>('/v1/leaderboard', {
    schema: {
      tags: ['market'],
      summary: 'Traders by volume',
      description: '`type=agents` ranks agents only.',
      querystring: { type: 'object', additionalProperties: false, properties: { type: { type: 'string', enum: ['agents', 'all'], default: 'all' }, limit: limitQuery(500, 100), ...networkQuery } },
      response: { 200: envelope(arr(obj({ rank: int(), address: addr(), volume: dec(), trades: int(), isAgent: bool() })), [{ rank: 1, address: EX.address, volume: '52000', trades: 12, isAgent: false }]), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      return ok((await (await index()).leaderboard(req.query.type, req.query.limit)).map((item, i) => ({ rank: i + 1, ...item })));
    },
  });

  app.get<{ Params: { address: string }; Querystring: { network?: string } }>('/v1/account/:address', {
    schema: {
      tags: ['market'],
      summary: 'An account\u2019s USDC balances',
      params: { type: 'object', properties: { address } },
      querystring: { type: 'object', additionalProperties: false, properties: networkQuery },
      response: {
        200: envelope(obj({ address: addr(), freeBalance: dec(), lockedBalance: dec('In open orders.'), inPositions: dec('Margin of open positions.'), totalBalance: dec(), isAgent: bool(), master: addr('Present for a sub-account only: its master (decision 93).') }, ['master']), { address: EX.address, freeBalance: '900', lockedBalance: '100', inPositions: '0', totalBalance: '1000', isAgent: false }),
        ...errors,
      },
    },
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
        // A sub-account names its master (src/state/accounts/subaccounts.ts).
        ...subAccountMaster(state(), toAddress(req.params.address)),
      });
    },
  });

  app.get<{ Querystring: { limit: number; network?: string } }>('/v1/agents', {
    schema: {
      tags: ['market'],
      summary: 'Registered agents',
      description: 'Those that traded through a session key (by volume), then those that set caps or a mode but never traded.',
      querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(AGENTS_LIMIT_MAX, 100), ...networkQuery } },
      response: { 200: envelope(arr(obj(agentItemSchema)), [agentExample]), ...errors },
    },
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
    schema: {
      tags: ['market'],
      summary: 'One agent: activity, mode and caps',
      params: { type: 'object', properties: { address } },
      querystring: { type: 'object', additionalProperties: false, properties: networkQuery },
      response: { 200: envelope(obj({ ...agentItemSchema, isAgent: bool(), caps: agentCapsSchema }), { ...agentExample, isAgent: true, caps: agentCapsExample }), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const a = toAddress(req.params.address);
      const traded = await (await index()).agent(a);
      const registered = traded !== undefined || hasAgentSettings(state(), a);
      return ok({ ...agentItem(a, traded), isAgent: registered, caps: agentCapsObject(state(), a) });
    },
  });

  app.get<{ Params: { address: string }; Querystring: PageParams & { network?: string } }>('/v1/orders/:address', {
    schema: {
      tags: ['market'],
      summary: 'An address\u2019s orders, open and closed',
      description: 'Newest first, from the index. With `startTime`, `endTime` (placement block time, Unix ms, inclusive) or `cursor`: a page of at most `limit`, and `nextCursor` for the older rest (null at the end).',
      params: { type: 'object', properties: { address } },
      querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(limits.maxOrdersListed, limits.maxOrdersListed), ...pageParams, ...networkQuery } },
      response: { 200: pagedEnvelope(arr(orderItemSchema), [orderExample]), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const page = pageOf(CursorKind.Orders, req.query, Math.min(limits.maxOrdersListed, ORDERS_LIMIT_MAX));
      if (page) {
        const idx = await index();
        refusePruned(idx, 'orders', page.startTime);
        const { items, nextCursor } = await idx.ordersPage(req.params.address.toLowerCase(), page);
        return { success: true, data: items, nextCursor, timestamp: Date.now() };
      }
      return ok(await (await index()).orders(req.params.address.toLowerCase(), req.query.limit));
    },
  });

  app.get<{ Params: { address: string }; Querystring: PageParams & { network?: string } }>('/v1/fills/:address', {
    schema: {
      tags: ['market'],
      summary: 'An address\u2019s fills',
      description: 'Newest first; `side` and `fee` from the address\u2019s point of view. With `startTime`, `endTime` (block time, Unix ms, inclusive) or `cursor`: a page of at most `limit`, and `nextCursor` for the older rest (null at the end).',
      params: { type: 'object', properties: { address } },
      querystring: { type: 'object', additionalProperties: false, properties: { limit: limitQuery(FILLS_LIMIT_MAX, 50), ...pageParams, ...networkQuery } },
      response: { 200: pagedEnvelope(arr(fillSchema), [{ symbol: 'BTC', side: 'buy', price: '65000', amount: '0.01', usdcSettled: '650', txHash: EX.hash, time: EX.timestampMs, orderId: '42', fee: '0.325' }]), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const page = pageOf(CursorKind.Fills, req.query, FILLS_LIMIT_MAX);
      if (page) {
        const idx = await index();
        refusePruned(idx, 'fills', page.startTime);
        const { items, nextCursor } = await idx.fillsPage(req.params.address.toLowerCase(), page);
        return { success: true, data: items, nextCursor, timestamp: Date.now() };
      }
      return ok(await (await index()).fills(req.params.address.toLowerCase(), req.query.limit));
    },
  });

  app.get<{ Params: { orderId: string } } & NetworkQs>('/v1/order/:orderId', {
    schema: {
      querystring: networkOnly,
      tags: ['market'],
      summary: 'One order by id',
      params: { type: 'object', properties: { orderId: { type: 'string', pattern: '^[1-9][0-9]{0,17}$' } } },
      response: { 200: envelope(orderItemSchema, orderExample), ...errors },
    },
    handler: async (req) => {
      checkNetwork(genesis, req.query.network);
      const item = await (await index()).order(req.params.orderId);
      if (!item) throw new ApiError(404, 'UNKNOWN_ORDER', `orderId: no order ${req.params.orderId}`);
      return ok(item);
    },
  });
};
