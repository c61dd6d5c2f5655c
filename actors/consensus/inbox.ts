/**
 * The consensus actor's inbox: one bounded lane per message kind (actors/inbox.ts,
 * capacities and policies in actors/limits.ts), so a flood of votes cannot push out
 * proposals, status messages or the actor's own timeouts. Everything the p2p actor
 * forwards goes through send() into its lane, so the per-kind bound applies before
 * anything else can fill; there is no shared mailbox behind the lanes.
 *
 * The actor's timeouts have a lane of their own, served first, that never refuses:
 * before this, a timeout came through the one mailbox peers fill, and a full mailbox
 * dropped it silently (the round then never moved on: a liveness fault).
 */
import { LanedInbox } from '../inbox';
import { CONSENSUS_LANES, type ConsensusLane } from '../limits';
import type { ConsensusMsg } from './messages';

/** The lane of a consensus actor's message. */
export function consensusLaneOf(msg: ConsensusMsg): ConsensusLane {
  switch (msg.type) {
    case 'timer':
    case 'storageBack':
    case 'catchUp':
      return 'timeout';
    case 'evidence':
      return 'evidence';
    // Periodic: one dropped only skips a look at the peers' heads (never the timeout lane, whose one slot is a round's timeout).
    case 'peersCheck':
      return 'status';
    case 'message':
      switch (msg.message.kind) {
        case 'proposal':
          return 'proposal';
        case 'vote':
        case 'votes':
          return 'vote';
        case 'status':
          return 'status';
        case 'certificate':
          return 'certificate';
      }
  }
}

/** The consensus actor's inbox (SupervisedActorOptions.inbox). */
export function consensusInbox(onEvict: (msg: ConsensusMsg) => void): LanedInbox<ConsensusMsg, ConsensusLane> {
  return new LanedInbox<ConsensusMsg, ConsensusLane>({ lanes: CONSENSUS_LANES, laneOf: consensusLaneOf, onEvict });
}
