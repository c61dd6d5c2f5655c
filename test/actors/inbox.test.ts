/** LanedInbox (actors/inbox.ts) and the consensus actor's lanes (actors/consensus/inbox.ts). */
import { describe, expect, it } from 'vitest';
import { ActorError, SupervisedActor, type Reply } from '../../actors/actor';
import { consensusInbox, consensusLaneOf } from '../../actors/consensus/inbox';
import type { ConsensusMsg } from '../../actors/consensus/messages';
import { LanedInbox } from '../../actors/inbox';
import { CONSENSUS_LANES, PROPOSAL_LANE_MSGS, VOTE_LANE_MSGS } from '../../actors/limits';
import { Step } from '../../machines/consensus-round';
import type { Address } from '../../src/util/bytes';
import { silentLogger } from '../../src/util/log';

type Msg = { lane: 'tick' | 'a' | 'b' | 'c'; n: number; reply?: Reply<number> };

const inbox = (onEvict?: (m: Msg) => void) =>
  new LanedInbox<Msg, Msg['lane']>({
    lanes: {
      tick: { capacityMsgs: 1, policy: 'supersede', priority: true },
      a: { capacityMsgs: 2, policy: 'drop-newest' },
      b: { capacityMsgs: 2, policy: 'drop-oldest' },
      c: { capacityMsgs: 2, policy: 'drop-newest' },
    },
    laneOf: (m) => m.lane,
    onEvict,
  });

const drain = (box: LanedInbox<Msg, Msg['lane']>): string[] => {
  const out: string[] = [];
  for (let m = box.poll(); m !== undefined; m = box.poll()) out.push(`${m.lane}${m.n}`);
  return out;
};

describe('LanedInbox', () => {
  it('bounds each lane by its own policy: a full lane refuses or evicts its own messages only', () => {
    const evicted: Msg[] = [];
    const box = inbox((m) => evicted.push(m));
    expect([1, 2, 3].map((n) => box.push({ lane: 'a', n }))).toEqual([true, true, false]);
    expect([1, 2, 3].map((n) => box.push({ lane: 'b', n }))).toEqual([true, true, true]);
    expect(box.push({ lane: 'c', n: 1 })).toBe(true);
    expect(evicted.map((m) => `${m.lane}${m.n}`)).toEqual(['b1']);
    const lanes = box.lanes();
    expect(lanes.a).toMatchObject({ size: 2, enqueued: 2, dropped: 1, superseded: 0 });
    expect(lanes.b).toMatchObject({ size: 2, enqueued: 3, dropped: 1, superseded: 0 });
    expect(lanes.c).toMatchObject({ size: 1, enqueued: 1, dropped: 0 });
    expect(box.dropped).toBe(2);
    expect(box.size).toBe(5);
  });

  it('serves the priority lane first, then the other lanes in turn', () => {
    const box = inbox();
    box.push({ lane: 'a', n: 1 });
    box.push({ lane: 'a', n: 2 });
    box.push({ lane: 'b', n: 1 });
    box.push({ lane: 'c', n: 1 });
    box.push({ lane: 'tick', n: 1 });
    expect(box.poll()).toEqual({ lane: 'tick', n: 1 });
    expect(box.poll()?.lane).toBe('a');
    box.push({ lane: 'tick', n: 2 });
    expect(drain(box)).toEqual(['tick2', 'b1', 'c1', 'a2']);
  });

  it('a supersede lane never refuses: the newer message replaces the waiting one, counted as superseded, not dropped', () => {
    const evicted: Msg[] = [];
    const box = inbox((m) => evicted.push(m));
    for (let n = 1; n <= 5; n++) expect(box.push({ lane: 'tick', n })).toBe(true);
    expect(box.lanes().tick).toMatchObject({ size: 1, enqueued: 5, dropped: 0, superseded: 4 });
    expect(box.dropped).toBe(0);
    expect(evicted.map((m) => m.n)).toEqual([1, 2, 3, 4]);
    expect(drain(box)).toEqual(['tick5']);
  });

  it('refuses a supersede lane of more than one slot and an empty set of lanes', () => {
    expect(() => new LanedInbox<Msg, 'x'>({ lanes: { x: { capacityMsgs: 2, policy: 'supersede' } }, laneOf: () => 'x' })).toThrow(RangeError);
    expect(() => new LanedInbox<Msg, never>({ lanes: {} as Record<never, never>, laneOf: () => undefined as never })).toThrow(RangeError);
  });

  it('hands a message to a waiting take(), and clear() empties every lane', async () => {
    const box = inbox();
    const taken = box.take();
    expect(box.waiting).toBe(1);
    box.push({ lane: 'c', n: 7 });
    await expect(taken).resolves.toEqual({ lane: 'c', n: 7 });
    box.push({ lane: 'a', n: 1 });
    box.push({ lane: 'tick', n: 1 });
    expect(box.clear().map((m) => `${m.lane}${m.n}`)).toEqual(['tick1', 'a1']);
    expect(box.size).toBe(0);
    const aborted = new AbortController();
    const waiting = box.take(aborted.signal);
    aborted.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    expect(box.waiting).toBe(0);
  });

  it('as a SupervisedActor inbox: an evicted ask fails with MESSAGE_DROPPED, lanes() shows the counters', async () => {
    const handled: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const actor = new SupervisedActor<Msg>(
      'laned',
      () => ({
        async handle(m) {
          if (m.n === 0) await gate;
          handled.push(m.n);
          m.reply?.resolve(m.n);
        },
      }),
      { inbox: (onEvict) => inbox(onEvict), log: silentLogger() },
    );
    await actor.start();
    actor.send({ lane: 'a', n: 0 }); // holds the actor until released
    await new Promise((r) => setImmediate(r));
    const first = actor.ask<number>((reply) => ({ lane: 'b', n: 1, reply }));
    actor.send({ lane: 'b', n: 2 });
    actor.send({ lane: 'b', n: 3 }); // evicts 1
    await expect(first).rejects.toMatchObject({ code: 'MESSAGE_DROPPED' } satisfies Partial<ActorError>);
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(handled).toEqual([0, 2, 3]);
    expect(actor.lanes()?.b).toMatchObject({ dropped: 1, enqueued: 3 });
    expect(actor.stats.dropped).toBe(1);
    await actor.stop();
  });

  it('an actor takes a capacity or an inbox, not both nor neither', () => {
    const behavior = () => ({ handle() {} });
    expect(() => new SupervisedActor<Msg>('x', behavior, { log: silentLogger() })).toThrow(RangeError);
    expect(() => new SupervisedActor<Msg>('x', behavior, { capacity: 4, inbox: (e) => inbox(e), log: silentLogger() })).toThrow(RangeError);
    expect(new SupervisedActor<Msg>('x', behavior, { capacity: 4, log: silentLogger() }).lanes()).toBeUndefined();
  });
});

describe('the consensus actor lanes', () => {
  const from = '0x0000000000000000000000000000000000000001' as Address;
  const vote = (round: number): ConsensusMsg => ({
    type: 'message',
    message: { kind: 'vote', vote: { type: 'prevote', height: 1, round, blockHash: null, validator: from, signature: new Uint8Array(65) } },
    from,
  });
  const proposal = (round: number): ConsensusMsg => ({
    type: 'message',
    message: { kind: 'proposal', proposal: { height: 1, round, polRound: -1, blockHash: new Uint8Array(32), block: new Uint8Array(8), proposer: from, signature: new Uint8Array(65) } },
    from,
  });
  const timer = (round: number): ConsensusMsg => ({ type: 'timer', generation: 1, height: 1, round, step: Step.Propose });

  it('puts each kind in its own lane', () => {
    expect(consensusLaneOf(vote(0))).toBe('vote');
    expect(consensusLaneOf(proposal(0))).toBe('proposal');
    expect(consensusLaneOf(timer(0))).toBe('timeout');
    const status = { height: 1, round: 0, hasProposal: false, prevotes: new Uint8Array(1), precommits: new Uint8Array(1), polRound: -1, polPrevotes: new Uint8Array(1) };
    expect(consensusLaneOf({ type: 'message', message: { kind: 'status', status }, from })).toBe('status');
    const commit = { height: 1, round: 0, blockHash: new Uint8Array(32), signatures: [] };
    expect(consensusLaneOf({ type: 'message', message: { kind: 'certificate', certificate: { height: 1, block: new Uint8Array(8), commit } }, from })).toBe('certificate');
    const v = (vote(0) as Extract<ConsensusMsg, { type: 'message' }>).message;
    if (v.kind !== 'vote') throw new Error('a vote');
    expect(consensusLaneOf({ type: 'evidence', evidence: { kind: 'duplicateVote', voteA: v.vote, voteB: v.vote }, gossiped: true })).toBe('evidence');
    expect(Object.keys(CONSENSUS_LANES).sort()).toEqual(['certificate', 'evidence', 'proposal', 'status', 'timeout', 'vote']);
  });

  it('a flood of votes pushes out neither a proposal nor a timeout, and the timeout is served first', () => {
    const box = consensusInbox(() => {});
    box.push(proposal(0));
    for (let r = 0; r < VOTE_LANE_MSGS * 3; r++) expect(box.push(vote(r))).toBe(true);
    for (let r = 0; r < 3; r++) expect(box.push(timer(r))).toBe(true);
    const lanes = box.lanes();
    expect(lanes.vote).toMatchObject({ size: VOTE_LANE_MSGS, dropped: VOTE_LANE_MSGS * 2 });
    expect(lanes.proposal).toMatchObject({ size: 1, dropped: 0 });
    expect(lanes.timeout).toMatchObject({ size: 1, dropped: 0, superseded: 2 });
    // The newest timeout first, then the lanes in turn: the proposal is not behind the votes.
    expect(box.poll()).toEqual(timer(2));
    expect([box.poll(), box.poll()].map((m) => consensusLaneOf(m!)).sort()).toEqual(['proposal', 'vote']);
    expect(PROPOSAL_LANE_MSGS).toBeGreaterThanOrEqual(1);
  });
});
