/**
 * What the consensus actors accept in their mailboxes (the BFT engine,
 * actors/consensus/bft.ts, and the solo producer, actors/consensus/solo.ts), and what
 * /status shows of consensus. A leaf module: types only, no actor behaviour and nothing
 * of src/node (see actors/chain/messages.ts).
 */
import type { Step } from '../../machines/consensus-round';
import type { Evidence } from '../../src/consensus/evidence';
import type { ConsensusMessage } from '../../src/consensus/messages';
import type { Address } from '../../src/util/bytes';
import type { LaneStats } from '../inbox';

export type ConsensusMsg =
  | { type: 'message'; message: ConsensusMessage; from: Address | undefined }
  | { type: 'timer'; generation: number; height: number; round: number; step: Step }
  | { type: 'evidence'; evidence: Evidence; gossiped: boolean }
  /** The node's disk takes writes again (decision 121): a consensus paused by a full disk catches up and resumes. */
  | { type: 'storageBack' }
  /** Sent to itself by start(): catch up by block sync, then take part (a start does not wait for the sync). */
  | { type: 'catchUp' };

/** The solo producer's one message: time to build the next block. */
export type ProducerMsg = { type: 'tick' };

export interface EvidenceRecord {
  kind: Evidence['kind'];
  offender: Address;
  height: number;
  hash: string;
  /** true: we saw both messages ourselves; false: a peer gossiped it. */
  observed: boolean;
}

/** What /status shows of consensus. */
export interface ConsensusInfo {
  height: number;
  round: number;
  step: string;
  syncing: boolean;
  blocksSynced: number;
  /** Block-sync answers refused because a block in them had no valid commit (the peer was then skipped). */
  syncPeersRefused: number;
  /** Block-sync requests a peer did not answer in time, or failed (the peer was then skipped for a while). */
  syncPeersUnanswered: number;
  /** Block syncs that messages far ahead started (validators with more than a third of the power far ahead). */
  syncsStarted: number;
  /** Messages far ahead that started none (too few validators that far ahead, or a sync just found nothing). */
  messagesAheadIgnored: number;
  /** The highest head peers have shown: sync answers' heads and the heights validators with more than a third of the power reached. */
  syncTarget: number;
  /** The head when the current (or last) block sync began (eth_syncing's startingBlock). */
  syncStartHeight: number;
  /** Blocks applied per second by the last block sync that applied any (0 before one). */
  syncBlocksPerSecond: number;
  evidence: EvidenceRecord[];
  counters: Record<string, number>;
  proposalsUntimely: number;
  /** The inbox's lanes (timeout, proposal, vote, status, certificate, evidence): capacity, policy, size and what each dropped. */
  lanes: Record<string, LaneStats>;
  /** Why this node's key signs nothing (its double-sign protection files lost or damaged: decision 125), or null. */
  signingRefused: string | null;
}
