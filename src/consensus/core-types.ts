/**
 * The consensus core's contract with whoever drives it: what it needs from the
 * application (ConsensusApp), the inputs it takes and the outputs it answers with, its
 * options, bounds and counters, and the mapping of a peer's message to an input.
 *
 * Separate from the core (./core.ts) because these are what the node, the simulator and
 * the tests program against; the core's workings can change without touching them.
 */
import type { Step } from '../../machines/consensus-round';
import type { Commit } from '../codec/block';
import type { Address } from '../util/bytes';
import type { Evidence } from './evidence';
import { NEXT_HEIGHT_BUFFER_MSGS, ROUNDS_AHEAD_MAX } from './limits';
import type { Certificate, ConsensusMessage, Proposal, StatusMessage, Vote } from './messages';
import type { TimeoutConfig } from './params';
import type { PrivValidator } from './privval';
import type { ProposalRefusalCode } from './proposal-check';
import type { SignatureVerifier } from './signer';
import type { ValidatorsByHeight } from './validator-set';

/** What consensus needs from the application (the chain actor in the node). */
export interface ConsensusApp {
  /**
   * A new block for (height, round) on top of the last committed one, or null when none
   * is ready yet (then deliver it later with a `blockReady` input).
   */
  proposeBlock(height: number, round: number): { hash: Uint8Array; bytes: Uint8Array } | null;
  /** The block's hash when it is a valid next block on the last committed state, else null. */
  validateBlock(bytes: Uint8Array): Uint8Array | null;
  /** Seed of the proposer draw of `height` (the VRF seed after `height - 1`, decision 70); default 32 zero bytes. */
  proposerSeed?(height: number): Uint8Array;
  /** The committed block of an earlier height with its commit, for peers that lag behind. */
  certificate?(height: number): Certificate | null;
}

export type ConsensusInput =
  | { type: 'proposal'; proposal: Proposal }
  | { type: 'vote'; vote: Vote }
  /** A collector's vote certificate (decision 174): each vote is taken as a single one. */
  | { type: 'votes'; votes: Vote[] }
  | { type: 'timeout'; height: number; round: number; step: Step }
  | { type: 'blockReady'; hash: Uint8Array; bytes: Uint8Array }
  | { type: 'commitDone'; height: number }
  | { type: 'status'; from: Address; status: StatusMessage }
  | { type: 'certificate'; certificate: Certificate };

export type ConsensusOutput =
  | { type: 'broadcast'; message: ConsensusMessage }
  | { type: 'send'; to: Address; message: ConsensusMessage }
  | { type: 'scheduleTimeout'; height: number; round: number; step: Step; delayMs: number }
  | { type: 'decide'; height: number; round: number; blockHash: Uint8Array; block: Uint8Array; commit: Commit }
  | { type: 'evidence'; evidence: Evidence };

export interface ConsensusLimits {
  /** Messages for rounds further ahead than this are dropped. */
  maxRoundsAhead: number;
  /** Messages of the next height held until we get there. */
  maxFutureMessages: number;
}

/** The bounds of src/consensus/limits.ts (their prices and relations are there). */
export const DEFAULT_LIMITS: ConsensusLimits = Object.freeze({ maxRoundsAhead: ROUNDS_AHEAD_MAX, maxFutureMessages: NEXT_HEIGHT_BUFFER_MSGS });

export interface ConsensusCoreOptions {
  chainId: number;
  /**
   * The set that signs each height, asked once when the height begins (the previous
   * block is applied by then, so a node reads it from its executed state).
   */
  validators: ValidatorsByHeight;
  /**
   * null: a non-validating follower (decides, never signs). A validator whose address is
   * not in a height's set follows at that height too: it signs only where it is a member.
   */
  privValidator: PrivValidator | null;
  verifier: SignatureVerifier;
  app: ConsensusApp;
  timeouts: TimeoutConfig;
  /** The first height to decide: last committed height + 1. */
  height: number;
  limits?: Partial<ConsensusLimits>;
  /**
   * Linear votes (decision 174): a validator sends its votes to the round's collector (the
   * round's proposer) only, and the collector broadcasts one vote certificate per step;
   * a step's timeout falls back to all-to-all. Default true; false: every vote to every
   * validator (the classic protocol, for comparison and for tests written against it).
   */
  linearVotes?: boolean;
  /** Told of every proposal of the current height the core refuses, with why (the consensus actor logs it once). */
  onProposalRefused?(r: ProposalRefusal): void;
}

/** A refused proposal: which, the rule it broke (proposal-check.ts) and the check that failed, in words. */
export interface ProposalRefusal {
  height: number;
  round: number;
  proposer: string;
  blockHash: string;
  code: ProposalRefusalCode;
  check: string;
}

/** Counters, for metrics and tests. Monotonic. */
export interface ConsensusCounters {
  votesAdded: number;
  /** First votes that came after their set's quorum: kept unchecked and uncounted (VoteSet "Late votes"). */
  votesLate: number;
  votesDuplicate: number;
  votesInvalid: number;
  proposalsAccepted: number;
  proposalsDuplicate: number;
  proposalsInvalid: number;
  blocksInvalid: number;
  signRefused: number;
  /** Refused votes replaced by the vote signed before a restart. */
  votesResent: number;
  futureBuffered: number;
  futureDropped: number;
  staleDropped: number;
  certificatesSent: number;
  certificatesApplied: number;
  certificatesInvalid: number;
  /** Linear votes (decision 174): own votes sent to the round's collector alone; vote certificates broadcast as collector; received. */
  votesToCollector: number;
  voteCertificatesSent: number;
  voteCertificatesReceived: number;
  evidence: number;
  decisions: number;
}

/** Every counter at zero: a new core's. */
export function zeroCounters(): ConsensusCounters {
  return {
    votesAdded: 0,
    votesLate: 0,
    votesDuplicate: 0,
    votesInvalid: 0,
    proposalsAccepted: 0,
    proposalsDuplicate: 0,
    proposalsInvalid: 0,
    blocksInvalid: 0,
    signRefused: 0,
    votesResent: 0,
    futureBuffered: 0,
    futureDropped: 0,
    staleDropped: 0,
    certificatesSent: 0,
    certificatesApplied: 0,
    certificatesInvalid: 0,
    votesToCollector: 0,
    voteCertificatesSent: 0,
    voteCertificatesReceived: 0,
    evidence: 0,
    decisions: 0,
  };
}

export function inputFromMessage(message: ConsensusMessage, from: Address): ConsensusInput {
  switch (message.kind) {
    case 'proposal':
      return { type: 'proposal', proposal: message.proposal };
    case 'vote':
      return { type: 'vote', vote: message.vote };
    case 'status':
      return { type: 'status', from, status: message.status };
    case 'certificate':
      return { type: 'certificate', certificate: message.certificate };
    case 'votes':
      return { type: 'votes', votes: message.votes };
  }
}
