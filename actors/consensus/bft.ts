/**
 * The consensus concern on every node of a multi-validator network: a thin shell around
 * the consensus driver (src/consensus/driver.ts, which holds the glue: pacing, decide →
 * commit, sync to head, the pause on a full disk, evidence), run from one mailbox. It
 * builds the driver's I/O from the node: its timers (setTimeout, delivered through the
 * inbox's timeout lane), the p2p actor (messages out, block sync, the peers' probed
 * heads), the chain actor (decided and synced blocks, acknowledged once on disk), the
 * mempool (batches, evidence), the storage guard (writable, faults, back), and the
 * privval files. The simulator runs the same driver over its simulated clock, network
 * and disk (sim/node.ts).
 *
 * What the validator signs goes through the LocalPrivValidator, which writes its state
 * to the privval files (src/storage/privval-file.ts, on disk before the write returns)
 * before the signature is released, so after any restart it cannot sign a conflicting
 * vote. Lost or damaged files are never rebuilt: the node follows without signing until
 * the operator resets them (decision 125).
 *
 * Messages come through an inbox with one bounded lane per kind (./inbox.ts): a flood of
 * votes cannot push out proposals, and the actor's own timeouts have a lane that is
 * served first and never refuses.
 *
 * The devnet's fault switches reach the driver as its ByzantineHarness (config.byzantine,
 * src/cli/devnet-faults.ts); a real node has none.
 */
import { join } from 'node:path';
import { logBlockRefusal } from '../../src/chain/consensus-app';
import { ConsensusDriver } from '../../src/consensus/driver';
import type { DriverIO } from '../../src/consensus/driver-io';
import { encodeEvidence } from '../../src/consensus/evidence';
import { encodeMessage } from '../../src/consensus/messages';
import { timeoutConfig } from '../../src/consensus/params';
import { decodePrivValState, encodePrivValState, LocalPrivValidator } from '../../src/consensus/privval';
import { knownKeyVerifier, Secp256k1Signer } from '../../src/consensus/signer';
import { openPrivValState, privvalMissing, PRIVVAL_RESET_HINT, PrivValFileError, type PrivValFile } from '../../src/storage/privval-file';
import { CodecError } from '../../src/codec/binary';
import { Topic } from '../../src/net/transport';
import type { NodeConfig } from '../../src/config/node-config';
import type { Chain } from '../../src/chain/chain';
import type { SyncAttempt } from '../../src/chain/sync';
import { SYNC_BUDGET_MS } from '../../src/chain/sync';
import type { StorageGuard } from '../../src/storage/storage-guard';
import type { Logger } from '../../src/util/log';
import type { BlockResult, VerifiedCache } from '../../src/state/apply';
import { validatorRecord } from '../../src/state/validators/records';
import type { ActorBehavior, ActorRef } from '../actor';
import type { ChainMsg } from '../chain/messages';
import type { P2PMsg } from '../p2p/messages';
import { storesMovedAside } from '../../src/storage/corruption';
import type { LaneStats } from '../inbox';
import { EVIDENCE_KEPT_MAX } from '../limits';
import type { Batch, MempoolMsg } from '../mempool/messages';
import type { SignerCache } from '../../src/state/signer-cache';
import { sentKey } from '../p2p/sent-ledger';
import { proposalRefusalLog } from './refusal-log';
import type { ConsensusInfo, ConsensusMsg } from './messages';

/** Certificates a node keeps for lagging peers (ChainConsensusApp's default keep). */
const CERTIFICATES_KEPT = 1_024;
/** Certificates a (re)started node reads back from its store for peers a few heights behind (more than SYNC_GAP; farther, they block-sync or catch up from the store). */
const CERTIFICATES_LOADED_AT_START = 16;

/** What the behaviour needs of its own actor: to send itself its timeouts, and its lanes' counters for /status. */
export interface ConsensusSelf {
  send(m: ConsensusMsg): boolean;
  lanes(): Record<string, LaneStats> | undefined;
}

/** What BFT consensus uses of the node (built by src/node/node.ts). */
export interface ConsensusDeps {
  /** Its keys, the block time, genesis, where its privval files live, its bootstrap peers, the devnet's fault harness, its clock. */
  config: Pick<NodeConfig, 'validatorKey' | 'vrfKey' | 'blockTimeMs' | 'genesis' | 'dataDir' | 'p2p' | 'byzantine' | 'clock'>;
  log: Logger;
  /** The executed chain, read-only (the chain actor's; open before the actors start). */
  chain: () => Chain;
  /** Set once a scheduled upgrade names a newer version (decision 77): nothing more leaves it. */
  upgradeRequired: () => string | undefined;
  /** Connected peers now (the p2p actor's transport; 0 before it started): a starting node waits for them. */
  peerCount: () => number;
  /** Connected peers' heads as last probed (the p2p actor's peer-height probes; none before it started): a peer far ahead is synced from. */
  peerHeads?: () => readonly { peer: string; height: number }[];
  /** Whether the chain and privval folders take writes, and their faults (decision 121); absent in tests without one. */
  storage?: Pick<StorageGuard, 'writable' | 'fault' | 'onChange'>;
  /** The p2p actor (its messages out, block sync), the mempool (batches, evidence), the chain actor (decided blocks). */
  actors: { p2p?: ActorRef<P2PMsg>; mempool: ActorRef<MempoolMsg>; chain: ActorRef<ChainMsg> };
}

export function bftBehavior(deps: ConsensusDeps, self: () => ConsensusSelf, info: { current?: () => ConsensusInfo }): ActorBehavior<ConsensusMsg> {
  let driver: ConsensusDriver | undefined;
  let privvalFile: PrivValFile | undefined;
  let unsubscribeStorage: (() => void) | undefined;
  /** The running instance's signal (ActorContext): aborted when it is being stopped, so a wait or a block sync under way ends at its next step. */
  let signal: AbortSignal | undefined;
  let verified: VerifiedCache = new Map();
  const { config, log } = deps;
  const { genesis } = config;

  const p2p = () => {
    const a = deps.actors.p2p;
    if (!a) throw new Error('the consensus actor needs the p2p actor');
    return a;
  };
  const clock = config.clock ?? Date.now;

  /** The node's side of the driver's interfaces. */
  const io: Omit<DriverIO, 'harness'> = {
    clock: {
      now: () => performance.now(),
      wallMs: clock,
      setTimer(delayMs, fn) {
        const handle = setTimeout(fn, delayMs);
        return () => clearTimeout(handle);
      },
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    },
    transport: {
      broadcast(message) {
        const data = encodeMessage(message);
        p2p().send({ type: 'consensus', topic: message.kind === 'proposal' ? Topic.Proposals : Topic.Votes, data, key: sentKey(message, data) });
      },
      send(to, message) {
        // A status to one peer (asking it for help) always goes: its answer depends on where that peer is now.
        const data = encodeMessage(message);
        p2p().send({ type: 'direct', to, data, key: message.kind === 'status' ? undefined : sentKey(message, data) });
      },
      publishEvidence: (e) => p2p().send({ type: 'publish', topic: Topic.Evidence, data: encodeEvidence(e) }),
      // Published on the votes topic only when a peer subscribes (decision 185).
      decided: (certificate) => p2p().send({ type: 'certificate', certificate }),
      // The p2p actor gives up asking after SYNC_BUDGET_MS; this wait is only a backstop.
      sync: (fromHeight, exclude, only) => p2p().ask<SyncAttempt>((reply) => ({ type: 'sync', fromHeight, exclude, only, reply }), SYNC_BUDGET_MS + 5_000),
      peerCount: deps.peerCount,
      bootstrapCount: () => config.p2p?.bootstrap.length ?? 0,
      peerHeads: () => deps.peerHeads?.() ?? [],
    },
    chain: {
      view: deps.chain,
      validatorsAt: (height) => deps.chain().validatorsAt(height),
      async commitDecided(v, commit) {
        await deps.actors.chain.ask<BlockResult>((reply) => ({ type: 'commit', block: v.block, commit, verified, decoded: v.decoded, ackAtApply: true, reply }));
      },
      async commitSynced(b) {
        await deps.actors.chain.ask<BlockResult>((reply) => ({ type: 'commit', block: b.block, commit: b.commit, reply }), 60_000);
      },
    },
    mempool: {
      batch: (maxTxs, maxBytes) => deps.actors.mempool.ask<Batch>((reply) => ({ type: 'batch', maxTxs, maxBytes, reply })),
      submitEvidence(tx) {
        deps.actors.mempool.send({ type: 'submit', tx, reply: { resolve() {}, reject: (err) => log.info({ err: String(err) }, 'evidence refused by the mempool') } });
      },
    },
    storage: deps.storage && {
      canWrite: () => deps.storage!.writable('chain') && deps.storage!.writable('privval'),
      // The privval files: nothing to write again (the signature never left); the probe waits for space.
      privvalFull: (err) => deps.storage!.fault('privval', join(config.dataDir, 'privval'), err, async () => {}),
    },
    log,
    self: (msg) => self().send(msg),
    stopping: () => signal?.aborted === true,
    halted: () => deps.upgradeRequired() !== undefined,
  };

  // Read on demand (GET /status), not rebuilt after every message.
  info.current = () => {
    const d = driver?.info();
    const chain = deps.chain();
    return {
      ...(d ?? { height: chain.height + 1, round: 0, step: 'Syncing', syncing: true, blocksSynced: 0, syncPeersRefused: 0, syncPeersUnanswered: 0, syncsStarted: 0, messagesAheadIgnored: 0, peerSyncsStarted: 0, syncTarget: chain.height, syncBlocksPerSecond: 0, syncStartHeight: 0, evidence: [], counters: {}, proposalsUntimely: 0, signingRefused: null }),
      lanes: self().lanes() ?? {},
    };
  };

  /** The node's privval, from its files; lost or damaged, none (the node follows without signing) and why. */
  const openPrivval = async (): Promise<{ privval: LocalPrivValidator | null; refused: string | null }> => {
    const key = config.validatorKey;
    privvalFile?.close();
    privvalFile = undefined;
    if (!key) return { privval: null, refused: null };
    // A key signs only at heights whose set holds it; its privval state is kept all the same.
    const dir = join(config.dataDir, 'privval');
    let refused = privvalMissing(dir, deps.chain().height, storesMovedAside(join(config.dataDir, 'chain')));
    let privval: LocalPrivValidator | null = null;
    if (refused === null) {
      try {
        const { file, saved } = await openPrivValState(dir, deps.chain().store);
        privvalFile = file;
        privval = new LocalPrivValidator(new Secp256k1Signer(key), (state) => file.write(encodePrivValState(state)), saved ? decodePrivValState(saved) : null);
      } catch (err) {
        if (!(err instanceof PrivValFileError) && !(err instanceof CodecError)) throw err;
        refused = `the double-sign protection files in ${dir} are damaged (${err.message})`;
      }
    }
    if (refused !== null) log.error({ privval: dir }, `SIGNING REFUSED: ${refused}; this node follows the chain but signs nothing. ${PRIVVAL_RESET_HINT}`);
    return { privval, refused };
  };

  return {
    async start(ctx) {
      signal = ctx.signal;
      unsubscribeStorage?.();
      // Wake a paused consensus when the disk takes writes again (peers' messages would too, later).
      unsubscribeStorage = deps.storage?.onChange((full) => {
        if (!full) self().send({ type: 'storageBack' });
      });
      // A key proposes where its set holds it, and each block it proposes carries its VRF proof.
      if (config.validatorKey && !config.vrfKey) throw new Error('the consensus actor needs a VRF key (it proves the seed of each block it proposes)');
      const { privval, refused } = await openPrivval();
      verified = await deps.actors.mempool.ask<SignerCache>((reply) => ({ type: 'verifiedCache', reply }));
      const d = new ConsensusDriver(
        { ...io, harness: config.byzantine },
        {
          chainId: genesis.chainId,
          blockTimeMs: config.blockTimeMs,
          timeouts: timeoutConfig(genesis.consensus),
          maxBlockTxs: genesis.consensus.maxBlockTxs,
          maxBlockBytes: genesis.consensus.maxBlockBytes,
          // Keys of every validator with a record (genesis and registered): unknown signers fall back to recovery.
          verifier: knownKeyVerifier((address) => validatorRecord(deps.chain().state, address)?.ecdsaPubkey),
          privval,
          vrfKey: config.vrfKey,
          signingRefused: refused,
          evidenceKept: EVIDENCE_KEPT_MAX,
          certificatesKept: CERTIFICATES_KEPT,
          certificatesLoadedAtStart: CERTIFICATES_LOADED_AT_START,
          onProposalRefused: proposalRefusalLog(log),
          onBlockRefused: (r) => logBlockRefusal(log, r),
        },
      );
      driver = d;
      await d.start();
    },
    async handle(msg) {
      // A stop lets the current message finish; a wait or a sync under way ends at its next step.
      if (signal?.aborted) return;
      await driver?.handle(msg);
    },
    stop() {
      unsubscribeStorage?.();
      unsubscribeStorage = undefined;
      privvalFile?.close();
      privvalFile = undefined;
      driver?.stop();
    },
  };
}
