/**
 * The disk bench's arithmetic (bench/disk.ts, issue 27): bytes per block and per order
 * from a measured store, and the growth per day at a block rate and an order rate. Pure:
 * no I/O, so test/bench/disk-growth.test.ts checks it on hand-worked figures.
 */

const SECONDS_PER_DAY = 86_400;

/** Bytes a run added to a folder, per block: (after − genesis) / blocks. */
export function bytesPerBlock(afterBytes: number, genesisBytes: number, blocks: number): number {
  if (!(blocks > 0)) throw new RangeError(`blocks ${blocks}`);
  return (afterBytes - genesisBytes) / blocks;
}

/**
 * Bytes per order of a run of order blocks: what the run added beyond what as many idle
 * blocks add (every block carries the idle block's header, commits and observations
 * whether or not it holds orders), over the orders.
 */
export function bytesPerOrder(afterBytes: number, genesisBytes: number, blocks: number, idleBytesPerBlock: number, orders: number): number {
  if (!(orders > 0)) throw new RangeError(`orders ${orders}`);
  return (afterBytes - genesisBytes - blocks * idleBytesPerBlock) / orders;
}

/**
 * Growth per day of a store whose blocks come at `blocksPerSec` whatever the load (the
 * chain makes a block every block time, empty or not) and whose orders come at
 * `ordersPerSec`: 86,400 × (blocks/s × idle bytes per block + orders/s × bytes per order).
 */
export function bytesPerDay(r: { idleBytesPerBlock: number; bytesPerOrder: number; blocksPerSec: number; ordersPerSec: number }): number {
  return SECONDS_PER_DAY * (r.blocksPerSec * r.idleBytesPerBlock + r.ordersPerSec * r.bytesPerOrder);
}

/** Bytes as GiB (2^30), two decimals. */
export function gib(bytes: number): number {
  return +(bytes / 2 ** 30).toFixed(2);
}
