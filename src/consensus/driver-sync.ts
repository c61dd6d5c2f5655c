/**
 * The consensus driver's block sync (./driver.ts): when to start one, and the catch-up
 * itself, over the transport's `sync` (the p2p actor's request-response on the node,
 * the simulated network in sim/sync.ts) with the checks of src/chain/sync.ts.
 *
 * A sync starts when the node is shown more than SYNC_GAP heights behind:
 *  - by consensus messages from validators holding more than a third of the power
 *    (AheadClaims, decision 66): at least one honest validator is there;
 *  - or by one connected peer whose probed head (the p2p actor's peer-height probes, the
 *    head its block-sync server answers) is that far ahead, checked at each message far
 *    ahead and every PEER_CHECK_MS (by a validator only once it has committed nothing
 *    for PEER_STUCK_MS): a node connected to one validator, or to full nodes only, is
 *    never stuck behind an honest peer (issue 39). That peer alone is asked (the
 *    others' heads are not ahead), even if it missed an answer a moment ago. A peer
 *    whose probed head started a sync that left the node still far below it is not
 *    believed again for a while (peerDoubtMs): a minute once it answered (it served
 *    nothing, or lied about its head); when it did not answer, two seconds doubling at
 *    each miss. A lying peer costs one sync a minute however often it claims, a silent
 *    one a handful of request timeouts; and a validator's far claims in consensus
 *    messages (`--claim-ahead`) start nothing on their own, as before.
 *
 * The catch-up applies committed blocks from peers until none has more. A peer whose
 * answer holds a block that does not prove itself (applySyncResponse, checkSyncedProposer)
 * is not asked again for SYNC_REFUSAL_MS and the next peer is asked: a lying peer can
 * neither feed the node a block nor stop it catching up from the honest ones. A peer that
 * does not answer in time is passed over for SYNC_UNANSWERED_MS (SyncPeers), and one call
 * waits SYNC_BUDGET_MS at most (the transport's askPeersInTurn).
 */
import { AheadClaims, applySyncResponse, checkSyncedProposer, SYNC_GAP, SYNC_REFUSAL_MS, SYNC_RETRY_MS, SyncPeers, type SyncAttempt, type SyncedBlock } from '../chain/sync';
import type { Commit } from '../codec/block';
import type { Address } from '../util/bytes';
import type { DriverConfig, DriverIO } from './driver-io';

/** How often the driver looks at its peers' probed heads (the p2p actor probes every 2 s). */
export const PEER_CHECK_MS = 2_000;
/** How long a peer whose probed head started a sync that it answered but that left the node far below is not believed again (per peer). */
export const PEER_CLAIM_COOLDOWN_MS = SYNC_REFUSAL_MS;

/**
 * How long a peer whose probed head started `misses` syncs in a row that did not bring
 * the node there is not believed again: PEER_CLAIM_COOLDOWN_MS once it answered (a lie);
 * when it did not answer, PEER_CHECK_MS doubled at each miss up to that (an honest peer
 * out of reach for a moment is asked again soon; a silent liar costs a handful of
 * request timeouts a minute).
 */
export function peerDoubtMs(misses: number, answered: boolean): number {
  return answered ? PEER_CLAIM_COOLDOWN_MS : Math.min(PEER_CLAIM_COOLDOWN_MS, PEER_CHECK_MS * 2 ** Math.max(0, misses - 1));
}
/**
 * A node that signs at its next height believes one peer's probed head only once it has
 * committed nothing for this long: while it commits with the other validators it needs
 * no single peer's word, and a sync blocks its votes while it waits for that peer. A
 * follower (no key in the set) has no votes to hold up and believes it at once.
 */
export const PEER_STUCK_MS = 1_000;

export class DriverSync {
  readonly gap = SYNC_GAP;
  readonly peerCheckMs = PEER_CHECK_MS;
  syncing = false;
  blocksSynced = 0;
  /** The highest head a sync answer showed (see syncTarget). */
  peerHeadSeen = 0;
  blocksPerSecond = 0;
  startHeight = 0;
  syncsStarted = 0;
  peerSyncsStarted = 0;
  messagesAheadIgnored = 0;
  /** Peers block sync passes over for a while: liars, and peers that did not answer (local policy). */
  peers: SyncPeers;
  claims: AheadClaims;
  /** The height last reported as pruned by every peer that answered (the warning is said once per height). */
  #prunedWarnedFrom = 0;
  /** clock.now() before which messages start no sync (the last one found nothing to apply). */
  #noSyncUntil = 0;
  /** Peers whose probed heads are not believed until then, and how many syncs on their word in a row gave nothing. */
  readonly #doubted = new Map<string, { until: number; misses: number }>();
  /** clock.now() of the last block committed (decided or synced), or of the start. */
  #progressAt = 0;
  /** The peers that did not answer in the last catch-up. */
  readonly #unanswered = new Set<string>();

  constructor(
    private readonly io: DriverIO,
    private readonly config: DriverConfig,
    /** A synced block was applied: its certificate is kept, and it is the next block's lastCommit. */
    private readonly applied: (height: number, bytes: Uint8Array, commit: Commit) => void,
  ) {
    this.peers = new SyncPeers(() => io.clock.now());
    this.claims = this.#newClaims();
  }

  #newClaims(): AheadClaims {
    // Claims count from the validators of the node's next height.
    return new AheadClaims(() => this.io.chain.validatorsAt(this.io.chain.view().height + 1));
  }

  reset(): void {
    this.#progressAt = this.io.clock.now();
    this.peers = new SyncPeers(() => this.io.clock.now());
    this.claims = this.#newClaims();
    this.#noSyncUntil = 0;
    this.#doubted.clear();
  }

  /** The node's head is now `height`: the claims it reached are forgotten. */
  reached(height: number): void {
    this.claims.reached(height);
  }

  /** The node's key is in the set of its next height. */
  #signsNext(): boolean {
    const key = this.config.privval;
    return key !== null && this.io.chain.validatorsAt(this.io.chain.view().height + 1).has(key.address);
  }

  /** A block was committed (decided or synced). */
  progressed(): void {
    this.#progressAt = this.io.clock.now();
  }

  /**
   * A message at `height` far ahead of the core's: a block sync if validators with more
   * than a third of the power, or one peer's probed head, show the node behind; true when
   * it moved the chain (the caller starts a new core).
   */
  async farAhead(coreHeight: number, height: number, from: Address | undefined): Promise<boolean> {
    const now = this.io.clock.now();
    const shown = this.config.unsafe?.syncTrigger ? height : from === undefined ? this.claims.shown() : this.claims.claim(from, height);
    if (now < this.#noSyncUntil) {
      this.#ignored();
      return false;
    }
    if (shown > coreHeight + this.gap) {
      this.syncsStarted++;
      this.io.observer?.syncStarted?.(shown, 'quorum');
      const moved = await this.toHead(() => false);
      if (!moved) this.#noSyncUntil = this.io.clock.now() + SYNC_RETRY_MS;
      return moved;
    }
    const moved = await this.peerAhead(coreHeight);
    if (!moved) this.#ignored();
    return moved;
  }

  #ignored(): void {
    this.messagesAheadIgnored++;
    this.io.observer?.aheadIgnored?.();
  }

  /** The highest probed head of a peer not doubted or passed over, if it is far ahead of `coreHeight`. */
  #peerAhead(coreHeight: number): { peer: string; height: number } | undefined {
    const now = this.io.clock.now();
    const skipped = this.peers.excluded({ liarsOnly: true });
    let best: { peer: string; height: number } | undefined;
    for (const p of this.io.transport.peerHeads()) {
      // A peer at head H sends messages for H + 1: far ahead as a message of H + 1 would be.
      if (p.height + 1 <= coreHeight + this.gap || skipped.has(p.peer)) continue;
      const doubt = this.#doubted.get(p.peer);
      if (doubt !== undefined && doubt.until > now) continue;
      if (best === undefined || p.height > best.height) best = p;
    }
    return best;
  }

  /** A sync from the peer whose probed head is far ahead, if one is and this node is stuck; true when it moved the chain. */
  async peerAhead(coreHeight: number): Promise<boolean> {
    const now = this.io.clock.now();
    if (now < this.#noSyncUntil || (this.#signsNext() && now - this.#progressAt < PEER_STUCK_MS)) return false;
    const p = this.#peerAhead(coreHeight);
    if (p === undefined) return false;
    this.peerSyncsStarted++;
    this.io.observer?.syncStarted?.(p.height, { peer: p.peer });
    const moved = await this.toHead(() => false, p.peer);
    if (this.io.chain.view().height + 1 + this.gap < p.height + 1) {
      // Still far below what it showed: it lied about its head, served nothing, or did not answer; not believed for a while.
      const misses = (this.#doubted.get(p.peer)?.misses ?? 0) + 1;
      this.#doubted.set(p.peer, { until: this.io.clock.now() + peerDoubtMs(misses, !this.#unanswered.has(p.peer)), misses });
    } else {
      this.#doubted.delete(p.peer);
    }
    return moved;
  }

  /** Applies committed blocks from peers until none has more (see the module comment); true when it moved. */
  async toHead(stopRequested: () => boolean, only?: string): Promise<boolean> {
    const { io, config } = this;
    const clock = io.clock;
    this.syncing = true;
    let moved = false;
    const startedAt = clock.now();
    const heightBefore = io.chain.view().height;
    this.startHeight = heightBefore;
    this.#unanswered.clear();
    try {
      for (;;) {
        if (stopRequested()) break;
        const chain = io.chain.view();
        const from = chain.height + 1;
        let attempt: SyncAttempt;
        try {
          // The one peer that showed this node behind is asked even if it did not answer a moment ago (it is the only one ahead).
          attempt = await io.transport.sync(from, this.peers.excluded({ liarsOnly: only !== undefined }), only);
        } catch (err) {
          // Not a reason to restart consensus: the next message that shows us behind syncs again.
          io.log.warn({ err: (err as Error).message, fromHeight: from }, 'block sync: no answer from the p2p actor; the next consensus message that shows this node behind syncs again');
          break;
        }
        for (const peer of attempt.unanswered) {
          this.peers.noAnswer(peer);
          this.#unanswered.add(peer);
        }
        const answer = attempt.answer;
        if (answer === null) {
          if (attempt.pruned !== undefined && this.#prunedWarnedFrom !== from) {
            // Said once per height: no peer served a block, and these have pruned the ones this node needs next.
            this.#prunedWarnedFrom = from;
            io.log.warn(
              { fromHeight: from, peers: attempt.pruned },
              "block sync: no peer served the blocks after this node's head, and the peers listed have pruned them (their base is past it): block sync cannot catch up from them; state sync from a snapshot can, or a peer started with --archive",
            );
          }
          break;
        }
        const apply = async (b: SyncedBlock) => {
          await io.chain.commitSynced(b);
          this.applied(b.block.header.height, b.bytes, b.commit);
          this.blocksSynced++;
          moved = true;
        };
        let why: string | null = null;
        let applied = 0;
        if (config.unsafe?.syncUnchecked) {
          for (const b of answer.response.blocks) {
            await apply(b);
            applied++;
          }
        } else {
          // Each block is checked against its own height's set, read after the one before it is applied.
          ({ applied, refused: why } = await applySyncResponse(config.chainId, (h) => io.chain.validatorsAt(h), config.verifier, from, answer.response, apply, (b) => {
            const view = io.chain.view();
            return checkSyncedProposer(view, view.vrfKeyOf, io.chain.validatorsAt(b.block.header.height), b, config.vrf);
          }));
        }
        if (why !== null) {
          this.peers.refuse(answer.peer);
          io.observer?.syncRefused?.(answer.peer, why);
          io.log.warn(
            { peer: answer.peer, why, fromHeight: from, ignoredForMs: SYNC_REFUSAL_MS },
            'block sync: refused a peer that sent a block without a valid commit or VRF proof; it is not asked again for a while and the next peer is asked (nothing to do here: that peer runs another chain or forged the block)',
          );
          continue;
        }
        this.peerHeadSeen = Math.max(this.peerHeadSeen, answer.response.peerHead);
        if (answer.response.peerHead < from + applied) break;
      }
    } finally {
      this.syncing = false;
    }
    if (moved) {
      const seconds = (clock.now() - startedAt) / 1000;
      const height = io.chain.view().height;
      this.blocksPerSecond = seconds > 0 ? (height - heightBefore) / seconds : 0;
      io.log.info({ height, blocksSynced: this.blocksSynced, blocksPerSecond: Math.round(this.blocksPerSecond) }, 'caught up by block sync');
      io.observer?.synced?.(height);
    }
    return moved;
  }
}
