/**
 * Never stuck behind an honest peer (issue 39): a follower linked to one validator only,
 * run by the node's consensus driver in the simulator (SimOptions.oneLinkObserver). The
 * validators take no consensus message from it (as the p2p actor drops a full node's
 * bundles), so it cannot ask them for certificates, and one validator's messages far
 * ahead are no quorum (decision 66): before the driver synced from a peer whose probed
 * head is far ahead, it stayed at its height for good. Its one link is also down for two
 * seconds: it comes back from far behind, reaches the head and keeps following (the
 * liveness check holds it to every honest node's bound).
 */
import { describe, expect, it } from 'vitest';
import { runSeed } from '../../sim/cluster';
import { describeFailure, SHORT } from './sim-options';

const OBSERVER = { ...SHORT, oneLinkObserver: { cutFromMs: 1_000, cutToMs: 3_000 } };
/**
 * How far behind the head the follower may end: it syncs when a message of its peer is
 * more than 3 heights ahead, and with linear votes (decision 174) its peer broadcasts
 * only as a round's proposer or collector, about one height in six; or at its 2 s check.
 * 20 heights of 22 ms: under half a second.
 */
const FOLLOW_LAG = 20;

describe('deterministic simulation: a follower with one peer', () => {
  it('reaches the head and keeps up, with faults and the Byzantine validator lying to its probes', { timeout: 120_000 }, async () => {
    for (const seed of [1, 2, 3]) {
      const r = await runSeed(seed, OBSERVER);
      if (r.violations.length > 0) expect.fail(describeFailure(r, OBSERVER));
      const observer = r.observer!;
      expect(observer.linkedTo).not.toBe(r.byzantine);
      // It followed by block syncs from its one peer, and ends within FOLLOW_LAG of the head.
      expect(r.sync.peerSyncs).toBeGreaterThan(10);
      expect(observer.height).toBeGreaterThanOrEqual(r.heights - FOLLOW_LAG);
    }
  });

  it('without faults it follows the head closely from the start', { timeout: 60_000 }, async () => {
    const r = await runSeed(1, { ...OBSERVER, faults: false, byzantine: false });
    if (r.violations.length > 0) expect.fail(describeFailure(r, OBSERVER));
    expect(r.observer!.height).toBeGreaterThanOrEqual(r.heights - FOLLOW_LAG);
    expect(r.heights).toBeGreaterThan(300);
  });
});
