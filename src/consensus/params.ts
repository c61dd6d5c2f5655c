/**
 * Timeouts: base + delta × round, from the genesis ConsensusParams, so a round that
 * fails (slow network, dead proposer) gives the next one more time until the network's
 * real delay fits. Capped, so a very high round cannot schedule a timer of hours.
 */
import { Step } from '../../machines/consensus-round';
import type { ConsensusParams } from '../genesis/types';

export type GenesisTimeouts = Pick<
  ConsensusParams,
  | 'timeoutProposeMs'
  | 'timeoutProposeDeltaMs'
  | 'timeoutPrevoteMs'
  | 'timeoutPrevoteDeltaMs'
  | 'timeoutPrecommitMs'
  | 'timeoutPrecommitDeltaMs'
>;

export interface TimeoutConfig extends GenesisTimeouts {
  /**
   * Wait in NewHeight after a commit before round 0 of the next height starts (CometBFT's
   * timeout_commit). 0: start at once, the block rate is then set by the network; a node
   * may pace blocks to blockTimeMs with it.
   */
  timeoutCommitMs: number;
  /** Upper bound on any timeout. */
  timeoutMaxMs: number;
}

export const DEFAULT_TIMEOUT_MAX_MS = 60_000;

/**
 * The timeouts of the devnet and testnet genesis (src/genesis/build.ts writes them into
 * genesis/*.json). The simulator and the consensus tests run on them too, so what they
 * exercise is the timing the devnet runs with.
 */
export const DEVNET_TIMEOUTS: Readonly<GenesisTimeouts> = Object.freeze({
  timeoutProposeMs: 300,
  timeoutProposeDeltaMs: 100,
  timeoutPrevoteMs: 100,
  timeoutPrevoteDeltaMs: 50,
  timeoutPrecommitMs: 100,
  timeoutPrecommitDeltaMs: 50,
});

export function timeoutConfig(params: GenesisTimeouts, extra: Partial<Pick<TimeoutConfig, 'timeoutCommitMs' | 'timeoutMaxMs'>> = {}): TimeoutConfig {
  const cfg: TimeoutConfig = {
    timeoutProposeMs: params.timeoutProposeMs,
    timeoutProposeDeltaMs: params.timeoutProposeDeltaMs,
    timeoutPrevoteMs: params.timeoutPrevoteMs,
    timeoutPrevoteDeltaMs: params.timeoutPrevoteDeltaMs,
    timeoutPrecommitMs: params.timeoutPrecommitMs,
    timeoutPrecommitDeltaMs: params.timeoutPrecommitDeltaMs,
    timeoutCommitMs: extra.timeoutCommitMs ?? 0,
    timeoutMaxMs: extra.timeoutMaxMs ?? DEFAULT_TIMEOUT_MAX_MS,
  };
  for (const [k, v] of Object.entries(cfg)) {
    if (!Number.isFinite(v) || v < 0) throw new RangeError(`${k} must be a non-negative number, got ${v}`);
  }
  return cfg;
}

/**
 * Delay of the timeout scheduled on entering `step` in `round`:
 * Propose: propose + Δpropose·round; Prevote, PrevoteWait: prevote + Δprevote·round;
 * Precommit, PrecommitWait, Commit: precommit + Δprecommit·round; NewHeight: timeoutCommitMs.
 */
export function timeoutDelayMs(cfg: TimeoutConfig, step: Step, round: number): number {
  let ms: number;
  switch (step) {
    case Step.NewHeight:
      ms = cfg.timeoutCommitMs;
      break;
    case Step.Propose:
      ms = cfg.timeoutProposeMs + cfg.timeoutProposeDeltaMs * round;
      break;
    case Step.Prevote:
    case Step.PrevoteWait:
      ms = cfg.timeoutPrevoteMs + cfg.timeoutPrevoteDeltaMs * round;
      break;
    case Step.Precommit:
    case Step.PrecommitWait:
    case Step.Commit:
      ms = cfg.timeoutPrecommitMs + cfg.timeoutPrecommitDeltaMs * round;
      break;
    default:
      throw new RangeError(`no timeout for step ${String(step)}`);
  }
  return Math.min(ms, cfg.timeoutMaxMs);
}
