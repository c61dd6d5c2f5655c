/**
 * The pure parts of `npm run bench -- join` (bench/join.ts): where a state-sync join's
 * time goes, read from the lines the node prints (src/cli/sync-progress.ts stateSyncLine,
 * so a change of their wording breaks this, not the bench silently), and the table's line.
 */
import { describe, expect, it } from 'vitest';
import { stateSyncLine } from '../../src/cli/sync-progress';
import { phaseSeconds, tableLine } from '../../bench/join';

const base = { chunksDone: 0, chunksTotal: 4, bytes: 0, bytesTotal: 4096, peers: 4 };

describe('bench join', () => {
  it('splits a join into phases by the first line of each, the last running to the head', () => {
    const lines = [
      { ms: 100, text: '{"level":30,"msg":"chain opened"}' },
      { ms: 1_000, text: stateSyncLine({ ...base, phase: 'offers' }, false) },
      { ms: 4_000, text: stateSyncLine({ ...base, phase: 'verifying', height: 10_000 }, false) },
      { ms: 4_500, text: stateSyncLine({ ...base, phase: 'chunks', height: 10_000 }, false) },
      { ms: 5_000, text: stateSyncLine({ ...base, phase: 'chunks', height: 10_000, chunksDone: 2 }, false) },
      { ms: 6_000, text: stateSyncLine({ ...base, phase: 'restoring', height: 10_000 }, false) },
      { ms: 6_200, text: stateSyncLine({ ...base, phase: 'done', height: 10_000, chunksDone: 4 }, false) },
    ];
    expect(phaseSeconds(lines, 9_200)).toEqual({ start: 1, offers: 3, lightProof: 0.5, chunks: 1.5, restore: 0.2, blockSync: 3 });
  });

  it('reports no phases for a join that printed none (block sync from genesis)', () => {
    expect(phaseSeconds([{ ms: 10, text: 'READY devnet' }], 1_000)).toEqual({});
  });

  it('prints both joins and block sync over state sync', () => {
    const line = tableLine({ blocks: 10_000, stateSyncS: 8, blockSyncS: 200 });
    expect(line).toContain('10000 blocks');
    expect(line).toContain('state sync    8.0 s');
    expect(line).toContain('block sync   200.0 s');
    expect(line).toContain('25.0×');
  });

  it('says the baseline was not run at a length past BENCH_JOIN_BASELINE_MAX', () => {
    const line = tableLine({ blocks: 30_000, stateSyncS: 8.25 });
    expect(line).toContain('state sync    8.3 s');
    expect(line).toContain('block sync   not run');
    expect(line).toMatch(/block\/state -$/);
  });

  it('shows when the joiner was seen exactly at the head, or that it was not', () => {
    expect(tableLine({ blocks: 1_000, stateSyncS: 6, stateSyncExactS: 7.44, blockSyncS: 30 })).toContain('state sync    6.0 s (exactly at the head: 7.4 s) | block sync');
    expect(tableLine({ blocks: 1_000, stateSyncS: 6, stateSyncExactS: null })).toContain('(exactly at the head: not seen)');
  });
});
