/**
 * Catch-up for nodes that follow the mesh (actors/p2p/catch-up.ts, decision 185): a peer
 * answers the certificate of a height it has committed, nothing for one it has not or
 * for an asker too far behind (block sync's); the asker asks for its next height while a
 * peer is ahead, at once when its head moved and again after a window when it did not.
 */
import { describe, expect, it } from 'vitest';
import { encodeCommit } from '../../src/codec/block';
import { CATCH_UP_ASK_AGAIN_MS, CATCH_UP_GAP_MAX, CatchUpAsker, CatchUpServer, decodeCatchUpRequest, encodeCatchUpRequest } from '../../actors/p2p/catch-up';

const store = {
  async getEncodedBlockAndCommit(h: number) {
    return { block: Uint8Array.of(h), commit: encodeCommit({ height: h, round: 0, blockHash: new Uint8Array(32).fill(h), signatures: [] }) };
  },
};

describe('catch-up', () => {
  it('answers the certificate of a committed height', async () => {
    const s = new CatchUpServer();
    const c = await s.answer(decodeCatchUpRequest(encodeCatchUpRequest(10)), 20, store);
    expect(c?.height).toBe(10);
    expect(c?.commit.blockHash).toEqual(new Uint8Array(32).fill(10));
    expect([...c!.block]).toEqual([10]);
    expect(s.stats.answered).toBe(1);
  });

  it('answers nothing for a height not committed, or to an asker too far behind', async () => {
    const s = new CatchUpServer();
    expect(await s.answer(21, 20, store)).toBeUndefined();
    expect(await s.answer(1, CATCH_UP_GAP_MAX + 2, store)).toBeUndefined();
    expect(s.stats).toMatchObject({ notHeld: 1, tooFarBehind: 1, answered: 0 });
    expect(() => decodeCatchUpRequest(Uint8Array.of(1, 2))).toThrow();
  });

  it('asks for its next height while a peer is ahead: at once when the head moved, again after the window when it did not', () => {
    const a = new CatchUpAsker();
    expect(a.due(5, false, 0)).toBeUndefined(); // nobody ahead
    expect(a.due(5, true, 0)).toBe(6);
    expect(a.due(5, true, 100)).toBeUndefined(); // asked just now
    expect(a.due(6, true, 200)).toBe(7); // it moved: the next at once
    expect(a.due(6, true, 200 + CATCH_UP_ASK_AGAIN_MS)).toBe(7);
  });
});
