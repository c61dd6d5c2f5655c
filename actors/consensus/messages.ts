/**
 * What the consensus actors accept in their mailboxes (the BFT engine,
 * actors/consensus/bft.ts, and the solo producer, actors/consensus/solo.ts), and what
 * /status shows of consensus. A leaf module: types only, no actor behaviour and nothing
 * of src/node (see actors/chain/messages.ts).
 */
import type { DriverMsg, EvidenceRecord } from '../../src/consensus/driver-io';
import type { LaneStats } from '../inbox';

/** The driver's messages (src/consensus/driver-io.ts): what the BFT actor's mailbox takes. */
export type ConsensusMsg = DriverMsg;

/** The solo producer's one message: time to build the next block. */
export type ProducerMsg = { type: 'tick' };

export type { EvidenceRecord };

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
  /** Messages far ahead that started none (too few validators that far ahead and no peer's probed head, or a sync just found nothing). */
  messagesAheadIgnored: number;
  /** Block syncs started because one peer's probed head was far ahead (a node connected to one validator, or to full nodes only). */
  peerSyncsStarted: number;
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
