/**
 * `npm run bench -- perp`:
 *   1. the end-of-block perp checks (TP/SL + liquidation, funding when the hour turns)
 *      with 100,000 open positions over the 15 devnet markets, per block, p50/p99 —
 *      every block crossing a whole second so TP/SL is checked in every one (the worst
 *      case), prices on a random walk so that some positions do trigger;
 *   2. perp opens per second through POST /v1/perp/open to final on a single node
 *      process, pre-signed (personal sign over the JSON payload), with latency p50/p99.
 */
import os from 'node:os';
import { Pool } from 'undici';
import { closedLoop, singleNode } from './load';
import { ZERO_HASH, type BlockHeader } from '../src/codec/block';
import { perpOpenMessage } from '../src/codec/txs/perps';
import { hashPersonalMessage } from '../src/crypto/eip191';
import { sign } from '../src/crypto/secp256k1';
import type { ChainEvent, ExecContext } from '../src/state/context';
import { genesisState } from '../src/state/genesis';
import { setOracleMedian } from '../src/state/oracle';
import { checkTpsl, endBlockPerps, liquidate, openPosition, setTpsl } from '../src/state/perps/engine';
import { liquidateBook } from '../src/state/perps/book-liquidation';
import type { State } from '../src/state/state';
import { credit, mint } from '../src/state/accounts/vault';
import { bytesToHex, hexToBytes, type Address } from '../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, waitFor } from '../test/helpers/devnet';
import { quantiles } from './quantiles';

const USDC = 1_000_000n;

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * An in-memory devnet state with a pool large enough that open-interest caps do not
 * limit the population, an oracle price per market, and a block clock the caller moves.
 */
function benchWorld() {
  const { genesis, hash } = devnetGenesis(1);
  const g = { ...genesis, perps: { ...genesis.perps, initialPoolUsdc: 10n ** 12n * USDC } };
  const state: State = genesisState(g, hash).state;
  const pairs = [...g.pairs].sort((a, b) => a.id - b.id);
  const prices = new Map(pairs.map((p) => [p.id, p.initialPrice]));
  const clock = { now: g.genesisTimeMs + 22, height: 1 };
  const events: ChainEvent[] = [];
  const header = (): BlockHeader => ({
    chainId: g.chainId, height: clock.height, timestampMs: clock.now, round: 0, parentHash: ZERO_HASH, parentStateRoot: ZERO_HASH, validatorsHash: ZERO_HASH,
    proposer: DEVNET_KEYS.validators[0].address, txRoot: ZERO_HASH, txCount: 0, lastCommitHash: ZERO_HASH, vrfProof: new Uint8Array(80),
  });
  const ctx = (): ExecContext => ({ state, params: state.params(), header: header(), emit: (e) => events.push(e) });
  const setPrices = () => {
    for (const p of pairs) setOracleMedian(state, p.id, prices.get(p.id)!, clock.now);
  };
  /** Every market's price one step of a ±10 bps random walk, then published as the oracle's. */
  const walk = (rand: () => number) => {
    for (const p of pairs) prices.set(p.id, (prices.get(p.id)! * BigInt(10_000 + Math.floor(rand() * 21) - 10)) / 10_000n);
    setPrices();
  };
  return { state, pairs, prices, clock, events, ctx, setPrices, walk };
}

/** 100,000 positions on an in-memory state (no disk: the figure is execution's cost). */
function benchPerpChecks(positions = 100_000, blocks = 4_000): Record<string, unknown> {
  const { state, pairs, prices, clock, events, ctx, setPrices, walk } = benchWorld();

  const owners: Address[] = Array.from({ length: 2_000 }, (_, i) => `0x${(0xbe000000 + i).toString(16).padStart(40, '0')}` as Address);
  for (const o of owners) {
    mint(state, 1_000_000n * USDC, 0n);
    credit(state, o, 1_000_000n * USDC);
  }
  setPrices();
  const rand = rng(42);
  const t0 = performance.now();
  for (let i = 0; i < positions; i++) {
    const pair = pairs[i % pairs.length];
    const owner = owners[i % owners.length];
    const leverage = 1 + Math.floor(rand() * pair.maxLeverage);
    const c = ctx();
    const pos = openPosition(c, { owner, signer: owner, pairId: pair.id, isLong: rand() < 0.5, leverage, margin: BigInt(1 + Math.floor(rand() * 50)) * USDC, isAgent: false });
    if (i % 2 === 0) {
      const px = prices.get(pair.id)!;
      const up = (px * BigInt(10_000 + 50 + Math.floor(rand() * 1000))) / 10_000n;
      const down = (px * BigInt(10_000 - 50 - Math.floor(rand() * 1000))) / 10_000n;
      setTpsl(c, owner, pos.id, pos.isLong ? up : down, pos.isLong ? down : up);
    }
  }
  const setupMs = performance.now() - t0;
  state.meta.set('head', { height: 0, timestampMs: clock.now, blockHash: '0x' });
  state.flush();
  const perBlock: number[] = [];
  const quiet: number[] = [];
  let closed = 0;
  let fundingBlockMs = 0;
  for (let b = 0; b < blocks; b++) {
    const prev = clock.now;
    clock.now += 1_000; // every block crosses a second: TP/SL checked in every one
    clock.height++;
    walk(rand);
    events.length = 0;
    const s = performance.now();
    endBlockPerps(ctx(), prev);
    const ms = performance.now() - s;
    perBlock.push(ms);
    const n = events.filter((e) => e.type === 'PerpClosed').length;
    closed += n;
    if (n === 0) quiet.push(ms);
    if (events.some((e) => e.type === 'FundingSettled')) fundingBlockMs = ms;
    state.meta.set('head', { height: clock.height, timestampMs: clock.now, blockHash: '0x' });
    state.flush();
  }
  // The scan alone, nothing triggering: TP/SL and liquidation at unchanged prices.
  const scanOnly: number[] = [];
  for (let i = 0; i < 500; i++) {
    const s = performance.now();
    checkTpsl(ctx());
    liquidate(ctx());
    scanOnly.push(performance.now() - s);
  }
  return {
    openPositions: positions,
    stillOpenAtEnd: state.perp.size,
    markets: pairs.length,
    blocks,
    closedByTpslOrLiquidationDuringRun: closed,
    endOfBlockMs: quantiles(perBlock, 3),
    endOfBlockMsBlocksWithNothingTriggered: quiet.length ? quantiles(quiet, 3) : null,
    scanOnlyMsTpslPlusLiquidation: quantiles(scanOnly, 3),
    fundingBlockMs: +fundingBlockMs.toFixed(1),
    setupOpensPerSec: Math.round(positions / (setupMs / 1000)),
    conditions: `in-process state, no disk; ${positions} positions (half with TP and SL) on ${pairs.length} markets, 1-50 USDC margin at 1x to each market's maximum; each block 1 s later with prices on a ±10 bps random walk, so TP/SL and liquidation run every block; state flush excluded`,
  };
}

/**
 * The orderbook-position liquidation check (src/state/perps/book-liquidation.ts) with
 * `positions` open orderbook positions over the 15 devnet markets. Positions are written
 * straight into the Position table in opposite pairs (long and short of the same size
 * and entry, so every pair nets to zero), at leverage 2 to the market's maximum, entries within ±0.2% of
 * the start price, so that a ±10 bps random walk keeps liquidating a few every block.
 */
function benchBookLiquidation(positions = 100_000, blocks = 2_000): Record<string, unknown> {
  const { state, pairs, clock, events, ctx, setPrices, walk } = benchWorld();

  const rand = rng(7);
  const t0 = performance.now();
  let margins = 0n;
  for (let i = 0; i < positions; i += 2) {
    const pair = pairs[(i / 2) % pairs.length];
    const entry = (pair.initialPrice * BigInt(9_980 + Math.floor(rand() * 40))) / 10_000n;
    const size = ((BigInt(1 + Math.floor(rand() * 100)) * 10n ** 18n * 1_000_000n) / pair.initialPrice / pair.lotSize + 1n) * pair.lotSize; // ~1-100 USDC
    const n = (entry * size) / 10n ** 18n;
    for (const [k, side] of [[i, 1n], [i + 1, -1n]] as const) {
      const owner = `0x${(0xb0000000 + k).toString(16).padStart(40, '0')}` as Address;
      const margin = n / BigInt(2 + Math.floor(rand() * (pair.maxLeverage - 1)));
      state.positions.set(`${owner}:${pair.id}`, { size: side * size, cost: side * n, margin });
      const a = state.account(owner);
      state.accounts.set(owner, { ...a, usdcInPositions: a.usdcInPositions + margin, usdcFree: a.usdcFree + 1_000n * USDC });
      margins += margin + 1_000n * USDC;
    }
  }
  // The positions' USDC came from deposits: the supply carries it, so the invariants hold.
  mint(state, margins, 0n);
  for (const [, p] of state.positions.entries()) mint(state, -p.cost, 0n);
  setPrices();
  const setupMs = performance.now() - t0;
  state.meta.set('head', { height: 0, timestampMs: clock.now, blockHash: '0x' });
  state.checkInvariants();
  state.flush();
  const indexed = state.bookLiq.size;
  const perBlock: number[] = [];
  const quiet: number[] = [];
  let liquidated = 0;
  let mostInABlock = 0;
  const busy: number[] = [];
  for (let b = 0; b < blocks; b++) {
    clock.now += 22;
    clock.height++;
    walk(rand);
    events.length = 0;
    const s = performance.now();
    const n = liquidateBook(ctx());
    const ms = performance.now() - s;
    perBlock.push(ms);
    liquidated += n;
    if (n > mostInABlock) mostInABlock = n;
    if (n === 0) quiet.push(ms);
    else busy.push(ms / n);
    state.meta.set('head', { height: clock.height, timestampMs: clock.now, blockHash: '0x' });
    state.checkInvariants();
    state.flush();
  }
  const scanOnly: number[] = [];
  for (let i = 0; i < 500; i++) {
    const s = performance.now();
    liquidateBook(ctx());
    scanOnly.push(performance.now() - s);
  }
  return {
    bookPositions: positions,
    indexedAtStart: indexed,
    stillIndexedAtEnd: state.bookLiq.size,
    markets: pairs.length,
    blocks,
    liquidatedDuringRun: liquidated,
    mostLiquidatedInOneBlock: mostInABlock,
    msPerLiquidation: busy.length ? quantiles(busy, 3) : null,
    checkMsPerBlock: quantiles(perBlock, 3),
    checkMsBlocksWithNothingLiquidated: quiet.length ? quantiles(quiet, 3) : null,
    scanOnlyMs: quantiles(scanOnly, 3),
    setupMs: Math.round(setupMs),
    conditions: `in-process state, no disk; ${positions} orderbook positions (opposite pairs) on ${pairs.length} markets, leverage 2 to each market's maximum, entries ±0.2% of start (none liquidatable at the start); blocks 22 ms apart with every oracle on a ±10 bps random walk; liquidateBook alone timed (cancels, takeover, events included), invariants and flush excluded; load avg ${os.loadavg()[0].toFixed(1)}`,
  };
}

/** Perp opens through REST to final on a node process. */
async function benchPerpOpens(opts: { opens?: number; concurrency?: number } = {}): Promise<Record<string, unknown>> {
  const total = opts.opens ?? 4000;
  const concurrency = opts.concurrency ?? 256;
  const { base, stop } = await singleNode('bench-perp-');
  try {
    await waitFor(async () => {
      const m = (await (await fetch(`${base}/v1/perp/markets`)).json()) as { data: { pairId: number; oracleFresh: boolean }[] };
      return m.data.filter((x) => (x.pairId === 1 || x.pairId === 2) && x.oracleFresh).length === 2 || undefined;
    }, 30_000, 'fresh oracle prices');
    const accounts = DEVNET_KEYS.accounts.slice(0, 16);
    // Millisecond timestamps, one apart, inside the window of decision 97.
    let nonce = BigInt(Date.now()) - 2n * 3_600_000n;
    const bodies: string[] = [];
    for (let i = 0; i < total; i++) {
      const acc = accounts[i % accounts.length];
      const fields = { wallet: acc.address, pairId: i % 2 ? 1 : 2, isLong: (i >> 1) % 2 === 0, leverage: 5, margin: '10', nonce: nonce++, nonceQuoted: true };
      const signature = sign(hashPersonalMessage(perpOpenMessage(fields)), hexToBytes(acc.privateKey));
      bodies.push(JSON.stringify({ action: 'perp_open', wallet: fields.wallet, pairId: fields.pairId, isLong: fields.isLong, leverage: fields.leverage, margin: fields.margin, nonce: fields.nonce.toString(), signature: bytesToHex(signature) }));
    }
    const pool = new Pool(base, { connections: 32, pipelining: 8 });
    const { seconds: secs, latencies, statuses } = await closedLoop([pool], '/v1/perp/open', bodies, concurrency);
    await pool.close();
    const lat = quantiles(latencies, 3);
    return {
      opens: total,
      concurrency,
      opensPerSecToFinal: Math.round(total / secs),
      latencyMsP50: lat.p50,
      latencyMsP99: lat.p99,
      statuses: Object.fromEntries(statuses),
      conditions: `node process + load process (undici Pool, 32 connections × 8 pipelined) on ${os.cpus().length} cores; fsync per block; opens pre-signed by 16 accounts, ETH and BTC, 10 USDC at 5x; oracle actor running; load avg ${os.loadavg()[0].toFixed(1)}`,
    };
  } finally {
    await stop();
  }
}

export async function benchPerps(): Promise<Record<string, unknown>> {
  return { checks: benchPerpChecks(), bookLiquidation: benchBookLiquidation(), restOpens: await benchPerpOpens() };
}
