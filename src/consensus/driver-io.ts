/**
 * What the consensus driver (./driver.ts) is given: everything that does I/O, as narrow
 * interfaces, so the node's consensus actor (actors/consensus/bft.ts: timers, the p2p and
 * chain actors, the privval files, the storage guard) and the simulator (sim/node.ts:
 * its event queue, simulated network and in-memory disk) run the same glue. Types only.
 *
 * Nothing here names a file, a socket or an actor: the privval files, LevelDB and libp2p
 * stay behind these interfaces (the import rules keep src/consensus/driver*.ts free of
 * them: .dependency-cruiser.cjs `consensus-driver-no-io`).
 */
import type { Step } from '../../machines/consensus-round';
import type { BlockRefusal, ValidatedBlock } from '../chain/consensus-app';
import type { Chain } from '../chain/chain';
import type { SyncAttempt, SyncedBlock } from '../chain/sync';
import type { Commit } from '../codec/block';
import type { Tx } from '../codec/tx';
import type { ConsensusInput, ConsensusOutput, ProposalRefusal } from './core-types';
import type { Evidence } from './evidence';
import type { Certificate, ConsensusMessage } from './messages';
import type { TimeoutConfig } from './params';
import type { LocalPrivValidator } from './privval';
import type { VrfScheme } from './proposer-vrf';
import type { SignatureVerifier } from './signer';
import type { ValidatorSet } from './validator-set';
import type { Address } from '../util/bytes';

/** What the driver handles, one at a time, in arrival order (the actor's inbox, the simulator's per-node mailbox). */
export type DriverMsg =
  | { type: 'message'; message: ConsensusMessage; from: Address | undefined }
  | { type: 'timer'; generation: number; height: number; round: number; step: Step }
  | { type: 'evidence'; evidence: Evidence; gossiped: boolean }
  /** The node's disk takes writes again (decision 121): a consensus paused by a full disk catches up and resumes. */
  | { type: 'storageBack' }
  /** Sent to itself by start(): catch up by block sync, then take part (a start does not wait for the sync). */
  | { type: 'catchUp' }
  /** Sent to itself every PEER_CHECK_MS: are peers' probed heads far ahead (a node hearing no consensus messages syncs too)? */
  | { type: 'peersCheck' };

/** The node's clocks and timers. */
export interface DriverClock {
  /** Monotonic ms (pacing, retry windows, the local policy of which peers to skip). */
  now(): number;
  /** The node's wall clock, ms since the epoch (block timestamps, a proposal's timeliness). */
  wallMs(): number;
  /** Calls `fn` once after `delayMs`; returns its cancel. */
  setTimer(delayMs: number, fn: () => void): () => void;
  /** Resolves after `ms`. */
  sleep(ms: number): Promise<void>;
}

/** The consensus transport: messages out, block sync, what the node knows of its peers. */
export interface DriverTransport {
  /** To every validator (and the gossip topic's subscribers). */
  broadcast(message: ConsensusMessage): void;
  /** To one validator. */
  send(to: Address, message: ConsensusMessage): void;
  /** Evidence this node observed, to the network's evidence topic. */
  publishEvidence(e: Evidence): void;
  /** A block this node decided, with its commit: for the nodes that follow the gossip mesh (decision 185). */
  decided?(certificate: Certificate): void;
  /**
   * Committed blocks from `fromHeight` on from some validator peer not in `exclude`, or
   * from `only` (the peer whose probed head showed the node behind, a full node too);
   * rejects when the transport could not ask.
   */
  sync(fromHeight: number, exclude: ReadonlySet<string>, only?: string): Promise<SyncAttempt>;
  /** Connected peers now (a starting node waits briefly for them). */
  peerCount(): number;
  /** The bootstrap peers it was given (a starting node waits a little for the rest of them). */
  bootstrapCount(): number;
  /** Connected peers' heads as last probed (the p2p actor's peer-height probes): the peer id block sync names, and its head. */
  peerHeads(): readonly { peer: string; height: number }[];
}

/** The executed chain: read, and written to through the node's chain (actor). */
export interface DriverChain {
  /** The executed chain, read-only. */
  view(): Chain;
  /** The set that signs `height` (the chain's). */
  validatorsAt(height: number): ValidatorSet;
  /** A decided block: applied, resolved once it is on disk (a full disk: rejects with StorageUnavailableError). */
  commitDecided(v: ValidatedBlock, commit: Commit): Promise<void>;
  /** A block from block sync, proven by its commit: applied, resolved once it is on disk. */
  commitSynced(b: SyncedBlock): Promise<void>;
}

/** The mempool: the proposer's batch, and evidence as a transaction. */
export interface DriverMempool {
  batch(maxTxs: number, maxBytes: number): Promise<{ txs: Uint8Array[]; decoded: Tx[] }>;
  /** A DoubleSignEvidence transaction for the node's pool (its execution tombstones the signer, decision 72). */
  submitEvidence(tx: Tx): void;
}

/** The storage guard's signals (decision 121). */
export interface DriverStorage {
  /** The chain store and the privval files take writes. */
  canWrite(): boolean;
  /** A privval write failed for lack of space: recorded as the storage's fault (false: not a fault it pauses on). */
  privvalFull(err: unknown): boolean;
}

/** What a harness may do, and what it sees of the node. */
export interface HarnessContext {
  transport: DriverTransport;
  /** The node's validator address (undefined: no key). */
  address: Address | undefined;
  /** The set that signs the node's next height. */
  validators(): ValidatorSet;
}

/**
 * Fault injection: the hooks the driver (and the block-sync server) call at the points
 * faults act. The production node passes none; the devnet's fault flags build one
 * (src/cli/devnet-faults.ts), and the simulator's Byzantine validator is one
 * (sim/byzantine.ts).
 */
export interface ByzantineHarness {
  /** A message of this node's core is to be broadcast: true when the harness sent it (or what it sends instead) itself. */
  broadcast?(message: ConsensusMessage, ctx: HarnessContext): boolean;
  /** A message of this node's core is to be sent to one validator (a vote to the round's collector: linear votes, decision 174): true when the harness sent it itself. */
  send?(to: Address, message: ConsensusMessage, ctx: HarnessContext): boolean;
  /** The block-sync answer this node serves: replaced (forged), or null: none is sent (the asker times out). */
  serveSync?(served: Uint8Array): Uint8Array | null;
}

/** Hooks the simulator's checker and trace use; the node passes none. */
export interface DriverObserver {
  input?(input: ConsensusInput): void;
  output?(o: ConsensusOutput): void;
  /** A message far ahead started no sync. */
  aheadIgnored?(): void;
  /** A block sync starts: on the word of validators with more than a third of the power, or of one peer's probed head. */
  syncStarted?(shown: number, trigger: { peer: string } | 'quorum'): void;
  syncRefused?(peer: string, why: string): void;
  /** Synced to `height` and about to restart the core there. */
  synced?(height: number): void;
  proposalUntimely?(): void;
  paused?(err: unknown): void;
  resumed?(): void;
}

/** Logging the driver does (the actor's logger; the simulator's silent one). */
export interface DriverLog {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Everything the driver is given. */
export interface DriverIO {
  clock: DriverClock;
  transport: DriverTransport;
  chain: DriverChain;
  mempool: DriverMempool;
  /** Absent: the disk is never full (tests without a storage guard). */
  storage?: DriverStorage;
  log: DriverLog;
  /** Sends the driver a message through its own mailbox (timers, the start's catch-up); false when it is stopping. */
  self(msg: DriverMsg): boolean;
  /** Set once a scheduled upgrade names a newer version (decision 77): nothing more leaves the node. */
  halted(): boolean;
  /** The node is being stopped: a wait or a block sync under way ends at its next step (absent: never). */
  stopping?(): boolean;
  harness?: ByzantineHarness;
  observer?: DriverObserver;
}

/** The node's keys and the network's parameters. */
export interface DriverConfig {
  chainId: number;
  blockTimeMs: number;
  timeouts: TimeoutConfig;
  maxBlockTxs: number;
  maxBlockBytes: number;
  verifier: SignatureVerifier;
  /** The VRF (default ECVRF; the simulator's `--crypto fast` passes its stand-in). */
  vrf?: VrfScheme;
  /** Signs where its height's set holds the key (null: a follower). */
  privval: LocalPrivValidator | null;
  vrfKey: Uint8Array | undefined;
  /** Why the node's key signs nothing (decision 125), or null: shown in /status. */
  signingRefused: string | null;
  /** Evidence records kept for /status. */
  evidenceKept: number;
  /** Certificates kept for lagging peers (ChainConsensusApp's keep). */
  certificatesKept: number;
  /**
   * Of those, how many of the last heights start() reads back from the store: a restarted
   * node serves peers a few heights behind at once. The node reads a handful (reading a
   * thousand blocks at every start costs its start time and memory, and fills the store's
   * cache with them); the simulator, whose nodes kept their certificates across a restart
   * before the driver was shared, reads them all.
   */
  certificatesLoadedAtStart: number;
  onProposalRefused?(r: ProposalRefusal): void;
  onBlockRefused?(r: BlockRefusal): void;
  /**
   * Deliberately broken variants the simulator's checker must catch (test/consensus/sim.test.ts);
   * the node never sets them: `syncTrigger`, a sync on any one message far ahead; `syncUnchecked`, synced blocks applied unchecked.
   */
  unsafe?: { syncTrigger?: boolean; syncUnchecked?: boolean };
}

export interface EvidenceRecord {
  kind: Evidence['kind'];
  offender: Address;
  height: number;
  hash: string;
  /** true: we saw both messages ourselves; false: a peer gossiped it. */
  observed: boolean;
}
