import { describe, expect, it } from 'vitest';
import { Step } from '../../machines/consensus-round';
import { decodeCommit, encodeCommit, precommitSigningHash } from '../../src/codec/block';
import { inputFromMessage, type ConsensusOutput } from '../../src/consensus/core';
import { checkEvidence } from '../../src/consensus/evidence';
import { decodePrivValState } from '../../src/consensus/privval';
import type { Certificate, Proposal, Vote } from '../../src/consensus/messages';
import { secp256k1Verifier } from '../../src/consensus/signer';
import { verifySigner } from '../../src/crypto/secp256k1';
import { bytesToHex, equalBytes, utf8 } from '../../src/util/bytes';
import { CHAIN_ID, proposal, vote } from './helpers';
import { createMemoryLogger, LOG_LEVEL } from '../../src/util/log';
import { proposalRefusalLog } from '../../actors/consensus/refusal-log';
import { certificates, decisions, feedAll, follower, Harness, ownVotes, timeouts } from './core-harness';

describe('ConsensusCore: one height', () => {
  it('the proposer proposes; everyone decides with a canonical commit block.ts can carry', async () => {
    const probe = new Harness(0);
    const h = new Harness(probe.proposerOf(1, 0));
    await h.boot();
    const out = await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
    const prop = out.find((o) => o.type === 'broadcast' && o.message.kind === 'proposal');
    if (prop?.type !== 'broadcast' || prop.message.kind !== 'proposal') throw new Error('no proposal');
    const blockHash = prop.message.proposal.blockHash;
    expect(h.built).toBe(1);
    // It prevotes its own block at once; the round's collector (decision 174), it keeps the vote.
    expect(h.core.snapshot.value).toBe('Prevote');
    expect(ownVotes(out, 'prevote')).toEqual([]);
    const others = h.others();
    const afterPrevotes = await feedAll(h, h.votes(others.slice(0, 2), 'prevote', 1, 0, blockHash));
    // +2/3 prevotes (3 of 4): one certificate of them to all; its precommit stays here too.
    expect(certificates(afterPrevotes)).toEqual([{ type: 'prevote', n: 3 }]);
    expect(ownVotes(afterPrevotes, 'precommit')).toEqual([]);
    expect(h.core.snapshot.value).toBe('Precommit');
    const afterPrecommits = await feedAll(h, h.votes(others.slice(0, 2), 'precommit', 1, 0, blockHash));
    expect(certificates(afterPrecommits)).toEqual([{ type: 'precommit', n: 3 }]);
    const [d] = decisions(afterPrecommits);
    expect(d).toBeDefined();
    expect(d.height).toBe(1);
    expect(d.block).toEqual(prop.message.proposal.block);
    expect(d.commit.signatures.length).toBe(3);
    expect(decodeCommit(encodeCommit(d.commit))).toEqual(d.commit);
    for (const s of d.commit.signatures) expect(verifySigner(precommitSigningHash(CHAIN_ID, 1, 0, blockHash), s.signature, s.validator)).toBe(true);
    expect(h.core.step).toBe(Step.Commit);
    const next = await h.feed({ type: 'commitDone', height: 1 });
    expect(h.core.height).toBe(2);
    expect(timeouts(next)).toEqual([{ type: 'scheduleTimeout', height: 2, round: 0, step: Step.NewHeight, delayMs: 0 }]);
  });

  it('a follower prevotes the proposal, locks on the polka, decides on +2/3 precommits', async () => {
    const h = await follower();
    const p = h.proposal(1, 0, 'B');
    expect(ownVotes(await h.feed({ type: 'proposal', proposal: p }), 'prevote')).toEqual([bytesToHex(p.blockHash)]);
    const others = h.others();
    expect(ownVotes(await feedAll(h, h.votes(others.slice(0, 2), 'prevote', 1, 0, p.blockHash)), 'precommit')).toEqual([bytesToHex(p.blockHash)]);
    expect(h.core.snapshot.context).toMatchObject({ lockedRound: 0, lockedValue: bytesToHex(p.blockHash) });
    expect(decisions(await feedAll(h, h.votes(others.slice(0, 2), 'precommit', 1, 0, p.blockHash)))).toHaveLength(1);
  });

  it('ignores a proposal from a validator that is not the proposer of that round', async () => {
    const h = await follower();
    const wrong = h.others().find((i) => i !== h.proposerOf(1, 0)) as number;
    const out = await h.feed({ type: 'proposal', proposal: proposal(h.key(wrong), 1, 0, utf8.encode('X')) });
    expect(ownVotes(out, 'prevote')).toEqual([]);
    expect(h.core.counters.proposalsInvalid).toBe(1);
  });

  it('logs a refused proposal once with its height, round, proposer, the rule and the check that failed', async () => {
    const h = await follower();
    const { log, records } = createMemoryLogger();
    h.onProposalRefused = proposalRefusalLog(log);
    const drawn = h.proposerOf(1, 0);
    const wrong = h.others().find((i) => i !== drawn) as number;
    const forged = proposal(h.key(wrong), 1, 0, utf8.encode('X'));
    await h.feed({ type: 'proposal', proposal: forged });
    await h.feed({ type: 'proposal', proposal: forged }); // relayed again: logged once
    const drawnAddress = h.set.validators[drawn].address;
    expect(records.filter((r) => r.level === LOG_LEVEL.warn)).toEqual([
      expect.objectContaining({
        msg: 'proposal refused: it breaks a proposal rule, this node does not take it',
        height: 1,
        round: 0,
        proposer: forged.proposer,
        blockHash: bytesToHex(forged.blockHash),
        code: 'WRONG_PROPOSER',
        check: `round 0 of height 1 is ${drawnAddress}'s to propose, not ${forged.proposer}'s`,
      }),
    ]);
    // The drawn proposer's key, but the signature of another message: BAD_SIGNATURE.
    const real = h.proposal(1, 0, 'Y');
    await h.feed({ type: 'proposal', proposal: { ...real, signature: forged.signature } });
    expect(records.at(-1)).toMatchObject({ level: LOG_LEVEL.warn, code: 'BAD_SIGNATURE', proposer: real.proposer, round: 0 });
    expect(h.core.counters.proposalsInvalid).toBe(3);
  });

  it('prevotes nil for a block the application refuses, and on the propose timeout', async () => {
    const h = await follower();
    expect(ownVotes(await h.feed({ type: 'proposal', proposal: h.proposal(1, 0, 'bad block') }), 'prevote')).toEqual([null]);
    const g = await follower();
    expect(ownVotes(await g.feed({ type: 'timeout', height: 1, round: 0, step: Step.Propose }), 'prevote')).toEqual([null]);
  });

  it('verifies each vote signature once, however often the vote arrives', async () => {
    const h = await follower();
    const [input] = h.votes([h.others()[0]], 'prevote', 1, 0, null);
    const before = h.verifier.calls;
    for (let i = 0; i < 5; i++) await h.feed(input);
    expect(h.verifier.calls - before).toBe(1);
    expect(h.core.counters.votesDuplicate).toBe(4);
  });

  it('refuses to be re-entered: drive it from one loop', async () => {
    const h = await follower();
    const [a, b] = h.votes(h.others().slice(0, 2), 'prevote', 1, 0, null);
    const first = h.feed(a);
    await expect(h.feed(b)).rejects.toThrow(/single-threaded/);
    await first;
  });
});

describe('ConsensusCore: locking across rounds', () => {
  /** Locked on B at round 0 (we precommitted it), the round then failed. Now in Propose of round 1. */
  async function lockedOnB(): Promise<{ h: Harness; B: Proposal }> {
    const h = await follower();
    const B = h.proposal(1, 0, 'B');
    await h.feed({ type: 'proposal', proposal: B });
    const others = h.others();
    const precommitted = await feedAll(h, h.votes(others.slice(0, 2), 'prevote', 1, 0, B.blockHash));
    expect(ownVotes(precommitted, 'precommit')).toEqual([bytesToHex(B.blockHash)]);
    // The others precommit nil: +2/3 any, no decision; PrecommitWait times out.
    await feedAll(h, h.votes(others.slice(0, 2), 'precommit', 1, 0, null));
    expect(h.core.step).toBe(Step.PrecommitWait);
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.PrecommitWait });
    expect(h.core.round).toBe(1);
    return { h, B };
  }

  it('a validator locked on B prevotes nil for another block proposed without a proof-of-lock', async () => {
    const { h } = await lockedOnB();
    const r = h.core.round;
    expect(h.proposerOf(1, r)).not.toBe(h.me);
    const C = h.proposal(1, r, 'C');
    expect(ownVotes(await h.feed({ type: 'proposal', proposal: C }), 'prevote')).toEqual([null]);
  });

  it('a validator locked on B prevotes B again in a later round', async () => {
    const { h, B } = await lockedOnB();
    const r = h.roundProposedBy(1, (i) => i !== h.me, 1);
    if (r !== h.core.round) await h.toRound(r);
    const again = proposal(h.key(h.proposerOf(1, r)), 1, r, B.block, 0);
    // The re-proposal carries polRound 0, which we hold: it is complete.
    expect(ownVotes(await h.feed({ type: 'proposal', proposal: again }), 'prevote')).toEqual([bytesToHex(B.blockHash)]);
  });

  it('a later proof-of-lock unlocks it: it prevotes the other block', async () => {
    const { h } = await lockedOnB();
    // Round r1: the others see a polka for C (we only prevote nil: locked).
    const r1 = h.core.round;
    const C = proposal(h.key(h.proposerOf(1, r1)), 1, r1, utf8.encode('C'));
    const others = h.others();
    await feedAll(h, h.votes(others, 'prevote', 1, r1, C.blockHash));
    // Round r2 > r1: C re-proposed with polRound r1.
    const r2 = h.roundProposedBy(1, (i) => i !== h.me, r1 + 1);
    await h.toRound(r2);
    expect(h.core.round).toBe(r2);
    const rePropose = proposal(h.key(h.proposerOf(1, r2)), 1, r2, utf8.encode('C'), r1);
    expect(ownVotes(await h.feed({ type: 'proposal', proposal: rePropose }), 'prevote')).toEqual([bytesToHex(C.blockHash)]);
  });

  it('a proof-of-lock older than the lock does not unlock', async () => {
    const h = await follower();
    const others = h.others();
    const C = h.block('C');
    // Round 0: we time out and prevote nil; the others prevote C, a polka we cannot use (no block).
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.Propose });
    await feedAll(h, h.votes(others, 'prevote', 1, 0, C.hash));
    expect(h.core.step).toBe(Step.PrevoteWait);
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.PrevoteWait });
    await feedAll(h, h.votes(others, 'precommit', 1, 0, null));
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.PrecommitWait });
    expect(h.core.snapshot.context).toMatchObject({ round: 1, lockedRound: -1 });
    // Round 1: B is proposed, we lock on it; the round fails anyway.
    const B = h.proposal(1, 1, 'B');
    await h.feed({ type: 'proposal', proposal: B });
    expect(ownVotes(await feedAll(h, h.votes(others.slice(0, 2), 'prevote', 1, 1, B.blockHash)), 'precommit')).toEqual([bytesToHex(B.blockHash)]);
    await feedAll(h, h.votes(others.slice(0, 2), 'precommit', 1, 1, null));
    await h.feed({ type: 'timeout', height: 1, round: 1, step: Step.PrecommitWait });
    expect(h.core.snapshot.context).toMatchObject({ round: 2, lockedRound: 1, lockedValue: bytesToHex(B.blockHash) });
    // Round 2: C comes back with its (complete) round-0 proof-of-lock: older than our lock.
    const rePropose = proposal(h.key(h.proposerOf(1, 2)), 1, 2, C.bytes, 0);
    expect(ownVotes(await h.feed({ type: 'proposal', proposal: rePropose }), 'prevote')).toEqual([null]);
  });
});

describe('ConsensusCore: timeouts', () => {
  it('grow by delta per round and are tagged with (height, round, step)', async () => {
    const h = await follower();
    const out: ConsensusOutput[] = [];
    out.push(...(await h.toRound(2)));
    const propose2 = timeouts(out).find((t) => t.step === Step.Propose);
    expect(propose2).toEqual({ type: 'scheduleTimeout', height: 1, round: 2, step: Step.Propose, delayMs: 300 + 100 * 2 });
    const prevoted = await h.feed({ type: 'timeout', height: 1, round: 2, step: Step.Propose });
    expect(timeouts(prevoted)).toContainEqual({ type: 'scheduleTimeout', height: 1, round: 2, step: Step.Prevote, delayMs: 100 + 50 * 2 });
  });

  it('drops stale timeouts without doing anything', async () => {
    const h = await follower();
    await h.feed({ type: 'proposal', proposal: h.proposal(1, 0, 'B') });
    expect(h.core.step).toBe(Step.Prevote);
    for (const t of [
      { height: 1, round: 0, step: Step.Propose },
      { height: 1, round: 0, step: Step.NewHeight },
      { height: 0, round: 0, step: Step.Prevote },
      { height: 1, round: 1, step: Step.Prevote },
    ]) {
      expect(await h.feed({ type: 'timeout', ...t })).toEqual([]);
    }
    // The current one re-broadcasts our prevote and asks for what we miss.
    const retry = await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.Prevote });
    expect(ownVotes(retry, 'prevote')).toHaveLength(1);
    expect(retry.some((o) => o.type === 'broadcast' && o.message.kind === 'status')).toBe(true);
  });
});

describe('ConsensusCore: evidence', () => {
  it('reports a double vote once, and the evidence verifies', async () => {
    const h = await follower();
    const bad = h.others()[0];
    const A = h.block('A').hash;
    const out = await feedAll(h, [
      ...h.votes([bad], 'prevote', 1, 0, A),
      ...h.votes([bad], 'prevote', 1, 0, null),
      ...h.votes([bad], 'prevote', 1, 0, h.block('C').hash),
    ]);
    const ev = out.filter((o) => o.type === 'evidence');
    expect(ev).toHaveLength(1);
    if (ev[0].type !== 'evidence') throw new Error();
    expect(checkEvidence(CHAIN_ID, h.set, secp256k1Verifier, ev[0].evidence)).toBeNull();
  });

  it('reports equivocating proposals and keeps the first', async () => {
    const h = await follower();
    const p1 = h.proposal(1, 0, 'one');
    const p2 = h.proposal(1, 0, 'two');
    const first = await h.feed({ type: 'proposal', proposal: p1 });
    expect(ownVotes(first, 'prevote')).toEqual([bytesToHex(p1.blockHash)]);
    const out = await h.feed({ type: 'proposal', proposal: p2 });
    const ev = out.find((o) => o.type === 'evidence');
    if (ev?.type !== 'evidence') throw new Error('no evidence');
    expect(ev.evidence.kind).toBe('duplicateProposal');
    expect(checkEvidence(CHAIN_ID, h.set, secp256k1Verifier, ev.evidence)).toBeNull();
    expect(await h.feed({ type: 'proposal', proposal: p2 })).toEqual([]); // once
  });
});

describe('ConsensusCore: restart with persisted privval state', () => {
  it('a restarted validator does not sign a conflicting prevote, re-sends the one it signed, and stays locked', async () => {
    const h = await follower();
    const B = h.proposal(1, 0, 'B');
    const first = await h.feed({ type: 'proposal', proposal: B });
    const signedBefore = first.find((o) => o.type === 'broadcast' && o.message.kind === 'vote');
    await feedAll(h, h.votes(h.others().slice(0, 2), 'prevote', 1, 0, B.blockHash)); // lock on B, precommit B
    // Crash: memory gone, the privval state is on disk. Restart at the same height.
    await h.boot(1);
    expect(h.core.round).toBe(0);
    expect(h.core.snapshot.context).toMatchObject({ lockedRound: 0, lockedValue: bytesToHex(B.blockHash) });
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
    // Round 0 again with a different proposal (the proposer equivocates): the machine asks, the privval refuses.
    const C = h.proposal(1, 0, 'C');
    const out = await h.feed({ type: 'proposal', proposal: C });
    expect(ownVotes(out, 'prevote')).toEqual([bytesToHex(B.blockHash)]); // the old vote, not C
    const resent = out.find((o) => o.type === 'broadcast' && o.message.kind === 'vote');
    expect(resent).toEqual(signedBefore);
    expect(h.core.counters.signRefused).toBe(1);
    expect(h.core.counters.votesResent).toBe(1);
    // A later round without proof-of-lock: nil, because the lock was restored.
    const r = h.roundProposedBy(1, (i) => i !== h.me, 1);
    await h.toRound(r);
    const D = proposal(h.key(h.proposerOf(1, r)), 1, r, utf8.encode('D'));
    expect(ownVotes(await h.feed({ type: 'proposal', proposal: D }), 'prevote')).toEqual([null]);
  });
  it('a validator that restarts while locked still holds the locked block and re-proposes it', async () => {
    const h = await follower(); // proposer of round 3
    const B = h.proposal(1, 0, 'B');
    await h.feed({ type: 'proposal', proposal: B });
    await feedAll(h, h.votes(h.others().slice(0, 2), 'prevote', 1, 0, B.blockHash)); // locks on B, precommits B
    expect(decodePrivValState(h.disk.state as Uint8Array).lock?.block).toEqual(B.block); // on disk before the precommit left
    await h.boot(1); // crash and restart: the round-0 prevotes are gone, the block is not
    await h.feed({ type: 'timeout', height: 1, round: 0, step: Step.NewHeight });
    const out = await h.toRound(3);
    const mine = out.find((o) => o.type === 'broadcast' && o.message.kind === 'proposal');
    if (mine?.type !== 'broadcast' || mine.message.kind !== 'proposal') throw new Error('no proposal');
    expect(mine.message.proposal.blockHash).toEqual(B.blockHash);
    expect(mine.message.proposal.polRound).toBe(-1); // its proof-of-lock died with the restart
    expect(h.built).toBe(0); // nothing new was built
  });
});

describe('ConsensusCore: catching up', () => {
  async function decidedElsewhere(h: Harness): Promise<Certificate> {
    const B = h.block('B');
    const commitVotes = h.others().map((i) => vote(h.key(i), 'precommit', 1, 0, B.hash));
    return {
      height: 1,
      block: B.bytes,
      commit: { height: 1, round: 0, blockHash: B.hash, signatures: commitVotes.map((v) => ({ validator: v.validator, signature: v.signature })) },
    };
  }

  it('decides from a verified certificate', async () => {
    const h = await follower();
    const cert = await decidedElsewhere(h);
    const out = await h.feed({ type: 'certificate', certificate: cert });
    const [d] = decisions(out);
    expect(d?.height).toBe(1);
    expect(equalBytes(d.blockHash, cert.commit.blockHash)).toBe(true);
    // Having caught up this way, it announces itself at the next height.
    const next = await h.feed({ type: 'commitDone', height: 1 });
    expect(next.some((o) => o.type === 'broadcast' && o.message.kind === 'status' && o.message.status.height === 2)).toBe(true);
  });

  it('refuses a certificate without +2/3 valid signatures', async () => {
    const h = await follower();
    const cert = await decidedElsewhere(h);
    const two = { ...cert, commit: { ...cert.commit, signatures: cert.commit.signatures.slice(0, 2) } };
    expect(decisions(await h.feed({ type: 'certificate', certificate: two }))).toEqual([]);
    const forged = { ...cert, commit: { ...cert.commit, signatures: cert.commit.signatures.map((s) => ({ ...s, signature: cert.commit.signatures[0].signature })) } };
    expect(decisions(await h.feed({ type: 'certificate', certificate: forged }))).toEqual([]);
    const nils = h.others().map((i) => vote(h.key(i), 'precommit', 1, 0, null));
    const zero = { height: 1, block: cert.block, commit: { height: 1, round: 0, blockHash: new Uint8Array(32), signatures: nils.map((v) => ({ validator: v.validator, signature: v.signature })) } };
    expect(decisions(await h.feed({ type: 'certificate', certificate: zero }))).toEqual([]);
    expect(h.core.counters.certificatesInvalid).toBe(3);
  });

  it('answers a peer behind it with the certificate of the peer\'s height', async () => {
    const h = await follower();
    const cert = await decidedElsewhere(h);
    await h.feed({ type: 'certificate', certificate: cert });
    await h.feed({ type: 'commitDone', height: 1 });
    h.certificates.set(1, cert);
    const peer = h.key(h.others()[0]).address;
    const status = { height: 1, round: 0, hasProposal: false, prevotes: new Uint8Array(1), precommits: new Uint8Array(1), polRound: -1, polPrevotes: new Uint8Array(1) };
    const out = await h.feed({ type: 'status', from: peer, status });
    expect(out).toEqual([{ type: 'send', to: peer, message: { kind: 'certificate', certificate: cert } }]);
  });

  it('answers a peer at its height with the votes the peer lacks', async () => {
    const h = await follower();
    const others = h.others();
    await feedAll(h, h.votes(others.slice(0, 2), 'prevote', 1, 0, null));
    const peer = h.key(others[2]).address;
    const bitmap = new Uint8Array(1);
    bitmap[0] = 1 << h.set.indexOf(h.key(others[0]).address); // it has the first one
    const status = { height: 1, round: 0, hasProposal: true, prevotes: bitmap, precommits: new Uint8Array(1), polRound: -1, polPrevotes: new Uint8Array(1) };
    const out = await h.feed({ type: 'status', from: peer, status });
    const sent = out.flatMap((o) => (o.type === 'send' && o.message.kind === 'vote' ? [o.message.vote.validator] : []));
    expect(sent).toEqual([h.key(others[1]).address]);
  });

  it('buffers the next height\'s messages and replays them when it gets there', async () => {
    const h = await follower();
    const B = h.proposal(1, 0, 'B');
    await h.feed({ type: 'proposal', proposal: B });
    const others = h.others();
    await feedAll(h, h.votes(others.slice(0, 2), 'prevote', 1, 0, B.blockHash));
    await feedAll(h, h.votes(others.slice(0, 2), 'precommit', 1, 0, B.blockHash));
    expect(h.core.step).toBe(Step.Commit);
    // Height 2's round-0 votes arrive before our application has committed height 1.
    const early = h.votes(others, 'prevote', 2, 0, null);
    for (const e of early) expect(await h.feed(e)).toEqual([]);
    expect(h.core.counters.futureBuffered).toBe(3);
    await h.feed({ type: 'commitDone', height: 1 });
    expect(h.core.height).toBe(2);
    expect(h.core.counters.votesAdded).toBeGreaterThanOrEqual(3 + 4 + 2); // replayed
  });

  it('turns a wire message into its input', () => {
    const h = new Harness(0);
    const v: Vote = vote(h.key(1), 'prevote', 1, 0, null);
    expect(inputFromMessage({ kind: 'vote', vote: v }, h.key(1).address)).toEqual({ type: 'vote', vote: v });
  });
});
