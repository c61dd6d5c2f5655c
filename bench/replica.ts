/**
 * What one validator spends per order, in one process without the network: the work
 * every replica repeats for every order of a block. Blocks of signed POST /v1/order/batch
 * transactions (10 orders each, the stream the network bench sends) go through
 *  - admit: decode and signature check at the mempool door (TxPool.addBytes);
 *  - decode: the proposal's transactions decoded again, as a replica validates it;
 *  - apply: execution, the state root and the store's write batch (Chain.commit);
 *  - index: the read-side index (Indexer.indexBlock);
 * and the signature recoveries per transaction over all four (the pool's SignerCache
 * counters: 1 when execution reuses the signer admission recovered, issue 25).
 * Figures are µs of this process's CPU per order (user + system, all threads), fsync off
 * so disk waits do not count; and the same blocks' wall time with fsync on.
 * Also the index's record cache once full (a new record, a hit, an update per round):
 * BoundedCache against the strict Map LRU it replaced.
 */
import { decodeTx, encodeTx, TxKind, type Tx } from '../src/codec/tx';
import { canonicalCommit, type Block } from '../src/codec/block';
import { Chain } from '../src/chain/chain';
import { Indexer, ORDER_CACHE_MAX } from '../src/indexer/indexer';
import { BoundedCache } from '../src/util/cache';
import { TxPool } from '../actors/mempool/pool';
import { batchDigest, placeOrderDigest, restSigningHash } from '../src/signing/exchange-digest';
import { sign } from '../src/crypto/secp256k1';
import { hexToBytes, type Address } from '../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, tempDir } from '../test/helpers/devnet';
import { benchOrder } from './load';

const { genesis, hash } = devnetGenesis(6);
const proposer = DEVNET_KEYS.validators[0].address;
const commitOf = (b: Block) => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });
const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** `blocks` blocks of `txsPerBlock` signed batch transactions of 10 orders each. */
export function batchBlocks(blocks: number, txsPerBlock: number, perTx: number): Uint8Array[][] {
  const accounts = DEVNET_KEYS.accounts.slice(0, 16);
  let nonce = 1_000_000n;
  const out: Uint8Array[][] = [];
  let i = 0;
  for (let b = 0; b < blocks; b++) {
    const txs: Uint8Array[] = [];
    for (let t = 0; t < txsPerBlock; t++) {
      const k = b * txsPerBlock + t;
      const acc = accounts[k % accounts.length];
      const sell = k % 2 === 1;
      const orders = [];
      for (let j = 0; j < perTx; j++, i++) orders.push(benchOrder(i, j % 2 ? 'ETH' : 'BTC', sell));
      if (perTx === 1) {
        const n = nonce++;
        const o = { ...orders[0], type: 'limit' };
        const signature = sign(restSigningHash(placeOrderDigest({ ...o, nonce: n })), hexToBytes(acc.privateKey));
        txs.push(encodeTx(genesis.chainId, TxKind.RestOrder, { trader: acc.address as Address, ...o, nonce: n, signature }).bytes);
        continue;
      }
      const n = nonce++;
      const signature = sign(restSigningHash(batchDigest(orders, n)), hexToBytes(acc.privateKey));
      txs.push(encodeTx(genesis.chainId, TxKind.RestBatch, { trader: acc.address as Address, orders, nonce: n, signature }).bytes);
    }
    out.push(txs);
  }
  return out;
}

async function run(prepared: Uint8Array[][], syncWrites: boolean, perTx: number) {
  const dir = tempDir('bench-replica-');
  const chain = await Chain.open({ dataDir: `${dir.path}/chain`, genesis, genesisHash: hash, syncWrites });
  const indexer = await Indexer.open(`${dir.path}/index`);
  const pool = new TxPool({ maxTxs: 100_000, maxBytes: 1 << 30, maxTxBytes: 1 << 20 }, () => chain.state);
  const spent = { admit: 0, decode: 0, apply: 0, index: 0 };
  let t = genesis.genesisTimeMs;
  let orders = 0;
  let txCount = 0;
  const wall0 = performance.now();
  for (const txs of prepared) {
    let c = cpuUs();
    for (const bytes of txs) pool.addBytes(bytes);
    spent.admit += cpuUs() - c;
    c = cpuUs();
    const decoded: Tx[] = txs.map((b) => decodeTx(b, 1 << 20));
    spent.decode += cpuUs() - c;
    // Outside the measured apply: the proposer's VRF proof (~6 ms a block, once per block, not per order).
    const block = chain.buildBlock({ txs, decoded, timestampMs: (t += 22), proposer, lastCommit: null, vrfKey: devnetVrfKey(0) });
    c = cpuUs();
    const result = await chain.commit(block, commitOf(block), pool.signers, decoded);
    pool.removeCommitted(result.receipts.map((r) => r.txHash));
    spent.apply += cpuUs() - c;
    c = cpuUs();
    await indexer.indexBlock(block.header.height, block.header.timestampMs, result.receipts, result.blockEvents);
    spent.index += cpuUs() - c;
    orders += txs.length * perTx;
    txCount += txs.length;
  }
  const wallMs = performance.now() - wall0;
  await indexer.close();
  await chain.close();
  dir.remove();
  const per = (us: number) => +(us / orders).toFixed(1);
  // Recoveries per transaction over admission and execution together: 1 when execution reuses every signer the door recovered.
  const signatures = pool.signers.stats();
  const signaturesPerTx = { recovered: +(signatures.recovered / txCount).toFixed(2), reused: +(signatures.reused / txCount).toFixed(2) };
  return { orders, signaturesPerTx, cpuUsPerOrder: { admit: per(spent.admit), decode: per(spent.decode), apply: per(spent.apply), index: per(spent.index), total: per(spent.admit + spent.decode + spent.apply + spent.index) }, wallUsPerOrder: +((wallMs * 1000) / orders).toFixed(1) };
}

/** The strict LRU on one Map the indexer used before BoundedCache, kept as this bench's baseline. */
class MapLru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.map.get(k);
    if (v !== undefined) {
      this.map.delete(k);
      this.map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.map.delete(k);
    this.map.set(k, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }
}

/** µs per index-cache round (a new order's record, a hit on a recent one, an update), the cache full at ORDER_CACHE_MAX. */
function cacheRound(cache: { get(k: string): unknown; set(k: string, v: unknown): void }): number {
  let id = 0;
  for (let i = 0; i < ORDER_CACHE_MAX * 1.2; i++) cache.set(String(id++), { i });
  const n = 200_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    cache.set(String(id++), { i });
    cache.get(String(id - 1 - (i % 500)));
    cache.set(String(id - 1 - (i % 300)), { i });
  }
  return +(((performance.now() - t0) * 1000) / n).toFixed(2);
}

export async function benchReplica(): Promise<Record<string, unknown>> {
  // BENCH_REPLICA_ORDERS_PER_TX=1: single POST /v1/order transactions instead of batches.
  const perTx = Number(process.env.BENCH_REPLICA_ORDERS_PER_TX ?? 10);
  const txsPerBlock = Number(process.env.BENCH_REPLICA_TXS ?? (perTx === 1 ? 48 : 24));
  const blocks = Number(process.env.BENCH_REPLICA_BLOCKS ?? 200);
  const warm = batchBlocks(40, txsPerBlock, perTx);
  await run(warm, false, perTx);
  const prepared = batchBlocks(blocks, txsPerBlock, perTx);
  // The machine is shared and noisy: the run with the least CPU of three is the cost.
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await run(prepared, false, perTx));
  const noSync = runs.sort((a, b) => a.cpuUsPerOrder.total - b.cpuUsPerOrder.total)[0];
  const synced = await run(prepared, true, perTx);
  return {
    block: `${txsPerBlock} ${perTx === 1 ? 'single-order' : 'batch'} transactions × ${perTx} orders, ${blocks} blocks, 16 accounts, every fourth order crossing`,
    cpuUsPerOrderFsyncOff: noSync.cpuUsPerOrder,
    signatureRecoveriesPerTx: noSync.signaturesPerTx.recovered,
    signatureReusesPerTx: noSync.signaturesPerTx.reused,
    cpuUsPerOrderTotalOfThreeRuns: runs.map((r) => r.cpuUsPerOrder.total),
    wallUsPerOrderFsyncOff: noSync.wallUsPerOrder,
    wallUsPerOrderFsyncOn: synced.wallUsPerOrder,
    indexCacheUsPerRound: { boundedCache: cacheRound(new BoundedCache<string, unknown>(ORDER_CACHE_MAX)), mapLruBefore: cacheRound(new MapLru<unknown>(ORDER_CACHE_MAX)) },
    conditions: 'one process, no network; CPU of all threads (LevelDB included) by phase, the least of three runs; a warm-up run of 40 blocks first',
  };
}
