/**
 * Block sync of a simulated node over the simulated network: the transport side of the
 * consensus driver's catch-up (src/consensus/driver-sync.ts, which decides when to sync
 * and checks and applies what comes back, as on the node). A request asks the live peers
 * in turn with the real askPeersInTurn (the p2p actor's `sync`): the first one rotating
 * with the height asked (or only the peer whose probed head showed the node behind); each is
 * served from that peer's store by the real serveSync; an unanswered request times out
 * after SYNC_TIMEOUT_MS and the next peer is asked. Requests and answers cross the same
 * faulty network. The Byzantine validator forges half of the answers it serves that
 * carry blocks (its harness, sim/byzantine.ts), and lies to the peer-height probes.
 */
import { askPeersInTurn, decodeSyncRequest, decodeSyncResponse, encodeSyncRequest, serveSync, SYNC_MAX_BLOCKS, type SyncAttempt, type SyncResponse } from '../src/chain/sync';
import type { ByzantineHarness } from '../src/consensus/driver-io';
import type { LiveNode, SimNode } from './model';
import { US } from './network';
import type { SimWorld } from './world';

/**
 * An unanswered sync request gives up after this (the p2p actor waits 10 s; the simulated
 * network delivers within 410 ms or drops, so 1 s only shortens the wait for a drop).
 */
const SYNC_TIMEOUT_MS = 1_000;
/** What the Byzantine validator tells the peer-height probes: this far past its head. */
const PROBE_LIE_HEIGHTS = 1_000;

export class BlockSync {
  /** Tells a request's answer or timeout from stale ones. */
  #token = 0;

  constructor(
    private readonly w: SimWorld,
    private readonly harnessOf: (node: SimNode) => ByzantineHarness | undefined,
  ) {}

  /** The driver's transport.sync: its peers not excluded (or `only` that one), asked in turn. */
  sync(node: SimNode, live: LiveNode, fromHeight: number, exclude: ReadonlySet<string>, only: string | undefined): Promise<SyncAttempt> {
    const w = this.w;
    const peers = this.connected(node)
      .filter((x) => !exclude.has(String(x.index)) && (only === undefined || String(x.index) === only))
      .map((x) => String(x.index));
    w.check.traceLine(`node ${node.index} syncs from ${fromHeight}, peers ${JSON.stringify(peers)}`);
    const request = encodeSyncRequest({ fromHeight, maxBlocks: SYNC_MAX_BLOCKS });
    return askPeersInTurn(peers, fromHeight, (peer, timeoutMs) => this.#ask(node, live, Number(peer), request, timeoutMs), {
      requestTimeoutMs: SYNC_TIMEOUT_MS,
      now: () => w.net.nowMs,
    });
  }

  async #ask(node: SimNode, live: LiveNode, peer: number, request: Uint8Array, timeoutMs: number): Promise<SyncResponse> {
    const w = this.w;
    const token = ++this.#token;
    w.sync.requests++;
    const waiter = live.mailbox.wait<Uint8Array>();
    live.syncWaits.set(token, { peer, waiter });
    w.net.send(node.index, peer, 'syncRequest', request, token);
    w.net.at(w.net.nowUs + Math.round(timeoutMs * US), () => {
      if (live.syncWaits.get(token)?.waiter !== waiter) return;
      live.syncWaits.delete(token);
      w.sync.timeouts++;
      waiter.fail(new Error(`node ${peer} did not answer in ${timeoutMs} ms`));
    });
    const bytes = await waiter.promise;
    try {
      const response = decodeSyncResponse(bytes, w.genesis.consensus.maxBlockBytes);
      if (response.blocks.length > 0) w.sync.answers++;
      return response;
    } catch (err) {
      w.check.violation('exception', `node ${node.index} could not decode a sync answer from ${peer}: ${(err as Error).message}`);
      throw err;
    }
  }

  /** An answer to one of this node's requests (late, duplicated or not asked: dropped). */
  onAnswer(live: LiveNode, from: number, bytes: Uint8Array, tag: number): void {
    const wait = live.syncWaits.get(tag);
    if (wait === undefined || wait.peer !== from) return;
    live.syncWaits.delete(tag);
    wait.waiter.wake(bytes);
  }

  /** A peer serves sync from its store (the p2p actor's handler), through its harness if it has one. */
  async serve(server: SimNode, to: number, bytes: Uint8Array, tag: number): Promise<void> {
    const live = server.live;
    if (live === null) return;
    // The head on disk: a block applied but kept unwritten (a full disk) is not served.
    const answer = await serveSync(live.chain.store, this.headOnDisk(live), decodeSyncRequest(bytes));
    const harness = this.harnessOf(server)?.serveSync;
    const sent = harness === undefined ? answer : harness(answer);
    if (sent !== null) this.w.net.send(server.index, to, 'syncResponse', sent, tag);
  }

  headOnDisk(live: LiveNode): number {
    return live.chain.unwrittenHeight === undefined ? live.chain.height : live.chain.height - 1;
  }

  /** The node's peers: the live nodes no partition cuts it from, either way (a real node's connections to them would have dropped). */
  connected(node: SimNode): SimNode[] {
    const net = this.w.net;
    return this.w.nodes.filter((x) => x.index !== node.index && x.live !== null && net.linkUp(node.index, x.index) && net.linkUp(x.index, node.index));
  }

  /**
   * The driver's transport.peerHeads: the heads the peer-height probes would show, of its
   * peers; the Byzantine
   * validator claims one far ahead of its own.
   */
  peerHeads(node: SimNode): { peer: string; height: number }[] {
    const out: { peer: string; height: number }[] = [];
    for (const x of this.connected(node)) {
      const head = this.headOnDisk(x.live as LiveNode);
      out.push({ peer: String(x.index), height: x.byzantine ? head + PROBE_LIE_HEIGHTS : head });
    }
    return out;
  }
}
