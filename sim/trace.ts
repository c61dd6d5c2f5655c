/**
 * One-line descriptions of consensus messages, inputs and outputs for a simulation
 * run's trace (`--trace-nodes`: every input and output of the listed nodes).
 */
import { Step } from '../machines/consensus-round';
import type { ConsensusInput, ConsensusOutput } from '../src/consensus/core';
import type { ConsensusMessage } from '../src/consensus/messages';
import { bytesToHex } from '../src/util/bytes';

export function describeMessage(m: ConsensusMessage): string {
  switch (m.kind) {
    case 'proposal':
      return `proposal ${m.proposal.height}/${m.proposal.round} pol ${m.proposal.polRound} ${bytesToHex(m.proposal.blockHash).slice(0, 10)} by ${m.proposal.proposer.slice(0, 8)}`;
    case 'vote':
      return `${m.vote.type} ${m.vote.height}/${m.vote.round} ${m.vote.blockHash ? bytesToHex(m.vote.blockHash).slice(0, 10) : 'nil'} by ${m.vote.validator.slice(0, 8)}`;
    case 'status':
      return `status ${m.status.height}/${m.status.round}`;
    case 'certificate':
      return `certificate ${m.certificate.height}`;
    case 'votes':
      return `${m.votes[0].type} certificate ${m.votes[0].height}/${m.votes[0].round} of ${m.votes.length}`;
  }
}

export function describeInput(i: ConsensusInput): string {
  switch (i.type) {
    case 'proposal':
      return describeMessage({ kind: 'proposal', proposal: i.proposal });
    case 'vote':
      return describeMessage({ kind: 'vote', vote: i.vote });
    case 'status':
      return `status ${i.status.height}/${i.status.round} from ${i.from.slice(0, 8)}`;
    case 'certificate':
      return `certificate ${i.certificate.height}`;
    case 'timeout':
      return `timeout ${i.height}/${i.round}/${Step[i.step]}`;
    default:
      return i.type;
  }
}

export function describeOutput(o: ConsensusOutput): string {
  switch (o.type) {
    case 'broadcast':
      return `broadcast ${describeMessage(o.message)}`;
    case 'send':
      return `send to ${o.to.slice(0, 8)} ${describeMessage(o.message)}`;
    case 'scheduleTimeout':
      return `schedule ${o.height}/${o.round}/${Step[o.step]} +${o.delayMs}ms`;
    case 'decide':
      return `decide ${o.height}/${o.round}`;
    case 'evidence':
      return `evidence ${o.evidence.kind}`;
  }
}
