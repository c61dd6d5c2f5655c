/**
 * Reads of data this node no longer keeps (issue 27, decision 135): a block below the
 * chain store's base, index records older than the index's retention. They answer 410
 * PRUNED with the lowest height (or block time) kept in `error.details`; a height that
 * was never there (above the head) keeps its 404.
 */
import type { LowestKept, RetainedKind } from '../indexer/retention';
import { ApiError } from './envelope';
import type { BlockReader } from './node-api';

/** The store's base (1 when it keeps every block). */
export async function lowestHeight(store: BlockReader): Promise<number> {
  return (await store.base?.()) ?? 1;
}

/** Throws 410 PRUNED when `height` (≥ 1) lies below the store's base. */
export async function refusePrunedHeight(store: BlockReader, height: number, what: string): Promise<void> {
  const base = await lowestHeight(store);
  if (height >= 1 && height < base) throw new ApiError(410, 'PRUNED', `${what} at height ${height} is pruned: this node keeps blocks from height ${base} on`, undefined, { lowestHeight: base });
}

/** Throws 410 PRUNED when a query reaches back (startTime) before the oldest `kind` record the index keeps. */
export function refusePrunedTime(lowest: LowestKept, kind: RetainedKind, startTime: number | undefined): void {
  const kept = lowest[kind];
  if (kept === null || startTime === undefined || startTime >= kept) return;
  throw new ApiError(410, 'PRUNED', `${kind} before ${kept} (Unix ms, block time) are pruned from this node's index`, undefined, { lowestTime: kept });
}
