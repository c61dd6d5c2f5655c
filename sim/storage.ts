/**
 * A simulated node's storage (issue 26 deliver 6, decision 126): its chain store, an
 * in-memory key-value store (src/storage/memory-kv.ts) under the real chain store and
 * the real Chain (src/chain/chain.ts), and its privval file, kept apart as the node keeps
 * it (decision 125: never lost, never corrupted, never rebuilt).
 *
 * The disk's faults (SimOptions.storageFaults, drawn from the run's storage stream,
 * sim/faults.ts): a crash may lose the unsynced tail of the store (the nodes run the
 * chain without fsync, as `--no-fsync` does, so a crash can lose the last blocks written);
 * a store may get a value corrupted while its node is down (the next open finds it by the
 * value's checksum, the node moves the store aside, kept here, starts from an empty one and
 * syncs from its peers, sim/node.ts boot); the disk may be full for a while (every write
 * fails: the node pauses, signs nothing, and resumes when the fault clears).
 */
import { Chain } from '../src/chain/chain';
import { Bucket, KvChainStore, readU64, u64Key } from '../src/storage/chain-store';
import { MemoryKv } from '../src/storage/memory-kv';
import { utf8 } from '../src/util/bytes';
import type { SetsOf } from './chain';
import type { Genesis } from '../src/genesis/types';
import type { VrfScheme } from '../src/consensus/proposer-vrf';

/** The nodes write each block's batch without fsync (a crash may lose the tail; the privval file is always synced). */
const SYNC_WRITES = false;
/** Batches a crash can lose at most (the OS has written older ones back). */
const UNSYNCED_KEPT = 4;

const HEAD_KEY = Uint8Array.of(Bucket.Meta, ...utf8.encode('head'));

export class SimStorage {
  /** The chain store in use. */
  kv: MemoryKv;
  /** Stores moved aside after a corruption was found in them (kept, never deleted). */
  readonly aside: MemoryKv[] = [];
  /** The privval file (encodePrivValState): written before each signature leaves. */
  privval: Uint8Array | null = null;
  /** The disk is full: every write fails (the store's and the privval file's). */
  #full = false;
  /** The highest head this node's store ever held (a crash may lose the tail of it). */
  highest = 0;
  /** A boot failed for lack of space: the node is started again when the disk takes writes. */
  waitingForSpace = false;

  constructor(readonly dataDir: string) {
    this.kv = new MemoryKv(dataDir, UNSYNCED_KEPT);
  }

  get full(): boolean {
    return this.#full;
  }

  set full(full: boolean) {
    this.#full = full;
    this.kv.full = full;
  }

  /** The real Chain over this node's store (Chain.open: the genesis written, or the store loaded and checked). */
  async openChain(genesis: Genesis, genesisHash: Uint8Array, vrf: VrfScheme, sets: SetsOf): Promise<Chain> {
    const chain = await Chain.open({ dataDir: this.dataDir, genesis, genesisHash, store: new KvChainStore(this.dataDir, this.kv, SYNC_WRITES), vrf, sets });
    this.highest = Math.max(this.highest, chain.height);
    return chain;
  }

  /** A block was written: the highest head moves. */
  wrote(height: number): void {
    if (height > this.highest) this.highest = height;
  }

  /** The store found corrupted moves aside (kept); an empty one takes its place, on the same disk. */
  moveAside(): void {
    this.aside.push(this.kv);
    this.kv = new MemoryKv(this.dataDir, UNSYNCED_KEPT);
    this.kv.full = this.#full;
  }

  /** Corruptions injected into this node's stores, and found by a read. */
  get corruptions(): { injected: number; detected: number } {
    let injected = 0;
    let detected = 0;
    for (const kv of [...this.aside, this.kv]) {
      injected += kv.corruptionsInjected;
      detected += kv.corruptionsDetected;
    }
    return { injected, detected };
  }

  /**
   * The store's head height, read as the checker sees it (0 for an empty store, and for
   * one whose head record does not read: it holds nothing trusted until healed).
   */
  get height(): number {
    const v = this.#peek(HEAD_KEY);
    return v === undefined ? 0 : readU64(v);
  }

  /** The state root stored for the head. */
  get stateRoot(): Uint8Array {
    return this.#peek(Uint8Array.of(Bucket.StateRoot, ...u64Key(this.height))) ?? new Uint8Array(32);
  }

  /** The height a block hash is stored at (the hash index), if any. */
  heightOf(hash: Uint8Array): number | undefined {
    const v = this.#peek(Uint8Array.of(Bucket.BlockHash, ...hash));
    return v === undefined ? undefined : readU64(v);
  }

  #peek(key: Uint8Array): Uint8Array | undefined {
    try {
      return this.kv.peek(key);
    } catch {
      return undefined;
    }
  }
}
