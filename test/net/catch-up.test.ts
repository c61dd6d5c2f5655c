/**
 * Catch-up through the mesh (actors/p2p/catch-up.ts, decision 185): a status from a node
 * behind is answered with the certificate of its height, each height at most once per
 * resend window, none for a node too far behind
 * (block sync's) or not behind at all.
 */
import { describe, expect, it } from 'vitest';
import { encodeCommit } from '../../src/codec/block';
import { CATCH_UP_ASK_AGAIN_MS, CATCH_UP_BLOCKS_MAX, CATCH_UP_GAP_MAX, CATCH_UP_RESEND_MS, CatchUpAsker, catchUpStatus, CatchUpServer } from '../../actors/p2p/catch-up';
import { decodeMessage, encodeMessage } from '../../src/consensus/messages';

const store = {
  reads: 0,
  async getEncodedBlockAndCommit(h: number) {
    this.reads++;
    return { block: Uint8Array.of(h), commit: encodeCommit({ height: h, round: 0, blockHash: new Uint8Array(32).fill(h), signatures: [] }) };
  },
};

describe('catch-up answers', () => {
  it('sends the asked height\'s certificate, once per window', async () => {
    const s = new CatchUpServer();
    const first = await s.answer(10, 20, store, 0);
    expect(first.map((c) => c.height)).toEqual([10].slice(0, CATCH_UP_BLOCKS_MAX));
    expect(first[0].commit.blockHash).toEqual(new Uint8Array(32).fill(10));
    expect([...first[0].block]).toEqual([10]);
    // Within the window the same height is not sent again; another one is.
    expect(await s.answer(10, 20, store, 10)).toEqual([]);
    expect((await s.answer(11, 20, store, 10)).map((c) => c.height)).toEqual([11]);
    expect((await s.answer(10, 20, store, CATCH_UP_RESEND_MS)).map((c) => c.height)).toEqual([10]);
    expect(s.stats.certificatesSent).toBe(3);
  });

  it('answers nothing to a node at the head or too far behind', async () => {
    const s = new CatchUpServer();
    expect(await s.answer(21, 20, store, 0)).toEqual([]);
    expect(await s.answer(1, CATCH_UP_GAP_MAX + 2, store, 0)).toEqual([]);
    expect(s.stats.tooFarBehind).toBe(1);
  });

  it('asks for its next height while a peer is ahead: at once when the head moved, again after the window when it did not', () => {
    const a = new CatchUpAsker();
    expect(a.due(5, false, 0)).toBeUndefined(); // nobody ahead
    expect(a.due(5, true, 0)).toBe(6);
    expect(a.due(5, true, 100)).toBeUndefined(); // asked just now
    expect(a.due(6, true, 200)).toBe(7); // it moved: the next at once
    expect(a.due(6, true, 200 + CATCH_UP_ASK_AGAIN_MS)).toBe(7);
    // Each ask is a distinct message (gossip ids are content hashes).
    const bytes = (n: number) => encodeMessage({ kind: 'status', status: catchUpStatus(7, n) });
    expect(bytes(1)).not.toEqual(bytes(2));
    const m = decodeMessage(bytes(1), { maxBlockBytes: 1 << 20 });
    expect(m.kind === 'status' && m.status.height).toBe(7);
  });
});
