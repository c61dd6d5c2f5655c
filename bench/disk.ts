/**
 * `npm run bench -- disk` (issue 27): bytes on disk per idle block and per order, the chain
 * store (`<data>/chain`) and the index (`<data>/index`) apart, and the growth per day at
 * the devnet's block rate. A real Chain and Indexer on LevelDB in a temporary folder, the
 * blocks built as the 6-validator devnet builds them (test/helpers/signed-chain.ts: the
 * drawn proposer's VRF proof, a stored commit of 5 of 6 real precommits, each block's
 * lastCommit with all 6, as a proposer holding the late precommits records it), each
 * block indexed after its commit as the indexer actor does. Three runs, each on fresh folders:
 *  - idle: blocks with no orders. An idle devnet block is not empty: each of the six
 *    validators signs one oracle observation a second (actors/oracle/oracle-actor.ts: the
 *    devnet source's price of every pair, for the second before), so the first block of
 *    each second here carries the six observations of the second before, the other ~44
 *    none (at 22 ms blocks);
 *  - single orders: `BENCH_DISK_SINGLE_TXS` (48) signed POST /v1/order transactions a
 *    block, and batches: `BENCH_DISK_BATCH_TXS` (24) signed POST /v1/order/batch
 *    transactions of 10 orders a block (bench/replica.ts's streams: 16 accounts, every
 *    fourth order crossing, the rest resting), each beside the same observations.
 * Sizes are the folders' file bytes: as the run left them (closed: LevelDB's log and
 * level-0 tables as written), then settled (reopened and compacted over the whole key
 * range, which flushes the log and rewrites every table once, old versions of overwritten
 * state records dropped). Per block and per order are the settled bytes beyond the
 * folder at genesis (itself settled); an order is charged only what its blocks added
 * beyond as many idle blocks. The chain store is split by bucket (LevelDB's
 * approximateSize of each key range, settled) so what pruning could drop (blocks,
 * commits, receipts, the tx index) stands apart from the state.
 *
 * Environment: BENCH_DISK_IDLE_BLOCKS (2,000), BENCH_DISK_ORDER_BLOCKS (200), BENCH_DISK_SINGLE_TXS (48),
 * BENCH_DISK_BATCH_TXS (24).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Chain } from '../src/chain/chain';
import { encodeTx, TxKind } from '../src/codec/tx';
import { signObservation, type ObservedPrice } from '../src/codec/txs/oracle';
import { Secp256k1Signer } from '../src/consensus/signer';
import { Indexer } from '../src/indexer/indexer';
import { DevnetPriceSource } from '../src/oracle/devnet-source';
import { DEVNET_ORACLE_SOURCE, oracleSourceOf } from '../src/state/pair-markets';
import { Bucket } from '../src/storage/db';
import { hexToBytes } from '../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, tempDir } from '../test/helpers/devnet';
import { buildSignedChain } from '../test/helpers/signed-chain';
import { bytesPerBlock, bytesPerDay, bytesPerOrder, gib } from './disk-growth';
import { batchBlocks } from './replica';

const { genesis, hash } = devnetGenesis(6);

/** File bytes of a LevelDB folder (its files' sizes) and the blocks the file system gave them. */
function folderBytes(dir: string): { bytes: number; allocated: number } {
  let bytes = 0;
  let allocated = 0;
  for (const name of readdirSync(dir)) {
    const s = statSync(join(dir, name));
    if (!s.isFile()) continue;
    bytes += s.size;
    allocated += s.blocks * 512;
  }
  return { bytes, allocated };
}

/** Above every key of both stores (their keys begin with a bucket byte below 0xff). */
const KEY_END = Uint8Array.of(0xff);

/**
 * Reopens a closed LevelDB folder and compacts its whole key range: the memtable
 * replayed from the log is written out and every level merged, so the size is the
 * settled one. Returns the settled chain store's bytes by bucket when asked.
 */
async function settle(dir: string, byBucket = false): Promise<Record<string, number> | undefined> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: 'view', valueEncoding: 'view' });
  await db.open();
  try {
    await db.compactRange(new Uint8Array(0), KEY_END);
    if (!byBucket) return undefined;
    const out: Record<string, number> = {};
    for (const b of Object.values(Bucket).filter((v): v is number => typeof v === 'number')) {
      out[Bucket[b]] = await db.approximateSize(Uint8Array.of(b), Uint8Array.of(b + 1));
    }
    return out;
  } finally {
    await db.close();
  }
}

/**
 * The transactions the six validators' oracle actors put in the block at `timestampMs`:
 * in the first block of each new second, one observation each of the second before
 * (the actor's default lag of 1 s), priced by the devnet source for every pair whose
 * oracle source is the devnet's (the actor's own selection, ascending by pair id).
 */
function oracleFeed(): (timestampMs: number, chain: Chain) => Uint8Array[] {
  const source = DevnetPriceSource.fromGenesis(genesis);
  const signers = DEVNET_KEYS.validators.slice(0, 6).map((v) => new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey)));
  let second = Math.floor(genesis.genesisTimeMs / 1000);
  return (timestampMs, chain) => {
    const now = Math.floor(timestampMs / 1000);
    if (now === second) return [];
    second = now;
    const observed = now - 1;
    const state = chain.state;
    const pairs = state.pairs
      .sortedKeys()
      .map((k) => state.pairs.get(k)!)
      .filter((p) => oracleSourceOf(p) === DEVNET_ORACLE_SOURCE)
      .sort((a, b) => a.id - b.id);
    const prices: ObservedPrice[] = pairs.map((p) => ({ pairId: p.id, price: source.price(p, observed) }));
    return signers.map((s) => encodeTx(genesis.chainId, TxKind.OracleObservation, signObservation(genesis.chainId, { validator: s.address, timestampMs: observed * 1000, prices }, s)).bytes);
  };
}

interface Sizes {
  /** As the run left the folder, closed. */
  raw: number;
  /** Reopened and compacted. */
  settled: number;
  /** The settled folder's file-system blocks. */
  settledAllocated: number;
}

interface RunResult {
  blocks: number;
  orders: number;
  txs: number;
  observations: number;
  chain: { genesis: number; after: Sizes; byBucket: Record<string, number> };
  index: { genesis: number; after: Sizes };
}

/** `blocks` blocks with the oracle observations and, when given, `orderTxs[h − 1]` in block h; `ordersPerTx` orders in each. */
async function run(blocks: number, orderTxs?: Uint8Array[][], ordersPerTx = 0): Promise<RunResult> {
  const dir = tempDir('bench-disk-');
  const chainDir = join(dir.path, 'chain');
  const indexDir = join(dir.path, 'index');
  try {
    // The folders at genesis, settled: what every figure is measured beyond.
    await (await Chain.open({ dataDir: chainDir, genesis, genesisHash: hash, syncWrites: false })).close();
    await (await Indexer.open(indexDir)).close();
    await settle(chainDir);
    await settle(indexDir);
    const chainGenesis = folderBytes(chainDir).bytes;
    const indexGenesis = folderBytes(indexDir).bytes;

    const indexer = await Indexer.open(indexDir);
    const feed = oracleFeed();
    let observations = 0;
    let orders = 0;
    let txs = 0;
    const built = await buildSignedChain({
      dataDir: chainDir,
      blocks,
      fullLastCommit: true,
      txsAt: (height, timestampMs, chain) => {
        const obs = feed(timestampMs, chain);
        const own = orderTxs?.[height - 1] ?? [];
        observations += obs.length;
        orders += own.length * ordersPerTx;
        txs += obs.length + own.length;
        return [...obs, ...own];
      },
      afterCommit: (block, result) => indexer.indexBlock(block.header.height, block.header.timestampMs, result.receipts, result.blockEvents),
    });
    await built.chain.close();
    await indexer.close();
    const rawChain = folderBytes(chainDir).bytes;
    const rawIndex = folderBytes(indexDir).bytes;
    const byBucket = (await settle(chainDir, true))!;
    await settle(indexDir);
    const c = folderBytes(chainDir);
    const i = folderBytes(indexDir);
    return {
      blocks,
      orders,
      txs,
      observations,
      chain: { genesis: chainGenesis, after: { raw: rawChain, settled: c.bytes, settledAllocated: c.allocated }, byBucket },
      index: { genesis: indexGenesis, after: { raw: rawIndex, settled: i.bytes, settledAllocated: i.allocated } },
    };
  } finally {
    dir.remove();
  }
}

const round = (n: number) => Math.round(n);
const per = (bytes: number, n: number) => +(bytes / n).toFixed(1);

export async function benchDisk(): Promise<Record<string, unknown>> {
  const idleBlocks = Number(process.env.BENCH_DISK_IDLE_BLOCKS ?? 2_000);
  const orderBlocks = Number(process.env.BENCH_DISK_ORDER_BLOCKS ?? 200);
  const singleTxs = Number(process.env.BENCH_DISK_SINGLE_TXS ?? 48);
  const batchTxs = Number(process.env.BENCH_DISK_BATCH_TXS ?? 24);

  const idle = await run(idleBlocks);
  const single = await run(orderBlocks, batchBlocks(orderBlocks, singleTxs, 1), 1);
  const batch = await run(orderBlocks, batchBlocks(orderBlocks, batchTxs, 10), 10);

  const idleChain = bytesPerBlock(idle.chain.after.settled, idle.chain.genesis, idle.blocks);
  const idleIndex = bytesPerBlock(idle.index.after.settled, idle.index.genesis, idle.blocks);
  const idleChainRaw = bytesPerBlock(idle.chain.after.raw, idle.chain.genesis, idle.blocks);
  const orderFigures = (r: RunResult) => ({
    chain: bytesPerOrder(r.chain.after.settled, r.chain.genesis, r.blocks, idleChain, r.orders),
    index: bytesPerOrder(r.index.after.settled, r.index.genesis, r.blocks, idleIndex, r.orders),
    chainRaw: bytesPerOrder(r.chain.after.raw, r.chain.genesis, r.blocks, idleChainRaw, r.orders),
    indexRaw: bytesPerOrder(r.index.after.raw, r.index.genesis, r.blocks, bytesPerBlock(idle.index.after.raw, idle.index.genesis, idle.blocks), r.orders),
  });
  const singleOrder = orderFigures(single);
  const batchOrder = orderFigures(batch);

  // The devnet's block rate: its genesis block time (22 ms, 45.5 blocks/s), which a quiet
  // machine reaches (43–45 blocks/s measured idle, docs/consensus.md); docs/performance.md's
  // idle runs on this shared machine made 2–18 blocks/s, so the genesis rate is the bound.
  const blocksPerSec = 1000 / genesis.consensus.blockTimeMs;
  const day = (idleBytesPerBlock: number, bytesPerOrderFigure: number, ordersPerSec: number) => gib(bytesPerDay({ idleBytesPerBlock, bytesPerOrder: bytesPerOrderFigure, blocksPerSec, ordersPerSec }));
  const idleRaw = idleChainRaw + bytesPerBlock(idle.index.after.raw, idle.index.genesis, idle.blocks);
  // totalRaw: at the raw (unsettled) figures, the bound of a store whose compactions lag.
  const growth = (o: { chain: number; index: number; chainRaw: number; indexRaw: number }) =>
    Object.fromEntries(
      [100, 1_000].map((rate) => [
        `${rate} orders/s`,
        { chain: day(idleChain, o.chain, rate), index: day(idleIndex, o.index, rate), total: day(idleChain + idleIndex, o.chain + o.index, rate), totalRaw: day(idleRaw, o.chainRaw + o.indexRaw, rate) },
      ]),
    );
  const bucketsPerBlock = (r: RunResult) => Object.fromEntries(Object.entries(r.chain.byBucket).filter(([, v]) => v > 0).map(([k, v]) => [k, per(v, r.blocks)]));

  return {
    idle: `${idle.blocks} blocks, ${idle.observations} oracle observations (6 validators × 1 a second at ${genesis.consensus.blockTimeMs} ms blocks: ${per(idle.observations, idle.blocks)} a block), stored commit 5 of 6 precommits, lastCommit 6 of 6`,
    idleBytesPerBlock: { chain: round(idleChain), index: round(idleIndex), chainRaw: round(idleChainRaw), indexRaw: round(bytesPerBlock(idle.index.after.raw, idle.index.genesis, idle.blocks)) },
    idleChainBytesPerBlockByBucket: bucketsPerBlock(idle),
    singleOrders: `${single.blocks} blocks × ${singleTxs} POST /v1/order transactions, ${single.orders} orders`,
    singleBytesPerOrder: { chain: round(singleOrder.chain), index: round(singleOrder.index), chainRaw: round(singleOrder.chainRaw), indexRaw: round(singleOrder.indexRaw) },
    singleChainBytesPerBlockByBucket: bucketsPerBlock(single),
    batchOrders: `${batch.blocks} blocks × ${batchTxs} POST /v1/order/batch transactions × 10 orders, ${batch.orders} orders`,
    batchBytesPerOrder: { chain: round(batchOrder.chain), index: round(batchOrder.index), chainRaw: round(batchOrder.chainRaw), indexRaw: round(batchOrder.indexRaw) },
    batchChainBytesPerBlockByBucket: bucketsPerBlock(batch),
    folderBytesAtGenesis: { chain: idle.chain.genesis, index: idle.index.genesis },
    settledAllocatedBytes: { idleChain: idle.chain.after.settledAllocated, singleChain: single.chain.after.settledAllocated, batchChain: batch.chain.after.settledAllocated, batchIndex: batch.index.after.settledAllocated },
    blocksPerSec: +blocksPerSec.toFixed(1),
    gibPerDayIdle: { chain: day(idleChain, 0, 0), index: day(idleIndex, 0, 0), total: day(idleChain + idleIndex, 0, 0), totalRaw: day(idleRaw, 0, 0) },
    gibPerDaySingleOrders: growth(singleOrder),
    gibPerDayBatchedOrders: growth(batchOrder),
    conditions: `one process, real Chain and Indexer on LevelDB (classic-level, snappy), fsync off (it changes no size); sizes are file bytes of each folder after reopening and compacting its whole key range (raw: as the run left it, closed), beyond the folder at genesis; an order's figure is what its blocks added beyond as many idle blocks; a day at the genesis block time ${genesis.consensus.blockTimeMs} ms (${blocksPerSec.toFixed(1)} blocks/s, ${(blocksPerSec * 86_400 / 1e6).toFixed(2)} M blocks); no pruning (issue 27)`,
  };
}
