/**
 * What a simulation run is asked (SimOptions and their defaults, the devnet-like
 * timeouts) and what it answers (SimResult: the faults injected, the counts of
 * transactions and block sync, the violations found, the digest two runs of one seed
 * must share). Shared by the driver (sim/cluster.ts), its parts and the CLI.
 */
import type { TimeoutConfig } from '../src/consensus/params';
import type { QuorumRule } from '../src/consensus/validator-set';

export const FAULT_KINDS = [
  'drop',
  'duplicate',
  'delaySpike',
  'partitionSymmetric',
  'partitionAsymmetric',
  'partitionBlocked',
  'crash',
  'restart',
  'lostToCrash',
  'equivocatingProposal',
  'doubleVote',
  'forgedSyncAnswer',
  'claimAhead',
  // The Byzantine validator as a round's collector (linear votes, decision 174): vote
  // certificates withheld, delayed, or different ones to two groups of peers.
  'collectorSilent',
  'collectorSlow',
  'collectorEquivocating',
  // The disk's faults (SimOptions.storageFaults, sim/storage.ts):
  /** Crashes that lost the unsynced tail of a store, and the batches they lost. */
  'crashLostWrites',
  'batchesLost',
  /** Values corrupted in a down node's store; corruptions its next open found (by their checksums); stores moved aside and synced again. */
  'storeCorrupted',
  'corruptionFound',
  'storeHealed',
  /** Disk-full episodes; consensus paused by a write refused for lack of space; resumed once the disk took writes. */
  'diskFull',
  'storagePaused',
  'storageResumed',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultCounts = Record<FaultKind, number>;

export type ViolationKind = 'safety' | 'state' | 'commit' | 'double-sign' | 'evidence' | 'evidence-missed' | 'liveness' | 'sync' | 'lifecycle' | 'governance' | 'exception';

export interface Violation {
  kind: ViolationKind;
  atMs: number;
  message: string;
}

export interface SimOptions {
  seed: number;
  /** Number of validators (6). */
  validators: number;
  /** Voting powers, one per validator; equal when absent. */
  powers?: bigint[];
  durationMs: number;
  /** Faults are injected before this time only; after it the network heals. */
  faultPhaseMs: number;
  /** After the heal, every honest node must have committed `livenessHeights` new heights within this. */
  livenessBoundMs: number;
  livenessHeights: number;
  byzantine: boolean;
  faults: boolean;
  crypto: 'fast' | 'real';
  /** Deliberately broken quorum rule (to show the checker catches it). */
  unsafeQuorum?: QuorumRule;
  /** A scripted partition, besides (or instead of) the random faults. */
  forcedPartition?: { groups: number[][]; fromMs: number; toMs: number };
  /** A deliberately broken block sync (to show the checker catches it): answers applied without checking their commits. */
  unsafeSync?: boolean;
  /** A deliberately broken sync trigger (to show the checker catches it): any one message far ahead starts a sync, as before decision 66. */
  unsafeSyncTrigger?: boolean;
  /**
   * One more node, a follower (its key in no set), linked to one honest validator only
   * (the first honest genesis one) for the whole run, heal included, and that link down
   * from `cutFromMs` to `cutToMs`: it must come back from far behind, reach the head and
   * keep up (issue 39, never stuck behind an honest peer) like every honest node, by the
   * liveness check. Not with `lifecycle`.
   */
  oneLinkObserver?: { cutFromMs: number; cutToMs: number };
  /**
   * The validator lifecycle scenario (sim/lifecycle.ts): two joiners beside the genesis
   * validators, short epochs and downtime window; registrations, a crash long enough to
   * jail, unjails, an unbond, and double-sign evidence submitted as a transaction.
   */
  lifecycle?: boolean;
  /**
   * The owner governance scenario (sim/governance.ts, decision 76): the devnet owners
   * change takerFeeBps by propose, approve and execute after a short routine timelock;
   * every honest node must hold the new value from the same height.
   */
  governance?: boolean;
  /** A deliberately broken node (to show the checker catches it): consensus keeps the genesis set after the set changed. */
  unsafeGenesisSet?: boolean;
  /** A deliberate execution bug (to show the checker catches it): at `atMs`, a stray write into that node's state. */
  divergeState?: { node: number; atMs: number };
  timeouts?: Partial<TimeoutConfig>;
  /** Transactions submitted per simulated second (a Poisson stream); absent: drawn per seed, 2-10; 0: none. */
  txPerSecond?: number;
  /** Each node's clock is off by a constant drawn in ±this (with faults only). */
  clockSkewMs: number;
  /** A transaction an honest node admitted after the heal must be committed within this. */
  txLivenessMs: number;
  /** Stop at the first violation (the CLI does; tests may want them all). */
  stopOnViolation: boolean;
  /**
   * The disk's faults (sim/storage.ts, decision 126), drawn from the run's storage stream;
   * absent (the default): none, and a seed replays exactly as before they existed.
   */
  storageFaults?: StorageFaultRates;
  /** Keep the last N trace lines and attach them to the result. */
  traceLines: number;
  /** Also trace every input and output of these nodes (debugging a seed). */
  traceNodes?: number[];
}

export interface StorageFaultRates {
  /** Chance that a crash loses the unsynced tail of the node's store (one to all of the batches not yet written back). */
  lostWrites: number;
  /** Chance that a crash leaves one value of the node's store corrupted (found by its checksum at the next open, healed from peers). */
  corruption: number;
  /** Disk-full episodes per simulated second of the fault phase, each on one honest node for 0.2–2 s. */
  diskFullPerSecond: number;
}

/** The rates of `npm run sim -- --storage-faults` and of the storage-faults test. */
export const STORAGE_FAULTS: StorageFaultRates = { lostWrites: 0.5, corruption: 0.5, diskFullPerSecond: 0.4 };

export const DEFAULT_SIM_OPTIONS: Omit<SimOptions, 'seed'> = {
  validators: 6,
  durationMs: 40_000,
  faultPhaseMs: 25_000,
  livenessBoundMs: 12_000,
  livenessHeights: 3,
  byzantine: true,
  faults: true,
  crypto: 'fast',
  clockSkewMs: 100,
  txLivenessMs: 2_000,
  stopOnViolation: true,
  traceLines: 0,
};

export interface TxCounts {
  /** Drawn by the workload and sent to a node. */
  submitted: number;
  /** Admitted by the pool they were sent to. */
  admitted: number;
  /** Refused at the door (down node, or the pool said no). */
  refused: number;
  /** Gossiped copies a peer's pool admitted. */
  gossipAdmitted: number;
  /** In committed blocks (each height counted once), and of them those whose receipt is ok / failed. */
  committed: number;
  ok: number;
  failed: number;
}

export interface SyncCounts {
  requests: number;
  answers: number;
  blocksApplied: number;
  refused: number;
  timeouts: number;
  /** Messages far ahead that started no sync (too little power that far ahead, or a sync just found nothing). */
  aheadIgnored: number;
  /** Syncs started on one peer's probed head (a follower behind its peer, a validator stuck). */
  peerSyncs: number;
}

/** The governance scenario's outcome (sim/governance.ts). */
export interface GovernanceCounts {
  /** Height of the block that executed the parameter change on the honest chain; 0 if it never did. */
  executedHeight: number;
  /** Honest nodes seen holding the new value after a height at or above the execution height. */
  nodesApplied: number;
}

/** Validator lifecycle events of a run, counted once each on the honest chain (sim/checks.ts). */
export interface LifecycleCounts {
  /** A validator not in the genesis set seated by an epoch boundary (first time). */
  joins: number;
  /** Jailed for downtime (ValidatorJailed). */
  jails: number;
  /** A jailed validator seated again (after its Unjail and a boundary). */
  unjails: number;
  /** Tombstoned by double-sign evidence (ValidatorTombstoned). */
  tombstones: number;
  /** Unbonding ended: the validator exited with its bond back in its balance. */
  unbonds: number;
}

export interface SimResult {
  seed: number;
  simulatedMs: number;
  wallMs: number;
  /** Highest height committed by an honest node. */
  heights: number;
  /** Lowest height committed by an honest node at the end. */
  minHonestHeight: number;
  byzantine: number | null;
  faults: FaultCounts;
  messagesDelivered: number;
  evidenceReported: number;
  /** Distinct offences among them (one double sign seen by five nodes is one offence). */
  evidenceOffences: number;
  txs: TxCounts;
  lifecycle: LifecycleCounts;
  /** Only with SimOptions.governance. */
  governance?: GovernanceCounts;
  /** Proposals dropped before the core for a stale time (ChainConsensusApp.isTimely, as the node does). */
  proposalsUntimely: number;
  /** Block sync: requests sent, answers with blocks, blocks applied from them, answers refused (a forged block), requests timed out. */
  sync: SyncCounts;
  /** Simulated ms after the heal until every honest node had committed the new heights; -1 if never. */
  recoveryMs: number;
  /** Only with SimOptions.oneLinkObserver: the validator it is linked to, and its head at the end. */
  observer?: { linkedTo: number; height: number };
  violations: Violation[];
  /** Hash over every decision: two runs of one seed must agree. */
  digest: string;
  trace: string[];
}
