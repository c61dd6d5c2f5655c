/**
 * `npm run bench -- timers` (issue 24, decisions 90–91): the end-of-block cost of the
 * timers with 10,000 active, on an in-memory devnet state (no disk: the figure is
 * execution's cost), one block per second of block time:
 *   1. scheduled cancels: 10,000 traders each with a resting order and a schedule, the
 *      schedules 10 days ahead and one a second from there; per block p50/p99 of
 *      endBlockScheduledCancels in 600 blocks where nothing is due (idle), then in 200
 *      blocks where one is due (one trader's order cancelled);
 *   2. TWAPs: 10,000 running TWAPs (buys of 10 ETH over 24 h) started across one 30 s
 *      slice interval, so each one-second block slices about 1/30 of them against a
 *      deep resting ask (one IOC market order each, matched and settled); per block
 *      p50/p99 of endBlockTwaps, and per slice.
 */
import { ZERO_HASH, type BlockHeader } from '../src/codec/block';
import type { ChainEvent, ExecContext } from '../src/state/context';
import { genesisState } from '../src/state/genesis';
import { setOracleMedian } from '../src/state/oracle';
import { placeOrder } from '../src/state/orders/execution';
import { endBlockScheduledCancels, scheduleCancel } from '../src/state/timers/scheduled-cancels';
import { endBlockTwaps, placeTwap } from '../src/state/timers/twap';
import { credit, mint } from '../src/state/accounts/vault';
import type { Address } from '../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../test/helpers/devnet';
import { quantiles } from './quantiles';

const USDC = 1_000_000n;
const ETH = 1;
const ONE = 10n ** 18n;

function world() {
  const { genesis, hash } = devnetGenesis(1);
  const state = genesisState(genesis, hash).state;
  const clock = { now: genesis.genesisTimeMs + 1000, height: 1 };
  const events: ChainEvent[] = [];
  const header = (): BlockHeader => ({
    chainId: genesis.chainId, height: clock.height, timestampMs: clock.now, round: 0, parentHash: ZERO_HASH, parentStateRoot: ZERO_HASH, validatorsHash: ZERO_HASH,
    proposer: DEVNET_KEYS.validators[0].address, txRoot: ZERO_HASH, txCount: 0, lastCommitHash: ZERO_HASH, vrfProof: new Uint8Array(80),
  });
  const ctx = (): ExecContext => ({ state, params: state.params(), header: header(), emit: (e) => events.push(e) });
  const price = genesis.pairs.find((p) => p.id === ETH)!.initialPrice;
  const fund = (a: Address, usdc: bigint) => {
    mint(state, usdc, 0n);
    credit(state, a, usdc);
  };
  const next = () => {
    state.flush();
    events.length = 0;
    clock.now += 1000;
    clock.height++;
    setOracleMedian(state, ETH, price, clock.now);
  };
  return { state, clock, ctx, price, fund, next };
}

const trader = (i: number) => `0x${(0xc0000000 + i).toString(16).padStart(40, '0')}` as Address;

/** The schedules are set this far (10 days) after the first block. */
const FAR_MS = 864_000_000;

function benchScheduledCancels(active = 10_000, blocks = 600): Record<string, unknown> {
  const w = world();
  const start = w.clock.now;
  for (let i = 0; i < active; i++) {
    const t = trader(i);
    w.fund(t, 10_000n * USDC);
    placeOrder(w.ctx(), { owner: t, signer: t, pairId: ETH, side: 0, orderType: 1, price: w.price / 2n, size: ONE / 100n, leverage: 1, isAgent: false });
    // Due from FAR_MS on, one a second: the idle blocks come before the first.
    scheduleCancel(w.ctx(), t, BigInt(start + FAR_MS + i * 1000));
  }
  w.next();
  const idle: number[] = [];
  for (let b = 0; b < blocks; b++) {
    const c = w.ctx();
    const t0 = performance.now();
    endBlockScheduledCancels(c);
    idle.push(performance.now() - t0);
    w.next();
  }
  // Blocks where one schedule is due: move the clock onto the schedules' times.
  const firing: number[] = [];
  w.clock.now = start + FAR_MS - 1000;
  for (let b = 0; b < 200; b++) {
    w.next();
    const c = w.ctx();
    const t0 = performance.now();
    endBlockScheduledCancels(c);
    firing.push(performance.now() - t0);
  }
  return { active, idleBlockMs: quantiles(idle, 4), oneDueBlockMs: quantiles(firing, 4), stillScheduled: w.state.cancelsDue.size };
}

function benchTwaps(active = 10_000, blocks = 120): Record<string, unknown> {
  const w = world();
  const maker = trader(900_000);
  w.fund(maker, 10n ** 10n * USDC);
  setOracleMedian(w.state, ETH, w.price, w.clock.now);
  placeOrder(w.ctx(), { owner: maker, signer: maker, pairId: ETH, side: 1, orderType: 1, price: w.price, size: 1_000_000n * ONE, leverage: 1, isAgent: false });
  // 10,000 TWAPs started across one 30 s interval: each one-second block slices ~1/30 of them.
  for (let i = 0; i < active; i++) {
    const t = trader(i);
    w.fund(t, 100_000n * USDC);
    placeTwap({ ...w.ctx(), header: { ...w.ctx().header, timestampMs: w.clock.now + (i % 30) * 1000 } }, { owner: t, pairId: ETH, side: 0, size: 10n * ONE, minutes: 1440, randomize: i % 2 === 0 });
  }
  w.next();
  const perBlock: number[] = [];
  let slices = 0;
  for (let b = 0; b < blocks; b++) {
    const c = w.ctx();
    const before = w.state.twapsDue.due(w.clock.now).length;
    const t0 = performance.now();
    endBlockTwaps(c);
    perBlock.push(performance.now() - t0);
    slices += before;
    w.next();
  }
  const total = perBlock.reduce((s, x) => s + x, 0);
  return { active, blocks, slicesPerBlock: Math.round(slices / blocks), blockMs: quantiles(perBlock, 4), perSliceUs: +((total * 1000) / slices).toFixed(1) };
}

export async function benchTimers(): Promise<Record<string, unknown>> {
  return { scheduledCancels: benchScheduledCancels(), twaps: benchTwaps() };
}
