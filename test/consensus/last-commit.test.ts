/**
 * The lastCommit a proposer records (src/consensus/last-commit.ts): every precommit for
 * the decided block it holds when it builds, not only the decision's quorum, each
 * checked once; forged ones, other blocks, other rounds and outsiders left out. Then on
 * a real core: a precommit that comes after the quorum, in the same height (a VoteSet
 * late vote) or after the core has moved on, is in lastCommitFor(h).
 */
import { describe, expect, it } from 'vitest';
import { Step } from '../../machines/consensus-round';
import { canonicalCommit } from '../../src/codec/block';
import { ConsensusCore, type ConsensusOutput } from '../../src/consensus/core';
import { LastCommitCollector } from '../../src/consensus/last-commit';
import { LocalPrivValidator } from '../../src/consensus/privval';
import { DEVNET_TIMEOUTS, timeoutConfig } from '../../src/consensus/params';
import { keccak256 } from '../../src/crypto/keccak';
import { utf8 } from '../../src/util/bytes';
import { CHAIN_ID, CountingVerifier, fixture, hash, vote } from './helpers';

describe('LastCommitCollector', () => {
  const f = fixture([10n, 10n, 10n, 10n, 10n, 10n], 'last-commit');
  const B = hash('B');
  const decided = canonicalCommit({ height: 7, round: 1, blockHash: B, signatures: f.keys.slice(0, 4).map((k) => ({ validator: k.address, signature: vote(k, 'precommit', 7, 1, B).signature })) });

  it('adds the precommits for the decided block that came later, checking each once', () => {
    const verifier = new CountingVerifier();
    const c = new LastCommitCollector(CHAIN_ID, f.set, decided, verifier);
    expect(c.commit()).toBe(decided);
    const late = vote(f.keys[4], 'precommit', 7, 1, B);
    const forged = { ...vote(f.keys[0], 'precommit', 7, 1, B), validator: f.keys[5].address };
    const outsider = fixture([10n], 'outsider').keys[0];
    expect(c.offer(late)).toBe(true);
    expect(c.offer(late)).toBe(false); // once per validator
    expect(c.offer(forged)).toBe(true); // kept unchecked until used
    expect(c.offer(vote(f.keys[0], 'precommit', 7, 1, B))).toBe(false); // already in the decided commit
    expect(c.offer(vote(f.keys[5], 'precommit', 7, 1, hash('other')))).toBe(false);
    expect(c.offer(vote(f.keys[5], 'precommit', 7, 2, B))).toBe(false);
    expect(c.offer(vote(f.keys[5], 'prevote', 7, 1, B))).toBe(false);
    expect(c.offer(vote(f.keys[5], 'precommit', 8, 1, B))).toBe(false);
    expect(c.offer(vote(outsider, 'precommit', 7, 1, B))).toBe(false);
    const out = c.commit();
    expect(out.signatures.map((s) => s.validator).sort()).toEqual(f.keys.slice(0, 5).map((k) => k.address).sort());
    expect(out).toEqual(canonicalCommit(out)); // canonical: the codec takes it as it is
    expect(verifier.calls).toBe(2); // the late one and the forged one
    expect(c.commit()).toBe(out);
    expect(verifier.calls).toBe(2);
  });
});

describe('a core records the precommits that came after its decision', () => {
  const f = fixture([10n, 10n, 10n, 10n], 'core');
  const TIMEOUTS = timeoutConfig(DEVNET_TIMEOUTS);

  /** Validator `me` of four proposes height 1 and decides on its own precommit and two others'. */
  async function decided(me: number) {
    const core = new ConsensusCore({
      chainId: CHAIN_ID,
      validators: f.set,
      privValidator: new LocalPrivValidator(f.keys[me], async () => undefined, null),
      verifier: new CountingVerifier(),
      app: {
        proposeBlock: (height, round) => {
          const bytes = utf8.encode(`block ${height}/${round}`);
          return { hash: keccak256(bytes), bytes };
        },
        validateBlock: (bytes) => keccak256(bytes),
      },
      timeouts: TIMEOUTS,
      height: 1,
    });
    await core.start();
    const out: ConsensusOutput[] = await core.handle({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
    const prop = out.find((o) => o.type === 'broadcast' && o.message.kind === 'proposal');
    if (prop?.type !== 'broadcast' || prop.message.kind !== 'proposal') throw new Error('not the proposer of 1/0');
    const B = prop.message.proposal.blockHash;
    const others = [0, 1, 2, 3].filter((i) => i !== me);
    for (const i of others.slice(0, 2)) await core.handle({ type: 'vote', vote: vote(f.keys[i], 'prevote', 1, 0, B) });
    let decision: Extract<ConsensusOutput, { type: 'decide' }> | undefined;
    for (const i of others.slice(0, 2)) {
      for (const o of await core.handle({ type: 'vote', vote: vote(f.keys[i], 'precommit', 1, 0, B) })) if (o.type === 'decide') decision = o;
    }
    if (!decision) throw new Error('no decision');
    return { core, B, last: others[2], decision };
  }

  const proposerOfHeight1 = f.set.indexOf(f.set.proposer(1, 0, new Uint8Array(32)).address);

  it('a precommit after the quorum, in the same height (kept as a late vote)', async () => {
    const { core, B, last, decision } = await decided(proposerOfHeight1);
    expect(decision.commit.signatures).toHaveLength(3);
    await core.handle({ type: 'vote', vote: vote(f.keys[last], 'precommit', 1, 0, B) });
    await core.handle({ type: 'commitDone', height: 1 });
    expect(core.height).toBe(2);
    expect(core.lastCommitFor(1)!.signatures.map((s) => s.validator).sort()).toEqual(f.keys.map((k) => k.address).sort());
    expect(core.lastCommitFor(2)).toBeNull();
  });

  it('a precommit that arrives once the core is at the next height', async () => {
    const { core, B, last } = await decided(proposerOfHeight1);
    await core.handle({ type: 'commitDone', height: 1 });
    expect(core.lastCommitFor(1)!.signatures).toHaveLength(3);
    await core.handle({ type: 'vote', vote: vote(f.keys[last], 'precommit', 1, 0, B) });
    expect(core.lastCommitFor(1)!.signatures).toHaveLength(4);
    // The same precommit again is dropped as stale.
    const stale = core.counters.staleDropped;
    await core.handle({ type: 'vote', vote: vote(f.keys[last], 'precommit', 1, 0, B) });
    expect(core.counters.staleDropped).toBe(stale + 1);
    expect(core.lastCommitFor(1)!.signatures).toHaveLength(4);
  });
});
