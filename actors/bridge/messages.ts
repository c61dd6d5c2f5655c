/**
 * What the bridge actor (actors/bridge/bridge-actor.ts: the watcher and the relayer of
 * issue 22, decision 84) accepts in its mailbox, and the counters it shows in /status. A
 * leaf module: types only, no actor behaviour and nothing of src/node (see
 * actors/chain/messages.ts).
 */

/** Time for the next poll of the external chain (the actor's own timer sends it). */
export type BridgeMsg = { type: 'tick' };

/**
 * The external endpoint as the actor last found it: `starting` before the first
 * answer, `ok`, `unreachable` (retried with backoff), or `refused` (the actor stopped
 * watching and relaying: the external chain was reset or answers for another bridge;
 * `lastError` says why).
 */
export type BridgeExternalState = 'starting' | 'ok' | 'unreachable' | 'refused';

export interface BridgeWatcherStats {
  /** The next external block the watcher scans (it has scanned every block before it). */
  cursorBlock: string;
  /** The external head, the block confirmations count from and the last block with enough confirmations, as last read. */
  headBlock: string;
  finalizedBlock: string;
  confirmedBlock: string;
  /** Which block confirmations count from (decision 155): the chain's `finalized`, else `safe`, else `latest`; `unknown` before the first answer. */
  finality: 'finalized' | 'safe' | 'latest' | 'unknown';
  /** Attestation transactions the mempool took, and those it refused (or could not take). */
  attestationsSubmitted: number;
  attestationsRefused: number;
  /** Claims carried by the attestations the mempool took. */
  claimsSubmitted: number;
  /** Claims seen on the external chain, not yet settled here nor voted by this validator. */
  claimsPending: number;
  /** Void(Expired) claims made: withdrawals past validUntil at a confirmed block and unpaid there. */
  expiriesDetected: number;
  /** Alerts this watcher was sure of (decision 154): a queue or payout that is not this chain's record, or of an id it never made. */
  alertsDetected: number;
  /** Queues or payouts of ids this node's state does not hold yet, waiting to be judged. */
  suspects: number;
  /** Alerts not yet answered by a pause (its own or another's) or by the owners' unpause after them. */
  alertsWaiting: number;
  /** pause() transactions this validator sent that were mined, and those that failed. */
  pausesSent: number;
  pauseFailures: number;
}

export interface BridgeRelayerStats {
  /** WithdrawalSignatures transactions the mempool took, and the signatures they carried. */
  signatureTxsSubmitted: number;
  signaturesSubmitted: number;
  signatureTxsRefused: number;
  /** queueWithdrawal / executeWithdrawal transactions this validator sent that were mined successfully. */
  queued: number;
  executed: number;
  /** External sends that failed (reverted, timed out, unreachable): retried at a later poll after a fresh read. */
  sendFailures: number;
  /** Sends still waiting for their receipt. */
  inFlight: number;
  /** Bridge set signatures the mempool took; updateValidatorSet and activateValidatorSet sends mined (decision 151). */
  setSignaturesSubmitted: number;
  setsSubmitted: number;
  setsActivated: number;
}

export interface BridgeStats {
  external: BridgeExternalState;
  rpcUrl: string;
  /** Whether this node's key is in the active set (only then it attests, signs and relays). */
  active: boolean;
  /** Polls completed (the external chain answered every read of the poll), and those that failed (RPC unreachable or an unexpected answer). */
  polls: number;
  pollFailures: number;
  lastError: string | undefined;
  watcher: BridgeWatcherStats;
  relayer: BridgeRelayerStats;
}
