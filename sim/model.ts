/**
 * What a simulated validator is (sim/cluster.ts): SimNode survives its crashes (its key,
 * its storage, its clock's skew); LiveNode is one incarnation's memory (chain, pool,
 * privval, consensus app and core, the block sync under way), lost in a crash. Data
 * only: what a node does is sim/node.ts, its block sync sim/sync.ts.
 */
import type { ChainConsensusApp } from '../src/chain/consensus-app';
import type { AheadClaims, SyncPeers } from '../src/chain/sync';
import type { Commit } from '../src/codec/block';
import type { ConsensusCore } from '../src/consensus/core';
import type { LocalPrivValidator } from '../src/consensus/privval';
import type { Signer } from '../src/consensus/signer';
import type { Address } from '../src/util/bytes';
import type { TxPool } from '../actors/mempool/pool';
import type { Chain } from '../src/chain/chain';
import type { SimStorage } from './storage';
import type { SimEvent } from './network';

export interface SimNode {
  index: number;
  signer: Signer;
  /** The secp256k1 private key behind its address: signs its validator transactions (Unbond, Unjail, RegisterValidator). */
  txKey: Uint8Array;
  /** Its VRF secret key and public key (the public one in its validator record). */
  vrfSecret: Uint8Array;
  vrfPubkey: Uint8Array;
  address: Address;
  byzantine: boolean;
  /** Not a genesis validator: an observer until it registers and an epoch boundary seats it (lifecycle scenario). */
  joiner: boolean;
  /** Kept down by the lifecycle scenario (its downtime must jail it): not restarted by a fault's end or the heal. */
  held: boolean;
  /** Survives crashes: the chain store (what a crash left of it) and the privval file. */
  storage: SimStorage;
  /** The running incarnation's memory; null while the node is down. */
  live: LiveNode | null;
  incarnation: number;
  /** Constant offset of this node's clock. */
  clockSkewMs: number;
}

/** A committed height's block (as decided, encoded) and commit: served to lagging peers. */
export interface Certificate {
  height: number;
  bytes: Uint8Array;
  commit: Commit;
}

/** What a crash loses: everything but the storage. */
export interface LiveNode {
  /** The real chain (src/chain/chain.ts) over the node's store. */
  chain: Chain;
  pool: TxPool;
  /** Kept across core restarts within an incarnation, as the actor keeps it. */
  privval: LocalPrivValidator;
  app: ChainConsensusApp;
  core: ConsensusCore;
  /** The commit of the head block: the next block's lastCommit. */
  lastCommit: Commit | null;
  /** Blocks the app asked this node to build (proposeBlock → requestBlock), delivered as blockReady. */
  builds: { height: number; round: number }[];
  /** When round 0 of the current height started (pacing, as the node's consensus actor does). */
  roundZeroAtUs: number;
  /** The block sync under way, if any (the actor is busy in syncToHead meanwhile). */
  sync: SyncSession | null;
  /** Events for this node that arrived while it synced: handled once it is done, as its mailbox would. */
  deferred: SimEvent[];
  /** Peers block sync passes over for a while: liars and silent ones (the actor's SyncPeers, on the simulated clock). */
  syncPeers: SyncPeers;
  /** Heights validators showed far ahead of this node (the actor's AheadClaims). */
  aheadClaims: AheadClaims;
  /** Until when messages start no sync (the last one found nothing to apply). */
  noSyncUntilUs: number;
  /** The disk is full: consensus dropped, nothing signed, until the disk takes writes (bft.ts pauseOn). */
  paused: boolean;
  /** The certificates of the last heights committed (read from the store at boot), newest last. */
  recent: Certificate[];
}

export interface SyncSession {
  /** Peers to ask for the current height, in order, and how many were asked. */
  order: number[];
  next: number;
  /** The peer asked last, and a token that tells its answer or timeout from stale ones. */
  peer: number;
  token: number;
  /** Blocks were applied in this catch-up (the core restarts at the new height). */
  moved: boolean;
}
