/**
 * The relations between limits (actors/limits.ts, src/consensus/limits.ts): they hold for
 * the configurations the node runs with, and one that does not hold stops the node with
 * a message naming both limits.
 */
import { describe, expect, it } from 'vitest';
import {
  API_SUBMITS_WAITING_MAX,
  checkNodeLimits,
  MEMPOOL_INTERNAL_ASKS_MAX,
  MEMPOOL_MAILBOX_MSGS,
  MEMPOOL_TXS_MAX_DEFAULT,
  type LimitsConfig,
} from '../../actors/limits';
import { SYNC_MAX_BLOCKS } from '../../src/chain/sync';
import { checkConsensusLimits, LimitError, NEXT_HEIGHT_BUFFER_MSGS, VALIDATORS_MAX } from '../../src/consensus/limits';
import { Node } from '../../src/node/node';
import { createLogger } from '../../src/util/log';
import { devnetGenesis, nodeConfig, tempDir } from '../helpers/devnet';

const config = (over: { maxTxs?: number; validators?: number; maxBlockBytes?: number; maxTxBytes?: number } = {}): LimitsConfig => {
  const { genesis } = devnetGenesis(1);
  return {
    mempool: { maxTxs: over.maxTxs ?? MEMPOOL_TXS_MAX_DEFAULT },
    genesis: {
      validators: new Array(over.validators ?? 4).fill(null),
      consensus: { maxBlockBytes: over.maxBlockBytes ?? genesis.consensus.maxBlockBytes, maxTxBytes: over.maxTxBytes ?? genesis.consensus.maxTxBytes },
    },
  };
};

describe('limits', () => {
  it('fit together for the devnet genesis, 1 to 21 validators (its activeSetMax), and the command line mempool', () => {
    const { genesis } = devnetGenesis(1);
    for (const validators of [1, 4, genesis.consensus.activeSetMax]) expect(() => checkNodeLimits(config({ validators }))).not.toThrow();
    expect(MEMPOOL_MAILBOX_MSGS).toBe(MEMPOOL_TXS_MAX_DEFAULT + API_SUBMITS_WAITING_MAX + SYNC_MAX_BLOCKS + MEMPOOL_INTERNAL_ASKS_MAX);
  });

  it('the mempool mailbox must hold the pool and the waiting API asks', () => {
    const maxTxs = MEMPOOL_MAILBOX_MSGS; // the pool alone fills the mailbox: no room for API asks
    expect(() => checkNodeLimits(config({ maxTxs }))).toThrow(LimitError);
    expect(() => checkNodeLimits(config({ maxTxs }))).toThrow(/MEMPOOL_MAILBOX_MSGS .*maxTxs .*API_SUBMITS_WAITING_MAX/);
  });

  it('the next-height buffer must hold every validator\'s round-0 votes: more validators than it allows are refused', () => {
    const most = Math.floor((NEXT_HEIGHT_BUFFER_MSGS - 1) / 2);
    expect(() => checkConsensusLimits({ validators: most })).not.toThrow();
    expect(() => checkConsensusLimits({ validators: most + 1 })).toThrow(/NEXT_HEIGHT_BUFFER_MSGS .*validators/);
    expect(() => checkConsensusLimits({ validators: VALIDATORS_MAX + 1 })).toThrow(/VALIDATORS_MAX/);
  });

  it('the p2p mailbox must hold a status answer from every validator', () => {
    expect(() => checkNodeLimits(config({ validators: 200 }))).toThrow(/NEXT_HEIGHT_BUFFER_MSGS|P2P_MAILBOX_MSGS/);
    expect(() => checkNodeLimits(config({ validators: 150 }))).toThrow(/P2P_MAILBOX_MSGS .*statusAnswerMsgsMax/);
  });

  it('a block too large for the transport frame or the block lanes\' budget is refused', () => {
    expect(() => checkNodeLimits(config({ maxBlockBytes: 64 * 1024 * 1024 }))).toThrow(/PROPOSAL_LANE_MSGS .*CONSENSUS_BLOCK_LANES_BYTES_MAX/);
  });

  it('a transaction must fit the room a gossip batch keeps', () => {
    expect(() => checkNodeLimits(config({ maxTxBytes: 65_536 }))).toThrow(/maxTxBytes .*TX_BATCH_HEADROOM_BYTES/);
  });

  it('a node whose limits do not fit is not built', () => {
    const dir = tempDir('exchain-limits-');
    try {
      const cfg = nodeConfig(dir.path, { mempool: { maxTxs: MEMPOOL_MAILBOX_MSGS, maxBytes: 1 << 20 } });
      expect(() => new Node(cfg, createLogger({ destination: 'silent' }))).toThrow(/MEMPOOL_MAILBOX_MSGS/);
    } finally {
      dir.remove();
    }
  });
});
