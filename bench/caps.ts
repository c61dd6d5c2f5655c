/**
 * What the agent checks cost: orderbook execution throughput for orders signed by
 * session keys under caps (mode ACTIVE, caps set loose enough that every check runs and
 * passes) against the same orders signed by their owners without caps, in the same run.
 *
 * Execution level, as bench/chain.ts: blocks of `perBlock` native PlaceOrder transactions
 * applied and committed through Chain.commit (LevelDB, fsync off so the disk does not
 * drown the difference). Both streams are identical: the same owners, sides, types,
 * prices and sizes in the same order (seeded), so the books evolve identically; only the
 * signer differs. Signatures are made before the clock starts. Two variants:
 *   - `verified`: the proposer's path (the mempool already recovered each signer and hands
 *     the cache to execution), the strictest view of the per-order cost of the checks;
 *   - `recovering`: execution recovers every signature itself (a follower's path).
 * Each variant runs `rounds` rounds on fresh chains, A and B block by block side by side
 * (alternating which goes first, so other load on the machine falls on both alike).
 * costPct = median over blocks of (B block time ÷ A block time) − 1, in percent;
 * costPctCpu the same with the process's CPU time per block (user + system, all threads),
 * which other processes on a loaded machine disturb less; costPctOfTotals over whole
 * rounds (wall time). The target is < 5.
 *
 * Standalone: `node --import tsx bench/caps.ts [perBlock] [blocks] [rounds]`.
 */
import { pathToFileURL } from 'node:url';
import { bytesToHex, type Address } from '../src/util/bytes';
import { agentOrderRefusal } from '../src/state/agents';
import type { Tx } from '../src/codec/tx';
import { accounts, genesis, Harness, seededKey, txs, type Key, type PlaceParams } from '../test/sessions/harness';

export interface CapsBenchOptions {
  perBlock?: number;
  blocks?: number;
  rounds?: number;
  owners?: number;
  seed?: number;
}

const TICK = 10_000n; // ETH tick: 0.01 USDC
const LOT = 10n ** 15n; // ETH lot: 0.001
const MID_TICKS = 300_000n; // 3000 USDC

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Spec {
  owner: number;
  p: Omit<PlaceParams, 'nonce'>;
}

/** ~70% resting limits around the mid, ~20% crossing limits, ~10% market orders; 5..40 lots. */
function stream(n: number, owners: number, seed: number): Spec[] {
  const r = rng(seed);
  const out: Spec[] = [];
  for (let i = 0; i < n; i++) {
    const side = r() < 0.5 ? 0 : 1;
    const lots = BigInt(5 + Math.floor(r() * 36));
    const u = r();
    const leverage = 1 + Math.floor(r() * 5);
    let p: Spec['p'];
    if (u < 0.7) {
      const off = BigInt(1 + Math.floor(r() * 50));
      p = { pairId: 1, side, orderType: 1, price: (side === 0 ? MID_TICKS - off : MID_TICKS + off) * TICK, size: lots * LOT, leverage };
    } else if (u < 0.9) {
      const through = BigInt(Math.floor(r() * 5));
      p = { pairId: 1, side, orderType: 1, price: (side === 0 ? MID_TICKS + through : MID_TICKS - through) * TICK, size: lots * LOT, leverage };
    } else {
      p = { pairId: 1, side, orderType: 0, price: 0n, size: lots * LOT, leverage };
    }
    out.push({ owner: Math.floor(r() * owners), p });
  }
  return out;
}

/** One chain ready to time: its blocks pre-signed, the setup committed. */
interface Prepared {
  h: Harness;
  blocks: Tx[][];
  verified?: Map<string, Address>;
  secs: number[];
  /** Process CPU time (user + system, all threads) per block: less disturbed by other load than wall time. */
  cpuSecs: number[];
  ok: number;
  failed: number;
  agentOrders: number;
}

async function prepare(specs: Spec[], perBlock: number, owners: Key[], keys: Key[] | null, verifiedPath: boolean): Promise<Prepared> {
  const h = await Harness.open(false);
  let nonce = 1n;
  if (keys) {
    // Untimed setup of the session-key stream: a session and caps per owner.
    const expiresAt = BigInt(Math.floor(genesis.genesisTimeMs / 1000) + 86_400);
    const setup: Tx[] = [];
    owners.forEach((o, i) => {
      setup.push(txs.sessionCreate(o.address, o, { sessionKey: keys[i].address, expiresAt, nonce: nonce++ }));
      setup.push(txs.caps(o.address, o, { maxLeverage: 500_000n, allowedOrderTypes: 3, maxInputPerTrade: 10n ** 12n, maxTotalPosition: 10n ** 24n, nonce: nonce++ }));
    });
    for (const r of await h.block(setup)) if (r.status !== 'ok') throw new Error(`setup failed: ${r.code} ${r.message}`);
  } else {
    await h.block([]);
  }
  const nonces = new Map<Address, bigint>();
  const signers: Address[] = [];
  const signed: Tx[] = specs.map((s) => {
    const owner = owners[s.owner];
    const by = keys ? keys[s.owner] : owner;
    const n = (nonces.get(by.address) ?? 0n) + 1n;
    nonces.set(by.address, n);
    signers.push(by.address);
    return txs.place(owner.address, by, { ...s.p, nonce: n }, 65);
  });
  const verified = verifiedPath ? new Map(signed.map((t, i) => [bytesToHex(t.hash), signers[i]] as [string, Address])) : undefined;
  const blocks: Tx[][] = [];
  for (let b = 0; b < signed.length; b += perBlock) blocks.push(signed.slice(b, b + perBlock));
  return { h, blocks, verified, secs: [], cpuSecs: [], ok: 0, failed: 0, agentOrders: 0 };
}

async function timeBlock(p: Prepared, i: number): Promise<void> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const receipts = await p.h.block(p.blocks[i], undefined, p.verified);
  p.secs.push((performance.now() - start) / 1000);
  const used = process.cpuUsage(cpu);
  p.cpuSecs.push((used.user + used.system) / 1e6);
  for (const r of receipts) {
    if (r.status !== 'ok') p.failed++;
    else {
      p.ok++;
      if (r.events.some((e) => e.type === 'OrderPlaced' && e.isAgent === true)) p.agentOrders++;
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * A and B run side by side on two chains, block by block, alternating which goes first,
 * so that load from other processes falls on both alike. The cost is the median over
 * all blocks of B's block time ÷ A's same block time, minus one.
 */
async function variant(specs: Spec[], perBlock: number, rounds: number, owners: Key[], keys: Key[], verifiedPath: boolean) {
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const totals: { a: number; b: number }[] = [];
  let last: { a: Prepared; b: Prepared } | undefined;
  for (let round = -1; round < rounds; round++) {
    const slice = round < 0 ? specs.slice(0, perBlock * 2) : specs; // round −1 warms the JIT up
    const a = await prepare(slice, perBlock, owners, null, verifiedPath);
    const b = await prepare(slice, perBlock, owners, keys, verifiedPath);
    try {
      for (let i = 0; i < a.blocks.length; i++) {
        if (i % 2 === 0) {
          await timeBlock(a, i);
          await timeBlock(b, i);
        } else {
          await timeBlock(b, i);
          await timeBlock(a, i);
        }
      }
    } finally {
      await a.h.close();
      await b.h.close();
    }
    if (round < 0) continue;
    a.secs.forEach((ta, i) => ratios.push(b.secs[i] / ta));
    a.cpuSecs.forEach((ta, i) => cpuRatios.push(b.cpuSecs[i] / ta));
    totals.push({ a: sum(a.secs), b: sum(b.secs) });
    last = { a, b };
  }
  const { a, b } = last!;
  if (a.ok !== b.ok) throw new Error(`the two streams diverged: ${a.ok} vs ${b.ok} accepted orders`);
  if (b.agentOrders !== b.ok || a.agentOrders !== 0) throw new Error('agent flags: every session-key order and no owner order must be an agent order');
  const n = specs.length;
  return {
    ownerNoCapsTxPerSec: Math.round(n / median(totals.map((t) => t.a))),
    sessionKeyCapsTxPerSec: Math.round(n / median(totals.map((t) => t.b))),
    costPct: +((median(ratios) - 1) * 100).toFixed(2),
    costPctCpu: +((median(cpuRatios) - 1) * 100).toFixed(2),
    costPctOfTotals: +((median(totals.map((t) => t.b / t.a)) - 1) * 100).toFixed(2),
    accepted: a.ok,
    rejected: a.failed,
    pairedBlocks: ratios.length,
  };
}

/** ns per call of the per-order agent check alone (caps set, every check run). */
function microCheck(iterations = 2_000_000): number {
  const rec = { mode: 'active' as const, caps: { maxLeverageBps: 500_000n, allowedOrderTypes: 3, maxInputPerTrade: 10n ** 12n, maxTotalPosition: 10n ** 24n } };
  const order = { side: 0 as const, orderType: 1 as const, price: 3_000_000_000n, size: 25n * LOT, leverage: 3 };
  const position = { size: 7n * LOT, cost: 21_000_000n, margin: 7_000_000n };
  let refused = 0;
  const start = performance.now();
  for (let i = 0; i < iterations; i++) if (agentOrderRefusal(rec, order, position, [])) refused++;
  const ns = ((performance.now() - start) * 1e6) / iterations;
  if (refused) throw new Error('micro: unexpected refusal');
  return +ns.toFixed(1);
}

export async function benchCaps(opts: CapsBenchOptions = {}): Promise<Record<string, unknown>> {
  const perBlock = opts.perBlock ?? 1_000;
  const blocks = opts.blocks ?? 20;
  const rounds = opts.rounds ?? 5;
  const ownerCount = opts.owners ?? 20;
  const owners = accounts.slice(0, ownerCount);
  const keys = owners.map((_, i) => seededKey(10_000 + i));
  const specs = stream(perBlock * blocks, ownerCount, opts.seed ?? 7);
  return {
    conditions: `${perBlock * blocks} native PlaceOrder txs on ETH in blocks of ${perBlock}, ${ownerCount} owners, ${rounds} rounds, A and B block by block side by side, fsync off; A = owner-signed, no caps; B = session-key-signed, mode ACTIVE, caps set (all checks run and pass)`,
    verified: await variant(specs, perBlock, rounds, owners, keys, true),
    recovering: await variant(specs, perBlock, rounds, owners, keys, false),
    agentCheckNsPerOrder: microCheck(),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [perBlock, blocks, rounds] = process.argv.slice(2).map(Number);
  benchCaps({ perBlock: perBlock || undefined, blocks: blocks || undefined, rounds: rounds || undefined })
    .then((r) => {
      for (const [k, v] of Object.entries(r)) console.log(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
    })
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
