/**
 * The facts of a height turned into round-machine events: from what the consensus core
 * counted (a commit candidate, the block of a decision, f+1 in a later round, the
 * round's proposal, +2/3 prevotes or precommits) the first event the machine
 * (machines/consensus-round.ts) accepts in its current state, in order of urgency.
 *
 * Separate from the core (./core.ts) because it only reads: the height's record and the
 * machine's snapshot in, one event out. The core fires it and executes the effects.
 */
import { roundStepper, type ConsensusRoundEvent, type RoundState } from '../../machines/consensus-round';
import type { HeightState } from './height-state';
import { hashKey } from './messages';

/** The first fact the machine accepts now, in order of urgency; undefined when it accepts none. */
export function nextEvent(hs: HeightState, snapshot: RoundState): ConsensusRoundEvent | undefined {
  const ctx = snapshot.context;
  const { height, round } = ctx;
  const candidates: ConsensusRoundEvent[] = [];
  const c = hs.commitCandidate;
  if (c !== undefined) {
    candidates.push({ type: 'PRECOMMIT_QUORUM_BLOCK', height, round: c.round, blockHash: c.key, haveValidBlock: hs.blocks.has(c.key) });
  }
  if (ctx.commitValue !== null && !ctx.decided && hs.blocks.has(ctx.commitValue)) {
    candidates.push({ type: 'BLOCK_RECEIVED', height, blockHash: ctx.commitValue });
  }
  if (hs.oneThirdRound > round) candidates.push({ type: 'NEW_ROUND', height, round: hs.oneThirdRound });
  const rec = hs.proposals.get(round);
  if (rec !== undefined) {
    const pol = rec.proposal.polRound;
    candidates.push({
      type: 'PROPOSAL',
      height,
      round,
      blockHash: rec.key,
      polRound: pol,
      valid: hs.blocks.has(rec.key),
      polQuorum: pol >= 0 && (hs.prevotes.get(pol)?.hasTwoThirdsFor(rec.proposal.blockHash) ?? false),
    });
  }
  const prevotes = hs.prevotes.get(round);
  if (prevotes !== undefined) {
    const maj = prevotes.twoThirdsMajority();
    if (maj !== undefined && maj.blockHash !== null) {
      const key = hashKey(maj.blockHash);
      candidates.push({ type: 'PREVOTE_QUORUM_BLOCK', height, round, blockHash: key, haveValidBlock: hs.blocks.has(key) });
    } else if (maj !== undefined) {
      candidates.push({ type: 'PREVOTE_QUORUM_NIL', height, round });
    }
    if (prevotes.hasTwoThirdsAny()) candidates.push({ type: 'PREVOTE_QUORUM_ANY', height, round });
  }
  if (hs.precommits.get(round)?.hasTwoThirdsAny()) candidates.push({ type: 'PRECOMMIT_QUORUM_ANY', height, round });
  return candidates.find((e) => roundStepper.accepts(snapshot.value, ctx, e));
}
