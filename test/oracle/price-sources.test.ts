/**
 * A validator's configured price sources (decisions 168 and 169; src/oracle/feeds/):
 * each adapter's parsing, the median with its stale and outlier refusals, and the reader
 * against real HTTP price servers on loopback (in this process), one honest of each
 * format, one lying, one stale, and sources answering garbage, an HTTP error, nothing,
 * or not at all. Then the oracle actor on a testnet, signing the sources' median.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleBehavior, type OracleDeps } from '../../actors/oracle/oracle-actor';
import type { Reply } from '../../actors/actor';
import type { Tx } from '../../src/codec/tx';
import type { OracleObservationBody } from '../../src/codec/txs/oracle';
import { parseBinance, parseCoinbase, parseFixedFile, priceUnits, SourceError } from '../../src/oracle/feeds/adapters';
import { aggregate, medianPrice } from '../../src/oracle/feeds/aggregate';
import { parsePriceSources, readPriceSourcesFile } from '../../src/oracle/feeds/config';
import { FeedReader } from '../../src/oracle/feeds/reader';
import { priceSourcesTemplate } from '../../src/oracle/feeds/template';
import { loadGenesisFile } from '../../src/genesis/load';
import { hasPerp } from '../../src/state/pair-markets';
import { NodeMetrics } from '../../src/metrics/node-metrics';
import { hexToBytes } from '../../src/util/bytes';
import { createMemoryLogger } from '../../src/util/log';
import { DEVNET_KEYS } from '../helpers/devnet';
import { BASE, freshState } from './harness';

describe('price source adapters', () => {
  it('parse decimal strings exactly into price units ×1e6, cutting past the sixth decimal, refusing anything else', () => {
    expect(priceUnits('3012.45000000')).toBe(3_012_450_000n);
    expect(priceUnits('0.16123456')).toBe(161_234n);
    expect(priceUnits('90000')).toBe(90_000_000_000n);
    // 0.1 + 0.2 in floating point is 0.30000000000000004; here the digits are the digits.
    expect(priceUnits('123456789012345.678901')).toBe(123_456_789_012_345_678_901n);
    for (const bad of [3000, '', '-1', '1e3', ' 1', '0', '0.0000001', 'NaN', null]) expect(priceUnits(bad)).toBeNull();
  });

  it("read Binance's ticker/price answer, checking the symbol, as of its arrival", () => {
    expect(parseBinance({ symbol: 'ETHUSDT', price: '3000.10000000' }, 'ETHUSDT', 77)).toEqual({ price: 3_000_100_000n, timeMs: 77 });
    expect(() => parseBinance({ symbol: 'BTCUSDT', price: '1' }, 'ETHUSDT', 0)).toThrow(/answered for symbol "BTCUSDT", not ETHUSDT/);
    expect(() => parseBinance({ symbol: 'ETHUSDT', price: 3000.1 }, 'ETHUSDT', 0)).toThrow(/price 3000.1 is not a positive decimal string/);
    expect(() => parseBinance([1], 'ETHUSDT', 0)).toThrow(SourceError);
  });

  it("read Coinbase's product ticker answer with its last trade's time", () => {
    expect(parseCoinbase({ price: '3000.3', time: '2026-11-29T10:00:00.123456Z', bid: '3000.2' })).toEqual({ price: 3_000_300_000n, timeMs: Date.UTC(2026, 10, 29, 10, 0, 0, 123) });
    expect(() => parseCoinbase({ price: '3000.3' })).toThrow(/time undefined is not an ISO time/);
    expect(() => parseCoinbase({ message: 'NotFound' })).toThrow(/price undefined/);
  });

  it("read a fixed-price file's entry by key", () => {
    expect(parseFixedFile({ ETH: '3000', BTC: '90000.5' }, 'BTC', 5)).toEqual({ price: 90_000_500_000n, timeMs: 5 });
    expect(() => parseFixedFile({ ETH: '3000' }, 'SOL', 5)).toThrow(/has no price for SOL/);
  });
});

describe('the median of the sources', () => {
  const rules = { maxAgeMs: 10_000, maxDeviationBps: 100, minSources: 2 };
  const r = (source: string, price: bigint, timeMs = 1_000_000) => ({ source, price, timeMs });

  it('takes the median (even count: the mean of the middle two, rounded down)', () => {
    expect(medianPrice([5n, 1n, 3n])).toBe(3n);
    expect(medianPrice([4n, 1n, 2n, 3n])).toBe(2n);
    expect(aggregate([r('a', 3000n), r('b', 3002n), r('c', 3001n)], rules, 1_000_000)).toEqual({ price: 3001n, accepted: ['a', 'b', 'c'], refused: [] });
  });

  it('refuses a stale value and an outlier, and gives no price below the minimum', () => {
    const out = aggregate([r('a', 3000n), r('b', 3002n), r('liar', 3300n), r('old', 3001n, 1_000_000 - 10_001)], rules, 1_000_000);
    expect(out.price).toBe(3001n);
    expect(out.refused.map((x) => [x.source, x.reason])).toEqual([
      ['old', 'stale'],
      ['liar', 'outlier'],
    ]);
    // Two that disagree: no telling which lies, both refused.
    expect(aggregate([r('a', 3000n), r('b', 3100n)], rules, 1_000_000)).toMatchObject({ price: undefined, accepted: [] });
    expect(aggregate([r('a', 3000n)], rules, 1_000_000)).toMatchObject({ price: undefined, accepted: ['a'] });
    expect(aggregate([r('a', 3000n)], { ...rules, minSources: 1 }, 1_000_000).price).toBe(3000n);
    // At the bound exactly (1 % of the others' median): kept.
    expect(aggregate([r('a', 10_000n), r('b', 10_000n), r('c', 10_100n)], rules, 1_000_000).accepted).toEqual(['a', 'b', 'c']);
  });
});

describe('the testnet and its template', () => {
  it("lists perp markets, and the boot bundle's template names two exchange tickers for each", () => {
    const testnet = loadGenesisFile(join(__dirname, '../../genesis/testnet.json'));
    expect(testnet.pairs.length).toBeGreaterThan(0);
    for (const p of testnet.pairs) expect(hasPerp(p), p.symbol).toBe(true);
    const template = parsePriceSources(JSON.parse(priceSourcesTemplate(testnet.pairs.map((p) => p.symbol))), '/');
    expect(template.markets.map((m) => m.symbol)).toEqual(testnet.pairs.map((p) => p.symbol));
    for (const m of template.markets) expect(m.sources.map((x) => x.kind)).toEqual(['binance', 'coinbase']);
  });
});

describe('the price sources file', () => {
  it('defaults its rules, resolves file paths beside it, and names the field that is wrong', () => {
    const c = parsePriceSources({ markets: { ETH: [{ kind: 'binance', symbol: 'ETHUSDT' }, { kind: 'file', path: 'fixed.json' }], BNB: [{ kind: 'binance', symbol: 'BNBUSDT' }] } }, '/srv/node');
    expect(c).toMatchObject({ timeoutMs: 800, maxAgeMs: 10_000, maxDeviationBps: 100 });
    expect(c.markets[0]).toMatchObject({ symbol: 'ETH', minSources: 2, sources: [{ kind: 'binance' }, { kind: 'file', path: '/srv/node/fixed.json', key: 'ETH' }] });
    expect(c.markets[1].minSources).toBe(1); // one source: the minimum cannot exceed it
    expect(() => parsePriceSources({ markets: { ETH: [{ kind: 'kraken' }] } }, '/')).toThrow(/markets.ETH\[0\].kind must be binance, coinbase or file, got "kraken"/);
    expect(() => parsePriceSources({ markets: { ETH: { minSources: 3, sources: [{ kind: 'binance', symbol: 'X' }] } } }, '/')).toThrow(/minSources 3 is more than its 1 sources/);
    expect(() => parsePriceSources({ timeoutMs: -1, markets: {} }, '/')).toThrow(/timeoutMs must be an integer/);
    expect(() => parsePriceSources({ markets: { ETH: Array.from({ length: 17 }, () => ({ kind: 'binance', symbol: 'X' })) } }, '/')).toThrow(/markets.ETH: at most 16 sources, got 17/);
    expect(() => readPriceSourcesFile('/nonexistent/price-sources.json')).toThrow(/price sources \/nonexistent\/price-sources.json: ENOENT/);
  });
});

/** A loopback HTTP server answering each path by the handler's word; `hang` never answers. */
type Answer = { status?: number; body: string } | 'hang';
async function priceServer(answer: (path: string) => Answer): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const a = answer(req.url ?? '');
    if (a === 'hang') return; // the reader's timeout ends it
    res.writeHead(a.status ?? 200, { 'content-type': 'application/json' }).end(a.body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// Shows contract [D-orders-oracle]: on a network without the devnet path, validators' prices come from their sources.
describe('the price sources reader, against HTTP price servers on loopback', () => {
  const servers: Server[] = [];
  let honestBinance: string, honestCoinbase: string, liar: string, stale: string, broken: string, closed: string;
  let clock = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    const up = async (answer: (path: string) => Answer) => {
      const s = await priceServer(answer);
      servers.push(s.server);
      return s.base;
    };
    honestBinance = await up((p) => ({ body: JSON.stringify({ symbol: new URL(p, 'http://x').searchParams.get('symbol'), price: p.includes('ETH') ? '3000.10000000' : '90010.00000000' }) }));
    honestCoinbase = await up((p) => ({ body: JSON.stringify({ price: p.includes('ETH') ? '3000.30' : '89990.00', time: iso(clock - 300), volume: '1' }) }));
    liar = await up(() => ({ body: JSON.stringify({ symbol: 'ETHUSDT', price: '3300.00000000' }) }));
    stale = await up(() => ({ body: JSON.stringify({ price: '2000.00', time: iso(clock - 60_000) }) }));
    // Per product: garbage, an HTTP error, nothing, no answer at all. (The timeout leaves room for a loaded machine.)
    broken = await up((p) =>
      p.includes('GARBAGE') ? { body: '<html>rate limited</html>' } : p.includes('HUGE') ? { body: `{"price":"1","pad":"${'x'.repeat(100_000)}"}` } : p.includes('ERROR') ? { status: 503, body: '{"code":-1003,"msg":"Too many requests"}' } : p.includes('EMPTY') ? { body: '' } : 'hang',
    );
    // A port nothing listens on: a server started and closed.
    const gone = await priceServer(() => ({ body: '' }));
    closed = gone.base;
    await new Promise((ok) => gone.server.close(ok));
  });
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((ok) => s.close(ok));
    }
  });

  const config = () =>
    parsePriceSources(
      {
        timeoutMs: 1000,
        markets: {
          ETH: [
            { kind: 'binance', symbol: 'ETHUSDT', base: honestBinance },
            { kind: 'coinbase', product: 'ETH-USD', base: honestCoinbase },
            { kind: 'binance', symbol: 'ETHUSDT', base: liar },
            { kind: 'coinbase', product: 'ETH-USD', base: stale },
          ],
          BTC: [
            { kind: 'binance', symbol: 'BTCUSDT', base: honestBinance },
            { kind: 'coinbase', product: 'BTC-USD', base: honestCoinbase },
            { kind: 'coinbase', product: 'GARBAGE', base: broken },
            { kind: 'coinbase', product: 'ERROR', base: broken },
            { kind: 'coinbase', product: 'EMPTY', base: broken },
            { kind: 'coinbase', product: 'HUGE', base: broken },
            { kind: 'coinbase', product: 'HANG', base: broken },
            { kind: 'binance', symbol: 'BTCUSDT', base: closed },
          ],
          SOL: [
            { kind: 'coinbase', product: 'HANG', base: broken },
            { kind: 'binance', symbol: 'SOLUSDT', base: closed },
          ],
        },
      },
      '/',
    );

  it('reports the median of the honest sources, refusing the liar and the stale one, and words every bad answer once', async () => {
    const memory = createMemoryLogger();
    const reader = new FeedReader(config(), undefined, { now: () => (clock = Date.now()) });
    const prices = await reader.read(memory.log);
    // ETH: 3000.10 and 3000.30 remain → 3000.20; BTC: 90010 and 89990 → 90000; SOL: none answers.
    expect(prices).toEqual(
      new Map([
        ['ETH', 3_000_200_000n],
        ['BTC', 90_000_000_000n],
      ]),
    );
    const lines = memory.records.filter((r) => r.level >= 40).map((r) => r.msg as string);
    const host = (base: string) => base.replace('http://', '').replace(/\./g, '\\.');
    const say = (re: RegExp) => expect(lines.filter((l) => re.test(l)), `${re} in\n${lines.join('\n')}`).toHaveLength(1);
    // The liar and the stale server by their own host: the honest servers of the same formats are not named.
    say(new RegExp(`price source binance:ETHUSDT@${host(liar)} \\(market ETH\\) refused as outlier: 9.98 % from the median of the sources \\(bound 1.00 %\\)`));
    say(new RegExp(`price source coinbase:ETH-USD@${host(stale)} \\(market ETH\\) refused as stale: its price is 6[01] s old \\(bound 10 s\\)`));
    expect(lines.filter((l) => l.includes(host(honestBinance).replace(/\\/g, '')) || l.includes(host(honestCoinbase).replace(/\\/g, '')))).toEqual([]);
    say(/price source coinbase:GARBAGE@\S+ \(market BTC\) answered something other than JSON: "<html>rate limited<\/html>"/);
    say(/price source coinbase:ERROR@\S+ \(market BTC\) answered HTTP 503: \{"code":-1003,"msg":"Too many requests"\}/);
    say(/price source coinbase:EMPTY@\S+ \(market BTC\) answered nothing/);
    say(/price source coinbase:HUGE@\S+ \(market BTC\) answered more than 65536 bytes/);
    say(/price source coinbase:HANG@\S+ \(market BTC\) did not answer within 1000 ms/);
    say(/price source binance:BTCUSDT@\S+ \(market BTC\) is unreachable: fetch failed \(ECONNREFUSED\)/);
    say(/market SOL has no price: 0 of 2 sources usable, fewer than 2 \(coinbase:HANG@\S+ did not answer within 1000 ms; binance:SOLUSDT@\S+ is unreachable/);
    expect(reader.stats.markets).toEqual(
      new Map([
        ['ETH', true],
        ['BTC', true],
        ['SOL', false],
      ]),
    );

    // A second round with the same faults says nothing new: once per change, not per block.
    const before = memory.records.length;
    await reader.read(memory.log);
    expect(memory.records.slice(before).filter((r) => r.level >= 30)).toEqual([]);
    expect(reader.stats.sources.get(`coinbase:EMPTY@${broken.replace('http://', '')}`)).toMatchObject({ status: 'bad-answer', reads: 2, failures: 2 });
    expect(reader.stats.rounds).toBe(2);

    // /metrics shows the same states (the node hands its metrics the reader's stats).
    const metrics = new NodeMetrics(
      { height: () => 1, mempool: () => undefined, peers: () => 0, actors: () => ({}), sync: () => undefined, bridge: () => undefined, feeds: () => reader.stats },
      { version: 'test', chainId: 1, network: 'testnet' },
    );
    const text = (await metrics.text()).text;
    expect(text).toMatch(/oracle_market_priced\{market="SOL"\} 0\n/);
    expect(text).toMatch(/oracle_market_priced\{market="ETH"\} 1\n/);
    expect(text).toMatch(new RegExp(`oracle_source_ok\\{source="coinbase:ETH-USD@${host(stale)}",market="ETH"\\} 0\n`));
    expect(text).toMatch(new RegExp(`oracle_source_failures_total\\{source="coinbase:EMPTY@${host(broken)}",market="BTC"\\} 2\n`));
  });

  it('reads a fixed-price file afresh each round (a test network moves prices by editing it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'price-file-'));
    writeFileSync(join(dir, 'fixed.json'), JSON.stringify({ ETH: '3000', DOT: '4.25' }));
    writeFileSync(join(dir, 'sources.json'), JSON.stringify({ minSources: 1, markets: { DOT: [{ kind: 'file', path: 'fixed.json' }] } }));
    const reader = new FeedReader(readPriceSourcesFile(join(dir, 'sources.json')));
    const { log } = createMemoryLogger();
    expect(await reader.read(log)).toEqual(new Map([['DOT', 4_250_000n]]));
    writeFileSync(join(dir, 'fixed.json'), JSON.stringify({ DOT: '4.5' }));
    expect(await reader.read(log)).toEqual(new Map([['DOT', 4_500_000n]]));
  });

  it('the oracle actor on a testnet signs the median of its sources, where it idled before', async () => {
    const state = freshState([10n ** 25n]);
    const submitted: Tx<OracleObservationBody>[] = [];
    const deps = {
      config: { validatorKey: hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey), genesis: { ...BASE, network: 'testnet' }, priceSources: config() },
      state: () => state,
      actors: {
        mempool: {
          ask: async (make: (r: Reply<unknown>) => { tx: Tx<OracleObservationBody> }) =>
            new Promise((resolve, reject) => {
              submitted.push(make({ resolve, reject }).tx);
              resolve({});
            }),
        },
      },
    } as unknown as OracleDeps;
    const memory = createMemoryLogger();
    const ctx = { log: memory.log, name: 'oracle', signal: new AbortController().signal };
    const b = oracleBehavior(deps, () => ({ send: () => true }), {});
    await b.start!(ctx);
    try {
      await b.handle({ type: 'tick' }, ctx);
    } finally {
      await b.stop!(ctx);
    }
    const id = (symbol: string) => BASE.pairs.find((p) => p.symbol === symbol)!.id;
    expect(submitted).toHaveLength(1);
    expect(submitted[0].body.prices).toEqual(
      [
        { pairId: id('ETH'), price: 3_000_200_000n },
        { pairId: id('BTC'), price: 90_000_000_000n },
      ].sort((x, y) => x.pairId - y.pairId),
    );
    // The pairs no source covers are said once each; SOL's missing price by the reader.
    const warned = memory.records.filter((r) => r.level >= 40).map((r) => r.msg as string);
    expect(warned.filter((m) => /no price source configured for BNB \(--price-sources\)/.test(m))).toHaveLength(1);
    expect(warned.filter((m) => /market SOL has no price/.test(m))).toHaveLength(1);
  });
});
