/**
 * The actors' bounds in one place: every mailbox and lane capacity, queue, cache and
 * buffer of actors/, with its unit, what it bounds and what it costs at most (TigerBeetle's
 * habit: put a limit on everything, and name it). The consensus core's bounds are in
 * src/consensus/limits.ts, the transport's in src/net/limits.ts, block sync's in
 * src/chain/sync.ts, the API's in src/api.
 *
 * checkNodeLimits asserts how they relate to each other and to the node's configuration
 * (genesis, mempool size); the node runs it when it is built, and a relation that does
 * not hold stops it with a message naming both limits (test/actors/limits.test.ts).
 *
 * A mailbox is a ring preallocated at its capacity: 8 B per slot before any message
 * arrives; what a held message costs besides is priced beside each capacity.
 */
import { SYNC_MAX_BLOCKS, syncResponseBytesMax } from '../src/chain/sync';
import {
  assertLimit,
  checkConsensusLimits,
  commitBytesMax,
  CONSENSUS_MESSAGE_OVERHEAD_BYTES,
  statusAnswerMsgsMax,
  VOTES_PER_ROUND,
} from '../src/consensus/limits';
import { NET_FRAME_BYTES_MAX } from '../src/net/limits';
import { SNAPSHOT_ANSWER_BYTES_MAX } from '../src/chain/state-sync-wire';
import type { LaneSpec } from './inbox';

// ------------------------------------------------------------------ supervision

/** First restart delay of a failed actor; doubles per consecutive failure. */
export const ACTOR_BACKOFF_INITIAL_MS = 50;
/** Longest restart delay. */
export const ACTOR_BACKOFF_MAX_MS = 5_000;
/** Restarts of one actor within ACTOR_RESTART_WINDOW_MS before the node halts instead. */
export const ACTOR_RESTARTS_MAX = 10;
export const ACTOR_RESTART_WINDOW_MS = 60_000;

// ------------------------------------------------------------------ mailboxes

/**
 * Chain actor: block commits, each an ask the sender awaits (consensus: one at a time;
 * block sync: one at a time). 64 slots leave room for both and for a restart's backlog;
 * a held message is a block (up to maxBlockBytes).
 */
export const CHAIN_MAILBOX_MSGS = 64;

/**
 * Indexer actor: one message per committed block (its receipts), sent by the chain
 * actor and not awaited. Must absorb a block-sync answer applied back to back
 * (SYNC_MAX_BLOCKS) while the indexer writes; ~ receipts of a block each.
 */
export const INDEXER_MAILBOX_MSGS = 4_096;

/**
 * Transactions a node's mempool holds when started from the command line (config
 * `mempool.maxTxs`): ~ 300 B each for a typical transaction, ~ 60 MB full; the byte
 * bound below caps it whatever the sizes.
 */
export const MEMPOOL_TXS_MAX_DEFAULT = 200_000;
/** Bytes of transactions the mempool holds when started from the command line (config `mempool.maxBytes`). */
export const MEMPOOL_BYTES_MAX_DEFAULT = 256 * 1024 * 1024;

/**
 * Submissions the API may have waiting on the mempool at once (each an HTTP request
 * whose ask is in the mempool's mailbox). Declared here for the mempool relation below;
 * the API's own limits are in src/api.
 */
export const API_SUBMITS_WAITING_MAX = 1_024;

/**
 * Mempool asks from inside the node that may wait at once: the proposer's batch and
 * its verified-signer cache (consensus), the oracle's observation. Rounded up.
 */
export const MEMPOOL_INTERNAL_ASKS_MAX = 8;

/**
 * Mempool actor: submissions (API, oracle), gossiped transaction batches (p2p), block
 * notices (chain), batch asks (consensus). Sized so that a full pool's worth of
 * single-transaction messages still leaves room for every waiting API submission and a
 * block-sync answer's notices: an API caller hears the pool's answer (full, with its
 * reason) rather than the mailbox's refusal. ~ 1.6 MB of slots; a held message is a
 * transaction or a batch.
 */
export const MEMPOOL_MAILBOX_MSGS = MEMPOOL_TXS_MAX_DEFAULT + API_SUBMITS_WAITING_MAX + SYNC_MAX_BLOCKS + MEMPOOL_INTERNAL_ASKS_MAX;

/**
 * API actor: block notices from the chain actor (committed, applied), not awaited. Must
 * absorb a block-sync answer applied back to back (SYNC_MAX_BLOCKS, one notice each).
 */
export const API_MAILBOX_MSGS = 1_024;

/**
 * p2p actor: what leaves the node (a transaction admitted here, a consensus message, a
 * direct answer, a flush, a sync request). Must absorb one turn's output: the gossip of
 * every waiting API submission admitted at once, and the consensus actor's answers to
 * one status from each validator (statusAnswerMsgsMax each). ~ 800 KB of slots; a held
 * message is an encoded transaction or consensus message.
 */
export const P2P_MAILBOX_MSGS = 100_000;

/** The solo producer: its own tick, one pending at a time. */
export const SOLO_PRODUCER_MAILBOX_MSGS = 4;

/** The oracle actor: its own tick, one pending at a time. */
export const ORACLE_MAILBOX_MSGS = 4;

/** The bridge actor (watcher and relayer): its own tick, one pending at a time. */
export const BRIDGE_MAILBOX_MSGS = 4;

// ------------------------------------------------------------------ consensus actor's lanes

/**
 * The consensus actor's inbox: one lane per message kind (actors/consensus/inbox.ts), so
 * a flood of one kind cannot push out another, and its own timeouts never wait behind
 * peer messages nor can be refused.
 */
export type ConsensusLane = 'timeout' | 'proposal' | 'vote' | 'status' | 'certificate' | 'evidence';

/**
 * Timeouts the consensus actor set for itself: one slot, served first, a newer timeout
 * replacing a waiting one. Only the timeout of the current (height, round, step) can act
 * (machines/consensus-round.ts), the actor keeps one timer pending (each new one
 * replaces it, as CometBFT's ticker does), so timers fire in the order they were set and
 * a waiting timeout that a newer one replaces is stale: nothing is lost, nothing refused.
 */
export const TIMEOUT_LANE_MSGS = 1;

/**
 * Proposals (each with its block). The core needs one per round; these absorb the
 * proposal of this round, the next, the next height's, and copies from status answers.
 * A held proposal costs its block: 32 × maxBlockBytes, 128 MiB at the 4 MiB bound (devnet
 * blocks are far smaller). The oldest is evicted first: the newest is for the latest round.
 */
export const PROPOSAL_LANE_MSGS = 32;

/**
 * Votes: ~ 0.5 KiB each held, ~ 4 MiB full. Holds every validator's two votes for three
 * rounds in flight (this round, the next, the next height's first) and one peer's whole
 * status answer. The oldest is evicted first: lost votes come back by the status
 * exchange that every step's timeout starts.
 */
export const VOTE_LANE_MSGS = 8_192;
/** Rounds whose votes may be in flight at once: this round, the next, the next height's round 0. */
export const VOTE_ROUNDS_IN_FLIGHT = 3;

/**
 * Status messages (a peer's height, round and what it holds): ~ 0.5 KiB each at 1024
 * validators, ~ 1 MiB full. Two per validator (a start and a timeout's). Oldest evicted
 * first: a newer status says more.
 */
export const STATUS_LANE_MSGS = 2_048;

/**
 * Certificates (a committed block and its commit, sent to a node that is behind). One
 * is enough to move on; later ones are refused. 8 × (maxBlockBytes + commit).
 */
export const CERTIFICATE_LANE_MSGS = 8;

/** Gossiped double-sign evidence: ≤ 1 KiB each, 256 KiB full. Later ones refused (it is deduplicated anyway). */
export const EVIDENCE_LANE_MSGS = 256;

/**
 * Bytes the block-carrying lanes (proposals, certificates) may hold at most, with the
 * genesis's largest block: the budget their capacities are checked against.
 */
export const CONSENSUS_BLOCK_LANES_BYTES_MAX = 512 * 1024 * 1024;

export const CONSENSUS_LANES: Readonly<Record<ConsensusLane, LaneSpec>> = Object.freeze({
  timeout: { capacityMsgs: TIMEOUT_LANE_MSGS, policy: 'supersede', priority: true },
  proposal: { capacityMsgs: PROPOSAL_LANE_MSGS, policy: 'drop-oldest' },
  vote: { capacityMsgs: VOTE_LANE_MSGS, policy: 'drop-oldest' },
  status: { capacityMsgs: STATUS_LANE_MSGS, policy: 'drop-oldest' },
  certificate: { capacityMsgs: CERTIFICATE_LANE_MSGS, policy: 'drop-newest' },
  evidence: { capacityMsgs: EVIDENCE_LANE_MSGS, policy: 'drop-newest' },
});

/** Evidence records the consensus actor keeps for /status, oldest forgotten first: ~ 200 B each, ~ 200 KiB. */
export const EVIDENCE_KEPT_MAX = 1_000;

// ------------------------------------------------------------------ p2p direct bundles

/** Items (consensus messages, transaction batches) in one direct bundle, and transactions in one gossip batch. */
export const BUNDLE_ITEMS_MAX = 4_096;
/** Average bytes per item a bundle may carry besides its one largest (consensus) message. */
export const BUNDLE_ITEM_BYTES_AVG = 1_024;
/** Bytes of one gossiped transaction batch. */
export const TX_BATCH_BYTES_MAX = 1 << 20;
/** A batch is sent once it is within this many bytes of TX_BATCH_BYTES_MAX: the next transaction must still fit. */
export const TX_BATCH_HEADROOM_BYTES = 65_536;

/** Bytes of a direct bundle a validator accepts, given its largest consensus message. */
export function bundleBytesMax(consensusMessageBytes: number): number {
  return BUNDLE_ITEMS_MAX * BUNDLE_ITEM_BYTES_AVG + consensusMessageBytes;
}

// ------------------------------------------------------------------ relations

/** What checkNodeLimits reads of a node's configuration. */
export interface LimitsConfig {
  mempool: { maxTxs: number };
  genesis: { validators: readonly unknown[]; consensus: { maxBlockBytes: number; maxTxBytes: number } };
}

/**
 * Asserts the relations between the limits of every layer and the configuration; throws
 * a LimitError (src/consensus/limits.ts) naming both limits of the first that fails.
 */
export function checkNodeLimits(config: LimitsConfig): void {
  const n = config.genesis.validators.length;
  const { maxBlockBytes, maxTxBytes } = config.genesis.consensus;
  const consensusMessageBytes = maxBlockBytes + CONSENSUS_MESSAGE_OVERHEAD_BYTES;
  checkConsensusLimits({ validators: n });

  // Mailboxes against what is sent to them in one burst.
  const mempoolNeed = config.mempool.maxTxs + API_SUBMITS_WAITING_MAX + SYNC_MAX_BLOCKS + MEMPOOL_INTERNAL_ASKS_MAX;
  assertLimit(
    MEMPOOL_MAILBOX_MSGS >= mempoolNeed,
    `MEMPOOL_MAILBOX_MSGS (${MEMPOOL_MAILBOX_MSGS}) must hold the mempool's maxTxs (${config.mempool.maxTxs}) + API_SUBMITS_WAITING_MAX (${API_SUBMITS_WAITING_MAX}) + SYNC_MAX_BLOCKS (${SYNC_MAX_BLOCKS}) + MEMPOOL_INTERNAL_ASKS_MAX (${MEMPOOL_INTERNAL_ASKS_MAX}) = ${mempoolNeed}`,
  );
  assertLimit(INDEXER_MAILBOX_MSGS >= SYNC_MAX_BLOCKS, `INDEXER_MAILBOX_MSGS (${INDEXER_MAILBOX_MSGS}) must hold one block-sync answer's notices, SYNC_MAX_BLOCKS (${SYNC_MAX_BLOCKS})`);
  assertLimit(API_MAILBOX_MSGS >= SYNC_MAX_BLOCKS, `API_MAILBOX_MSGS (${API_MAILBOX_MSGS}) must hold one block-sync answer's notices, SYNC_MAX_BLOCKS (${SYNC_MAX_BLOCKS})`);
  const p2pNeed = API_SUBMITS_WAITING_MAX + n * statusAnswerMsgsMax(n);
  assertLimit(
    P2P_MAILBOX_MSGS >= p2pNeed,
    `P2P_MAILBOX_MSGS (${P2P_MAILBOX_MSGS}) must hold API_SUBMITS_WAITING_MAX (${API_SUBMITS_WAITING_MAX}) gossiped transactions + the answers to a status from each of ${n} validators (statusAnswerMsgsMax = ${statusAnswerMsgsMax(n)} each) = ${p2pNeed}`,
  );

  // The consensus actor's lanes against the validator set and block size.
  const votesNeed = Math.max(n * VOTES_PER_ROUND * VOTE_ROUNDS_IN_FLIGHT, statusAnswerMsgsMax(n));
  assertLimit(
    VOTE_LANE_MSGS >= votesNeed,
    `VOTE_LANE_MSGS (${VOTE_LANE_MSGS}) must hold ${VOTES_PER_ROUND} votes × ${n} validators × VOTE_ROUNDS_IN_FLIGHT (${VOTE_ROUNDS_IN_FLIGHT}) and one status answer (statusAnswerMsgsMax = ${statusAnswerMsgsMax(n)}): ${votesNeed}`,
  );
  assertLimit(STATUS_LANE_MSGS >= 2 * n, `STATUS_LANE_MSGS (${STATUS_LANE_MSGS}) must hold two status messages from each of ${n} validators`);
  assertLimit(PROPOSAL_LANE_MSGS >= VOTE_ROUNDS_IN_FLIGHT, `PROPOSAL_LANE_MSGS (${PROPOSAL_LANE_MSGS}) must hold a proposal for each of VOTE_ROUNDS_IN_FLIGHT (${VOTE_ROUNDS_IN_FLIGHT}) rounds`);
  const blockLanesBytes = (PROPOSAL_LANE_MSGS + CERTIFICATE_LANE_MSGS) * (consensusMessageBytes + commitBytesMax(n));
  assertLimit(
    blockLanesBytes <= CONSENSUS_BLOCK_LANES_BYTES_MAX,
    `PROPOSAL_LANE_MSGS + CERTIFICATE_LANE_MSGS (${PROPOSAL_LANE_MSGS + CERTIFICATE_LANE_MSGS}) blocks of maxBlockBytes (${maxBlockBytes}) take ${blockLanesBytes} B, over CONSENSUS_BLOCK_LANES_BYTES_MAX (${CONSENSUS_BLOCK_LANES_BYTES_MAX})`,
  );

  // What the transport carries against its frame limit.
  assertLimit(
    bundleBytesMax(consensusMessageBytes) <= NET_FRAME_BYTES_MAX,
    `a direct bundle (BUNDLE_ITEMS_MAX × BUNDLE_ITEM_BYTES_AVG + a consensus message of maxBlockBytes + CONSENSUS_MESSAGE_OVERHEAD_BYTES = ${bundleBytesMax(consensusMessageBytes)} B) must fit NET_FRAME_BYTES_MAX (${NET_FRAME_BYTES_MAX})`,
  );
  const syncBytes = syncResponseBytesMax(maxBlockBytes, commitBytesMax(n));
  assertLimit(syncBytes <= NET_FRAME_BYTES_MAX, `a block-sync answer (SYNC_MAX_RESPONSE_BYTES or one block of maxBlockBytes: ${syncBytes} B) must fit NET_FRAME_BYTES_MAX (${NET_FRAME_BYTES_MAX})`);
  assertLimit(
    SNAPSHOT_ANSWER_BYTES_MAX <= NET_FRAME_BYTES_MAX,
    `a state-sync answer (a chunk of SNAPSHOT_CHUNK_BYTES_MAX and its header: ${SNAPSHOT_ANSWER_BYTES_MAX} B) must fit NET_FRAME_BYTES_MAX (${NET_FRAME_BYTES_MAX})`,
  );
  assertLimit(
    maxTxBytes + 8 <= TX_BATCH_HEADROOM_BYTES && TX_BATCH_HEADROOM_BYTES < TX_BATCH_BYTES_MAX,
    `a transaction of maxTxBytes (${maxTxBytes}) + its 4 B length + the batch's 4 B count must fit TX_BATCH_HEADROOM_BYTES (${TX_BATCH_HEADROOM_BYTES}), the room a batch keeps below TX_BATCH_BYTES_MAX (${TX_BATCH_BYTES_MAX})`,
  );
}
