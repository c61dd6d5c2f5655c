/**
 * Linear votes (decision 174): a validator's vote goes to the round's collector (its
 * proposer) only; the collector broadcasts one certificate of +2/3 signed votes per step
 * and forwards the precommits that come after it; a step's timeout without the
 * certificate falls back to all-to-all; a certificate's votes are checked and counted as
 * single votes, so a double-signing collector is still caught.
 */
import { describe, expect, it } from 'vitest';
import { Step } from '../../machines/consensus-round';
import type { ConsensusOutput } from '../../src/consensus/core';
import { checkEvidence } from '../../src/consensus/evidence';
import type { Vote } from '../../src/consensus/messages';
import { secp256k1Verifier } from '../../src/consensus/signer';
import { bytesToHex } from '../../src/util/bytes';
import { certificates, decisions, feedAll, follower, Harness, SEED } from './core-harness';
import { CHAIN_ID, hash, vote } from './helpers';

/** Own votes sent to one validator, and broadcast to all. */
const sentTo = (out: ConsensusOutput[]) => out.flatMap((o) => (o.type === 'send' && o.message.kind === 'vote' ? [{ to: o.to, type: o.message.vote.type }] : []));
const broadcastVotes = (out: ConsensusOutput[]) => out.flatMap((o) => (o.type === 'broadcast' && o.message.kind === 'vote' ? [o.message.vote.type] : []));
const collectorOf = (h: Harness, round: number) => h.set.proposer(1, round, SEED).address;

/** The proposer of round 0, so its collector, booted and past its proposal (its own prevote kept). */
async function collectorProposing(): Promise<{ h: Harness; blockHash: Uint8Array }> {
  const h = new Harness(new Harness(0).proposerOf(1, 0));
  await h.boot();
  const start = await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
  const prop = start.find((o) => o.type === 'broadcast' && o.message.kind === 'proposal');
  if (prop?.type !== 'broadcast' || prop.message.kind !== 'proposal') throw new Error('no proposal');
  return { h, blockHash: prop.message.proposal.blockHash };
}

describe('ConsensusCore: linear votes (decision 174)', () => {
  it('a validator sends its votes to the round collector only, and a certificate drives the round as single votes would', async () => {
    const h = await follower();
    const p = h.proposal(1, 0, 'B');
    const collector = collectorOf(h, 0);
    const c = h.set.indexOf(collector);
    const afterProposal = await h.feed({ type: 'proposal', proposal: p });
    expect(sentTo(afterProposal)).toEqual([{ to: collector, type: 'prevote' }]);
    expect(broadcastVotes(afterProposal)).toEqual([]);
    // The collector's certificate: its own prevote and two others' (3 of 4 with ours at the collector).
    const others = h.others().filter((i) => i !== c);
    const prevotes = [c, ...others.slice(0, 1)].map((i) => vote(h.key(i), 'prevote', 1, 0, p.blockHash));
    const afterPolka = await h.feed({ type: 'votes', votes: prevotes });
    expect(h.core.snapshot.context).toMatchObject({ lockedRound: 0, lockedValue: bytesToHex(p.blockHash) });
    expect(sentTo(afterPolka)).toEqual([{ to: collector, type: 'precommit' }]);
    const precommits = [c, ...others.slice(0, 1)].map((i) => vote(h.key(i), 'precommit', 1, 0, p.blockHash));
    const afterCommit = await h.feed({ type: 'votes', votes: precommits });
    expect(decisions(afterCommit).map((d) => d.height)).toEqual([1]);
    expect(h.core.counters).toMatchObject({ votesToCollector: 2, voteCertificatesReceived: 2, voteCertificatesSent: 0 });
  });

  it('without a certificate by the step timeout it falls back to all: the vote again, and the rest of the round', async () => {
    const h = await follower();
    const p = h.proposal(1, 0, 'B');
    await h.feed({ type: 'proposal', proposal: p });
    const fallBack = await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.Prevote });
    expect(broadcastVotes(fallBack)).toEqual(['prevote']);
    expect(h.core.snapshot.context.fellBack).toBe(true);
    // The others fell back too: their prevotes arrive one by one; our precommit goes to all at once.
    const polka = await feedAll(h, h.votes(h.others().slice(0, 2), 'prevote', 1, 0, p.blockHash));
    expect(broadcastVotes(polka)).toEqual(['precommit']);
    expect(sentTo(polka)).toEqual([]);
    // Round 1 has another collector: linear again.
    await feedAll(h, h.votes(h.others().slice(0, 2), 'precommit', 1, 0, null));
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.PrecommitWait });
    expect(h.core.round).toBe(1);
    expect(h.core.snapshot.context.fellBack).toBe(false);
    const p1 = h.proposal(1, 1, 'B');
    expect(sentTo(await h.feed({ type: 'proposal', proposal: p1 }))).toEqual([{ to: collectorOf(h, 1), type: 'prevote' }]);
  });

  it('a propose timeout (the collector proposed nothing) sends the nil prevote to all', async () => {
    const h = await follower();
    const out = await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.Propose });
    expect(broadcastVotes(out)).toEqual(['prevote']);
    expect(sentTo(out)).toEqual([]);
  });

  it('the collector broadcasts one certificate per step, then forwards later precommits for the next lastCommit', async () => {
    const { h, blockHash } = await collectorProposing();
    const [a, b, c] = h.others();
    const afterPrevotes = await feedAll(h, h.votes([a, b, c], 'prevote', 1, 0, blockHash));
    expect(certificates(afterPrevotes)).toEqual([{ type: 'prevote', n: 3 }]); // once, at the quorum
    const afterPrecommits = await feedAll(h, h.votes([a, b], 'precommit', 1, 0, blockHash));
    expect(certificates(afterPrecommits)).toEqual([{ type: 'precommit', n: 3 }]);
    expect(decisions(afterPrecommits)).toHaveLength(1);
    const late = await feedAll(h, h.votes([c], 'precommit', 1, 0, blockHash));
    expect(certificates(late)).toEqual([{ type: 'precommit', n: 1 }]);
    expect(h.core.counters.voteCertificatesSent).toBe(2);
    // A late nil precommit is not forwarded (it is no signature of the commit).
    const h2 = new Harness(h.me);
    await h2.boot();
    await h2.feed({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
    await feedAll(h2, h2.votes([a, b], 'prevote', 1, 0, blockHash));
    await feedAll(h2, h2.votes([a, b], 'precommit', 1, 0, blockHash));
    expect(certificates(await feedAll(h2, h2.votes([c], 'precommit', 1, 0, null)))).toEqual([]);
  });

  it('a precommit that reaches the collector after it moved on is forwarded too, and lands in the next lastCommit', async () => {
    const { h, blockHash } = await collectorProposing();
    const [a, b, c] = h.others();
    await feedAll(h, h.votes([a, b], 'prevote', 1, 0, blockHash));
    await feedAll(h, h.votes([a, b], 'precommit', 1, 0, blockHash));
    await h.feed({ type: 'commitDone', height: 1 });
    expect(h.core.height).toBe(2);
    const late = await feedAll(h, h.votes([c], 'precommit', 1, 0, blockHash));
    expect(certificates(late)).toEqual([{ type: 'precommit', n: 1 }]);
    expect(h.core.lastCommitFor(1)?.signatures).toHaveLength(4);
  });

  it("a double-signing collector's conflicting votes, in two certificates, become evidence", async () => {
    const h = await follower();
    const c = h.set.indexOf(collectorOf(h, 0));
    const x = h.others().find((i) => i !== c)!;
    const p = h.proposal(1, 0, 'B');
    await h.feed({ type: 'proposal', proposal: p });
    const first: Vote[] = [vote(h.key(c), 'prevote', 1, 0, p.blockHash), vote(h.key(x), 'prevote', 1, 0, p.blockHash)];
    expect((await h.feed({ type: 'votes', votes: first })).filter((o) => o.type === 'evidence')).toEqual([]);
    // The same collector certifies another value to someone else, with its own second prevote in it.
    const second: Vote[] = [vote(h.key(c), 'prevote', 1, 0, hash('C'))];
    const out = await h.feed({ type: 'votes', votes: second });
    const ev = out.filter((o) => o.type === 'evidence');
    expect(ev).toHaveLength(1);
    if (ev[0].type !== 'evidence' || ev[0].evidence.kind !== 'duplicateVote') throw new Error('no duplicate vote evidence');
    expect(checkEvidence(CHAIN_ID, h.set, secp256k1Verifier, ev[0].evidence)).toBeNull();
    // A certificate's forged vote (signed by x, claimed as y's) counts for nothing: invalid like a single one.
    const forged = { ...vote(h.key(x), 'prevote', 1, 1, hash('D')), validator: h.key(h.others().find((i) => i !== c && i !== x)!).address };
    const before = h.core.counters.votesInvalid;
    await h.feed({ type: 'votes', votes: [forged] });
    expect(h.core.counters.votesInvalid).toBe(before + 1);
  });

  it('with linearVotes false every vote is broadcast (the all-to-all protocol)', async () => {
    const probe = new Harness(0);
    const h = new Harness(probe.proposerOf(1, 3), false);
    await h.boot();
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
    const out = await h.feed({ type: 'proposal', proposal: h.proposal(1, 0, 'B') });
    expect(broadcastVotes(out)).toEqual(['prevote']);
    expect(sentTo(out)).toEqual([]);
  });
});
