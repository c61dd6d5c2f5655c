/**
 * `npm run bench -- price-sources` (issue 39 item 4; decision 168): what a validator's
 * oracle spends reading its price sources once per observation (one a second, so once
 * per block at the one-second block time): the testnet's 15 markets, each with a Binance-
 * format and a Coinbase-format ticker served over HTTP on loopback (in this process) and
 * a fixed-price file: 45 reads a round, all at once, each within the 800 ms timeout, then
 * the median rule. Per round: wall time p50/p99, and the CPU time of this process (which
 * also serves the tickers, so it is an upper bound on the reader's own). The network's
 * latency to a real exchange adds to the wall time, not to the CPU; the reads never
 * touch the chain's block path (they run in the oracle actor).
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePriceSources } from '../src/oracle/feeds/config';
import { FeedReader } from '../src/oracle/feeds/reader';
import { createLogger } from '../src/util/log';
import { quantiles } from './quantiles';

const SYMBOLS = ['ETH', 'BTC', 'BNB', 'SOL', 'POL', 'ARB', 'OP', 'AVAX', 'LINK', 'UNI', 'DOGE', 'XRP', 'ADA', 'DOT', 'SUI'];

export async function benchPriceSources(rounds = 300): Promise<Record<string, unknown>> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = url.pathname.startsWith('/api/v3/ticker/price')
      ? { symbol: url.searchParams.get('symbol'), price: '100.12345678' }
      : { price: '100.123', time: new Date().toISOString(), bid: '100.12', ask: '100.13', volume: '1' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-prices-'));
  writeFileSync(join(dir, 'fixed.json'), JSON.stringify(Object.fromEntries(SYMBOLS.map((s) => [s, '100.12']))));
  const markets = Object.fromEntries(
    SYMBOLS.map((s) => [
      s,
      [
        { kind: 'binance', symbol: `${s}USDT`, base },
        { kind: 'coinbase', product: `${s}-USD`, base },
        { kind: 'file', path: 'fixed.json' },
      ],
    ]),
  );
  const reader = new FeedReader(parsePriceSources({ markets }, dir));
  const log = createLogger({ destination: 'silent' });
  const wall: number[] = [];
  const cpu: number[] = [];
  try {
    for (let i = 0; i < 20; i++) await reader.read(log); // warm: connections, JIT
    for (let i = 0; i < rounds; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const prices = await reader.read(log);
      wall.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
      if (prices.size !== SYMBOLS.length) throw new Error(`round ${i}: ${prices.size} of ${SYMBOLS.length} markets priced`);
    }
  } finally {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    conditions: `${SYMBOLS.length} markets × 3 sources (Binance and Coinbase formats over loopback HTTP, a fixed-price file) = ${SYMBOLS.length * 3} reads a round, ${rounds} rounds, one after another`,
    'round wall ms': quantiles(wall, 2),
    'round CPU ms (reader and the in-process servers)': quantiles(cpu, 2),
    'CPU share of a one-second block (p50)': `${((quantiles(cpu, 3).p50 / 1000) * 100).toFixed(2)} %`,
  };
}
