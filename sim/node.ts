/**
 * What a simulated validator does (sim/cluster.ts), with the real code: its consensus
 * core (ConsensusCore), block validation (ChainConsensusApp), mempool (TxPool) and
 * execution (the real Chain over the node's in-memory store, sim/storage.ts), driven as
 * the node's consensus actor drives them (actors/consensus/bft.ts), with each height's
 * validator set from its own executed chain (Chain.validatorsAt): a message, timer or
 * decided block in; the core's outputs sent, scheduled, applied; the blocks the app
 * asks for built from the pool. A crash loses everything but the storage (and, with
 * storage faults, maybe the store's unsynced tail); a boot reopens the chain with
 * Chain.open. A store found corrupted at open is moved aside and an empty one synced
 * from peers before consensus starts (src/node/store-heal.ts); a write refused for lack
 * of space pauses consensus until the disk takes writes (bft.ts pauseOn), then the block
 * kept in memory is written (Chain.retryUnwritten) and the node catches up by block
 * sync. Block sync is sim/sync.ts; the Byzantine
 * validator's extra messages are sim/byzantine.ts; every decision, commit, signed
 * message and evidence is shown to the checker (sim/checks.ts).
 */
import { Step } from '../machines/consensus-round';
import { ChainConsensusApp } from '../src/chain/consensus-app';
import { AheadClaims, SyncPeers } from '../src/chain/sync';
import type { Chain } from '../src/chain/chain';
import { decodeCommit, encodeBlock, type Commit } from '../src/codec/block';
import { StoreCorruptionError } from '../src/storage/corruption';
import { isNoSpace, StorageUnavailableError } from '../src/storage/no-space';
import { ConsensusCore, inputFromMessage, type ConsensusInput, type ConsensusOutput } from '../src/consensus/core';
import { decodeMessage, encodeMessage, messageHeight, type ConsensusMessage } from '../src/consensus/messages';
import { decodePrivValState, encodePrivValState, LocalPrivValidator } from '../src/consensus/privval';
import type { BlockResult } from '../src/state/apply';
import { encodeTx, TxKind } from '../src/codec/tx';
import type { ValidatorSet } from '../src/consensus/validator-set';
import { TxError } from '../src/state/errors';
import { bytesToHex, equalBytes } from '../src/util/bytes';
import { TxPool } from '../actors/mempool/pool';
import { claimAhead, doubleVoteTo, equivocate } from './byzantine';
import type { LiveNode, SimNode } from './model';
import { US, type SimEvent } from './network';
import { BlockSync } from './sync';
import { describeInput, describeMessage, describeOutput } from './trace';
import { buildBlock, clockMs, type SimWorld } from './world';

/** Mempool bounds of a simulated node (the node's defaults). */
const POOL_LIMITS = { maxTxs: 10_000, maxBytes: 64 * 1024 * 1024 };
/** Certificates a booting node's app is handed from its disk (ChainConsensusApp's default keep). */
const CERTIFICATES_KEPT = 1_024;

export class NodeModel {
  readonly #sync: BlockSync;

  constructor(private readonly w: SimWorld) {
    this.#sync = new BlockSync(w, this);
  }

  /** A message arrives at node `ev.to` over the network. */
  async deliver(ev: Extract<SimEvent, { kind: 'deliver' }>): Promise<void> {
    const node = this.w.nodes[ev.to];
    if (node.live === null) {
      this.w.faults.lostToCrash++;
      return;
    }
    // Paused for a full disk: no core, so consensus messages are dropped (bft.ts pauseOn).
    if (ev.channel === 'consensus' && node.live.paused) return;
    if (ev.channel === 'consensus' && node.live.sync !== null) {
      node.live.deferred.push(ev);
      return;
    }
    this.w.tally.messagesDelivered++;
    if (ev.channel === 'tx') {
      this.onGossipTx(node, node.live, ev.bytes);
      return;
    }
    if (ev.channel === 'syncRequest') return this.#sync.serve(node, ev.from, ev.bytes, ev.tag);
    if (ev.channel === 'syncResponse') return this.#sync.onAnswer(node, node.live, ev.from, ev.bytes, ev.tag);
    let message: ConsensusMessage;
    try {
      message = decodeMessage(ev.bytes);
    } catch (err) {
      this.w.check.violation('exception', `node ${ev.to} could not decode a message from ${ev.from}: ${(err as Error).message}`);
      return;
    }
    // Far ahead: block sync, or nothing; the message is dropped either way.
    if (await this.#sync.farAhead(node, node.live, ev.from, messageHeight(message))) return;
    // As the node's consensus actor does: a fresh proposal must carry a recent time.
    if (message.kind === 'proposal' && !node.live.app.isTimely(message.proposal)) {
      this.w.tally.proposalsUntimely++;
      if (this.w.opts.traceNodes?.includes(node.index)) this.w.check.traceLine(`node ${node.index} drops untimely ${describeMessage(message)}`);
      return;
    }
    await this.input(node, inputFromMessage(message, this.w.nodes[ev.from].address));
  }

  /** A consensus timer of node `ev.node` fires (void if the node crashed or its core was replaced since). */
  async timer(ev: Extract<SimEvent, { kind: 'timer' }>): Promise<void> {
    const node = this.w.nodes[ev.node];
    if (node.live === null || node.incarnation !== ev.incarnation) return;
    if (node.live.sync !== null) {
      node.live.deferred.push(ev);
      return;
    }
    if (ev.step === Step.NewHeight) node.live.roundZeroAtUs = this.w.net.nowUs;
    await this.input(node, { type: 'timeout', height: ev.height, round: ev.round, step: ev.step });
  }


  /** One input, its outputs, and the blocks the app asked for meanwhile (actors/consensus/bft.ts `run`). */
  async input(node: SimNode, input: ConsensusInput): Promise<void> {
    const live = node.live;
    if (live === null) return;
    const outputs = await this.#handle(node, live, input);
    if (outputs === null) return;
    this.#outputs(node, outputs);
    await this.#buildRequested(node, live);
  }

  async #handle(node: SimNode, live: LiveNode, input: ConsensusInput): Promise<ConsensusOutput[] | null> {
    const traced = this.w.opts.traceNodes?.includes(node.index) ?? false;
    if (traced) this.w.check.traceLine(`node ${node.index} @${live.core.height}/${live.core.round}/${Step[live.core.step]} <- ${describeInput(input)}`);
    let outputs: ConsensusOutput[];
    try {
      outputs = await live.core.handle(input);
    } catch (err) {
      // The privval file could not take the signature's state (a full disk): nothing left; pause.
      if (isNoSpace(err)) {
        this.pause(node, live, err);
        return null;
      }
      this.w.check.violation('exception', `node ${node.index} threw on ${input.type}: ${(err as Error).stack ?? String(err)}`);
      return null;
    }
    if (traced) for (const o of outputs) this.w.check.traceLine(`node ${node.index} -> ${describeOutput(o)}`);
    return outputs;
  }

  async #buildRequested(node: SimNode, live: LiveNode): Promise<void> {
    for (let req = live.builds.shift(); req !== undefined && node.live === live; req = live.builds.shift()) {
      const built = buildBlock(this.w, node, live, req.height, req.round, false);
      if (built === null) continue;
      live.app.built(built.validated);
      const outputs = await this.#handle(node, live, { type: 'blockReady', hash: built.validated.hash, bytes: built.bytes });
      if (outputs === null) return;
      this.#outputs(node, outputs);
    }
  }


  #outputs(node: SimNode, outputs: ConsensusOutput[]): void {
    for (const o of outputs) {
      switch (o.type) {
        case 'broadcast':
          this.w.check.observeSigned(node, o.message);
          if (node.byzantine) claimAhead(this.w, node, o.message);
          if (node.byzantine && equivocate(this.w, node, o.message)) break;
          this.w.net.broadcast(node.index, 'consensus', encodeMessage(o.message));
          break;
        case 'send': {
          const to = this.w.byAddress.get(o.to);
          this.w.check.observeSigned(node, o.message);
          if (to !== undefined && to !== node.index) {
            this.w.net.send(node.index, to, 'consensus', encodeMessage(o.message));
            // A vote to the round's collector (linear votes): the Byzantine validator double-signs
            // some, and claims heights far ahead after it, as `--claim-ahead` does on the node.
            if (node.byzantine) {
              claimAhead(this.w, node, o.message);
              doubleVoteTo(this.w, node, to, o.message);
            }
          }
          break;
        }
        case 'scheduleTimeout': {
          let delayUs = Math.round(o.delayMs * US);
          // Pacing (actors/consensus/bft.ts): round 0 of the next height starts one block time after this one's.
          if (o.step === Step.NewHeight && node.live !== null) {
            delayUs = Math.max(0, node.live.roundZeroAtUs + this.w.genesis.consensus.blockTimeMs * US - this.w.net.nowUs);
          }
          this.w.net.push({
            kind: 'timer',
            atUs: this.w.net.nowUs + delayUs,
            node: node.index,
            incarnation: node.incarnation,
            height: o.height,
            round: o.round,
            step: o.step,
          });
          break;
        }
        case 'decide':
          this.#onDecide(node, o);
          break;
        case 'evidence':
          this.w.check.onEvidence(node, o.evidence);
          // As the node's consensus actor does (bft.ts recordEvidence): a duplicate vote goes
          // to its own pool as a DoubleSignEvidence transaction, which tombstones the offender.
          if (this.w.opts.lifecycle && !node.byzantine && o.evidence.kind === 'duplicateVote') {
            this.w.submitTx(node, encodeTx(this.w.genesis.chainId, TxKind.DoubleSignEvidence, { evidence: o.evidence }));
          }
          break;
      }
    }
  }

  /**
   * Starts an incarnation from the storage: the chain reopened (Chain.open), an empty
   * pool, a fresh app and core. A store found corrupted is moved aside and an empty one
   * opened, and the node syncs the chain from its peers before its consensus starts
   * (src/node/store-heal.ts openChainHealing, then bft.ts catchUpAndStart). A boot that
   * cannot write (the genesis of an empty store on a full disk) leaves the node down until
   * the disk takes writes, as the node exits and is restarted until then.
   */
  async boot(node: SimNode): Promise<void> {
    node.incarnation++;
    const storage = node.storage;
    const open = () => storage.openChain(this.w.genesis, this.w.genesisHash, this.w.vrf, this.w.sets);
    let chain: Chain;
    let healed = false;
    try {
      try {
        chain = await open();
      } catch (err) {
        if (!(err instanceof StoreCorruptionError)) throw err;
        storage.moveAside();
        this.w.faults.storeHealed++;
        healed = true;
        this.w.check.traceLine(`node ${node.index}: STORE CORRUPTED: ${err.found}; moved aside, syncs from its peers`);
        chain = await open();
      }
    } catch (err) {
      if (isNoSpace(err)) {
        storage.waitingForSpace = true;
        this.w.check.traceLine(`node ${node.index} cannot start: the disk is full`);
        return;
      }
      this.w.check.violation('state', `node ${node.index} could not reopen its chain at height ${storage.height}: ${(err as Error).message}`);
      return;
    }
    const loaded = storage.privval === null ? null : decodePrivValState(storage.privval);
    const privval = new LocalPrivValidator(
      node.signer,
      async (state) => {
        // The privval file's write, done before the signature leaves (round-tripped through the codec).
        if (storage.full) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${storage.dataDir}/../privval'`), { code: 'ENOSPC' });
        storage.privval = encodePrivValState(state);
      },
      loaded,
    );
    const pool = new TxPool({ ...POOL_LIMITS, maxTxBytes: this.w.genesis.consensus.maxTxBytes }, () => chain.state);
    // Certificates for lagging peers, from the store (the node serves them from its store too).
    const recent: LiveNode['recent'] = [];
    for (let h = Math.max(1, chain.height - CERTIFICATES_KEPT + 1); h <= chain.height; h++) {
      const b = await chain.store.getEncodedBlockAndCommit(h);
      if (b === undefined) throw new Error(`node ${node.index}: block ${h} is not in its store at head ${chain.height}`);
      recent.push({ height: h, bytes: b.block, commit: decodeCommit(b.commit) });
    }
    const live: LiveNode = {
      chain,
      pool,
      privval,
      app: null as unknown as ChainConsensusApp,
      core: null as unknown as ConsensusCore,
      lastCommit: null,
      builds: [],
      roundZeroAtUs: this.w.net.nowUs,
      sync: null,
      deferred: [],
      syncPeers: new SyncPeers(() => this.w.net.nowUs / US),
      aheadClaims: new AheadClaims(() => this.validatorsAt(chain, chain.height + 1)),
      noSyncUntilUs: 0,
      paused: false,
      recent,
    };
    node.live = live;
    storage.waitingForSpace = false;
    this.w.check.traceLine(`boot node ${node.index} at height ${chain.height + 1}${loaded?.lastSigned ? ` (last signed ${loaded.lastSigned.height}/${loaded.lastSigned.round}/${loaded.lastSigned.step})` : ''}`);
    if (healed) await this.#sync.start(node, live, true);
    else await this.startCore(node, live);
  }

  /** A fresh app and core at the chain's next height (at boot, and after a block sync moved the chain: bft.ts newCore). */
  async startCore(node: SimNode, live: LiveNode): Promise<void> {
    const chain = live.chain;
    const builds: LiveNode['builds'] = [];
    // The set of each height from the executed chain, read when asked (bft.ts newCore).
    const validators = (height: number) => this.validatorsAt(chain, height);
    const app = new ChainConsensusApp(() => chain, {
      validators,
      verifier: this.w.verifier,
      vrfKeyOf: chain.vrfKeyOf,
      vrf: this.w.vrf,
      requestBlock: (height, round) => builds.push({ height, round }),
      now: () => clockMs(this.w, node),
    });
    // Certificates for lagging peers (the node serves them from its store).
    for (const c of live.recent) app.committed(c.height, c.bytes, c.commit);
    const core = new ConsensusCore({
      chainId: this.w.genesis.chainId,
      validators,
      privValidator: live.privval,
      verifier: this.w.verifier,
      app,
      timeouts: this.w.timeouts,
      height: chain.height + 1,
    });
    live.app = app;
    live.core = core;
    live.builds = builds;
    live.aheadClaims.reached(chain.height);
    live.lastCommit = live.recent.at(-1)?.commit ?? null;
    live.roundZeroAtUs = this.w.net.nowUs;
    let outputs: ConsensusOutput[];
    try {
      outputs = await core.start();
    } catch (err) {
      this.w.check.violation('exception', `node ${node.index} threw on start: ${(err as Error).stack ?? String(err)}`);
      return;
    }
    this.#outputs(node, outputs);
    await this.#buildRequested(node, live);
  }

  /**
   * A crash: the incarnation's memory is lost; with storage faults, maybe the store's
   * unsynced tail too, and maybe one of its values is corrupted while the node is down.
   */
  crash(node: SimNode): void {
    if (node.live === null) return;
    node.live = null;
    node.incarnation++;
    this.w.faults.crash++;
    const kv = node.storage.kv;
    const rates = this.w.opts.storageFaults;
    let lost = 0;
    if (rates !== undefined && kv.unsyncedBatches > 0 && this.w.storagePrng.chance(rates.lostWrites)) lost = 1 + this.w.storagePrng.int(kv.unsyncedBatches);
    const dropped = kv.crash(lost);
    if (dropped > 0) {
      this.w.faults.crashLostWrites++;
      this.w.faults.batchesLost += dropped;
    }
    if (rates !== undefined && this.w.storagePrng.chance(rates.corruption) && kv.corrupt((n) => this.w.storagePrng.int(n))) this.w.faults.storeCorrupted++;
    this.w.check.traceLine(`crash node ${node.index} at height ${node.storage.height}${dropped > 0 ? ` (${dropped} unsynced batches lost)` : ''}`);
  }

  /**
   * A write refused for lack of space (the block's, or the privval file's): the core is
   * dropped (its timers and pending applies void), nothing more is signed or sent, and
   * the node waits for the disk (bft.ts pauseOn).
   */
  pause(node: SimNode, live: LiveNode, err: unknown): void {
    if (live.paused) return;
    live.paused = true;
    node.incarnation++;
    live.builds.length = 0;
    live.sync = null;
    live.deferred = [];
    this.w.faults.storagePaused++;
    this.w.check.traceLine(`node ${node.index} pauses at height ${live.chain.height}: ${(err as Error).message}`);
  }

  /**
   * The disk takes writes again: a paused node writes the block it kept in memory
   * (Chain.retryUnwritten), then catches up by block sync and starts a core at the head
   * (bft.ts catchUpAndStart); a node that could not boot boots.
   */
  async resume(node: SimNode): Promise<void> {
    if (node.live === null) {
      if (node.storage.waitingForSpace && !node.held) await this.boot(node);
      return;
    }
    const live = node.live;
    if (!live.paused) return;
    let written: Awaited<ReturnType<Chain['retryUnwritten']>>;
    try {
      written = await live.chain.retryUnwritten();
    } catch (err) {
      this.w.check.violation('exception', `node ${node.index} could not write its kept block once the disk took writes: ${(err as Error).message}`);
      return;
    }
    if (written) {
      const h = written.block.header.height;
      node.storage.wrote(h);
      this.committed(node, live, h, encodeBlock(written.block, this.w.genesis.consensus.maxBlockBytes), written.commit, written.result);
    }
    live.paused = false;
    this.w.faults.storageResumed++;
    this.w.check.traceLine(`node ${node.index} resumes at height ${live.chain.height}`);
    await this.#sync.start(node, live, true);
  }

  /**
   * The set that signs `height` as this node knows it: its chain's (Chain.validatorsAt).
   * With `unsafeGenesisSet`, deliberately broken: always the genesis set.
   */
  validatorsAt(chain: Chain, height: number): ValidatorSet {
    return this.w.opts.unsafeGenesisSet ? this.w.genesisSet : chain.validatorsAt(height);
  }

  async restart(node: SimNode): Promise<void> {
    if (node.live !== null || node.held) return;
    this.w.faults.restart++;
    await this.boot(node);
  }

  #onDecide(node: SimNode, d: Extract<ConsensusOutput, { type: 'decide' }>): void {
    const hex = bytesToHex(d.blockHash);
    this.w.check.traceLine(`node ${node.index} decides ${d.height}/${d.round} ${hex.slice(0, 10)}`);
    if (!node.byzantine) {
      this.w.check.holdToDecisions(node, d.height, d.blockHash, 'decided');
      this.w.check.checkCommit(node, d.height, d.blockHash, d.commit);
    }
    this.w.net.push({
      kind: 'apply',
      atUs: this.w.net.nowUs + Math.round(this.w.prng.uniform(0.2, 2) * US),
      node: node.index,
      incarnation: node.incarnation,
      height: d.height,
      hash: d.blockHash,
      block: d.block,
      commit: d.commit,
    });
  }

  /** The decided block applied by the real execution and written to the disk, then `commitDone` (bft.ts applyDecision). */
  async apply(ev: Extract<SimEvent, { kind: 'apply' }>): Promise<void> {
    const node = this.w.nodes[ev.node];
    const live = node.live;
    if (live === null || node.incarnation !== ev.incarnation) return; // crashed before applying, or its core was replaced after a sync
    if (live.sync !== null) {
      live.deferred.push(ev);
      return;
    }
    const v = live.app.take(ev.hash) ?? live.app.validate(ev.block);
    if (v === null || !equalBytes(v.hash, ev.hash)) {
      this.w.check.violation('exception', `node ${node.index}: the block it decided at ${ev.height} does not validate on its chain`);
      return;
    }
    let result: BlockResult;
    try {
      result = await live.chain.commit(v.block, ev.commit, live.pool.signers, v.decoded);
    } catch (err) {
      if (err instanceof StorageUnavailableError) {
        this.pause(node, live, err);
        return;
      }
      this.w.check.violation('state', `node ${node.index} could not apply block ${ev.height}: ${(err as Error).message}`);
      return;
    }
    this.committed(node, live, ev.height, ev.block, ev.commit, result);
    await this.input(node, { type: 'commitDone', height: ev.height });
  }

  /** What follows a block's commit on a node, decided or synced: the app, the pool, and the cross-node checks. */
  committed(node: SimNode, live: LiveNode, height: number, bytes: Uint8Array, commit: Commit, result: BlockResult): void {
    // No app yet on a node syncing its healed store before its first core (boot).
    (live.app as ChainConsensusApp | null)?.committed(height, bytes, commit);
    live.lastCommit = commit;
    live.recent.push({ height, bytes, commit });
    if (live.recent.length > CERTIFICATES_KEPT) live.recent.shift();
    node.storage.wrote(height);
    live.pool.removeCommitted(result.receipts.map((r) => r.txHash));
    this.w.check.committed(node, height, result);
  }

  /** A peer's gossiped transaction: checked once by this node's pool (duplicates and used nonces refused). */
  onGossipTx(node: SimNode, live: LiveNode, bytes: Uint8Array): void {
    try {
      live.pool.addBytes(bytes);
      this.w.txs.gossipAdmitted++;
    } catch (err) {
      if (!(err instanceof TxError)) {
        this.w.check.violation('exception', `node ${node.index}'s pool threw on a gossiped transaction: ${(err as Error).stack ?? String(err)}`);
      }
    }
  }}
