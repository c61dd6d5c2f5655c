/**
 * gossipsub's mesh and peer scoring (decision 185), as src/net/libp2p.ts starts it.
 *
 * The mesh: full nodes subscribe to the consensus topics and relay what their handlers
 * accept to D mesh peers, so an observer connected only to other observers still hears
 * proposals, votes and certificates. Sized for networks of a few to a few dozen nodes
 * (Lodestar runs D=8 among thousands): D=4 keeps every message within a few hops of
 * everybody and each node's relaying to four copies. Genesis validators do not subscribe
 * to the consensus topics (they take consensus point to point, actors/p2p/p2p-actor.ts),
 * so they are in no mesh of those topics and pay nothing for it; their own messages leave
 * by flood publishing to every subscribed peer they are connected to, as before.
 *
 * Scoring, after Lodestar's (packages/beacon-node/src/network/gossip/scoringParameters.ts)
 * cut down: per topic a weight, a small reward for time in the mesh and for first
 * deliveries, and a heavy penalty for invalid messages (a handler's REJECT), squared by
 * gossipsub so that a second and a third invalid message cost fast; mesh-delivery
 * deficits are off (Lodestar turned them off too: quiet topics on a small network would
 * prune honest peers). The peer table's score (src/net/peer-table.ts) is the
 * application-specific score, so a peer the node penalised for anything (a malformed
 * peer exchange, failed dials) weighs less in the mesh too. The IP colocation factor is
 * off on loopback (every test network's peers share 127.0.0.1) and on the devnet.
 */
import type { TopicScoreParams } from '@chainsafe/libp2p-gossipsub/score';
import { TOPICS, Topic } from './transport';

/** Mesh degree and its bounds (gossipsub's D, Dlo, Dhi, Dscore, Dout, Dlazy). */
export const MESH = { D: 4, Dlo: 3, Dhi: 6, Dscore: 2, Dout: 1, Dlazy: 3 } as const;

/** How much each topic's score counts (what a node needs to decide weighs most). */
const TOPIC_WEIGHTS: Record<Topic, number> = {
  [Topic.Proposals]: 0.5,
  [Topic.Votes]: 0.5,
  [Topic.Txs]: 0.2,
  [Topic.Evidence]: 0.1,
  [Topic.Oracle]: 0.1,
};

/** A score below these: no gossip to/from the peer, none of our publishing, all its messages dropped. */
export const SCORE_THRESHOLDS = {
  gossipThreshold: -100,
  publishThreshold: -200,
  graylistThreshold: -400,
  // gossipsub's own peer exchange on prune is off (doPX: false); this only keeps it so.
  acceptPXThreshold: 1_000,
  opportunisticGraftThreshold: 5,
} as const;

/** The IP colocation penalty's weight off the devnet: more than 3 peers behind one IP cost this per extra peer, squared. */
const IP_COLOCATION_WEIGHT = -50;
const IP_COLOCATION_THRESHOLD = 3;
/** Loopback: every peer of a test network on one machine. */
const COLOCATION_WHITELIST = ['127.0.0.1', '::1'];

export interface GossipScoreInput {
  /** The topic name of each topic (they embed the chain id). */
  topicName: (t: Topic) => string;
  /** The peer table's score of a peer. */
  appScore: (peer: string) => number;
  /** The devnet: no IP colocation penalty at all. */
  devnet: boolean;
}

/** gossipsub's `scoreParams`, `scoreThresholds` and mesh options. */
export function gossipScoring(input: GossipScoreInput) {
  const topics: Record<string, TopicScoreParams> = {};
  for (const t of TOPICS) {
    topics[input.topicName(t)] = {
      topicWeight: TOPIC_WEIGHTS[t],
      timeInMeshWeight: 0.03,
      timeInMeshQuantum: 1_000,
      timeInMeshCap: 300,
      firstMessageDeliveriesWeight: 1,
      firstMessageDeliveriesDecay: 0.9,
      firstMessageDeliveriesCap: 20,
      meshMessageDeliveriesWeight: 0,
      meshMessageDeliveriesDecay: 0.5,
      meshMessageDeliveriesCap: 1,
      meshMessageDeliveriesThreshold: 1,
      meshMessageDeliveriesWindow: 0,
      meshMessageDeliveriesActivation: 1_000,
      meshFailurePenaltyWeight: 0,
      meshFailurePenaltyDecay: 0.5,
      invalidMessageDeliveriesWeight: -100,
      // About a 70 s half-life at one decay a second.
      invalidMessageDeliveriesDecay: 0.99,
    };
  }
  return {
    ...MESH,
    scoreParams: {
      topics,
      topicScoreCap: 50,
      appSpecificScore: input.appScore,
      appSpecificWeight: 1,
      IPColocationFactorWeight: input.devnet ? 0 : IP_COLOCATION_WEIGHT,
      IPColocationFactorThreshold: IP_COLOCATION_THRESHOLD,
      IPColocationFactorWhitelist: new Set(COLOCATION_WHITELIST),
      behaviourPenaltyWeight: -10,
      behaviourPenaltyThreshold: 6,
      behaviourPenaltyDecay: 0.9,
      decayInterval: 1_000,
      decayToZero: 0.01,
      // A peer that reconnects within a minute finds its score where it left it.
      retainScore: 60_000,
    },
    scoreThresholds: { ...SCORE_THRESHOLDS },
  };
}
