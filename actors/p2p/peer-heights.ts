/**
 * What this node knows of its connected peers' heads (decision 79): every
 * PEER_HEIGHT_PROBE_MS it asks each connected peer (at most PEERS_PROBED_MAX) for its
 * head over the block-sync protocol, with a request for zero blocks, whose answer is the
 * peer's head and no block (src/chain/sync.ts serveSync): the status exchange the sync
 * protocol already carries, answered by every node of the network, observers included.
 * GET /v1/network/peers shows the result beside each peer's listen addresses (libp2p
 * identify), the onboarding service's register route reads it to tell whether a
 * candidate's node, found by its endpoint, follows the chain, and the consensus driver
 * syncs from a peer whose head is far ahead of its own (src/consensus/driver-sync.ts).
 *
 * A peer's entry goes with its connection; an answer that does not come within
 * PEER_HEIGHT_TIMEOUT_MS leaves the last known one (its `atMs` says how old it is).
 */
import { decodeSyncResponse, encodeSyncRequest, syncProtocol } from '../../src/chain/sync';

export const PEER_HEIGHT_PROBE_MS = 2_000;
export const PEER_HEIGHT_TIMEOUT_MS = 2_000;
/** Peers asked per round (a node keeps far fewer connections than this). */
export const PEERS_PROBED_MAX = 128;

export interface PeerHeight {
  height: number;
  /** Wall-clock ms of the answer (what an API reader compares ages with). */
  atMs: number;
}

export class PeerHeights {
  readonly #heights = new Map<string, PeerHeight>();

  record(peer: string, height: number, atMs: number): void {
    this.#heights.set(peer, { height, atMs });
  }

  /** Keeps only the entries of `connected` peers. */
  retain(connected: ReadonlySet<string>): void {
    for (const peer of this.#heights.keys()) if (!connected.has(peer)) this.#heights.delete(peer);
  }

  get(peer: string): PeerHeight | undefined {
    return this.#heights.get(peer);
  }

  /** Every known peer's head (the consensus driver syncs from a peer far ahead). */
  all(): { peer: string; height: number }[] {
    return [...this.#heights].map(([peer, h]) => ({ peer, height: h.height }));
  }
}

/** The probe loop over a transport's `peers` and `request`; stop() ends it. */
export function probePeerHeights(
  heights: PeerHeights,
  t: { peers(): string[]; request(peer: string, protocol: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> },
  chainId: number,
  maxBlockBytes: number,
  nowMs: () => number = Date.now,
): { stop(): void; round(): Promise<void> } {
  const ask = encodeSyncRequest({ fromHeight: 0, maxBlocks: 0 });
  let running = false;
  const round = async () => {
    if (running) return; // a round waits on slow peers for at most the timeout; never two at once
    running = true;
    try {
      const peers = t.peers().slice(0, PEERS_PROBED_MAX);
      heights.retain(new Set(peers));
      await Promise.all(
        peers.map(async (peer) => {
          try {
            const answer = decodeSyncResponse(await t.request(peer, syncProtocol(chainId), ask, PEER_HEIGHT_TIMEOUT_MS), maxBlockBytes);
            if (answer.blocks.length === 0) heights.record(peer, answer.peerHead, nowMs());
          } catch {
            // Unanswered or undecodable: the last known height stays, with its age.
          }
        }),
      );
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void round(), PEER_HEIGHT_PROBE_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), round };
}
