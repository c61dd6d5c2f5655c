/**
 * The command line's sync progress (src/cli/sync-progress.ts): read from /status's `sync`
 * field, tolerant of its absence; a bar redrawn in place on a terminal, a plain line every
 * PLAIN_LINE_MS otherwise; one line when the node has caught up.
 */
import { describe, expect, it } from 'vitest';
import { PLAIN_LINE_MS, progressLine, progressStep, readSync } from '../../src/cli/sync-progress';

describe('sync progress', () => {
  it('reads the sync numbers, and nothing from a status without them', () => {
    expect(readSync({ height: 5, sync: { height: 5, target: 10, blocksPerSecond: 2.5 } })).toEqual({ height: 5, target: 10, blocksPerSecond: 2.5 });
    expect(readSync({ height: 5 })).toBeUndefined();
    expect(readSync({ sync: null })).toBeUndefined();
    expect(readSync({ sync: { height: '5', target: 10 } })).toBeUndefined();
    expect(readSync(undefined)).toBeUndefined();
    expect(readSync({ sync: { height: 1, target: 2 } })).toEqual({ height: 1, target: 2, blocksPerSecond: 0 });
  });

  it('draws a bar with the fraction, the rate and the time left', () => {
    expect(progressLine({ height: 3_210, target: 9_630, blocksPerSecond: 412 })).toBe(
      'syncing [##########--------------------] 3,210/9,630 33.3% 412 blocks/s, about 16 s left',
    );
    expect(progressLine({ height: 0, target: 100_000, blocksPerSecond: 0 }, false)).toBe('syncing 0/100,000 0.0% 0 blocks/s');
    expect(progressLine({ height: 0, target: 1_000_000, blocksPerSecond: 100 }, false)).toMatch(/about 2\.8 h left$/);
  });

  it('on a terminal: redraws in place while behind, one line when caught up, then nothing', () => {
    let state = { syncing: false, lastPlainMs: 0 };
    const writes: string[] = [];
    for (const [height, target] of [[1, 100], [50, 100], [100, 100], [101, 101]]) {
      const step = progressStep(state, { height, target, blocksPerSecond: 10 }, 0, true);
      state = step.state;
      writes.push(step.write);
    }
    expect(writes[0]).toMatch(/^\rsyncing \[.*\] 1\/100 1\.0%/);
    expect(writes[1]).toMatch(/^\rsyncing \[#{15}-{15}\] 50\/100/);
    expect(writes[2]).toBe('\rsynced: height 100, following the chain\x1b[K\n');
    expect(writes[3]).toBe('');
  });

  it('without a terminal: a plain line at first and then every PLAIN_LINE_MS, no carriage returns', () => {
    let state = { syncing: false, lastPlainMs: 0 };
    const at = (ms: number, height: number, target = 100) => {
      const step = progressStep(state, { height, target, blocksPerSecond: 1 }, ms, false);
      state = step.state;
      return step.write;
    };
    expect(at(1_000, 1)).toBe('syncing 1/100 1.0% 1 blocks/s, about 2 min left\n');
    expect(at(2_000, 2)).toBe('');
    expect(at(1_000 + PLAIN_LINE_MS, 3)).toMatch(/^syncing 3\/100/);
    expect(at(1_000 + PLAIN_LINE_MS + 1, 100)).toBe('synced: height 100, following the chain\n');
  });

  it('shows nothing for a status without sync numbers', () => {
    const state = { syncing: true, lastPlainMs: 0 };
    expect(progressStep(state, undefined, 0, true)).toEqual({ state, write: '' });
  });
});
