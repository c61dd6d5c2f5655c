/**
 * What this node sent each validator peer on the current connection, so a consensus
 * message is not sent to the same peer twice within RESEND_AFTER_MS (decision 117).
 *
 * Why: a direct stream is reliable while its connection lives (yamux over TCP), so the
 * second copy of a vote, proposal, broadcast status or certificate to a peer that already
 * got it is pure cost: noise, yamux and a socket write here, a decode and a duplicate
 * count there. Before this, an idle validator received 1.9–5.1 duplicate votes, 0.4–0.5
 * duplicate proposals and 1.5–2.6 stale messages per height (docs/performance.md, "Idle
 * block cost"): a step timeout re-broadcast the node's own proposal and votes to every
 * peer, and a peer's status crossing a vote in flight was answered with that vote again.
 *
 * Recovery stays: a copy the peer did drop (its inbox lane was full, it was syncing, the
 * message was too far ahead) is sent again once RESEND_AFTER_MS have passed, at the
 * next re-broadcast or status answer; a connection that closes forgets the peer, so a
 * re-established one gets everything again. Wall time is fine here: this is the
 * transport's local policy, not consensus (the core, its timeouts and the simulator are
 * unchanged).
 *
 * Bounded: a peer's keys are those of the last RESEND_AFTER_MS (older ones go at the next
 * send), and at most SENT_KEYS_PER_PEER_MAX, the oldest forgotten first (a forgotten key
 * only means one more copy).
 */
import type { ConsensusMessage } from '../../src/consensus/messages';
import { bytesToHex } from '../../src/util/bytes';

/**
 * A second copy of a message to one peer within this is dropped. Well above the consensus
 * step timeouts (100–300 ms at round 0) and a busy node's inbox backlog (a status made
 * by a timeout, which is served first, while the votes it lacks still wait in the vote
 * lane): such a copy is not sent again, and one the peer really lost is at most this late.
 */
export const RESEND_AFTER_MS = 1_000;
/** Keys kept per peer at most: one height holds about 20 (a proposal, 12 votes, statuses); this is a second of 200 heights. */
export const SENT_KEYS_PER_PEER_MAX = 4_096;

/**
 * The key a message is known by, or undefined for one that is always sent. A vote or a
 * proposal by its signature (one per signed content); a status by its bytes (the same
 * bytes: nothing changed); a certificate by its height.
 */
export function sentKey(m: ConsensusMessage, encoded: Uint8Array): string | undefined {
  switch (m.kind) {
    case 'vote':
      return `v${bytesToHex(m.vote.signature)}`;
    case 'proposal':
      return `p${bytesToHex(m.proposal.signature)}`;
    case 'status':
      return `s${bytesToHex(encoded)}`;
    case 'certificate':
      return `c${m.certificate.height}`;
    case 'votes':
      // A vote certificate (decision 174) by its first vote's signature and its size: a collector sends one per step.
      return `q${bytesToHex(m.votes[0].signature)}/${m.votes.length}`;
  }
}

export class SentLedger {
  readonly #peers = new Map<string, Map<string, number>>();

  constructor(
    private readonly resendAfterMs = RESEND_AFTER_MS,
    private readonly keysPerPeerMax = SENT_KEYS_PER_PEER_MAX,
  ) {}

  /** True (and recorded as sent now) unless `peer` was sent `key` less than resendAfterMs before `nowMs`. */
  shouldSend(peer: string, key: string, nowMs: number): boolean {
    let sent = this.#peers.get(peer);
    if (sent === undefined) {
      sent = new Map();
      this.#peers.set(peer, sent);
    }
    // The map is in the order of sending: what is past the window goes, oldest first.
    for (const [k, t] of sent) {
      if (nowMs - t < this.resendAfterMs) break;
      sent.delete(k);
    }
    const at = sent.get(key);
    if (at !== undefined) return false;
    // Re-inserted, so the map's order is the order of sending and the first key the oldest.
    sent.delete(key);
    sent.set(key, nowMs);
    if (sent.size > this.keysPerPeerMax) sent.delete(sent.keys().next().value!);
    return true;
  }

  /** The peer's connection closed or opened: whatever it was sent may not have arrived. */
  forget(peer: string): void {
    this.#peers.delete(peer);
  }

  /** Keys held for `peer` (tests). */
  size(peer: string): number {
    return this.#peers.get(peer)?.size ?? 0;
  }
}
