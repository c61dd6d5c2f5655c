/**
 * End to end through a node (in this process): a single-validator devnet node given
 * price sources for ETH (two honest loopback tickers and a lying one; decision 168)
 * stores the sources' median as ETH's chain price, while the pairs its file does not
 * list keep the devnet path; its /metrics shows the market priced and the liar refused.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/node/node';
import { DevnetPriceSource } from '../../src/oracle/devnet-source';
import { parsePriceSources } from '../../src/oracle/feeds/config';
import { oraclePrice } from '../../src/state/oracle';
import { startNode, tempDir, waitFor } from '../helpers/devnet';

const servers: Server[] = [];
async function ticker(body: () => object): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body())));
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const dir = tempDir();
let node: Node;
let url: string;
beforeAll(async () => {
  const binance = await ticker(() => ({ symbol: 'ETHUSDT', price: '3100.10000000' }));
  const coinbase = await ticker(() => ({ price: '3100.30', time: new Date().toISOString() }));
  const liar = await ticker(() => ({ symbol: 'ETHUSDT', price: '2500.00000000' }));
  const priceSources = parsePriceSources(
    {
      markets: {
        ETH: [
          { kind: 'binance', symbol: 'ETHUSDT', base: binance },
          { kind: 'coinbase', product: 'ETH-USD', base: coinbase },
          { kind: 'binance', symbol: 'ETHUSDT', base: liar },
        ],
      },
    },
    dir.path,
  );
  ({ node, url } = await startNode(dir.path, { priceSources }));
});
afterAll(async () => {
  await node?.stop();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((ok) => s.close(ok));
  }
  dir.remove();
});

describe('a node with price sources', () => {
  it("stores its sources' median as the market's chain price, the liar refused, the other pairs on the devnet path", async () => {
    const state = () => node.chain().state;
    const eth = node.config.genesis.pairs.find((p) => p.symbol === 'ETH')!;
    const btc = node.config.genesis.pairs.find((p) => p.symbol === 'BTC')!;
    const p = await waitFor(
      () => {
        const now = state().head().timestampMs;
        const got = oraclePrice(state(), eth.id, now);
        return got?.fresh && got.price === 3_100_200_000n ? got : undefined;
      },
      8_000,
      "ETH's median at the sources' 3100.20",
    );
    expect(p.timestampMs % 1000).toBe(0);
    const b = oraclePrice(state(), btc.id, state().head().timestampMs)!;
    expect(b.price).toBe(DevnetPriceSource.fromGenesis(node.config.genesis).price(btc, b.timestampMs / 1000));

    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/exchange_chain_oracle_market_priced\{market="ETH"\} 1\n/);
    expect(metrics).toMatch(/exchange_chain_oracle_source_ok\{source="binance:ETHUSDT@127\.0\.0\.1:\d+",market="ETH"\} 0\n/);
  });
});
