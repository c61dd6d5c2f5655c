/**
 * The p2p actor's record of what each validator peer was sent (actors/p2p/sent-ledger.ts,
 * decision 117): a second copy of a consensus message to one peer within the resend
 * window is not sent; after the window, or on a new connection, it is.
 */
import { describe, expect, it } from 'vitest';
import { RESEND_AFTER_MS, SentLedger, sentKey } from '../../actors/p2p/sent-ledger';
import { encodeMessage, type ConsensusMessage } from '../../src/consensus/messages';

const vote = (sig: number): ConsensusMessage => ({
  kind: 'vote',
  vote: { type: 'prevote', height: 5, round: 0, blockHash: new Uint8Array(32).fill(1), validator: '0x1111111111111111111111111111111111111111', signature: new Uint8Array(65).fill(sig) },
});
const status = (hasProposal: boolean): ConsensusMessage => ({
  kind: 'status',
  status: { height: 5, round: 0, hasProposal, prevotes: Uint8Array.of(3), precommits: Uint8Array.of(0), polRound: -1, polPrevotes: Uint8Array.of(0) },
});
const key = (m: ConsensusMessage) => sentKey(m, encodeMessage(m))!;

describe('SentLedger: one copy of a consensus message per peer and connection', () => {
  it('keeps a second copy to the same peer within the window, sends it after', () => {
    const l = new SentLedger();
    const k = key(vote(7));
    expect(l.shouldSend('A', k, 1_000)).toBe(true);
    expect(l.shouldSend('A', k, 1_000 + RESEND_AFTER_MS - 1)).toBe(false);
    // Another peer, another message: their own first copies.
    expect(l.shouldSend('B', k, 1_001)).toBe(true);
    expect(l.shouldSend('A', key(vote(8)), 1_002)).toBe(true);
    // A peer that still lacks it after the window (it dropped the copy) gets it again.
    expect(l.shouldSend('A', k, 1_000 + RESEND_AFTER_MS)).toBe(true);
    expect(l.shouldSend('A', k, 1_000 + RESEND_AFTER_MS + 1)).toBe(false);
  });

  it('forgets a peer whose connection closed or opened: everything goes again', () => {
    const l = new SentLedger();
    const k = key(vote(7));
    expect(l.shouldSend('A', k, 0)).toBe(true);
    l.forget('A');
    expect(l.shouldSend('A', k, 1)).toBe(true);
  });

  it('knows a vote and a proposal by signature, a status by its bytes', () => {
    expect(key(vote(7))).toBe(key(vote(7)));
    expect(key(vote(7))).not.toBe(key(vote(8)));
    expect(key(status(false))).toBe(key(status(false)));
    expect(key(status(false))).not.toBe(key(status(true)));
    expect(key(vote(7)).startsWith('v')).toBe(true);
  });

  it('is bounded per peer, the oldest key forgotten first', () => {
    const l = new SentLedger(RESEND_AFTER_MS, 3);
    for (const k of ['a', 'b', 'c', 'd']) expect(l.shouldSend('A', k, 0)).toBe(true);
    expect(l.size('A')).toBe(3);
    expect(l.shouldSend('A', 'a', 1)).toBe(true); // forgotten: one more copy
    expect(l.shouldSend('A', 'd', 1)).toBe(false);
  });
});

describe('SentLedger: memory', () => {
  it('keeps only the keys of the last window', () => {
    const l = new SentLedger();
    for (let i = 0; i < 100; i++) l.shouldSend('A', `k${i}`, i);
    expect(l.size('A')).toBe(100);
    l.shouldSend('A', 'late', 98 + RESEND_AFTER_MS);
    // Sent at 0..99: at 98 + RESEND_AFTER_MS those sent at 0..98 are past the window; k99 and 'late' are kept.
    expect(l.size('A')).toBe(2);
  });
});
