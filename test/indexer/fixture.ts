/**
 * Hand-built receipts for the indexer tests: six blocks of two pairs (ETH id 1, BTC id 2),
 * agents A, B, C and humans H1, H2, timestamps across 1m/3m/5m/1h/1d candle boundaries.
 * Every expected value in the tests is computed by hand from this file.
 *
 * T0 = 1_699_920_000_000 ms is a UTC day boundary (1_699_920_000 s = 19675 × 86400).
 *
 * | blk | time      | tx | what                                                              |
 * |-----|-----------|----|-------------------------------------------------------------------|
 * | 1   | T0+10s    | 0  | A (agent) places #1 sell ETH limit 2000.5 × 2                      |
 * |     |           | 1  | H1 places #2 buy ETH market 0.5 → T1 2000.5 × 0.5 (maker #1)       |
 * |     |           | 2  | failed receipt (carries a bogus event: must be ignored)            |
 * |     |           | 3  | faucet credit (not an exchange event)                              |
 * | 2   | T0+70s    | 0  | H2 places #3 buy ETH limit 2001 × 1.5 → T2 2000.5 × 1.5 (#1 filled)|
 * |     |           | 1  | B (agent) places #4 buy BTC limit 30000 × 0.1 (rests)              |
 * |     |           | 2  | H1 places #5 sell ETH limit 2100 × 1 (rests)                       |
 * | 3   | T0+200s   | 0  | H2 places #6 sell BTC market 0.1 → T3 30000 × 0.1 (maker #4)       |
 * |     |           | 1  | H1 cancels #5                                                      |
 * | 4   | T0+3700s  | 0  | A places #7 buy ETH limit 1990 × 0.25, leverage 5                  |
 * |     |           | 1  | H2 places #8 buy ETH limit 1995 × 0.5                              |
 * |     |           | 2  | H1 places #9 sell ETH market (worst 1980) 0.75 → T4 1995 × 0.5     |
 * |     |           |    |   (maker #8), T5 1990 × 0.25 (maker #7)                            |
 * | 5   | T0+3710s  | 0  | A places #10 sell ETH limit 2010 × 1                               |
 * |     |           | 1  | H2 places #11 buy ETH market 0.4 → T6 2010 × 0.4 (maker #10)       |
 * | 6   | T0+86405s | 0  | H1 places #12 buy ETH market 0.1 → T7 2010 × 0.1 (maker #10)       |
 * |     |           | 1  | H2 places #13 sell BTC limit 30000 × 0.1                           |
 * |     |           | 2  | C (agent) places #14 buy BTC market 0.1 → T8 30000 × 0.1 (maker #13)|
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CANDLE_INTERVAL_NAMES } from '../../src/indexer/candles';
import type { Indexer } from '../../src/indexer/indexer';
import type { ChainEvent, Receipt } from '../../src/state/context';
import type { CancelReason, OrderPlacedEvent, OrderStatus, OrderUpdatedEvent, TradeExecutedEvent } from '../../src/state/events';
import { metaCodec } from '../../src/state/records';
import type { Address, Hex } from '../../src/util/bytes';
import { parseDecimal } from '../../src/util/decimal';

export const T0 = 1_699_920_000_000;
export const T0S = T0 / 1000;

const addr = (byte: string): Address => `0x${byte.repeat(20)}` as Address;
export const A = addr('aa'); // agent
export const B = addr('bb'); // agent
export const C = addr('cc'); // agent
export const H1 = addr('11'); // human
export const H2 = addr('22'); // human
const SESSION = addr('5e');
const ADDRESSES = [A, B, C, H1, H2];

export const p = (s: string): bigint => parseDecimal(s, 6)!; // price / USDC units
export const q = (s: string): bigint => parseDecimal(s, 18)!; // size units

export function txh(height: number, index: number): Hex {
  return `0x${height.toString(16).padStart(8, '0')}${index.toString(16).padStart(8, '0')}${'ab'.repeat(24)}` as Hex;
}

const PAIRS: Record<string, number> = { ETH: 1, BTC: 2 };

export function placed(o: {
  id: number;
  owner: Address;
  symbol: string;
  side: 'buy' | 'sell';
  type: 'limit' | 'market';
  price?: string;
  size: string;
  leverage?: number;
  agent?: boolean;
}): OrderPlacedEvent {
  return {
    type: 'OrderPlaced',
    orderId: String(o.id),
    owner: o.owner,
    signer: o.agent ? SESSION : o.owner,
    pairId: PAIRS[o.symbol],
    symbol: o.symbol,
    side: o.side === 'buy' ? 0 : 1,
    orderType: o.type === 'limit' ? 1 : 0,
    price: p(o.price ?? '0'),
    size: q(o.size),
    leverage: o.leverage ?? 1,
    isAgent: o.agent ?? false,
  };
}

export function updated(id: number, owner: Address, symbol: string, status: OrderStatus, filled: string, remaining: string, reason?: CancelReason): OrderUpdatedEvent {
  return {
    type: 'OrderUpdated',
    orderId: String(id),
    owner,
    pairId: PAIRS[symbol],
    status,
    filled: q(filled),
    remaining: q(remaining),
    ...(reason ? { reason } : {}),
  };
}

/** usdc = price × size / 1e18; takerFee = 3 bps of it (rounded down). */
export function trade(t: {
  symbol: string;
  price: string;
  size: string;
  buyer: Address;
  seller: Address;
  buyerIsAgent: boolean;
  sellerIsAgent: boolean;
  taker: 'buy' | 'sell';
  maker: number;
  takerId: number;
}): TradeExecutedEvent {
  const price = p(t.price);
  const size = q(t.size);
  const usdc = (price * size) / 10n ** 18n;
  return {
    type: 'TradeExecuted',
    pairId: PAIRS[t.symbol],
    symbol: t.symbol,
    price,
    size,
    usdc,
    buyer: t.buyer,
    seller: t.seller,
    buyerIsAgent: t.buyerIsAgent,
    sellerIsAgent: t.sellerIsAgent,
    takerSide: t.taker === 'buy' ? 0 : 1,
    makerOrderId: String(t.maker),
    takerOrderId: String(t.takerId),
    takerFee: (usdc * 3n) / 10_000n,
  };
}

export function ok(height: number, index: number, signer: Address, events: object[]): Receipt {
  return { txHash: txh(height, index), index, kind: 'order', signer, status: 'ok', events: events as ChainEvent[] };
}

export interface FixtureBlock {
  height: number;
  timestampMs: number;
  receipts: Receipt[];
}

export function fixtureBlocks(): FixtureBlock[] {
  return [
    {
      height: 1,
      timestampMs: T0 + 10_000,
      receipts: [
        ok(1, 0, SESSION, [
          placed({ id: 1, owner: A, symbol: 'ETH', side: 'sell', type: 'limit', price: '2000.5', size: '2', agent: true }),
          updated(1, A, 'ETH', 'open', '0', '2'),
        ]),
        ok(1, 1, H1, [
          placed({ id: 2, owner: H1, symbol: 'ETH', side: 'buy', type: 'market', size: '0.5' }),
          trade({ symbol: 'ETH', price: '2000.5', size: '0.5', buyer: H1, seller: A, buyerIsAgent: false, sellerIsAgent: true, taker: 'buy', maker: 1, takerId: 2 }),
          updated(1, A, 'ETH', 'partial', '0.5', '1.5'),
          updated(2, H1, 'ETH', 'filled', '0.5', '0'),
        ]),
        {
          txHash: txh(1, 2),
          index: 2,
          kind: 'order',
          signer: H2,
          status: 'failed',
          code: 'INSUFFICIENT_BALANCE',
          message: 'insufficient balance',
          // Only ok receipts carry events; a buggy one that does must still be ignored.
          events: [placed({ id: 99, owner: H2, symbol: 'ETH', side: 'buy', type: 'limit', price: '1', size: '1' })] as unknown as ChainEvent[],
        },
        ok(1, 3, addr('fa'), [{ type: 'FaucetCredit', to: H1, usdc: p('1000'), nativeWei: 1n }]),
      ],
    },
    {
      height: 2,
      timestampMs: T0 + 70_000,
      receipts: [
        ok(2, 0, H2, [
          placed({ id: 3, owner: H2, symbol: 'ETH', side: 'buy', type: 'limit', price: '2001', size: '1.5' }),
          trade({ symbol: 'ETH', price: '2000.5', size: '1.5', buyer: H2, seller: A, buyerIsAgent: false, sellerIsAgent: true, taker: 'buy', maker: 1, takerId: 3 }),
          updated(1, A, 'ETH', 'filled', '2', '0'),
          updated(3, H2, 'ETH', 'filled', '1.5', '0'),
        ]),
        ok(2, 1, SESSION, [
          placed({ id: 4, owner: B, symbol: 'BTC', side: 'buy', type: 'limit', price: '30000', size: '0.1', agent: true }),
          updated(4, B, 'BTC', 'open', '0', '0.1'),
        ]),
        ok(2, 2, H1, [
          placed({ id: 5, owner: H1, symbol: 'ETH', side: 'sell', type: 'limit', price: '2100', size: '1' }),
          updated(5, H1, 'ETH', 'open', '0', '1'),
        ]),
      ],
    },
    {
      height: 3,
      timestampMs: T0 + 200_000,
      receipts: [
        ok(3, 0, H2, [
          placed({ id: 6, owner: H2, symbol: 'BTC', side: 'sell', type: 'market', size: '0.1' }),
          trade({ symbol: 'BTC', price: '30000', size: '0.1', buyer: B, seller: H2, buyerIsAgent: true, sellerIsAgent: false, taker: 'sell', maker: 4, takerId: 6 }),
          updated(4, B, 'BTC', 'filled', '0.1', '0'),
          updated(6, H2, 'BTC', 'filled', '0.1', '0'),
        ]),
        ok(3, 1, H1, [updated(5, H1, 'ETH', 'cancelled', '0', '1', 'user')]),
      ],
    },
    {
      height: 4,
      timestampMs: T0 + 3_700_000,
      receipts: [
        ok(4, 0, SESSION, [
          placed({ id: 7, owner: A, symbol: 'ETH', side: 'buy', type: 'limit', price: '1990', size: '0.25', leverage: 5, agent: true }),
          updated(7, A, 'ETH', 'open', '0', '0.25'),
        ]),
        ok(4, 1, H2, [
          placed({ id: 8, owner: H2, symbol: 'ETH', side: 'buy', type: 'limit', price: '1995', size: '0.5' }),
          updated(8, H2, 'ETH', 'open', '0', '0.5'),
        ]),
        ok(4, 2, H1, [
          placed({ id: 9, owner: H1, symbol: 'ETH', side: 'sell', type: 'market', price: '1980', size: '0.75' }),
          trade({ symbol: 'ETH', price: '1995', size: '0.5', buyer: H2, seller: H1, buyerIsAgent: false, sellerIsAgent: false, taker: 'sell', maker: 8, takerId: 9 }),
          updated(8, H2, 'ETH', 'filled', '0.5', '0'),
          trade({ symbol: 'ETH', price: '1990', size: '0.25', buyer: A, seller: H1, buyerIsAgent: true, sellerIsAgent: false, taker: 'sell', maker: 7, takerId: 9 }),
          updated(7, A, 'ETH', 'filled', '0.25', '0'),
          updated(9, H1, 'ETH', 'filled', '0.75', '0'),
        ]),
      ],
    },
    {
      height: 5,
      timestampMs: T0 + 3_710_000,
      receipts: [
        ok(5, 0, SESSION, [
          placed({ id: 10, owner: A, symbol: 'ETH', side: 'sell', type: 'limit', price: '2010', size: '1', agent: true }),
          updated(10, A, 'ETH', 'open', '0', '1'),
        ]),
        ok(5, 1, H2, [
          placed({ id: 11, owner: H2, symbol: 'ETH', side: 'buy', type: 'market', size: '0.4' }),
          trade({ symbol: 'ETH', price: '2010', size: '0.4', buyer: H2, seller: A, buyerIsAgent: false, sellerIsAgent: true, taker: 'buy', maker: 10, takerId: 11 }),
          updated(10, A, 'ETH', 'partial', '0.4', '0.6'),
          updated(11, H2, 'ETH', 'filled', '0.4', '0'),
        ]),
      ],
    },
    {
      height: 6,
      timestampMs: T0 + 86_405_000,
      receipts: [
        ok(6, 0, H1, [
          placed({ id: 12, owner: H1, symbol: 'ETH', side: 'buy', type: 'market', size: '0.1' }),
          trade({ symbol: 'ETH', price: '2010', size: '0.1', buyer: H1, seller: A, buyerIsAgent: false, sellerIsAgent: true, taker: 'buy', maker: 10, takerId: 12 }),
          updated(10, A, 'ETH', 'partial', '0.5', '0.5'),
          updated(12, H1, 'ETH', 'filled', '0.1', '0'),
        ]),
        ok(6, 1, H2, [
          placed({ id: 13, owner: H2, symbol: 'BTC', side: 'sell', type: 'limit', price: '30000', size: '0.1' }),
          updated(13, H2, 'BTC', 'open', '0', '0.1'),
        ]),
        ok(6, 2, SESSION, [
          placed({ id: 14, owner: C, symbol: 'BTC', side: 'buy', type: 'market', size: '0.1', agent: true }),
          trade({ symbol: 'BTC', price: '30000', size: '0.1', buyer: C, seller: H2, buyerIsAgent: true, sellerIsAgent: false, taker: 'buy', maker: 13, takerId: 14 }),
          updated(13, H2, 'BTC', 'filled', '0.1', '0'),
          updated(14, C, 'BTC', 'filled', '0.1', '0'),
        ]),
      ],
    },
  ];
}

/**
 * A chain store over blocks, storing receipts exactly as ChainStore does (tagged
 * canonical JSON, decoded back with real bigints). Heights without a listed block are
 * empty blocks one second apart.
 */
export class FakeStore {
  private readonly blocks = new Map<number, { timestampMs: number; receipts: Uint8Array }>();
  reads = 0;

  constructor(blocks: FixtureBlock[], private head: number) {
    let t = T0;
    for (let h = 1; h <= head; h++) {
      const b = blocks.find((x) => x.height === h);
      t = b ? b.timestampMs : t + 1000;
      this.blocks.set(h, { timestampMs: t, receipts: metaCodec.encode(b ? b.receipts : []) });
    }
  }

  async headHeight(): Promise<number | undefined> {
    return this.head;
  }

  async getBlock(h: number): Promise<{ header: { height: number; timestampMs: number } } | undefined> {
    this.reads++;
    const b = this.blocks.get(h);
    return b ? { header: { height: h, timestampMs: b.timestampMs } } : undefined;
  }

  async getReceipts(h: number): Promise<Receipt[] | undefined> {
    const b = this.blocks.get(h);
    return b ? (metaCodec.decode(b.receipts) as Receipt[]) : undefined;
  }

  /** Appends a block (as the chain actor would commit one). */
  append(timestampMs: number, receipts: Receipt[]): number {
    this.head++;
    this.blocks.set(this.head, { timestampMs, receipts: metaCodec.encode(receipts) });
    return this.head;
  }
}

export function tempDir(prefix = 'exchain-indexer-'): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Every query the API can make over the fixture's symbols, addresses and orders. */
export async function snapshot(idx: Indexer): Promise<unknown> {
  const out: Record<string, unknown> = { height: idx.indexedHeight(), stats: idx.stats() };
  for (const symbol of ['ETH', 'BTC', 'SOL']) {
    out[`trades ${symbol}`] = await idx.trades(symbol, 200);
    for (const interval of CANDLE_INTERVAL_NAMES) out[`candles ${symbol} ${interval}`] = await idx.candles(symbol, interval, 500);
  }
  for (const a of ADDRESSES) {
    out[`fills ${a}`] = await idx.fills(a, 200);
    out[`orders ${a}`] = await idx.orders(a, 50);
    out[`agent ${a}`] = await idx.agent(a);
    out[`orderCount ${a}`] = await idx.orderCount(a);
  }
  for (let id = 1; id <= 15; id++) out[`order ${id}`] = await idx.order(String(id));
  out.leaderboardAll = await idx.leaderboard('all', 500);
  out.leaderboardAgents = await idx.leaderboard('agents', 500);
  out.agents = await idx.agents();
  return out;
}
