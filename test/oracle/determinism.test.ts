/**
 * Two independent State instances fed the same blocks of observations (valid, future,
 * stale, replayed, from outsiders) reach the same root and the same medians at every
 * height; a third, rebuilt from the stored records alone (a restart), agrees too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tx } from '../../src/codec/tx';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { oraclePrice } from '../../src/state/oracle';
import { State } from '../../src/state/state';
import { bytesToHex } from '../../src/util/bytes';
import { genesisState } from '../../src/state/genesis';
import { applyAt, freshState, genesisWith, observation, signers, STALE_MS, T0 } from './harness';

const POWERS = [5n, 3n, 2n, 1n];
const outsider = new Secp256k1Signer(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0x17 : i)));
const who = [...signers.slice(0, POWERS.length), outsider];

const obsArb = fc.record({
  by: fc.integer({ min: 0, max: who.length - 1 }),
  /** Relative to the block time: mostly recent, sometimes future or stale. */
  ageMs: fc.oneof(
    { arbitrary: fc.integer({ min: 0, max: 3_000 }), weight: 6 },
    { arbitrary: fc.integer({ min: -500, max: -1 }), weight: 1 },
    { arbitrary: fc.integer({ min: STALE_MS + 1, max: STALE_MS + 2_000 }), weight: 1 },
  ),
  pairs: fc.subarray([1, 2, 3, 4], { minLength: 1 }),
  base: fc.bigInt({ min: 1n, max: 10_000n }),
  replay: fc.boolean(),
});
const blockArb = fc.record({ gapMs: fc.integer({ min: 1, max: 2_500 }), obs: fc.array(obsArb, { maxLength: 8 }) });

describe('oracle determinism', () => {
  it('two independent states agree at every height, and a state rebuilt from stored records agrees', () => {
    const blocks = fc.sample(fc.array(blockArb, { minLength: 60, maxLength: 60 }), { numRuns: 1, seed: 2024 })[0];
    const ga = genesisState(genesisWith(POWERS), new Uint8Array(32));
    const a = ga.state;
    const b = freshState(POWERS);
    // What a node's store holds: the genesis records, then each block's changes.
    const stored = new Map<string, { key: Uint8Array; value: Uint8Array | null }>();
    for (const c of ga.changes) stored.set(bytesToHex(c.key), c);

    let time = T0;
    let sent: Tx[] = [];
    let okCount = 0;
    let medianUpdates = 0;
    for (const blk of blocks) {
      time += blk.gapMs;
      const txs: Tx[] = [];
      for (const o of blk.obs) {
        if (o.replay && sent.length) {
          txs.push(sent[(o.by * 7 + Number(o.base)) % sent.length]);
          continue;
        }
        const prices = o.pairs.map((pairId) => ({ pairId, price: o.base * BigInt(pairId) }));
        txs.push(observation(who[o.by], time - o.ageMs, prices));
      }
      sent = [...sent, ...txs].slice(-20);
      const before = [1, 2, 3, 4].map((id) => a.oracleMedians.get(String(id)));
      const ra = applyAt(a, txs, time);
      const rb = applyAt(b, txs, time);
      expect(bytesToHex(ra.stateRoot)).toBe(bytesToHex(rb.stateRoot));
      expect(ra.receipts).toEqual(rb.receipts);
      for (const pairId of [1, 2, 3, 4]) expect(oraclePrice(a, pairId, time)).toEqual(oraclePrice(b, pairId, time));
      for (const c of ra.changes) stored.set(bytesToHex(c.key), c);
      okCount += ra.receipts.filter((r) => r.status === 'ok').length;
      medianUpdates += [1, 2, 3, 4].filter((id, i) => a.oracleMedians.get(String(id)) !== before[i]).length;
    }
    // The stream exercised both outcomes and moved the medians.
    expect(okCount).toBeGreaterThan(20);
    expect(okCount).toBeLessThan(blocks.reduce((n, x) => n + x.obs.length, 0));
    expect(medianUpdates).toBeGreaterThan(15);

    const c = new State();
    for (const { key, value } of stored.values()) if (value) c.loadRecord(key, value);
    c.rebuildIndexes();
    expect(bytesToHex(c.root())).toBe(bytesToHex(a.root()));
    for (const pairId of [1, 2, 3, 4]) expect(oraclePrice(c, pairId, time)).toEqual(oraclePrice(a, pairId, time));
    for (const s of who) expect(c.oracleObservations.get(s.address)).toEqual(a.oracleObservations.get(s.address));
  });
});

