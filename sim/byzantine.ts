/**
 * What the one Byzantine validator of a simulation run (sim/cluster.ts) does besides
 * running the honest code, as the ByzantineHarness its consensus driver and block-sync
 * server call (the interface the devnet's fault flags implement too,
 * src/cli/devnet-faults.ts): equivocating proposals (two different blocks for one
 * height/round, to two groups of peers), double votes (broadcast, or both sent to the
 * round's collector), status messages claiming heights far ahead, and, as a round's
 * collector (linear votes, decision 174), vote certificates withheld (silent), delayed
 * (slow) or different to two groups of peers (equivocating: its own vote double-signed
 * in one of them, or a vote left out); and forged block-sync answers (half of those that
 * carry blocks). Its lies to the peer-height probes are sim/sync.ts peerHeads.
 */
import { claimAheadStatus, decodeSyncResponse, forgeSyncResponse } from '../src/chain/sync';
import type { ByzantineHarness } from '../src/consensus/driver-io';
import { encodeMessage, proposalSigningHash, voteSigningHash, type ConsensusMessage, type Proposal, type Vote } from '../src/consensus/messages';
import type { SimNode } from './model';
import { US } from './network';
import { buildBlock, type SimWorld } from './world';

/** The Byzantine validator's harness. */
export function byzantineHarness(w: SimWorld, node: SimNode): ByzantineHarness {
  const maxBlockBytes = w.genesis.consensus.maxBlockBytes;
  return {
    broadcast(m) {
      claimAhead(w, node, m);
      return equivocate(w, node, m);
    },
    // A vote to the round's collector (linear votes): sent, then a claim far ahead after it, as
    // `--claim-ahead` does on the node, and sometimes a second, different vote.
    send(to, m) {
      const i = w.byAddress.get(to);
      if (i === undefined || i === node.index) return false;
      w.net.send(node.index, i, 'consensus', encodeMessage(m));
      claimAhead(w, node, m);
      doubleVoteTo(w, node, i, m);
      return true;
    },
    serveSync(served) {
      if (decodeSyncResponse(served, maxBlockBytes).blocks.length === 0 || !w.prng.chance(0.5)) return served;
      w.faults.forgedSyncAnswer++;
      return forgeSyncResponse(served, maxBlockBytes);
    },
  };
}

/** Sends conflicting messages to two groups of peers; false to send the message normally. */
export function equivocate(w: SimWorld, node: SimNode, m: ConsensusMessage): boolean {
  if (m.kind === 'votes') return faultyCollector(w, node, m.votes);
  let alt: ConsensusMessage | undefined;
  if (m.kind === 'proposal' && w.prng.chance(0.7)) {
    alt = altProposal(w, node, m.proposal);
    if (alt) w.faults.equivocatingProposal++;
  } else if (m.kind === 'vote' && m.vote.validator === node.address && w.prng.chance(0.5)) {
    alt = altVote(w, node, m.vote);
    w.faults.doubleVote++;
  }
  if (alt === undefined) return false;
  const peers = w.prng.shuffle(w.nodes.filter((x) => x.index !== node.index).map((x) => x.index));
  const cutAt = w.prng.range(1, Math.max(1, peers.length - 1));
  const a = encodeMessage(m);
  const b = encodeMessage(alt);
  for (const [i, to] of peers.entries()) w.net.send(node.index, to, 'consensus', i < cutAt ? a : b);
  // Sometimes one peer gets both, in a random order: the double sign becomes visible.
  if (w.prng.chance(0.5)) {
    const to = w.prng.pick(peers);
    w.net.send(node.index, to, 'consensus', peers.indexOf(to) < cutAt ? b : a);
  }
  return true;
}

/** A vote to the round's collector: sometimes a second, different one after it (the collector must see a double sign). */
export function doubleVoteTo(w: SimWorld, node: SimNode, to: number, m: ConsensusMessage): void {
  if (m.kind !== 'vote' || m.vote.validator !== node.address || !w.prng.chance(0.5)) return;
  w.net.send(node.index, to, 'consensus', encodeMessage(altVote(w, node, m.vote)));
  w.faults.doubleVote++;
}

/** As a round's collector, a certificate is withheld, late, or two different ones go out; false: sent as it is. */
function faultyCollector(w: SimWorld, node: SimNode, votes: Vote[]): boolean {
  const roll = w.prng.float();
  if (roll < 0.2) {
    w.faults.collectorSilent++;
    return true;
  }
  const bytes = encodeMessage({ kind: 'votes', votes });
  if (roll < 0.4) {
    w.faults.collectorSlow++;
    const delayUs = w.prng.uniform(20, 400) * US;
    w.net.at(w.net.nowUs + delayUs, () => w.net.broadcast(node.index, 'consensus', bytes));
    return true;
  }
  if (roll >= 0.6) return false;
  w.faults.collectorEquivocating++;
  // The other certificate: our own vote double-signed, else one vote short of the one sent.
  const own = votes.findIndex((v) => v.validator === node.address);
  let other: Vote[];
  if (own >= 0) {
    const alt = altVote(w, node, votes[own]);
    if (alt.kind !== 'vote') throw new Error('altVote gives a vote');
    other = votes.map((v, i) => (i === own ? alt.vote : v));
    w.faults.doubleVote++;
  } else {
    other = votes.slice(0, -1);
  }
  const peers = w.prng.shuffle(w.nodes.filter((x) => x.index !== node.index).map((x) => x.index));
  const cutAt = w.prng.range(1, Math.max(1, peers.length - 1));
  const b = other.length > 0 ? encodeMessage({ kind: 'votes', votes: other }) : undefined;
  for (const [i, to] of peers.entries()) {
    if (i < cutAt) w.net.send(node.index, to, 'consensus', bytes);
    else if (b !== undefined) w.net.send(node.index, to, 'consensus', b);
  }
  return true;
}

/**
 * The Byzantine validator follows some of its votes with a status message 1,000 heights
 * ahead, to every peer (what `--claim-ahead` does on the node): no honest node may start
 * a block sync on its word alone (Checker.checkBehind).
 */
export function claimAhead(w: SimWorld, node: SimNode, m: ConsensusMessage): void {
  if (m.kind !== 'vote' || m.vote.validator !== node.address || !w.prng.chance(0.3)) return;
  const size = node.live?.chain.validatorsAt(node.live.chain.height + 1).size ?? w.genesisSet.size;
  w.net.broadcast(node.index, 'consensus', encodeMessage(claimAheadStatus(m.vote.height, size)));
  w.faults.claimAhead++;
}

function altProposal(w: SimWorld, node: SimNode, p: Proposal): ConsensusMessage | undefined {
  const built = node.live === null ? null : buildBlock(w, node, node.live, p.height, p.round);
  if (built === null) return undefined;
  const unsigned = { ...p, polRound: -1, blockHash: built.validated.hash, block: built.bytes };
  const signature = node.signer.sign(proposalSigningHash(w.genesis.chainId, unsigned));
  return { kind: 'proposal', proposal: { ...unsigned, signature } };
}

function altVote(w: SimWorld, node: SimNode, v: Vote): ConsensusMessage {
  const blockHash = v.blockHash === null ? w.prng.bytes(32) : w.prng.chance(0.5) ? null : w.prng.bytes(32);
  const unsigned = { ...v, blockHash };
  return { kind: 'vote', vote: { ...unsigned, signature: node.signer.sign(voteSigningHash(w.genesis.chainId, unsigned)) } };
}
