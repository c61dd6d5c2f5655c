/**
 * Downtime (contract [C-state-validator] active → jailed, [C-limits-slashing],
 * [D-validators-downtime]; decision 72): at the start of every block h that carries the
 * commit of its parent, each validator that was to sign h − 1 (the signing set of that
 * height, src/state/validators/signing-sets.ts: not today's set, which an epoch boundary
 * or a jailing at h − 1 may have changed) and is still active, but whose signature the
 * commit lacks, has h − 1 added to its missed heights. With N = downtimeWindowBlocks
 * and allowed = floor(N × downtimeMaxMissedBps / 10,000), a validator whose missed
 * heights among the last N exceed `allowed` is jailed through jailForDowntime
 * (slashDowntimeBps slashed; refused, and counted on, while the floor of activeSetMin
 * candidates holds it).
 *
 * No full window is waited for: the count only ever holds heights the validator was to
 * sign, so exceeding `allowed` is already more than the share of any N heights; a
 * validator seated offline is jailed after allowed + 1 blocks, not after N.
 *
 * The misses are kept as runs of consecutive heights (TableId.Downtime), trimmed to the
 * window when written: a validator that signs writes nothing, one that is offline
 * rewrites one short record per block. A record is dropped when its validator is
 * jailed, or is no longer an active member of the signing set (left at a boundary,
 * jailed, tombstoned, unbonding): its window starts afresh when it is seated again, so
 * an unjailed validator starts from zero and nobody is counted for a height before it
 * joined the set. Iteration is by ascending address; everything is integer arithmetic.
 */
import type { Commit } from '../../codec/block';
import type { Address } from '../../util/bytes';
import type { ChainEvent } from '../events';
import type { ChainParams } from '../records';
import { InvariantError, type State } from '../state';
import { jailForDowntime } from './penalties';
import { validatorRecord } from './records';
import { signingSetAt } from './signing-sets';
import type { DowntimeRecord } from './types';

type Run = readonly [number, number];

/** The most missed heights of a window that do not jail. */
export function allowedMissedBlocks(params: ChainParams): number {
  const c = params.consensus;
  return Math.floor((c.downtimeWindowBlocks * c.downtimeMaxMissedBps) / 10_000);
}

/** Missed heights of `runs` at or above `lowest`. */
function countFrom(runs: readonly Run[], lowest: number): number {
  let n = 0;
  for (const [first, last] of runs) if (last >= lowest) n += last - Math.max(first, lowest) + 1;
  return n;
}

/** `runs` with `height` (above every run) added, trimmed to the window that ends at `height`. */
export function withMiss(runs: readonly Run[], height: number, windowBlocks: number): Run[] {
  const lowest = height - windowBlocks + 1;
  const kept: Run[] = [];
  for (const [first, last] of runs) if (last >= lowest) kept.push([Math.max(first, lowest), last]);
  const tail = kept[kept.length - 1];
  if (tail && tail[1] === height - 1) kept[kept.length - 1] = [tail[0], height];
  else kept.push([height, height]);
  return kept;
}

/**
 * The heights an active validator missed among the last `downtimeWindowBlocks` counted
 * at head `headHeight` (whose newest counted height is headHeight − 1): what GET
 * /v1/validators shows.
 */
export function missedBlocks(state: State, params: ChainParams, address: Address, headHeight: number): number {
  const rec = state.downtime.get(address);
  if (!rec) return 0;
  return countFrom(rec.runs, headHeight - params.consensus.downtimeWindowBlocks);
}

/**
 * Start of block `height`: counts the signatures `lastCommit` lacks. A block without a
 * last commit (height 1; consensus refuses one above, but the solo producer's first block
 * after a start and execution-only tests build them) counts nothing.
 */
export function beginBlockDowntime(state: State, params: ChainParams, height: number, lastCommit: Commit | null, emit: (e: ChainEvent) => void): void {
  if (lastCommit === null) return;
  const counted = height - 1;
  if (lastCommit.height !== counted) throw new InvariantError(`block ${height} carries the commit of height ${lastCommit.height}`);
  const signers = signingSetAt(state, params, counted, height);

  // Forget whoever is no longer an active member of the set: its window starts afresh.
  for (const a of state.downtime.sortedKeys() as Address[]) {
    if (!signers.has(a) || validatorRecord(state, a)?.status !== 'active') state.downtime.delete(a);
  }

  const signed = new Set<string>();
  for (const s of lastCommit.signatures) signed.add(s.validator.toLowerCase());
  const allowed = allowedMissedBlocks(params);
  const windowBlocks = params.consensus.downtimeWindowBlocks;
  for (const a of [...signers].sort()) {
    if (signed.has(a)) continue;
    if (validatorRecord(state, a)?.status !== 'active') continue;
    const runs = withMiss(state.downtime.get(a)?.runs ?? [], counted, windowBlocks);
    const missed = countFrom(runs, counted - windowBlocks + 1);
    if (missed > allowed) {
      const before = validatorRecord(state, a)!.context.bondWei;
      const res = jailForDowntime(state, params, a, height);
      if (res.record) {
        state.downtime.delete(a);
        emit({
          type: 'ValidatorJailed',
          validator: a,
          missed,
          slashedWei: before - res.record.context.bondWei,
          burnedWei: res.burnedWei,
          jailedUntilEpoch: res.record.context.jailedUntilEpoch,
        });
        continue;
      }
      // Refused by the floor: it stays active, and its misses keep counting.
    }
    const record: DowntimeRecord = { runs };
    state.downtime.set(a, record);
  }
}
