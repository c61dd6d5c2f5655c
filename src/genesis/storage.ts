/**
 * The genesis section `storage` (issue 27): what each node keeps on disk. Not consensus
 * state (no node's execution reads it), but every node of a network follows it so that
 * peers find the same snapshots to join from. Optional, as each of its fields.
 *  - retainBlocks: the newest blocks a node keeps by default (src/chain/prune.ts,
 *    decision 132; `--retain-blocks`, `--archive` override); absent: every block. At least 100.
 *  - snapshotIntervalBlocks: a state snapshot at every height that is a multiple of it
 *    (src/storage/snapshot-store.ts, decision 136); absent: none. 10 .. 10,000,000.
 *  - snapshotKeep: how many of the newest snapshots each node keeps (default 2). 1 .. 100.
 */
import { int, MAX_SAFE, object } from './fields';
import type { StorageParams } from './types';

const SNAPSHOT_INTERVAL_MIN_BLOCKS = 10;
const SNAPSHOT_INTERVAL_MAX_BLOCKS = 10_000_000;
const SNAPSHOT_KEEP_MAX = 100;
/** The fewest blocks genesis may make a node keep by default (src/chain/prune.ts RETAIN_BLOCKS_MIN, restated: the core imports no chain module). */
const GENESIS_RETAIN_BLOCKS_MIN = 100;

export function parseStorage(value: unknown, path: string): StorageParams | undefined {
  if (value === undefined) return undefined;
  const o = object(value, path, [], ['retainBlocks', 'snapshotIntervalBlocks', 'snapshotKeep']);
  const out: StorageParams = {};
  if (o.retainBlocks !== undefined) out.retainBlocks = int(o.retainBlocks, `${path}.retainBlocks`, GENESIS_RETAIN_BLOCKS_MIN, MAX_SAFE);
  if (o.snapshotIntervalBlocks !== undefined) out.snapshotIntervalBlocks = int(o.snapshotIntervalBlocks, `${path}.snapshotIntervalBlocks`, SNAPSHOT_INTERVAL_MIN_BLOCKS, SNAPSHOT_INTERVAL_MAX_BLOCKS);
  if (o.snapshotKeep !== undefined) out.snapshotKeep = int(o.snapshotKeep, `${path}.snapshotKeep`, 1, SNAPSHOT_KEEP_MAX);
  return out;
}
