/**
 * One node, wired in a fixed order and stopped in reverse (Lodestar's habit):
 * store+executor (chain) → mempool → consensus → api. Every concern is a supervised
 * actor with a bounded mailbox; they talk only through mailboxes. Each actor is handed a
 * typed bundle of exactly what it uses (ChainDeps, MempoolDeps, ConsensusDeps, …, declared
 * beside each behaviour): the mailboxes it sends to, the node's config values it reads,
 * the logger, the metrics and storage guard it reports to, and narrow getters for what
 * exists only once another actor runs (the open chain, the index, the p2p transport);
 * never the node itself. Every capacity is a named limit (actors/limits.ts), and their
 * relations are checked before anything is built: a node whose limits do not fit
 * together does not start.
 */
import { SupervisedActor } from '../../actors/actor';
import { apiBehavior } from '../../actors/api/api-actor';
import type { ApiMsg } from '../../actors/api/messages';
import { chainBehavior, type ChainHolder } from '../../actors/chain/chain-actor';
import type { ChainMsg } from '../../actors/chain/messages';
import { hasSoloMajority, soloProducerBehavior } from '../../actors/consensus/solo';
import { bftBehavior } from '../../actors/consensus/bft';
import type { ConsensusInfo, ConsensusMsg, ProducerMsg } from '../../actors/consensus/messages';
import { mempoolBehavior } from '../../actors/mempool/mempool-actor';
import type { MempoolMsg } from '../../actors/mempool/messages';
import type { TxPool } from '../../actors/mempool/pool';
import { indexerBehavior, type IndexerHolder } from '../../actors/indexer/indexer-actor';
import type { IndexerMsg } from '../../actors/indexer/messages';
import { Supervisor } from '../../actors/supervisor';
import { oracleBehavior } from '../../actors/oracle/oracle-actor';
import type { OracleMsg } from '../../actors/oracle/messages';
import { newFeedStats, type FeedStats } from '../oracle/feeds/reader';
import { bridgeBehavior, newBridgeStats } from '../../actors/bridge/bridge-actor';
import { checkBridgeDeployment } from '../../actors/bridge/deployment';
import type { BridgeMsg, BridgeStats } from '../../actors/bridge/messages';
import { p2pBehavior, type P2PHolder } from '../../actors/p2p/p2p-actor';
import type { P2PInfo, P2PMsg, P2PPeer } from '../../actors/p2p/messages';
import { consensusInbox } from '../../actors/consensus/inbox';
import {
  ACTOR_BACKOFF_INITIAL_MS,
  ACTOR_BACKOFF_MAX_MS,
  ACTOR_RESTART_WINDOW_MS,
  ACTOR_RESTARTS_MAX,
  API_MAILBOX_MSGS,
  BRIDGE_MAILBOX_MSGS,
  CHAIN_MAILBOX_MSGS,
  checkNodeLimits,
  INDEXER_MAILBOX_MSGS,
  MEMPOOL_MAILBOX_MSGS,
  ORACLE_MAILBOX_MSGS,
  P2P_MAILBOX_MSGS,
  SOLO_PRODUCER_MAILBOX_MSGS,
} from '../../actors/limits';
import type { Chain } from '../chain/chain';
import { isStoreCorruption, rootMessage, StoreCorruptionError } from '../storage/corruption';
import { corruptionLine, healAction, openChainHealing, setAsideLogged } from './store-heal';
import { resumeSetAside, roomLine, storeFolderEmpty } from '../storage/set-aside';
import { upgradeOf, upgradeStopAt } from '../state/governance/upgrade';
import { NODE_VERSION } from '../util/version';
import { bytesToHex } from '../util/bytes';
import { join } from 'node:path';
import type { Logger } from '../util/log';
import type { NodeConfig } from '../config/node-config';
import { NodeMetrics } from '../metrics/node-metrics';
import { AuditLog } from '../audit/transitions';
import { NO_SIGNATURES, type SignatureCounts } from '../state/signer-cache';
import { StorageGuard } from '../storage/storage-guard';
import { SnapshotStore } from '../storage/snapshot-store';
import { discardFolder, stateSyncJoin } from './state-sync-join';
import { freshPeerKey } from '../net/libp2p';
import { Libp2pStateSyncNet } from './state-sync-net';
import { ChainStore } from '../storage/db';
import { existsSync } from 'node:fs';
import { PrivValFile } from '../storage/privval-file';

/** How a node stopped: `halted` (why, after a broken invariant), `upgrade` (the message naming the version to install). */
export interface NodeStopped {
  halted: string | undefined;
  upgrade?: string | undefined;
}

/** The node's mailboxes, for its own wiring and for tests that drive an actor directly. */
export interface NodeActors {
  chain: SupervisedActor<ChainMsg>;
  indexer: SupervisedActor<IndexerMsg>;
  mempool: SupervisedActor<MempoolMsg>;
  api: SupervisedActor<ApiMsg>;
  /** Present on a node of a multi-validator network. */
  p2p?: SupervisedActor<P2PMsg>;
  /** BFT consensus, on every node of a multi-validator network (it signs where its key is in the set). */
  consensus?: SupervisedActor<ConsensusMsg>;
}

export class Node {
  readonly supervisor: Supervisor;
  readonly actors: NodeActors;
  private readonly holder: ChainHolder = {};
  private readonly pool: { pool?: TxPool } = {};
  readonly indexerHolder: IndexerHolder = {};
  private readonly p2pHolder: P2PHolder = {};
  private readonly consensusHolder: { current?: () => ConsensusInfo } = {};
  private bridge: BridgeStats | undefined;
  /** The oracle's price sources (decision 168), on a validator given some: /metrics shows them. */
  private feeds: FeedStats | undefined;
  private haltReason: string | undefined;
  private upgradeMessage: string | undefined;
  private stopping: Promise<void> | undefined;
  /** A node with peers to sync from heals a corrupted store from them (src/node/store-heal.ts). */
  readonly healsFromPeers: boolean;
  /** The corruption the node halted for, if any: its store is moved aside once closed. */
  private corruption: StoreCorruptionError | undefined;
  /** Resolves when the node has stopped (by stop(), by halting, or for a software upgrade). */
  readonly stopped: Promise<NodeStopped>;
  private resolveStopped!: (v: NodeStopped) => void;
  apiAddress: string | undefined;
  readonly metrics: NodeMetrics;
  /** Recent transitions of the machines' instances this process saw (docs/audit.md). */
  readonly audit = new AuditLog();
  /** Which writers found the disk full, and the probe that retries them (decision 121). */
  readonly storage: StorageGuard;
  /** State snapshots (decision 136): opened by start(), before the actors. */
  snapshots: SnapshotStore | undefined;

  constructor(readonly config: NodeConfig, readonly log: Logger) {
    // A relation between limits that does not hold stops the node here, naming both.
    checkNodeLimits(config);
    // A deployment file of another bridge stops the node here, naming both (decision 84).
    if (config.bridge) checkBridgeDeployment(config.genesis, config.bridge);
    this.stopped = new Promise((r) => (this.resolveStopped = r));
    this.supervisor = new Supervisor({ log });
    this.storage = new StorageGuard({ dataDir: config.dataDir, log, probeMs: config.storageProbeMs });
    const giveUp = (name: string) => (err: unknown) => this.halt(`actor ${name} kept failing`, err);
    const supervision = (name: string) => ({
      log,
      backoff: { initialMs: ACTOR_BACKOFF_INITIAL_MS, maxMs: ACTOR_BACKOFF_MAX_MS },
      maxRestarts: { count: ACTOR_RESTARTS_MAX, windowMs: ACTOR_RESTART_WINDOW_MS },
      onGiveUp: giveUp(name),
    });
    const opts = (name: string, capacity: number) => ({ capacity, ...supervision(name) });
    // Each actor's bundle is built when it starts (each incarnation), after every mailbox
    // below exists: the bundles name mailboxes of actors made after their own.
    const chainRead = () => this.chain();
    const halt = (reason: string, err?: unknown) => this.halt(reason, err);
    const upgradeRequired = () => this.upgradeMessage;
    const chain: SupervisedActor<ChainMsg> = new SupervisedActor<ChainMsg>(
      'chain',
      () =>
        chainBehavior({
          config,
          log,
          holder: this.holder,
          version: this.version,
          indexer: () => this.indexer(),
          snapshots: () => this.snapshots,
          metrics: this.metrics,
          audit: this.audit,
          storage: this.storage,
          halt,
          requireUpgrade: (message) => this.requireUpgrade(message),
          actors: { indexer, mempool, api, chain },
        }),
      opts('chain', CHAIN_MAILBOX_MSGS),
    );
    const indexDir = join(config.dataDir, 'index');
    const indexer: SupervisedActor<IndexerMsg> = new SupervisedActor<IndexerMsg>(
      'indexer',
      () =>
        indexerBehavior({
          dir: indexDir,
          store: () => this.chain().store,
          log,
          holder: this.indexerHolder,
          identity: bytesToHex(config.genesisHash),
          noSpace: (err) => this.storage.fault('index', indexDir, err, () => indexer.ask<void>((reply) => ({ type: 'reopen', reply }))),
          retention: config.indexRetention,
        }),
      opts('indexer', INDEXER_MAILBOX_MSGS),
    );
    const mempool = new SupervisedActor<MempoolMsg>(
      'mempool',
      () => mempoolBehavior({ config, state: () => this.chain().state, holder: this.pool, actors: { p2p: this.actors.p2p } }),
      opts('mempool', MEMPOOL_MAILBOX_MSGS),
    );
    const api = new SupervisedActor<ApiMsg>(
      'api',
      () =>
        apiBehavior(
          {
            config,
            log,
            version: this.version,
            chain: chainRead,
            indexer: () => this.indexer(),
            actors: { mempool },
            metrics: this.metrics,
            audit: this.audit,
            storage: this.storage,
            consensusInfo: () => this.consensusInfo(),
            p2pInfo: () => this.p2pInfo(),
            p2pPeers: () => this.p2pPeers(),
            p2pTable: () => this.p2pHolder.table?.view(Date.now()),
            bridgeStats: () => this.bridgeStats(),
            actorStats: () => this.actorStats(),
            signatureStats: () => this.signatureStats(),
          },
          (a) => (this.apiAddress = a),
        ),
      opts('api', API_MAILBOX_MSGS),
    );
    this.actors = { chain, indexer, mempool, api };
    this.supervisor.add(chain);
    this.supervisor.add(indexer);
    this.supervisor.add(mempool);
    const soloMajority = hasSoloMajority(config);
    this.healsFromPeers = config.p2p !== undefined && config.p2p.bootstrap.length > 0 && !soloMajority;
    if (config.p2p && !soloMajority) {
      // A multi-validator network: gossip, sync and BFT consensus.
      const p2p: SupervisedActor<P2PMsg> = new SupervisedActor<P2PMsg>(
        'p2p',
        () => p2pBehavior({ config, log, chain: chainRead, snapshots: () => this.snapshots, actors: { consensus: this.actors.consensus, mempool } }, this.p2pHolder, () => p2p),
        opts('p2p', P2P_MAILBOX_MSGS),
      );
      this.actors.p2p = p2p;
      this.supervisor.add(p2p);
      // Every node runs consensus: it signs at the heights whose set holds its key (if it
      // has one) and follows the chain at every other.
      const consensus: SupervisedActor<ConsensusMsg> = new SupervisedActor<ConsensusMsg>(
        'consensus',
        () =>
          bftBehavior(
            {
              config,
              log,
              chain: chainRead,
              upgradeRequired,
              peerCount: () => this.p2pHolder.transport?.peers().length ?? 0,
              peerHeads: () => this.p2pHolder.heights?.all() ?? [],
              storage: this.storage,
              actors: { p2p, mempool, chain },
            },
            () => consensus,
            this.consensusHolder,
          ),
        // One bounded lane per message kind; the actor's own timeouts in a lane that never refuses.
        { inbox: consensusInbox, ...supervision('consensus') },
      );
      this.actors.consensus = consensus;
      this.supervisor.add(consensus);
    } else if (soloMajority) {
      const producer: SupervisedActor<ProducerMsg> = new SupervisedActor<ProducerMsg>(
        'consensus',
        () => soloProducerBehavior({ config, chain: chainRead, upgradeRequired, storage: this.storage, actors: { mempool, chain }, self: () => producer }),
        opts('consensus', SOLO_PRODUCER_MAILBOX_MSGS),
      );
      this.supervisor.add(producer);
    } else {
      log.warn('this node holds no 2/3 majority alone: it follows the chain without producing blocks');
    }
    if (config.validatorKey) {
      // Signs this validator's price observation every second while it is in the active set (docs/oracle.md).
      if (config.priceSources) this.feeds = newFeedStats();
      const oracle: SupervisedActor<OracleMsg> = new SupervisedActor<OracleMsg>(
        'oracle',
        () => oracleBehavior({ config, state: () => this.chain().state, actors: { mempool } }, () => oracle, { feedStats: this.feeds }),
        opts('oracle', ORACLE_MAILBOX_MSGS),
      );
      this.supervisor.add(oracle);
    }
    if (config.validatorKey && config.bridge) {
      // Watches the bridge's events and relays withdrawals while the key is in the active set (docs/bridge.md).
      const stats = (this.bridge = newBridgeStats(config.bridge));
      const bridge: SupervisedActor<BridgeMsg> = new SupervisedActor<BridgeMsg>(
        'bridge',
        () => bridgeBehavior({ config, chain: chainRead, halt, actors: { mempool } }, () => bridge, stats, config.bridgeTiming),
        opts('bridge', BRIDGE_MAILBOX_MSGS),
      );
      this.supervisor.add(bridge);
    }
    this.supervisor.add(api);
    // Every actor's lifecycle step goes to the audit log, with the event that caused it.
    for (const name of this.supervisor.names) {
      const actor = this.supervisor.get(name);
      if (actor instanceof SupervisedActor) actor.onStatus((status, event, from) => this.audit.actorStep(name, from, status, event, Date.now()));
    }
    this.metrics = new NodeMetrics(
      {
        height: () => this.holder.current?.height,
        mempool: () => (this.pool.pool ? { txs: this.pool.pool.size, bytes: this.pool.pool.sizeBytes } : undefined),
        peers: () => this.p2pHolder.transport?.peers().length ?? 0,
        actors: () => this.supervisor.stats(),
        sync: () => {
          const height = this.holder.current?.height;
          if (height === undefined) return undefined;
          const consensus = this.consensusInfo();
          return { syncing: consensus?.syncing ?? false, target: Math.max(height, consensus?.syncTarget ?? 0) };
        },
        bridge: () => this.bridge,
        feeds: () => this.feeds,
        ...(config.genesis.bridge ? { bridgeAlerts: () => this.holder.current?.state.bridgeAlerts.size } : {}),
      },
      { version: this.version, chainId: config.genesis.chainId, network: config.genesis.network },
    );
  }

  chain(): Chain {
    if (!this.holder.current) throw new Error('chain is not open');
    return this.holder.current;
  }

  indexer() {
    return this.indexerHolder.current;
  }

  p2pInfo(): P2PInfo | undefined {
    const t = this.p2pHolder.transport;
    return t ? { peerId: t.id, peers: t.peers(), listen: t.listenAddresses(), stats: t.stats() } : undefined;
  }

  async p2pPeers(): Promise<P2PPeer[] | undefined> {
    const t = this.p2pHolder.transport;
    const heights = this.p2pHolder.heights;
    if (!t || !heights) return undefined;
    return Promise.all(
      t.peers().sort().map(async (peerId) => {
        const h = heights.get(peerId);
        return { peerId, listen: await t.peerListenAddresses(peerId), height: h?.height ?? null, heightAtMs: h?.atMs ?? null };
      }),
    );
  }

  bridgeStats(): BridgeStats | undefined {
    return this.bridge;
  }

  consensusInfo(): ConsensusInfo | undefined {
    return this.consensusHolder.current?.();
  }

  actorStats(): Record<string, unknown> {
    return this.supervisor.stats();
  }

  signatureStats(): SignatureCounts {
    return this.pool.pool?.signers.stats() ?? NO_SIGNATURES;
  }

  get halted(): string | undefined {
    return this.haltReason;
  }

  get version(): string {
    return this.config.version ?? NODE_VERSION;
  }

  get upgradeRequired(): string | undefined {
    return this.upgradeMessage;
  }

  /** Stops the node for a software upgrade (decision 77): it takes part in no height from now on. */
  requireUpgrade(message: string): void {
    if (this.upgradeMessage) return;
    this.upgradeMessage = message;
    this.log.fatal({ version: this.version }, message);
    void this.stop();
  }

  async start(): Promise<void> {
    const { config, log } = this;
    log.info({ genesisHash: bytesToHex(config.genesisHash), chainId: config.genesis.chainId, network: config.genesis.network }, 'genesis');
    const chainDir = join(config.dataDir, 'chain');
    // One peer identity for the process: the state-sync transport and the p2p actor's.
    if (config.p2p !== undefined && config.p2p.peerKey === undefined && config.validatorKey === undefined) config.p2p = { ...config.p2p, peerKey: await freshPeerKey() };
    // A move of a damaged store aside that a crash interrupted is finished before anything reads the folder (decision 166).
    const resumed = resumeSetAside(chainDir);
    if (resumed) {
      log.warn({ folder: chainDir, movedTo: resumed.to, bytes: resumed.bytes }, `the damaged chain store's move aside, interrupted by a crash, is finished: ${resumed.dropped ? 'dropped, its file list kept in' : 'kept in'} ${resumed.to}`);
      const room = roomLine(resumed);
      if (room) log.warn({ folder: chainDir }, room);
    }
    await this.fillByStateSync(chainDir, resumed !== undefined);
    this.holder.current = await openChainHealing(
      { dataDir: chainDir, genesis: config.genesis, genesisHash: config.genesisHash, syncWrites: config.syncWrites, onCorruption: this.onStoreCorruption },
      this.healsFromPeers,
      log,
      () => this.fillByStateSync(chainDir, true),
    );
    const chain = this.holder.current;
    log.info({ height: chain.height, stateRoot: bytesToHex(chain.stateRoot), dataDir: config.dataDir, version: this.version }, 'chain opened');
    // A node of an older version than a scheduled upgrade reached: it starts nothing.
    const upgrade = upgradeStopAt(upgradeOf(chain.state), this.version, chain.height + 1);
    if (upgrade) {
      this.upgradeMessage = upgrade;
      log.fatal({ version: this.version }, upgrade);
      await chain.close().catch((err) => log.error({ err }, 'closing the store failed'));
      this.holder.current = undefined;
      this.stopping = Promise.resolve();
      this.resolveStopped({ halted: undefined, upgrade });
      return;
    }
    this.snapshots = await SnapshotStore.open({
      dir: join(config.dataDir, 'snapshots'),
      intervalBlocks: config.snapshots?.intervalBlocks ?? config.genesis.storage?.snapshotIntervalBlocks,
      keep: config.snapshots?.keep ?? config.genesis.storage?.snapshotKeep,
      log,
    });
    await this.supervisor.startAll();
  }

  /**
   * An empty chain store joins by state sync (decision 140) before the chain opens: a node
   * with peers, unless `--no-state-sync`; `healing`: the store was just moved aside as
   * corrupt. The folder is filled and closed; Chain.open then opens it as any other.
   */
  private async fillByStateSync(dir: string, healing: boolean): Promise<void> {
    const { config, log } = this;
    const ss = config.stateSync;
    if (ss?.off) return;
    if (!this.healsFromPeers || !config.p2p) {
      if (ss?.forced) throw new Error('--state-sync needs peers to sync from (--bootstrap) on a network this node alone cannot finalize');
      return;
    }
    if (!storeFolderEmpty(dir)) {
      if (ss?.forced && !healing) throw new Error(`--state-sync fills an empty store: ${dir} holds one (move it aside to join afresh, or start without --state-sync)`);
      return;
    }
    const net = await Libp2pStateSyncNet.start(config, log.child({ concern: 'state-sync' }));
    try {
      const restored = await stateSyncJoin({
        genesis: config.genesis,
        genesisHash: config.genesisHash,
        net,
        log: log.child({ concern: 'state-sync' }),
        forced: ss?.forced ?? false,
        healing,
        trust: ss?.trust,
        expectedPeers: config.p2p.bootstrap.length,
        onProgress: ss?.onProgress,
        openTarget: async () => {
          const store = new ChainStore(dir, config.syncWrites);
          await store.open();
          return store;
        },
        discardTarget: async () => discardFolder(dir),
      });
      // A new data folder's node creates its double-sign protection files, as one that
      // starts at height 0 does (decision 125): the restored store has blocks, and files
      // missing beside blocks would read as lost. Not on a heal: that node may have signed.
      if (restored !== null && !healing && config.validatorKey !== undefined) {
        const privval = join(config.dataDir, 'privval');
        if (!existsSync(join(privval, 'a')) && !existsSync(join(privval, 'b'))) (await PrivValFile.open(privval)).close();
      }
    } catch (err) {
      // Not asked for: the folder it filled is removed, and the node syncs blocks from genesis instead.
      if (ss?.forced) throw err;
      log.warn({ err: (err as Error).message }, 'state sync failed; the node syncs blocks from genesis instead (start with --state-sync to insist, or --no-state-sync to skip it)');
    } finally {
      await net.stop();
    }
  }

  /** A read of the running store found corruption (a peer's sync, the API): stop and heal at the next start. */
  readonly onStoreCorruption = (err: unknown): void => this.halt('the chain store is corrupted', err);

  /** Stops the node because continuing would be unsafe. */
  halt(reason: string, err?: unknown): void {
    if (this.haltReason) return;
    this.haltReason = reason;
    if (isStoreCorruption(err)) {
      // One line the operator can act on; the store is moved aside once closed (stop()).
      const c = err instanceof StoreCorruptionError ? err : new StoreCorruptionError(join(this.config.dataDir, 'chain'), rootMessage(err), { cause: err });
      this.corruption = c;
      this.log.fatal({ folder: c.folder, found: c.found, err }, corruptionLine(c, healAction(this.healsFromPeers, 'running')));
    } else this.log.fatal({ err, reason }, 'HALTING: the node stops instead of continuing in an unsafe state');
    void this.stop();
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.storage.stop();
      await this.supervisor.stopAll();
      // A snapshot being written reads the store: it ends before the store closes.
      await this.snapshots?.close();
      await this.holder.current?.close().catch((err) => this.log.error({ err }, 'closing the store failed'));
      this.holder.current = undefined;
      if (this.corruption && this.healsFromPeers) {
        try {
          const aside = setAsideLogged(join(this.config.dataDir, 'chain'), this.corruption, this.log);
          this.log.info({ folder: this.corruption.folder, movedTo: aside.to }, `corrupted chain store ${aside.dropped ? 'set aside and dropped' : 'moved aside'}: the next start syncs the chain from peers`);
        } catch (err) {
          const words = err instanceof Error ? err.message : String(err);
          this.log.error({ folder: this.corruption.folder }, `${words}; until then the next start detects the corruption again`);
        }
      }
      this.log.info({ halted: this.haltReason, upgrade: this.upgradeMessage }, 'node stopped');
      this.resolveStopped({ halted: this.haltReason, upgrade: this.upgradeMessage });
    })();
    return this.stopping;
  }
}
