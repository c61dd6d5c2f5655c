import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { getAdjacencyMap, getShortestPaths, getSimplePaths, toDirectedGraph } from 'xstate/graph';
import {
  consensusRoundMachine,
  roundStepper,
  effectsOf,
  isStaleTimeout,
  Step,
  STEP_NAMES,
  stepOf,
  type ConsensusRoundEvent,
  type ConsensusRoundInput,
  type ConsensusRoundSnapshot,
} from '../../machines/consensus-round';
import { machines } from '../../machines/index';

type Snapshot = ConsensusRoundSnapshot;
type Ev = ConsensusRoundEvent;

const A = '0x' + 'aa'.repeat(32);
const B = '0x' + 'bb'.repeat(32);
const H = 1;

const proposal = (round: number, blockHash: string, polRound = -1, valid = true, polQuorum = polRound >= 0): Ev => ({
  type: 'PROPOSAL',
  height: H,
  round,
  blockHash,
  polRound,
  valid,
  polQuorum,
});
const polka = (round: number, blockHash: string, haveValidBlock = true): Ev => ({ type: 'PREVOTE_QUORUM_BLOCK', height: H, round, blockHash, haveValidBlock });
const polkaNil = (round: number): Ev => ({ type: 'PREVOTE_QUORUM_NIL', height: H, round });
const prevoteAny = (round: number): Ev => ({ type: 'PREVOTE_QUORUM_ANY', height: H, round });
const precommitAny = (round: number): Ev => ({ type: 'PRECOMMIT_QUORUM_ANY', height: H, round });
const commitQuorum = (round: number, blockHash: string, haveValidBlock = true): Ev => ({ type: 'PRECOMMIT_QUORUM_BLOCK', height: H, round, blockHash, haveValidBlock });
const timeout = (step: Step, round = 0, height = H): Ev => ({ type: 'TIMEOUT', height, round, step });
const newRound = (round: number): Ev => ({ type: 'NEW_ROUND', height: H, round });
const blockReceived = (blockHash: string): Ev => ({ type: 'BLOCK_RECEIVED', height: H, blockHash });
const commitDone = (height = H): Ev => ({ type: 'COMMIT_DONE', height });

function init(input: ConsensusRoundInput = { height: H }): Snapshot {
  return initialTransition(consensusRoundMachine, input)[0];
}

/** Applies events with xstate's pure transition(); returns the last snapshot and every effect, in order. */
function run(events: Ev[], from: Snapshot = init()): { s: Snapshot; effects: { type: string; params?: unknown }[] } {
  let s = from;
  const all: { type: string; params?: unknown }[] = [];
  for (const e of events) {
    const [next, actions] = transition(consensusRoundMachine, s, e);
    s = next;
    all.push(...effectsOf(actions));
  }
  return { s, effects: all };
}

function votes(effects: { type: string; params?: unknown }[], type: 'prevote' | 'precommit'): (string | null)[] {
  return effects.filter((e) => e.type === type).map((e) => (e.params as { blockHash: string | null }).blockHash);
}

const guardName = (g: unknown): string => (typeof g === 'string' ? g : ((g as { type?: string } | undefined)?.type ?? '-'));

/** Every transition drawn in the machine, as "source|EVENT|guard|target". */
function declaredEdges(): Set<string> {
  const edges = new Set<string>();
  for (const child of toDirectedGraph(consensusRoundMachine).children) {
    for (const edge of child.edges) {
      edges.add(`${edge.source.key}|${edge.label.text}|${guardName((edge.transition as { guard?: unknown }).guard)}|${edge.target.key}`);
    }
  }
  return edges;
}

/** The transition a snapshot takes on an event, as "source|EVENT|guard|target", or undefined. */
function takenEdge(s: Snapshot, e: Ev): string | undefined {
  if (!s.can(e)) return undefined;
  const [t] = consensusRoundMachine.getTransitionData(s, e);
  const target = t.target?.[0]?.key ?? String(s.value);
  return `${String(s.value)}|${e.type}|${guardName(t.guard)}|${target}`;
}

/** Events of height 1, rounds 0 and 1, two blocks: enough to reach every transition. */
const EVENTS: Ev[] = [
  proposal(0, A),
  proposal(0, A, -1, false),
  proposal(1, B),
  proposal(1, A, 0),
  proposal(1, B, 0),
  proposal(1, B, 0, true, false),
  polka(0, A),
  polka(0, A, false),
  polka(1, B),
  polkaNil(0),
  polkaNil(1),
  prevoteAny(0),
  prevoteAny(1),
  precommitAny(0),
  precommitAny(1),
  commitQuorum(0, A),
  commitQuorum(0, A, false),
  blockReceived(A),
  newRound(1),
  ...STEP_NAMES.flatMap((name) => [timeout(Step[name], 0), timeout(Step[name], 1)]),
  commitDone(),
];

describe('Step', () => {
  it('is ordered like CometBFT round steps', () => {
    expect(STEP_NAMES.map((n) => Step[n])).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(Step.NewHeight < Step.Propose && Step.Propose < Step.Prevote && Step.Prevote < Step.PrevoteWait).toBe(true);
    expect(Step.PrevoteWait < Step.Precommit && Step.Precommit < Step.PrecommitWait && Step.PrecommitWait < Step.Commit).toBe(true);
    expect(stepOf('PrevoteWait')).toBe(Step.PrevoteWait);
    expect(() => stepOf('Nope')).toThrow();
  });

  it('recognises stale timeouts by (height, round, step)', () => {
    const now = { height: 5, round: 2, step: Step.Prevote };
    expect(isStaleTimeout(now, { height: 4, round: 9, step: Step.Commit })).toBe(true);
    expect(isStaleTimeout(now, { height: 6, round: 0, step: Step.Propose })).toBe(true);
    expect(isStaleTimeout(now, { height: 5, round: 1, step: Step.PrecommitWait })).toBe(true);
    expect(isStaleTimeout(now, { height: 5, round: 2, step: Step.Propose })).toBe(true);
    expect(isStaleTimeout(now, { height: 5, round: 2, step: Step.Prevote })).toBe(false);
  });
});

describe('consensus-round machine, the happy path', () => {
  it('starts in NewHeight and schedules its timeout', () => {
    const [s, actions] = initialTransition(consensusRoundMachine, { height: 7 });
    expect(s.value).toBe('NewHeight');
    expect(s.context).toMatchObject({ height: 7, round: 0, lockedRound: -1, lockedValue: null, validRound: -1, validValue: null });
    expect(effectsOf(actions)).toEqual([{ type: 'scheduleTimeout', params: { height: 7, round: 0, step: Step.NewHeight } }]);
  });

  it('NewHeight → Propose → Prevote → Precommit → Commit → NewHeight, with the effects in order', () => {
    const { s, effects } = run([timeout(Step.NewHeight), proposal(0, A), polka(0, A), commitQuorum(0, A), commitDone()]);
    expect(s.value).toBe('NewHeight');
    expect(s.context).toMatchObject({ height: 2, round: 0, lockedRound: -1, lockedValue: null, decided: false });
    expect(effects.map((e) => e.type)).toEqual([
      'scheduleTimeout', // Propose
      'propose',
      'prevote',
      'scheduleTimeout', // Prevote
      'precommit',
      'scheduleTimeout', // Precommit
      'decide',
      'scheduleTimeout', // Commit
      'scheduleTimeout', // NewHeight of height 2
    ]);
    expect(votes(effects, 'prevote')).toEqual([A]);
    expect(votes(effects, 'precommit')).toEqual([A]);
    expect(effects.find((e) => e.type === 'decide')?.params).toEqual({ height: 1, round: 0, blockHash: A });
  });

  it('locks on the polka it precommits, and follows it as the valid value', () => {
    const { s } = run([timeout(Step.NewHeight), proposal(0, A), polka(0, A)]);
    expect(s.value).toBe('Precommit');
    expect(s.context).toMatchObject({ lockedRound: 0, lockedValue: A, validRound: 0, validValue: A });
  });

  it('prevotes nil for an invalid proposal and on the propose timeout', () => {
    expect(votes(run([timeout(Step.NewHeight), proposal(0, A, -1, false)]).effects, 'prevote')).toEqual([null]);
    const t = run([timeout(Step.NewHeight), timeout(Step.Propose)]);
    expect(t.s.value).toBe('Prevote');
    expect(votes(t.effects, 'prevote')).toEqual([null]);
  });

  it('waits in Propose for a proof-of-lock it has not seen, then takes it', () => {
    const locked = run([timeout(Step.NewHeight), proposal(0, A), polka(0, A), precommitAny(0), timeout(Step.PrecommitWait, 0)]).s;
    expect(locked.value).toBe('Propose');
    expect(locked.context.round).toBe(1);
    const waiting = run([proposal(1, B, 0, true, false)], locked);
    expect(waiting.s).toBe(locked); // no transition: the POL is not complete yet
    const took = run([proposal(1, B, 0, true, true)], locked);
    expect(took.s.value).toBe('Prevote');
    expect(votes(took.effects, 'prevote')).toEqual([B]);
  });

  it('waits in Commit for the committed block when its bytes are missing', () => {
    const { s, effects } = run([timeout(Step.NewHeight), commitQuorum(0, A, false)]);
    expect(s.value).toBe('Commit');
    expect(s.context).toMatchObject({ commitRound: 0, commitValue: A, decided: false });
    expect(effects.map((e) => e.type)).toEqual(['scheduleTimeout', 'propose', 'requestBlock', 'scheduleTimeout']);
    expect(s.can(commitDone())).toBe(false); // nothing to apply yet
    const retry = run([timeout(Step.Commit, 0)], s);
    expect(retry.effects.map((e) => e.type)).toEqual(['requestBlock', 'scheduleTimeout']);
    expect(s.can(blockReceived(B))).toBe(false);
    const got = run([blockReceived(A)], s);
    expect(got.effects).toEqual([{ type: 'decide', params: { height: H, round: 0, blockHash: A } }]);
    expect(run([timeout(Step.Commit, 0)], got.s).s).toBe(got.s); // decided: no more requests
    expect(run([commitDone()], got.s).s.value).toBe('NewHeight');
  });

  it('decides a block committed in another round than its own', () => {
    const inRound1 = run([timeout(Step.NewHeight), newRound(1)]).s;
    expect(inRound1.context.round).toBe(1);
    const { s, effects } = run([commitQuorum(0, A)], inRound1);
    expect(s.value).toBe('Commit');
    expect(effects.find((e) => e.type === 'decide')?.params).toEqual({ height: H, round: 0, blockHash: A });
  });

  it('drops stale timeouts: other height, older round, other step', () => {
    const prevote = run([timeout(Step.NewHeight), proposal(0, A)]).s;
    expect(prevote.value).toBe('Prevote');
    for (const t of [timeout(Step.Propose, 0), timeout(Step.Prevote, 0, 2), timeout(Step.Prevote, 1), timeout(Step.NewHeight, 0)]) {
      expect(prevote.can(t)).toBe(false);
      expect(transition(consensusRoundMachine, prevote, t)[0]).toBe(prevote);
    }
    expect(prevote.can(timeout(Step.Prevote, 0))).toBe(true);
  });

  it('grows rounds on PrecommitWait timeouts and skips ahead on f+1 of a higher round', () => {
    const r1 = run([timeout(Step.NewHeight), timeout(Step.Propose), prevoteAny(0), timeout(Step.PrevoteWait), precommitAny(0), timeout(Step.PrecommitWait)]);
    expect(r1.s.value).toBe('Propose');
    expect(r1.s.context.round).toBe(1);
    expect(votes(r1.effects, 'precommit')).toEqual([null]);
    const skip = run([{ type: 'NEW_ROUND', height: H, round: 5 }], r1.s);
    expect(skip.s.context.round).toBe(5);
    expect(skip.effects.map((e) => e.type)).toEqual(['scheduleTimeout', 'propose']);
    expect(skip.s.can(newRound(3))).toBe(false); // never backwards
  });

  it('restores a lock from the privval on restart', () => {
    const s = init({ height: H, round: 3, lockedRound: 2, lockedValue: A });
    expect(s.context).toMatchObject({ round: 3, lockedRound: 2, lockedValue: A, validRound: 2, validValue: A });
    const { effects } = run([timeout(Step.NewHeight, 3), { ...proposal(3, B), round: 3 } as Ev], s);
    expect(votes(effects, 'prevote')).toEqual([null]);
  });
});

describe('consensus-round machine, locking rules (paper lines 22-36)', () => {
  /** Locked on A at round 0, now in Propose of round `round`. */
  function lockedOnA(): Snapshot {
    const s = run([timeout(Step.NewHeight), proposal(0, A), polka(0, A), precommitAny(0), timeout(Step.PrecommitWait, 0)]).s;
    expect(s.context).toMatchObject({ round: 1, lockedRound: 0, lockedValue: A });
    return s;
  }

  it('a locked validator prevotes its locked block again in a later round', () => {
    expect(votes(run([proposal(1, A)], lockedOnA()).effects, 'prevote')).toEqual([A]);
  });

  it('a locked validator prevotes nil for another block without a proof-of-lock', () => {
    expect(votes(run([proposal(1, B)], lockedOnA()).effects, 'prevote')).toEqual([null]);
  });

  it('a proof-of-lock at or after the lock unlocks: it prevotes the other block', () => {
    expect(votes(run([proposal(1, B, 0, true, true)], lockedOnA()).effects, 'prevote')).toEqual([B]);
  });

  it('a proof-of-lock older than the lock does not unlock', () => {
    // Lock on A in round 1, then a round-2 proposal of B with a round-0 POL.
    const s = run([
      timeout(Step.NewHeight),
      timeout(Step.Propose),
      polkaNil(0),
      precommitAny(0),
      timeout(Step.PrecommitWait, 0),
      proposal(1, A),
      polka(1, A),
      precommitAny(1),
      timeout(Step.PrecommitWait, 1),
    ]).s;
    expect(s.context).toMatchObject({ round: 2, lockedRound: 1, lockedValue: A });
    const older = { ...proposal(2, B, 0, true, true) } as Ev;
    expect(votes(run([older], s).effects, 'prevote')).toEqual([null]);
    const newer = { ...proposal(2, B, 1, true, true) } as Ev;
    expect(votes(run([newer], s).effects, 'prevote')).toEqual([B]);
  });

  it('locks only in Prevote/PrevoteWait of the polka round; later polkas move the valid value only', () => {
    const precommitted = run([timeout(Step.NewHeight), timeout(Step.Propose), polkaNil(0)]).s;
    expect(precommitted.value).toBe('Precommit');
    const late = run([polka(0, A)], precommitted);
    expect(late.effects).toEqual([]); // no second precommit
    expect(late.s.context).toMatchObject({ lockedRound: -1, lockedValue: null, validRound: 0, validValue: A });
    expect(late.s.can(polka(0, A))).toBe(false); // only once
  });

  it('never locks on a block it cannot validate', () => {
    const s = run([timeout(Step.NewHeight), proposal(0, A), polka(0, A, false)]).s;
    expect(s.value).toBe('Prevote');
    expect(s.context.lockedRound).toBe(-1);
  });

  it('re-proposes the valid value with its round (propose effect params)', () => {
    const { effects } = run([timeout(Step.NewHeight), proposal(0, A), polka(0, A), precommitAny(0), timeout(Step.PrecommitWait, 0)]);
    const proposes = effects.filter((e) => e.type === 'propose').map((e) => e.params);
    expect(proposes).toEqual([
      { height: H, round: 0, validValue: null, validRound: -1 },
      { height: H, round: 1, validValue: A, validRound: 0 },
    ]);
  });

  it('property: it prevotes a block only if unlocked, locked on it, or shown a newer proof-of-lock', () => {
    const ev = fc.constantFrom<Ev>(...EVENTS);
    // Random events rarely build a lock on their own: also start from states that hold one.
    const starts: Snapshot[] = [
      init(),
      lockedOnA(),
      run([timeout(Step.NewHeight), timeout(Step.Propose), polkaNil(0), precommitAny(0), timeout(Step.PrecommitWait, 0), proposal(1, B), polka(1, B)]).s,
      run([timeout(Step.NewHeight), timeout(Step.Propose), polkaNil(0), polka(0, A)]).s,
    ];
    fc.assert(
      fc.property(fc.constantFrom(...starts), fc.array(ev, { maxLength: 30 }), (start, events) => {
        let s = start;
        for (const e of events) {
          const before = s.context;
          const [next, actions] = transition(consensusRoundMachine, s, e);
          for (const a of effectsOf(actions)) {
            if (a.type === 'prevote' && a.params.blockHash !== null && e.type === 'PROPOSAL') {
              const unlocked = before.lockedRound === -1 || before.lockedValue === a.params.blockHash;
              const pol = e.polRound >= 0 && e.polQuorum && e.polRound < e.round && before.lockedRound <= e.polRound;
              expect(unlocked || pol).toBe(true);
              expect(e.valid).toBe(true);
            }
            if (a.type === 'precommit' && a.params.blockHash !== null) {
              expect(e.type).toBe('PREVOTE_QUORUM_BLOCK');
              expect(next.context.lockedValue).toBe(a.params.blockHash);
            }
            if (a.type === 'prevote' || a.type === 'precommit') expect(a.params.round).toBe(before.round);
          }
          // Round and height never go back; the lock only moves forward in rounds within a height.
          if (next.context.height === before.height) {
            expect(next.context.round).toBeGreaterThanOrEqual(before.round);
            expect(next.context.lockedRound).toBeGreaterThanOrEqual(before.lockedRound);
          }
          s = next;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('consensus-round machine, every transition (xstate/graph)', () => {
  it('draws the expected transitions (40, every guarded branch its own edge)', () => {
    const edges = declaredEdges();
    expect(edges.size).toBe(40);
    for (const name of STEP_NAMES) expect([...edges].some((e) => e.startsWith(`${name}|`))).toBe(true);
  });

  it('reaches every step by a shortest path, and replays each path to the same snapshot', () => {
    const paths = getShortestPaths(consensusRoundMachine, { events: EVENTS, input: { height: H } });
    const reached = new Set(paths.map((p) => String(p.state.value)));
    expect([...reached].sort()).toEqual([...STEP_NAMES].sort());
    for (const path of paths) {
      const end = run(path.steps.map((st) => st.event)).s;
      expect(end.value).toEqual(path.state.value);
      expect(end.context).toEqual(path.state.context);
    }
  });

  it('covers every drawn transition, every guard branch, and no other', () => {
    const adjacency = getAdjacencyMap(consensusRoundMachine, { events: EVENTS, input: { height: H } });
    const taken = new Set<string>();
    for (const vertex of Object.values(adjacency)) {
      for (const { event, state } of Object.values(vertex.transitions) as Array<{ event: Ev; state: Snapshot }>) {
        const edge = takenEdge(vertex.state as Snapshot, event);
        if (edge === undefined) {
          expect(state.value).toEqual(vertex.state.value);
          expect(state.context).toEqual((vertex.state as Snapshot).context);
          continue;
        }
        taken.add(edge);
      }
    }
    expect([...taken].sort()).toEqual([...declaredEdges()].sort());
  });

  it('walks the simple paths of a one-round model: only legal votes, a decision only after +2/3 precommits', () => {
    const small: Ev[] = [proposal(0, A), proposal(0, A, -1, false), polka(0, A), polkaNil(0), prevoteAny(0), precommitAny(0), commitQuorum(0, A), timeout(Step.NewHeight), timeout(Step.Propose), timeout(Step.PrevoteWait), commitDone()];
    const paths = getSimplePaths(consensusRoundMachine, { events: small, input: { height: H } });
    expect(paths.length).toBeGreaterThan(50);
    for (const path of paths) {
      const { effects } = run(path.steps.map((st) => st.event));
      expect(votes(effects, 'prevote').length).toBeLessThanOrEqual(1); // one prevote per round
      expect(votes(effects, 'precommit').length).toBeLessThanOrEqual(1);
      const decided = effects.filter((e) => e.type === 'decide');
      expect(decided.length).toBeLessThanOrEqual(1);
      if (decided.length) expect(path.steps.some((st) => st.event.type === 'PRECOMMIT_QUORUM_BLOCK')).toBe(true);
    }
  });

  it('the stepper the core uses agrees with xstate transition() on random runs', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<Ev>(...EVENTS), { maxLength: 40 }), fc.boolean(), (events, linear) => {
        let [a, aActs] = initialTransition(consensusRoundMachine, { height: H, linear });
        let b = roundStepper.initial({ height: H, linear });
        expect(b.effects).toEqual(effectsOf(aActs));
        for (const e of events) {
          expect(roundStepper.accepts(b.value, b.context, e)).toBe(a.can(e));
          const stepped = roundStepper.step(b.value, b.context, e);
          [a, aActs] = transition(consensusRoundMachine, a, e);
          if (stepped === undefined) {
            expect(effectsOf(aActs)).toEqual([]);
            continue;
          }
          b = stepped;
          expect(b.value).toEqual(a.value);
          expect(b.context).toEqual(a.context);
          expect(b.effects).toEqual(effectsOf(aActs));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the stepper agrees with transition() on every (state, event) of the test alphabet, from a locked context too', () => {
    const live = [init().context, init({ height: H, round: 0, lockedRound: 0, lockedValue: B }).context];
    // Commit is entered with a committed value only (recordCommit), decided or waiting for its bytes.
    const committing = [false, true].map((decided) => ({ ...init().context, commitRound: 0, commitValue: A, decided }));
    for (const value of STEP_NAMES) {
      for (const context of value === 'Commit' ? committing : live) {
        const s = consensusRoundMachine.resolveState({ value, context });
        for (const e of EVENTS) {
          const [next, acts] = transition(consensusRoundMachine, s, e);
          const got = roundStepper.step(value, context, e);
          if (!s.can(e)) {
            expect(got).toBeUndefined();
            continue;
          }
          expect(got).toEqual({ value: next.value, context: next.context, effects: effectsOf(acts) });
        }
      }
    }
  });

  it('linear votes: to the collector until a step of the round times out, then to all; a new round is linear again', () => {
    const to = (effects: { type: string; params?: unknown }[]) =>
      effects.flatMap((e) => (e.type === 'prevote' || e.type === 'precommit' ? [`${e.type} ${(e.params as { to: string }).to}`] : []));
    const linear = init({ height: H, linear: true });
    expect(to(run([timeout(Step.NewHeight), proposal(0, A), polka(0, A)], linear).effects)).toEqual(['prevote collector', 'precommit collector']);
    // No prevote certificate by the Prevote timeout: the rest of the round goes to all.
    const fell = run([timeout(Step.NewHeight), proposal(0, A), timeout(Step.Prevote), polka(0, A)], linear);
    expect(to(fell.effects)).toEqual(['prevote collector', 'precommit all']);
    expect(fell.effects.filter((e) => e.type === 'rebroadcast')).toHaveLength(1);
    // A silent proposer (the collector): the nil prevote goes to all at once.
    expect(to(run([timeout(Step.NewHeight), timeout(Step.Propose)], linear).effects)).toEqual(['prevote all']);
    const next = run([timeout(Step.NewHeight), timeout(Step.Propose), precommitAny(0), timeout(Step.PrecommitWait), proposal(1, B)], linear);
    expect(next.s.context).toMatchObject({ round: 1, fellBack: false });
    expect(to(next.effects)).toEqual(['prevote all', 'prevote collector']);
    // Off (the all-to-all protocol): every vote to all.
    expect(to(run([timeout(Step.NewHeight), proposal(0, A), polka(0, A)]).effects)).toEqual(['prevote all', 'precommit all']);
  });

  it('restores from a persisted snapshot and continues', () => {
    const s = run([timeout(Step.NewHeight), proposal(0, A), polka(0, A)]).s;
    const persisted = JSON.parse(JSON.stringify(consensusRoundMachine.getPersistedSnapshot(s)));
    const actor = createActor(consensusRoundMachine, { snapshot: persisted, input: { height: H } });
    actor.start();
    expect(actor.getSnapshot().value).toBe('Precommit');
    actor.send(commitQuorum(0, A));
    expect(actor.getSnapshot().value).toBe('Commit');
    expect(actor.getSnapshot().context.decided).toBe(true);
    actor.stop();
  });

  it('is listed in the machines registry', () => {
    expect(machines['consensus-round']).toBe(consensusRoundMachine);
  });
});
