/**
 * Catch-up through the mesh (actors/p2p/catch-up.ts, decision 185): a status from a node
 * behind is answered with the certificates of the heights from its own, bounded per
 * answer, each height at most once per resend window, none for a node too far behind
 * (block sync's) or not behind at all.
 */
import { describe, expect, it } from 'vitest';
import { encodeCommit } from '../../src/codec/block';
import { CATCH_UP_BLOCKS_MAX, CATCH_UP_GAP_MAX, CATCH_UP_RESEND_MS, CatchUpAsker, catchUpStatus, CatchUpServer } from '../../actors/p2p/catch-up';
import { decodeMessage, encodeMessage } from '../../src/consensus/messages';

const store = {
  reads: 0,
  async getEncodedBlockAndCommit(h: number) {
    this.reads++;
    return { block: Uint8Array.of(h), commit: encodeCommit({ height: h, round: 0, blockHash: new Uint8Array(32).fill(h), signatures: [] }) };
  },
};

describe('catch-up answers', () => {
  it('sends the certificates from the asker\'s height, bounded, once per window', async () => {
    const s = new CatchUpServer();
    const first = await s.answer(10, 20, store, 0);
    expect(first.map((c) => c.height)).toEqual([10, 11, 12, 13].slice(0, CATCH_UP_BLOCKS_MAX));
    expect(first[0].commit.blockHash).toEqual(new Uint8Array(32).fill(10));
    expect([...first[0].block]).toEqual([10]);
    // Within the window the same heights are not sent again: the next ones are.
    expect((await s.answer(10, 20, store, 10)).map((c) => c.height)).toEqual([14, 15, 16, 17]);
    expect((await s.answer(10, 20, store, CATCH_UP_RESEND_MS)).map((c) => c.height)).toEqual([10, 11, 12, 13]);
    expect(s.stats.certificatesSent).toBe(12);
  });

  it('answers nothing to a node at the head or too far behind', async () => {
    const s = new CatchUpServer();
    expect(await s.answer(21, 20, store, 0)).toEqual([]);
    expect(await s.answer(1, CATCH_UP_GAP_MAX + 2, store, 0)).toEqual([]);
    expect(s.stats.tooFarBehind).toBe(1);
  });

  it('asks from its next height only when its head stood still while a peer was ahead, in a status that encodes', () => {
    const a = new CatchUpAsker();
    expect(a.due(5, true)).toBeUndefined(); // the first look
    expect(a.due(5, false)).toBeUndefined(); // stuck, but nobody ahead
    expect(a.due(5, true)).toBe(6);
    expect(a.due(6, true)).toBeUndefined(); // it moved
    const m = decodeMessage(encodeMessage({ kind: 'status', status: catchUpStatus(6) }), { maxBlockBytes: 1 << 20 });
    expect(m.kind === 'status' && m.status.height).toBe(6);
  });
});
