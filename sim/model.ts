/**
 * What a simulated validator is (sim/cluster.ts): SimNode survives its crashes (its key,
 * its storage, its clock's skew); LiveNode is one incarnation's memory (chain, pool,
 * privval, the consensus driver and its mailbox), lost in a crash. Data only: what a node
 * does is sim/node.ts, its block sync sim/sync.ts.
 */
import type { ConsensusDriver } from '../src/consensus/driver';
import type { DriverMsg } from '../src/consensus/driver-io';
import type { LocalPrivValidator } from '../src/consensus/privval';
import type { Signer } from '../src/consensus/signer';
import type { Address } from '../src/util/bytes';
import type { TxPool } from '../actors/mempool/pool';
import type { Chain } from '../src/chain/chain';
import type { SimStorage } from './storage';
import type { SimMailbox, SimWaiter } from './mailbox';

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

/** What a crash loses: everything but the storage. */
export interface LiveNode {
  /** The real chain (src/chain/chain.ts) over the node's store. */
  chain: Chain;
  pool: TxPool;
  /** Kept across core restarts within an incarnation, as the actor keeps it. */
  privval: LocalPrivValidator;
  /** The node's consensus glue, the node's own (src/consensus/driver.ts), over this simulation's clock, network and disk. */
  driver: ConsensusDriver;
  /** What the driver handles, in arrival order (sim/mailbox.ts). */
  mailbox: SimMailbox<DriverMsg>;
  /** Block-sync requests waiting for their answer, by the tag they travel with (sim/sync.ts). */
  syncWaits: Map<number, { peer: number; waiter: SimWaiter<Uint8Array> }>;
}
