/**
 * Catch-up through the mesh (decision 185), CometBFT's gossipDataForCatchup for nodes that
 * follow the gossip topics: a node publishes a status on the votes topic when its
 * rounds time out (the consensus core's rebroadcast); a node that has committed that
 * height answers with the certificates (block and commit) of the heights from there,
 * read from its store, on the same topic. Nodes at the head ignore them (a height they
 * committed: not relayed); the lagging node's consensus verifies and applies the one
 * for its height and keeps the next ones for after it. It fills the small gap a node
 * that just finished block sync, or missed one certificate, would otherwise wait on;
 * a larger one is block sync's.
 *
 * Bounded: CATCH_UP_BLOCKS_MAX certificate per answer, each height answered at most
 * once per CATCH_UP_RESEND_MS by this node, a status more than CATCH_UP_GAP_MAX behind
 * not answered (block sync's), and at most CATCH_UP_HEIGHTS_KEPT heights remembered.
 */
import { decodeCommit } from '../../src/codec/block';
import type { Certificate, StatusMessage } from '../../src/consensus/messages';

/**
 * Certificates in one answer: the asked height's only. Consensus keeps no certificate
 * for a later height than the one it decides, and gossip ids are content hashes: a
 * certificate sent ahead and dropped could not be sent again (the same bytes are a
 * duplicate to gossipsub for minutes).
 */
export const CATCH_UP_BLOCKS_MAX = 1;
/** A height answered again only after this long (another node may have answered it). */
export const CATCH_UP_RESEND_MS = 1_000;
/** A status further behind than this is block sync's to fill. */
export const CATCH_UP_GAP_MAX = 64;
const CATCH_UP_HEIGHTS_KEPT = 256;
/** How often a node that follows the mesh looks whether it is behind its peers. */
export const CATCH_UP_CHECK_MS = 100;
/** A height asked for is asked again after this long (its answer was lost, or nobody had it yet). */
export const CATCH_UP_ASK_AGAIN_MS = 1_000;

/**
 * The asking side: a node behind a peer's probed head that has not asked for its next
 * height yet, or asked more than CATCH_UP_ASK_AGAIN_MS ago, publishes a status for it,
 * which the peers that have it answer; as the head moves, the next height is asked at
 * once, one round trip a block. (The consensus core publishes statuses only when its
 * rounds time out; one waiting in its Commit step for a block it missed publishes none.)
 */
export class CatchUpAsker {
  readonly stats = { asked: 0 };
  #askedHeight = -1;
  #askedAtMs = 0;

  /** The height to ask for now, or undefined. */
  due(head: number, peersAhead: boolean, nowMs: number): number | undefined {
    if (!peersAhead) return undefined;
    const next = head + 1;
    if (next === this.#askedHeight && nowMs - this.#askedAtMs < CATCH_UP_ASK_AGAIN_MS) return undefined;
    this.#askedHeight = next;
    this.#askedAtMs = nowMs;
    this.stats.asked++;
    return next;
  }
}

/**
 * A status that says only "I am at `height`" (no votes held): what a catch-up answer
 * needs. `nonce` goes in the round so that asking again is not a duplicate to gossipsub.
 */
export function catchUpStatus(height: number, nonce: number): StatusMessage {
  return { height, round: nonce >>> 0, hasProposal: false, prevotes: new Uint8Array(0), precommits: new Uint8Array(0), polRound: -1, polPrevotes: new Uint8Array(0) };
}

export interface CatchUpStore {
  getEncodedBlockAndCommit(height: number): Promise<{ block: Uint8Array; commit: Uint8Array } | undefined>;
}

export class CatchUpServer {
  readonly stats = { statusesAnswered: 0, certificatesSent: 0, tooFarBehind: 0 };
  readonly #answeredAt = new Map<number, number>();

  /**
   * The certificates to publish for a peer whose status says it is at `height` (its
   * next height to decide), with this node's head at `head`; [] when none is due.
   */
  async answer(height: number, head: number, store: CatchUpStore, nowMs: number): Promise<Certificate[]> {
    if (height > head || height < 1) return [];
    if (head - height > CATCH_UP_GAP_MAX) {
      this.stats.tooFarBehind++;
      return [];
    }
    const out: Certificate[] = [];
    for (let h = height; h <= head && h < height + CATCH_UP_BLOCKS_MAX; h++) {
      const at = this.#answeredAt.get(h);
      if (at !== undefined && nowMs - at < CATCH_UP_RESEND_MS) continue;
      const stored = await store.getEncodedBlockAndCommit(h);
      if (stored === undefined) break;
      this.#answeredAt.delete(h);
      this.#answeredAt.set(h, nowMs);
      out.push({ height: h, block: stored.block, commit: decodeCommit(stored.commit) });
    }
    while (this.#answeredAt.size > CATCH_UP_HEIGHTS_KEPT) this.#answeredAt.delete(this.#answeredAt.keys().next().value!);
    if (out.length > 0) {
      this.stats.statusesAnswered++;
      this.stats.certificatesSent += out.length;
    }
    return out;
  }
}
