/**
 * Block sync of a simulated node (sim/cluster.ts), as the node's consensus actor runs it
 * (actors/consensus/bft.ts syncToHead, over the p2p actor's request-response): a node
 * that sees messages more than SYNC_GAP heights ahead from validators with more than a
 * third of the power (the real AheadClaims) asks a live peer (the first one rotating with
 * the height asked) for the blocks after its head, served from that peer's store by the
 * real serveSync, checks and applies them with the real applySyncResponse (each block's
 * commit against its own height's set, read from the chain after the block before it was
 * applied, and its VRF proof with the real checkSyncedProof), applies the good ones,
 * refuses a peer that sent a forged block for 60 s, and asks again until no peer has
 * more; then its consensus restarts at the new height. Requests and answers cross the
 * same faulty network; an unanswered request times out after SYNC_TIMEOUT_MS, the next
 * peer is asked, and the silent one is passed over for 10 s (the real SyncPeers, on the
 * simulated clock). While it syncs, the node's timers, messages and pending applies wait
 * (sim/node.ts defers them), as in the actor's mailbox. The Byzantine validator forges
 * half of the answers it serves.
 */
import {
  applySyncResponse,
  checkSyncedProof,
  decodeSyncRequest,
  decodeSyncResponse,
  encodeSyncRequest,
  forgeSyncResponse,
  serveSync,
  SYNC_GAP,
  SYNC_MAX_BLOCKS,
  SYNC_RETRY_MS,
  type SyncedBlock,
} from '../src/chain/sync';
import { blockHash, type Commit } from '../src/codec/block';
import type { ValidatorSet } from '../src/consensus/validator-set';
import type { BlockResult } from '../src/state/apply';
import type { Chain } from '../src/chain/chain';
import { StorageUnavailableError } from '../src/storage/no-space';
import type { LiveNode, SimNode, SyncSession } from './model';
import { US, type DistributiveOmit, type SimEvent } from './network';
import type { SimWorld } from './world';

/**
 * An unanswered sync request gives up after this (the p2p actor waits 10 s; the simulated
 * network delivers within 410 ms or drops, so 1 s only shortens the wait for a drop).
 */
const SYNC_TIMEOUT_MS = 1_000;

/** What block sync asks of the node it runs on (sim/node.ts). */
export interface SyncHooks {
  /** What follows a block's commit on a node, decided or synced. */
  committed(node: SimNode, live: LiveNode, height: number, bytes: Uint8Array, commit: Commit, result: BlockResult): void;
  /** A fresh app and core at the chain's next height. */
  startCore(node: SimNode, live: LiveNode): Promise<void>;
  /** The set that signs `height` as the node knows it (its chain's). */
  validatorsAt(chain: Chain, height: number): ValidatorSet;
  /** A write refused for lack of space: consensus (and this sync) stop until the disk takes writes. */
  pause(node: SimNode, live: LiveNode, err: unknown): void;
}

/** Thrown through applySyncResponse when a synced block breaks safety (the checker recorded it): the sync stops. */
const STOP = new Error('sync stopped by the checker');

export class BlockSync {
  /** Tells a request's answer or timeout from stale ones. */
  #token = 0;

  constructor(
    private readonly w: SimWorld,
    private readonly hooks: SyncHooks,
  ) {}

  /**
   * A consensus message at `height`, more than SYNC_GAP past this node's: if more than a
   * third of the power says so (decision 66), block sync; otherwise it starts nothing. The
   * message is dropped either way, as the actor drops it. False: the message is not far ahead.
   */
  async farAhead(node: SimNode, live: LiveNode, from: number, height: number): Promise<boolean> {
    if (height <= live.core.height + SYNC_GAP) return false;
    const shown = this.w.opts.unsafeSyncTrigger ? height : live.aheadClaims.claim(this.w.nodes[from].address, height);
    if (shown <= live.core.height + SYNC_GAP || this.w.net.nowUs < live.noSyncUntilUs) {
      this.w.sync.aheadIgnored++;
      return true;
    }
    this.w.check.checkBehind(node, live, shown);
    await this.start(node, live, false);
    return true;
  }

  /** syncToHead: ask the live peers not refused, the first one rotating with the height asked (the p2p actor's `sync`). */
  async start(node: SimNode, live: LiveNode, moved: boolean): Promise<void> {
    const from = live.chain.height + 1;
    const excluded = live.syncPeers.excluded();
    const peers = this.w.nodes.filter((x) => x.index !== node.index && x.live !== null && !excluded.has(String(x.index))).map((x) => x.index);
    const start = peers.length === 0 ? 0 : from % peers.length;
    const order = peers.map((_, i) => peers[(start + i) % peers.length]);
    live.sync = { order, next: 0, peer: -1, token: 0, moved };
    this.w.check.traceLine(`node ${node.index} syncs from ${from}, peers ${JSON.stringify(order)}`);
    await this.#askNext(node, live);
  }

  async #askNext(node: SimNode, live: LiveNode): Promise<void> {
    const s = live.sync as SyncSession;
    if (s.next >= s.order.length) {
      await this.#endSync(node, live);
      return;
    }
    s.peer = s.order[s.next++];
    s.token = ++this.#token;
    const token = s.token;
    this.w.sync.requests++;
    this.w.net.send(node.index, s.peer, 'syncRequest', encodeSyncRequest({ fromHeight: live.chain.height + 1, maxBlocks: SYNC_MAX_BLOCKS }), token);
    this.w.net.at(this.w.net.nowUs + SYNC_TIMEOUT_MS * US, async () => {
      if (node.live !== live || live.sync !== s || s.token !== token) return;
      this.w.sync.timeouts++;
      live.syncPeers.noAnswer(String(s.peer));
      await this.#askNext(node, live);
    });
  }

  /** A peer serves sync from its store (the p2p actor's handler); the Byzantine one forges half of its answers. */
  async serve(server: SimNode, to: number, bytes: Uint8Array, tag: number): Promise<void> {
    const live = server.live;
    if (live === null) return;
    // The head on disk: a block applied but kept unwritten (a full disk) is not served.
    const head = live.chain.unwrittenHeight === undefined ? live.chain.height : live.chain.height - 1;
    const request = decodeSyncRequest(bytes);
    let answer = await serveSync(live.chain.store, head, request);
    if (server.byzantine && this.w.prng.chance(0.5) && head >= request.fromHeight) {
      answer = forgeSyncResponse(answer, this.w.genesis.consensus.maxBlockBytes);
      this.w.faults.forgedSyncAnswer++;
    }
    this.w.net.send(server.index, to, 'syncResponse', answer, tag);
  }

  /** An answer to this node's sync request: checked, its good blocks applied, its peer refused if it forged one. */
  async onAnswer(node: SimNode, live: LiveNode, from: number, bytes: Uint8Array, tag: number): Promise<void> {
    const s = live.sync;
    if (s === null || s.peer !== from || s.token !== tag) return; // late, duplicated, or not asked
    s.token = 0;
    let response;
    try {
      response = decodeSyncResponse(bytes, this.w.genesis.consensus.maxBlockBytes);
    } catch (err) {
      this.w.check.violation('exception', `node ${node.index} could not decode a sync answer from ${from}: ${(err as Error).message}`);
      return;
    }
    if (response.blocks.length === 0) {
      await this.#askNext(node, live);
      return;
    }
    this.w.sync.answers++;
    const fromHeight = live.chain.height + 1;
    // applySyncResponse (bft.ts syncToHead): block h checked against the set of h, read
    // from the chain after h − 1 was applied, and its VRF proof against the chain it extends.
    const apply = async (b: SyncedBlock): Promise<void> => {
      if (!(await this.#applySynced(node, live, b))) throw STOP;
      s.moved = true;
    };
    let why: string | null = null;
    if (this.w.opts.unsafeSync) {
      // Deliberately broken: every block applied, no commit or proof checked.
      for (const b of response.blocks) {
        if (!(await this.#applySynced(node, live, b))) return;
        s.moved = true;
      }
    } else {
      try {
        ({ refused: why } = await applySyncResponse(
          this.w.genesis.chainId,
          (h) => this.hooks.validatorsAt(live.chain, h),
          this.w.verifier,
          fromHeight,
          response,
          apply,
          (b) => checkSyncedProof(live.chain, live.chain.vrfKeyOf, b, this.w.vrf),
        ));
      } catch (err) {
        if (err === STOP) return;
        throw err;
      }
    }
    const applied = live.chain.height + 1 - fromHeight;
    if (why !== null) {
      this.w.sync.refused++;
      if (!this.w.nodes[from].byzantine) this.w.check.violation('exception', `node ${node.index} refused a sync answer from honest node ${from}: ${why}`);
      live.syncPeers.refuse(String(from));
      this.w.check.traceLine(`node ${node.index} refuses sync answer of ${from}: ${why}`);
      await this.start(node, live, s.moved);
      return;
    }
    if (response.peerHead >= fromHeight + applied) await this.start(node, live, s.moved);
    else await this.#endSync(node, live);
  }

  /** A block from sync, proven by its commit: applied as the chain actor applies it, and held to the decisions. */
  async #applySynced(node: SimNode, live: LiveNode, b: SyncedBlock): Promise<boolean> {
    const height = b.block.header.height;
    if (!node.byzantine && !this.w.check.holdToDecisions(node, height, blockHash(b.block.header), 'synced')) return false;
    let result: BlockResult;
    try {
      result = await live.chain.commit(b.block, b.commit, live.pool.signers);
    } catch (err) {
      if (err instanceof StorageUnavailableError) {
        this.hooks.pause(node, live, err);
        return false;
      }
      this.w.check.violation('state', `node ${node.index} could not apply synced block ${height}: ${(err as Error).message}`);
      return false;
    }
    this.w.sync.blocksApplied++;
    this.hooks.committed(node, live, height, b.bytes, b.commit, result);
    return true;
  }

  /** The catch-up is over: a node that moved restarts its consensus at the new height (bft.ts newCore); what waited is handled. */
  async #endSync(node: SimNode, live: LiveNode): Promise<void> {
    const s = live.sync as SyncSession;
    live.sync = null;
    const deferred = live.deferred;
    live.deferred = [];
    if (s.moved) {
      node.incarnation++; // the old core's timers and decisions are void
      this.w.check.traceLine(`node ${node.index} synced to ${live.chain.height}`);
      await this.hooks.startCore(node, live);
    } else {
      live.noSyncUntilUs = this.w.net.nowUs + SYNC_RETRY_MS * US;
    }
    for (const ev of deferred) this.w.net.push({ ...ev, atUs: this.w.net.nowUs } as DistributiveOmit<SimEvent, 'seq'>);
  }
}

