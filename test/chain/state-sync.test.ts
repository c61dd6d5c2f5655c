/**
 * State sync's pure decisions (src/chain/state-sync.ts) and wire format
 * (src/chain/state-sync-wire.ts): which snapshot by offered power, when an empty store
 * state-syncs, which peer fetches which chunk (a bad chunk drops its peer and is asked
 * of another, a stalled peer is routed around), and answers bounded before allocation.
 */
import { describe, expect, it } from 'vitest';
import { ValidatorSet } from '../../src/consensus/validator-set';
import { candidates, ChunkPlan, enoughOfferedPower, joinMode, offeredPower, snapshotRootMatches, STALLED_PEER_PAUSE_MS, STALLS_BEFORE_DROP } from '../../src/chain/state-sync';
import {
  decodeAnswer,
  decodeOffers,
  decodeSnapshotRequest,
  encodeOffersAnswer,
  encodeSnapshotRequest,
  failAnswer,
  okAnswer,
  SNAPSHOT_MANIFEST_BYTES_MAX,
  SNAPSHOT_OFFERS_MAX,
  SnapshotAnswerError,
  SnapshotRequestKind,
  SnapshotStatus,
  type SnapshotRequest,
} from '../../src/chain/state-sync-wire';
import { Writer } from '../../src/codec/binary';
import type { SnapshotInfo } from '../../src/storage/snapshot-store';
import type { Address } from '../../src/util/bytes';

const addr = (i: number) => `0x${i.toString(16).padStart(40, '0')}` as Address;
const hash = (b: number) => new Uint8Array(32).fill(b);
const info = (height: number, m: number, root = m): SnapshotInfo => ({ height, stateRoot: hash(root), manifestHash: hash(m), chunks: 4, bytes: 1000 });
/** Four validators of power 1 each (a third is more than 4/3: two of them). */
const set4 = new ValidatorSet([1, 2, 3, 4].map((i) => ({ address: addr(i), power: 1n })));
const peerOf = (i: number) => `peer-${i}`;
const addressOf = (p: string) => (p.startsWith('peer-') ? addr(Number(p.slice(5))) : undefined);

describe('offer choice', () => {
  it('groups offers by (height, manifest hash), newest first, the more-offered one first at a height', () => {
    const c = candidates(
      new Map([
        [peerOf(1), [info(100, 1), info(200, 2)]],
        [peerOf(2), [info(200, 2)]],
        [peerOf(3), [info(200, 9)]],
        [peerOf(4), [info(100, 1), info(100, 1)]],
      ]),
    );
    expect(c.map((x) => [x.height, x.manifestHash[0], x.peers])).toEqual([
      [200, 2, [peerOf(1), peerOf(2)]],
      [200, 9, [peerOf(3)]],
      [100, 1, [peerOf(1), peerOf(4)]],
    ]);
  });

  it('takes a snapshot only when its peers hold more than a third of the power of the set signing its height', () => {
    expect(enoughOfferedPower({ peers: [peerOf(1)] }, set4, addressOf)).toBe(false);
    expect(enoughOfferedPower({ peers: [peerOf(1), peerOf(2)] }, set4, addressOf)).toBe(true);
    // A validator counts once however many peers claim it; unknown peers and non-members count nothing.
    expect(offeredPower({ peers: ['a', 'b', 'c'] }, set4, () => addr(1))).toBe(1n);
    expect(enoughOfferedPower({ peers: ['x', 'y', peerOf(9)] }, set4, addressOf)).toBe(false);
  });

  it('refuses a snapshot whose claimed root is not the verified header’s', () => {
    expect(snapshotRootMatches({ stateRoot: hash(5) }, hash(5))).toBe(true);
    expect(snapshotRootMatches({ stateRoot: hash(5) }, hash(6))).toBe(false);
  });
});

describe('join mode', () => {
  const offers = (base: number, head: number, snaps: SnapshotInfo[] = []) => ({ base, head, snapshots: snaps });
  it('an empty store state-syncs when a peer offers a snapshot, and syncs blocks otherwise', () => {
    expect(joinMode({ forced: false, healing: false, answers: [offers(1, 500, [info(400, 1)])] })).toBe('state-sync');
    expect(joinMode({ forced: false, healing: false, answers: [offers(1, 500)] })).toBe('block-sync');
    expect(joinMode({ forced: false, healing: false, answers: [] })).toBe('block-sync');
  });
  it('--state-sync forces it', () => {
    expect(joinMode({ forced: true, healing: false, answers: [] })).toBe('state-sync');
  });
  it('a healed store state-syncs only when no peer keeps block 1', () => {
    expect(joinMode({ forced: false, healing: true, answers: [offers(1, 500, [info(400, 1)]), offers(300, 500, [info(400, 1)])] })).toBe('block-sync');
    expect(joinMode({ forced: false, healing: true, answers: [offers(200, 500, [info(400, 1)]), offers(300, 500, [info(400, 1)])] })).toBe('state-sync');
  });
});

describe('chunk plan', () => {
  it('spreads chunks over peers, a few in flight each, lowest index first', () => {
    const plan = new ChunkPlan(10, ['b', 'a'], 2);
    const first = plan.next(0);
    expect(first).toEqual([
      { peer: 'a', index: 0 },
      { peer: 'b', index: 1 },
      { peer: 'a', index: 2 },
      { peer: 'b', index: 3 },
    ]);
    expect(plan.next(0)).toEqual([]);
    plan.done('a', 0);
    expect(plan.next(0)).toEqual([{ peer: 'a', index: 4 }]);
  });

  it('drops a peer that served a bad chunk and asks another for it', () => {
    const plan = new ChunkPlan(2, ['a', 'b'], 1);
    expect(plan.next(0)).toEqual([
      { peer: 'a', index: 0 },
      { peer: 'b', index: 1 },
    ]);
    plan.bad('a', 0);
    expect(plan.isDropped('a')).toBe(true);
    plan.done('b', 1);
    expect(plan.next(0)).toEqual([{ peer: 'b', index: 0 }]);
    plan.done('b', 0);
    expect(plan.complete).toBe(true);
    expect(plan.stats).toMatchObject({ badChunks: 1, refetched: 1, peersDropped: 1 });
  });

  it('routes around a stalled peer for a while, and drops it after repeated stalls', () => {
    const plan = new ChunkPlan(3, ['a', 'b'], 1);
    plan.next(0); // a:0, b:1
    plan.stalled('a', 0, 1_000);
    plan.done('b', 1);
    // Chunk 0 goes to b (not back to a, which failed it and is paused).
    expect(plan.next(1_000)).toEqual([{ peer: 'b', index: 0 }]);
    expect(plan.nextWakeMs(1_000)).toBe(1_000 + STALLED_PEER_PAUSE_MS);
    // After its pause a is asked again, for a chunk it did not fail.
    expect(plan.next(1_000 + STALLED_PEER_PAUSE_MS)).toEqual([{ peer: 'a', index: 2 }]);
    for (let i = 1; i < STALLS_BEFORE_DROP; i++) {
      plan.stalled('a', 2, 2_000 + i * STALLED_PEER_PAUSE_MS * 2);
      plan.next(2_000 + i * STALLED_PEER_PAUSE_MS * 2 + STALLED_PEER_PAUSE_MS);
    }
    expect(plan.isDropped('a')).toBe(true);
  });

  it('gives a failed chunk back to the peer that failed it only when nobody else is left', () => {
    const plan = new ChunkPlan(1, ['a'], 1);
    plan.next(0);
    plan.stalled('a', 0, 0);
    expect(plan.next(STALLED_PEER_PAUSE_MS)).toEqual([{ peer: 'a', index: 0 }]);
  });

  it('is stuck when every peer is dropped with chunks left, and ignores a late answer of a reassigned chunk', () => {
    const plan = new ChunkPlan(2, ['a', 'b'], 1);
    plan.next(0);
    plan.stalled('a', 0, 0);
    plan.done('a', 0); // late: chunk 0 is no longer a's
    expect(plan.doneCount).toBe(0);
    plan.bad('b', 1);
    plan.drop('a');
    expect(plan.stuck).toBe(true);
  });
});

describe('wire format', () => {
  it('round-trips every request kind and refuses unknown versions, kinds and trailing bytes', () => {
    const reqs: SnapshotRequest[] = [
      { kind: SnapshotRequestKind.Offers },
      { kind: SnapshotRequestKind.Manifest, height: 12 },
      { kind: SnapshotRequestKind.Chunk, height: 12, index: 7 },
      { kind: SnapshotRequestKind.LightProof, trustedHeight: 0, height: 12 },
      { kind: SnapshotRequestKind.Trusted, height: 3 },
    ];
    for (const r of reqs) expect(decodeSnapshotRequest(encodeSnapshotRequest(r))).toEqual(r);
    expect(() => decodeSnapshotRequest(Uint8Array.of(2, 1))).toThrow(/version/);
    expect(() => decodeSnapshotRequest(Uint8Array.of(1, 9))).toThrow(/kind/);
    expect(() => decodeSnapshotRequest(Uint8Array.of(1, 1, 0))).toThrow(/trailing/);
  });

  it('offers round-trip, and a list past the bound is refused', () => {
    const o = { base: 5, head: 900, snapshots: [info(800, 1), info(600, 2)] };
    expect(decodeOffers(decodeAnswer(SnapshotRequestKind.Offers, encodeOffersAnswer(o)))).toEqual(o);
    const w = new Writer().u64(1).u64(2).u32(SNAPSHOT_OFFERS_MAX + 1);
    expect(() => decodeOffers(w.finish())).toThrow(/over/);
  });

  it('refuses an answer whose declared length passes its kind’s bound before reading it', () => {
    // A manifest answer that claims 2 MiB of payload but carries 4 bytes: refused by its length field.
    const lying = new Writer().u8(1).u8(SnapshotStatus.Ok).u32(SNAPSHOT_MANIFEST_BYTES_MAX + 1).finish();
    expect(() => decodeAnswer(SnapshotRequestKind.Manifest, lying)).toThrow(/exceeds/);
    expect(() => decodeAnswer(SnapshotRequestKind.Manifest, okAnswer(new Uint8Array(SNAPSHOT_MANIFEST_BYTES_MAX + 1)))).toThrow(/over/);
  });

  it('NOT_FOUND and REFUSED are answers, not malformed data', () => {
    expect(() => decodeAnswer(SnapshotRequestKind.Chunk, failAnswer(SnapshotStatus.NotFound, 'gone'))).toThrow(SnapshotAnswerError);
    let caught: unknown;
    try {
      decodeAnswer(SnapshotRequestKind.LightProof, failAnswer(SnapshotStatus.Refused, 'too long'));
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SnapshotAnswerError);
    expect((caught as SnapshotAnswerError).status).toBe(SnapshotStatus.Refused);
    expect((caught as Error).message).toBe('too long');
  });
});
