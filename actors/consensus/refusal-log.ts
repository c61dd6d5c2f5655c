/**
 * The consensus actor's log of refused proposals (src/consensus/proposal-check.ts, the
 * core's `onProposalRefused`): one warning per proposer, height, round and rule, with the
 * check that failed and what to do; a proposal of a round far ahead (ROUND_OUT_OF_WINDOW)
 * is ordinary after a partition and goes to debug. Refused blocks are logged by
 * src/chain/consensus-app.ts (logBlockRefusal).
 */
import type { ProposalRefusal } from '../../src/consensus/core-types';
import type { ProposalRefusalCode } from '../../src/consensus/proposal-check';
import type { Logger } from '../../src/util/log';

const ADVICE: Record<ProposalRefusalCode, string> = {
  ROUND_OUT_OF_WINDOW: 'a proposal for a round far ahead of this node; nothing to do unless it repeats (then this node is behind: check its connectivity)',
  POL_ROUND: 'the proposer runs broken software; nothing to do here',
  WRONG_PROPOSER:
    "not the proposer drawn for the round: if every proposal is refused so, this node's validator set or seed differs from the network's (another software version or genesis?)",
  BAD_SIGNATURE: "the signature does not verify with the proposer's key: a forged or corrupted proposal; nothing to do here",
};

/** Refusals remembered so each is logged once (the set is cleared when it fills). */
const LOGGED_MAX = 1_024;

/** A logger for the core's `onProposalRefused`. */
export function proposalRefusalLog(log: Logger): (r: ProposalRefusal) => void {
  const logged = new Set<string>();
  return (r) => {
    const key = `${r.height} ${r.round} ${r.proposer} ${r.code}`;
    if (logged.has(key)) return;
    if (logged.size >= LOGGED_MAX) logged.clear();
    logged.add(key);
    const fields = { ...r, advice: ADVICE[r.code] };
    if (r.code === 'ROUND_OUT_OF_WINDOW') log.debug(fields, 'proposal refused: its round is too far ahead');
    else log.warn(fields, 'proposal refused: it breaks a proposal rule, this node does not take it');
  };
}
