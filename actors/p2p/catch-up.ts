/**
 * Catch-up for nodes that follow the mesh (decision 185), CometBFT's
 * gossipDataForCatchup asked for instead of pushed: a full node whose head is behind a
 * peer's probed head asks that peer, on `/exchange/<chainId>/catch-up/1`, for the
 * certificate (block and commit) of its next height, and hands it to consensus, which
 * verifies the commit and applies it; when it has decided that height the next is asked at
 * once, one round trip a block. It fills the gap a node that just finished block sync, or lost
 * one certificate or proposal, would otherwise wait on for good: consensus drops messages
 * for heights it has not reached, relays do not repeat what is past their own head, and
 * gossip cannot send a certificate twice (message ids are content hashes). A gap of more
 * than CATCH_UP_GAP_MAX heights is block sync's.
 *
 * Point to point, not on the topic: a certificate a node already gossiped is a
 * duplicate to gossipsub for minutes, so an answer on the topic could not repeat it.
 *
 *   request  u64 height
 *   answer   a consensus message (a certificate of that height), or nothing
 */
import { Reader, Writer } from '../../src/codec/binary';
import { decodeCommit } from '../../src/codec/block';
import type { Certificate } from '../../src/consensus/messages';

/** A node further behind than this leaves the gap to block sync (the answer is empty). */
export const CATCH_UP_GAP_MAX = 256;
/** How often a node that follows the mesh looks whether it is behind its peers (and at once after each height it decides). */
export const CATCH_UP_CHECK_MS = 100;
/** A height asked for is asked again after this long (its answer was lost, or nobody had it yet). */
export const CATCH_UP_ASK_AGAIN_MS = 1_000;
export const CATCH_UP_TIMEOUT_MS = 2_000;

export function catchUpProtocol(chainId: number): string {
  return `/exchange/${chainId}/catch-up/1`;
}

export function encodeCatchUpRequest(height: number): Uint8Array {
  return new Writer(8).u64(height).finish();
}

export function decodeCatchUpRequest(bytes: Uint8Array): number {
  const r = new Reader(bytes);
  const h = r.u64();
  r.end();
  return h;
}

export interface CatchUpStore {
  getEncodedBlockAndCommit(height: number): Promise<{ block: Uint8Array; commit: Uint8Array } | undefined>;
}

/** The serving side: the certificate of `height` from the store, if this node has it and the asker is not too far behind. */
export class CatchUpServer {
  readonly stats = { answered: 0, tooFarBehind: 0, notHeld: 0 };

  async answer(height: number, head: number, store: CatchUpStore): Promise<Certificate | undefined> {
    if (height > head || height < 1) {
      this.stats.notHeld++;
      return undefined;
    }
    if (head - height > CATCH_UP_GAP_MAX) {
      this.stats.tooFarBehind++;
      return undefined;
    }
    const stored = await store.getEncodedBlockAndCommit(height);
    if (stored === undefined) {
      this.stats.notHeld++;
      return undefined;
    }
    this.stats.answered++;
    return { height, block: stored.block, commit: decodeCommit(stored.commit) };
  }
}

/**
 * The asking side: whether to ask for the next height now. Asked at once when the head
 * moved since the last ask, again after CATCH_UP_ASK_AGAIN_MS when it did not.
 */
export class CatchUpAsker {
  readonly stats = { asked: 0, applied: 0, empty: 0, failed: 0 };
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
