/**
 * What a simulated validator does (sim/cluster.ts): the node's own consensus glue, the
 * ConsensusDriver (src/consensus/driver.ts, which the node's consensus actor runs too),
 * over this run's clock, network and disk. This file is the adapters: the driver's clock
 * and timers are events of the queue, its transport the simulated network (block sync:
 * sim/sync.ts), its chain the real Chain over the node's in-memory store (sim/storage.ts)
 * with each height's validator set from its own executed chain (Chain.validatorsAt), its
 * mempool the real TxPool, its storage signals the simulated disk's; the Byzantine
 * validator's extra messages are its harness (sim/byzantine.ts). What the driver handles
 * goes through the node's mailbox (sim/mailbox.ts), one message at a time as in the
 * actor's.
 *
 * A crash loses everything but the storage (and, with storage faults, maybe the store's
 * unsynced tail); a boot reopens the chain with Chain.open. A store found corrupted at
 * open is moved aside and an empty one synced from peers before consensus starts
 * (src/node/store-heal.ts: the driver's start always catches up first); a write refused
 * for lack of space pauses the driver until the disk takes writes, then the block kept in
 * memory is written (Chain.retryUnwritten) and the driver, told `storageBack`, catches up
 * by block sync. Every decision, commit, signed message and evidence is shown to the
 * checker (sim/checks.ts).
 */
import { ConsensusDriver } from '../src/consensus/driver';
import type { DriverIO, DriverMsg } from '../src/consensus/driver-io';
import type { Chain } from '../src/chain/chain';
import type { ValidatedBlock } from '../src/chain/consensus-app';
import type { SyncedBlock } from '../src/chain/sync';
import { blockHash, type Commit } from '../src/codec/block';
import { StoreCorruptionError } from '../src/storage/corruption';
import { isNoSpace, StorageUnavailableError } from '../src/storage/no-space';
import { decodeMessage, encodeMessage, type ConsensusMessage } from '../src/consensus/messages';
import { decodePrivValState, encodePrivValState, LocalPrivValidator } from '../src/consensus/privval';
import type { BlockResult } from '../src/state/apply';
import type { ValidatorSet } from '../src/consensus/validator-set';
import { TxError } from '../src/state/errors';
import { validatorRecord } from '../src/state/validators/records';
import { bytesToHex } from '../src/util/bytes';
import { TxPool } from '../actors/mempool/pool';
import { byzantineHarness } from './byzantine';
import { SimMailbox } from './mailbox';
import type { LiveNode, SimNode } from './model';
import { US, type SimEvent } from './network';
import { BlockSync } from './sync';
import { describeInput, describeOutput } from './trace';
import { clockMs, type SimWorld } from './world';

/** Mempool bounds of a simulated node (the node's defaults). */
const POOL_LIMITS = { maxTxs: 10_000, maxBytes: 64 * 1024 * 1024 };
/** Certificates a node keeps for lagging peers (ChainConsensusApp's default keep, as the actor's). */
const CERTIFICATES_KEPT = 1_024;
/** Evidence records a driver keeps (the node's EVIDENCE_KEPT_MAX). */
const EVIDENCE_KEPT = 1_000;
/** A simulated node logs nothing (its trace is the checker's). */
const SILENT = { warn() {}, info() {}, error() {} };

/** Thrown out of the driver when the checker recorded a violation in an adapter: that message's handling stops. */
const STOP = new Error('stopped by the checker');

export class NodeModel {
  readonly #sync: BlockSync;

  constructor(private readonly w: SimWorld) {
    this.#sync = new BlockSync(w, (node) => (node.byzantine ? byzantineHarness(w, node) : undefined));
  }

  /** A message arrives at node `ev.to` over the network. */
  async deliver(ev: Extract<SimEvent, { kind: 'deliver' }>): Promise<void> {
    const node = this.w.nodes[ev.to];
    const live = node.live;
    if (live === null) {
      this.w.faults.lostToCrash++;
      return;
    }
    this.w.tally.messagesDelivered++;
    if (ev.channel === 'tx') {
      this.onGossipTx(node, live, ev.bytes);
      return;
    }
    if (ev.channel === 'syncRequest') return this.#sync.serve(node, ev.from, ev.bytes, ev.tag);
    if (ev.channel === 'syncResponse') return this.#sync.onAnswer(live, ev.from, ev.bytes, ev.tag);
    let message: ConsensusMessage;
    try {
      message = decodeMessage(ev.bytes);
    } catch (err) {
      this.w.check.violation('exception', `node ${ev.to} could not decode a message from ${ev.from}: ${(err as Error).message}`);
      return;
    }
    const from = this.w.nodes[ev.from].address;
    // As the p2p actor does: a genesis validator takes consensus messages point to point,
    // from validators only (a full node's bundle is dropped unread), and subscribes to no
    // consensus gossip; so a follower cannot ask it for certificates (issue 39).
    if (!node.joiner && validatorRecord(live.chain.state, from) === undefined) {
      this.w.tally.fromNonValidators++;
      return;
    }
    live.mailbox.post({ type: 'message', message, from });
  }

  /**
   * Starts an incarnation from the storage: the chain reopened (Chain.open), an empty
   * pool, a fresh driver that catches up from its peers and starts its core at the head.
   * A store found corrupted is moved aside and an empty one opened (src/node/store-heal.ts
   * openChainHealing). A boot that cannot write (the genesis of an empty store on a full
   * disk) leaves the node down until the disk takes writes, as the node exits and is
   * restarted until then.
   */
  async boot(node: SimNode): Promise<void> {
    node.incarnation++;
    const storage = node.storage;
    const open = () => storage.openChain(this.w.genesis, this.w.genesisHash, this.w.vrf, this.w.sets);
    let chain: Chain;
    try {
      try {
        chain = await open();
      } catch (err) {
        if (!(err instanceof StoreCorruptionError)) throw err;
        storage.moveAside();
        this.w.faults.storeHealed++;
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
    const live = { chain, pool, privval, syncWaits: new Map() } as Omit<LiveNode, 'driver' | 'mailbox'> as LiveNode;
    live.mailbox = new SimMailbox<DriverMsg>((msg) => this.#handle(node, live, msg));
    live.driver = new ConsensusDriver(this.#io(node, live), {
      chainId: this.w.genesis.chainId,
      blockTimeMs: this.w.genesis.consensus.blockTimeMs,
      timeouts: this.w.timeouts,
      maxBlockTxs: this.w.genesis.consensus.maxBlockTxs,
      maxBlockBytes: this.w.genesis.consensus.maxBlockBytes,
      verifier: this.w.verifier,
      vrf: this.w.vrf,
      privval,
      vrfKey: node.vrfSecret,
      signingRefused: null,
      evidenceKept: EVIDENCE_KEPT,
      certificatesKept: CERTIFICATES_KEPT,
      certificatesLoadedAtStart: CERTIFICATES_KEPT,
      unsafe: { syncTrigger: this.w.opts.unsafeSyncTrigger, syncUnchecked: this.w.opts.unsafeSync },
    });
    node.live = live;
    storage.waitingForSpace = false;
    this.w.check.traceLine(`boot node ${node.index} at height ${chain.height + 1}${loaded?.lastSigned ? ` (last signed ${loaded.lastSigned.height}/${loaded.lastSigned.round}/${loaded.lastSigned.step})` : ''}`);
    await live.driver.start();
  }

  /** One message through the driver; what it throws is a violation (but a stop the checker asked for). */
  async #handle(node: SimNode, live: LiveNode, msg: DriverMsg): Promise<void> {
    if (node.live !== live) return;
    try {
      await live.driver.handle(msg);
    } catch (err) {
      if (err === STOP || node.live !== live) return;
      this.w.check.violation('exception', `node ${node.index} threw on ${msg.type}: ${(err as Error).stack ?? String(err)}`);
    }
  }

  /** The driver's I/O on this node (see the top of this file). */
  #io(node: SimNode, live: LiveNode): DriverIO {
    const w = this.w;
    const traced = w.opts.traceNodes?.includes(node.index) ?? false;
    const current = () => node.live === live;
    const at = (delayMs: number, fn: () => void) => w.net.at(w.net.nowUs + Math.round(delayMs * US), () => (current() ? fn() : undefined));
    return {
      clock: {
        now: () => w.net.nowMs,
        wallMs: () => clockMs(w, node),
        setTimer(delayMs, fn) {
          let cancelled = false;
          at(delayMs, () => (cancelled ? undefined : fn()));
          return () => {
            cancelled = true;
          };
        },
        sleep(ms) {
          const waiter = live.mailbox.wait<void>();
          at(ms, () => waiter.wake());
          return waiter.promise;
        },
      },
      transport: {
        broadcast: (m) => w.net.broadcast(node.index, 'consensus', encodeMessage(m)),
        send(to, m) {
          const i = w.byAddress.get(to);
          if (i !== undefined && i !== node.index) w.net.send(node.index, i, 'consensus', encodeMessage(m));
        },
        // The run has no evidence gossip: each node's checker sees its own (the output hook below).
        publishEvidence() {},
        sync: (fromHeight, exclude, first) => this.#sync.sync(node, live, fromHeight, exclude, first),
        peerCount: () => this.#sync.connected(node).length,
        bootstrapCount: () => 0,
        peerHeads: () => this.#sync.peerHeads(node),
      },
      chain: {
        view: () => live.chain,
        validatorsAt: (height) => this.validatorsAt(live.chain, height),
        commitDecided: (v, commit) => this.#commitDecided(node, live, v, commit),
        commitSynced: (b) => this.#commitSynced(node, live, b),
      },
      mempool: {
        batch: async (maxTxs, maxBytes) => live.pool.peekBatch(maxTxs, maxBytes),
        // As the node does (decision 72), in the lifecycle scenario: its evidence tombstones the
        // offender there. The other scenarios keep their Byzantine validator for the whole run.
        submitEvidence: (tx) => {
          if (w.opts.lifecycle && !node.byzantine) w.submitTx(node, tx);
        },
      },
      storage: {
        canWrite: () => !node.storage.full,
        privvalFull: () => true,
      },
      log: SILENT,
      self: (msg) => {
        if (!current()) return false;
        live.mailbox.post(msg);
        return true;
      },
      halted: () => false,
      harness: node.byzantine ? byzantineHarness(w, node) : undefined,
      observer: {
        input(input) {
          if (!traced) return;
          const i = live.driver.info();
          w.check.traceLine(`node ${node.index} @${i.height}/${i.round}/${i.step} <- ${describeInput(input)}`);
        },
        output(o) {
          if (traced) w.check.traceLine(`node ${node.index} -> ${describeOutput(o)}`);
          if (o.type === 'broadcast' || o.type === 'send') w.check.observeSigned(node, o.message);
          else if (o.type === 'evidence') w.check.onEvidence(node, o.evidence);
        },
        aheadIgnored: () => w.sync.aheadIgnored++,
        syncStarted(shown, trigger) {
          const height = live.driver.height ?? live.chain.height + 1;
          if (trigger === 'quorum') w.check.checkBehind(node, height, shown);
          else {
            w.sync.peerSyncs++;
            w.check.checkPeerClaim(node, height, Number(trigger.peer), shown);
          }
        },
        syncRefused(peer, why) {
          w.sync.refused++;
          if (!w.nodes[Number(peer)].byzantine) w.check.violation('exception', `node ${node.index} refused a sync answer from honest node ${peer}: ${why}`);
          w.check.traceLine(`node ${node.index} refuses sync answer of ${peer}: ${why}`);
        },
        synced: (height) => w.check.traceLine(`node ${node.index} synced to ${height}`),
        proposalUntimely() {
          w.tally.proposalsUntimely++;
          if (traced) w.check.traceLine(`node ${node.index} drops an untimely proposal`);
        },
        paused(err) {
          w.faults.storagePaused++;
          w.check.traceLine(`node ${node.index} pauses at height ${live.chain.height}: ${(err as Error).message}`);
        },
        resumed() {
          w.faults.storageResumed++;
          w.check.traceLine(`node ${node.index} resumes at height ${live.chain.height}`);
        },
      },
    };
  }

  /**
   * A decided block: held to the other nodes' decisions, then applied by the real execution
   * and written to the disk after an apply's time (0.2–2 ms), as the chain actor does
   * before it acknowledges (the driver's `commitDone` follows).
   */
  async #commitDecided(node: SimNode, live: LiveNode, v: ValidatedBlock, commit: Commit): Promise<void> {
    const w = this.w;
    const height = v.block.header.height;
    w.check.traceLine(`node ${node.index} decides ${height}/${commit.round} ${bytesToHex(v.hash).slice(0, 10)}`);
    if (!node.byzantine) {
      w.check.holdToDecisions(node, height, v.hash, 'decided');
      w.check.checkCommit(node, height, v.hash, commit);
    }
    const waiter = live.mailbox.wait<void>();
    w.net.at(w.net.nowUs + Math.round(w.prng.uniform(0.2, 2) * US), () => (node.live === live ? waiter.wake() : undefined));
    await waiter.promise;
    let result: BlockResult;
    try {
      result = await live.chain.commit(v.block, commit, live.pool.signers, v.decoded);
    } catch (err) {
      if (err instanceof StorageUnavailableError) throw err; // the driver pauses
      w.check.violation('state', `node ${node.index} could not apply block ${height}: ${(err as Error).message}`);
      throw STOP;
    }
    this.committed(node, live, height, result);
  }

  /** A block from sync, proven by its commit: held to the decisions, applied as the chain actor applies it. */
  async #commitSynced(node: SimNode, live: LiveNode, b: SyncedBlock): Promise<void> {
    const w = this.w;
    const height = b.block.header.height;
    if (!node.byzantine && !w.check.holdToDecisions(node, height, blockHash(b.block.header), 'synced')) throw STOP;
    let result: BlockResult;
    try {
      result = await live.chain.commit(b.block, b.commit, live.pool.signers);
    } catch (err) {
      if (err instanceof StorageUnavailableError) throw err; // the driver pauses
      w.check.violation('state', `node ${node.index} could not apply synced block ${height}: ${(err as Error).message}`);
      throw STOP;
    }
    w.sync.blocksApplied++;
    this.committed(node, live, height, result);
  }

  /** What follows a block's commit on a node, decided or synced: the disk, the pool, and the cross-node checks. */
  committed(node: SimNode, live: LiveNode, height: number, result: BlockResult): void {
    node.storage.wrote(height);
    live.pool.removeCommitted(result.receipts.map((r) => r.txHash));
    this.w.check.committed(node, height, result);
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
   * The disk takes writes again: a paused node writes the block it kept in memory
   * (Chain.retryUnwritten, the chain actor's retry), and its driver, told so, catches up
   * by block sync and starts a core at the head; a node that could not boot boots.
   */
  async resume(node: SimNode): Promise<void> {
    if (node.live === null) {
      if (node.storage.waitingForSpace && !node.held) await this.boot(node);
      return;
    }
    const live = node.live;
    let written: Awaited<ReturnType<Chain['retryUnwritten']>>;
    try {
      written = await live.chain.retryUnwritten();
    } catch (err) {
      this.w.check.violation('exception', `node ${node.index} could not write its kept block once the disk took writes: ${(err as Error).message}`);
      return;
    }
    if (written) this.committed(node, live, written.block.header.height, written.result);
    live.mailbox.post({ type: 'storageBack' });
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
  }
}
