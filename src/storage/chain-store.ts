/**
 * The chain store over a key-value store (src/storage/kv.ts): LevelDB on a node
 * (src/storage/db.ts ChainStore), memory in the simulator (src/storage/memory-kv.ts).
 * Every key starts with one byte from Bucket; a retired number is never reused. Each
 * committed block, its commit, receipts, block events, tx index entries, state changes
 * and the new head are written in ONE atomic batch, so a crash leaves either the whole
 * block or none of it. The bytes written are the same whichever store is under it.
 * Pruning (decision 132): pruneBelow deletes whole heights below a new base, a bounded
 * batch at a time, each batch moving meta 'base' with its deletions (a crash leaves the
 * base naming the lowest height still whole). What it deletes of height h: the block, its
 * hash index, its commit, receipts, block events and tx index entries, and the state root
 * of h − 1 (the roots kept are those from base − 1 on, the one block `base` builds on,
 * and the genesis root). State records and any other bucket are never touched.
 * Imports no I/O module (node:v8 is the serializer of receipts).
 */
import v8 from 'node:v8';
import type { KvStore, Op } from './kv';
import { blockHash, decodeBlock, decodeCommit, encodeBlock, encodeCommit, type Block, type Commit } from '../codec/block';
import type { ChainEvent, Receipt } from '../state/context';
import type { StateChange } from '../state/state';
import { decodeLightAnchor, encodeLightAnchor, type LightAnchor } from '../chain/light';
import { hexToBytes, utf8 } from '../util/bytes';

export enum Bucket {
  /**
   * utf8 name -> value. 'head' -> u64 height; 'genesis' -> 32-byte genesis hash;
   * 'headSigners' -> the validator set that signed the head block (src/chain/validator-sets.ts);
   * 'base' -> u64 lowest height whose block is kept (absent: 1; pruneBelow moves it, decision 132)
   */
  Meta = 0,
  /** height u64 -> encoded Block */
  Block = 1,
  /** block hash -> height u64 */
  BlockHash = 2,
  /** height u64 -> encoded Commit that finalized the block */
  Commit = 3,
  /** height u64 -> receipts of the block (encodeReceipts: shaped V8 serialization; older folders V8 or JSON) */
  Receipts = 4,
  /** tx hash -> height u64 ‖ index u32 */
  TxIndex = 5,
  /** state key (table id ‖ key) -> record encoding */
  State = 6,
  /** height u64 -> state root after the block */
  StateRoot = 7,
  /** 'last' -> the last vote this validator signed (never sign a conflicting one) */
  SignedVote = 8,
  /**
   * height u64 -> the events of the block's own steps (BlockResult.blockEvents: scheduled
   * cancels, TWAP slices, perp steps, downtime, bridge), in the receipts' encoding as one
   * receipt `{events}`. Written only for a block that has some: absent = none (and every
   * block of a folder written before this bucket existed reads as none).
   */
  BlockEvents = 9,
  /**
   * height u64 -> encoded LightAnchor (src/chain/light.ts): written with block h when the
   * set signing h differs from the set signing h − 1 (decision 128). NEVER pruned: a new
   * node's light client walks them from its trusted height to a snapshot (pruning, which
   * drops old blocks, must leave this bucket whole).
   */
  LightAnchor = 10,
}

export function u64Key(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

export function readU64(b: Uint8Array, offset = 0): number {
  return Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(offset));
}

function key(bucket: Bucket, k: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(k.length + 1);
  out[0] = bucket;
  out.set(k, 1);
  return out;
}

export interface CommittedBlock {
  block: Block;
  commit: Commit;
  receipts: Receipt[];
  changes: StateChange[];
  stateRoot: Uint8Array;
  blockHash: Uint8Array;
  /** The events of the block's own steps, in execution order (BlockResult.blockEvents); none when absent or empty. */
  blockEvents?: ChainEvent[];
  /** The validator set that signs this block's height, encoded: kept beside the head (the next block's lastCommit is checked against it). */
  signers?: Uint8Array;
  /** The light anchor of this height, when its set differs from the height before's (decision 128). */
  anchor?: LightAnchor;
}

/** The state as it was when the view was taken (KvStore.snapshot): what a state snapshot is written from. */
export interface StateView {
  /** Every state record (storage key without the bucket byte, value), in key order, at most `maxRecords` at a time (one read of the store per batch). */
  recordBatches(maxRecords: number): AsyncIterable<Array<[Uint8Array, Uint8Array]>>;
  /** The state root stored for `height`. */
  stateRoot(height: number): Promise<Uint8Array | undefined>;
  close(): Promise<void>;
}

/** Heights one pruning batch deletes at most: a batch stays small (tens of keys per height) however far the base moves. */
export const PRUNE_BATCH_HEIGHTS = 64;

/** Buckets keyed by height, whose pruned keys form one range to compact. */
const HEIGHT_BUCKETS = [Bucket.Block, Bucket.Commit, Bucket.Receipts, Bucket.StateRoot, Bucket.BlockEvents] as const;
/** Buckets keyed by a hash, whose pruned keys are spread over the whole bucket. */
const HASH_BUCKETS = [Bucket.BlockHash, Bucket.TxIndex] as const;

export interface TxLocation {
  height: number;
  index: number;
}

export class KvChainStore {
  constructor(
    readonly path: string,
    readonly db: KvStore,
    private readonly syncWrites = true,
  ) {}

  /** Opens the database; a failure says why in words (another process holds it, corruption, permissions) and keeps the store's error as its cause. */
  async open(opts: { createIfMissing?: boolean } = {}): Promise<void> {
    await this.db.open({ createIfMissing: opts.createIfMissing ?? true });
  }

  /** What is wrong with the store's own files before it is opened (LevelDB's log and MANIFEST, src/storage/corruption.ts), or null. */
  filesDamaged(): string | null {
    return this.db.filesDamaged();
  }

  async close(): Promise<void> {
    await this.db.close();
  }

  /**
   * Closes and opens the database again: after a write failed for lack of space LevelDB
   * may refuse every later write (its background error) until reopened. Reads made
   * meanwhile wait for the open (abstract-level defers them).
   */
  async reopen(): Promise<void> {
    await this.db.close();
    await this.open();
  }

  /**
   * Told when a read of the running store (a block for a peer's sync, a transaction for
   * the API) fails: the chain passes on a corruption, for which the node halts and heals
   * at its next start (decision 124), as for a write. Set once the store is opened and
   * checked, so a corruption found while opening stays the open's error.
   */
  onReadError: ((err: unknown) => void) | undefined;

  private async get(bucket: Bucket, k: Uint8Array): Promise<Uint8Array | undefined> {
    try {
      return await this.db.get(key(bucket, k));
    } catch (err) {
      this.onReadError?.(err);
      throw err;
    }
  }

  async headHeight(): Promise<number | undefined> {
    const v = await this.get(Bucket.Meta, utf8.encode('head'));
    return v ? readU64(v) : undefined;
  }

  /** The encoded validator set that signed the head block (absent in folders written before it was kept). */
  async headSigners(): Promise<Uint8Array | undefined> {
    return this.get(Bucket.Meta, utf8.encode('headSigners'));
  }

  /** The lowest height whose block (and commit, receipts, events, tx index) is kept: 1 unless pruned or restored from a snapshot. */
  async base(): Promise<number> {
    const v = await this.get(Bucket.Meta, utf8.encode('base'));
    return v ? readU64(v) : 1;
  }

  /** Sets the base alone (a store restored from a snapshot at H holds no block below H + 1). */
  async putBase(height: number): Promise<void> {
    await this.db.put(key(Bucket.Meta, utf8.encode('base')), u64Key(height), { sync: true });
  }

  /**
   * Deletes every height from the base up to `newBase` (exclusive), at most `batchHeights`
   * heights per atomic batch, each batch moving the base past what it deleted. Never
   * deletes the head (newBase is capped at it). Returns the new base and the heights deleted.
   * The caller (src/chain/prune.ts) decides how far is safe.
   */
  async pruneBelow(newBase: number, opts: { batchHeights?: number; maxHeights?: number } = {}): Promise<{ base: number; pruned: number }> {
    const head = (await this.headHeight()) ?? 0;
    const target = Math.min(newBase, head);
    const step = Math.max(1, opts.batchHeights ?? PRUNE_BATCH_HEIGHTS);
    let base = await this.base();
    let pruned = 0;
    const budget = opts.maxHeights ?? Number.POSITIVE_INFINITY;
    while (base < target && pruned < budget) {
      const end = Math.min(target, base + step, base + (budget - pruned));
      const ops: Op[] = [];
      for (let h = base; h < end; h++) await this.pushHeightDeletes(ops, h);
      ops.push({ type: 'put', key: key(Bucket.Meta, utf8.encode('base')), value: u64Key(end) });
      await this.db.write(ops, { sync: false });
      pruned += end - base;
      base = end;
    }
    return { base, pruned };
  }

  private async pushHeightDeletes(ops: Op[], h: number): Promise<void> {
    const hk = u64Key(h);
    const block = await this.get(Bucket.Block, hk);
    if (block) ops.push({ type: 'del', key: key(Bucket.BlockHash, blockHash(decodeBlock(block).header)) });
    const receipts = await this.get(Bucket.Receipts, hk);
    if (receipts) for (const r of decodeReceipts(receipts)) ops.push({ type: 'del', key: key(Bucket.TxIndex, hexToBytes(r.txHash)) });
    for (const b of [Bucket.Block, Bucket.Commit, Bucket.Receipts, Bucket.BlockEvents]) ops.push({ type: 'del', key: key(b, hk) });
    if (h >= 2) ops.push({ type: 'del', key: key(Bucket.StateRoot, u64Key(h - 1)) });
  }

  /**
   * Compacts what pruning deleted from `fromHeight` to `toHeight` (exclusive), so LevelDB
   * gives the bytes back: the height-keyed ranges, and the hash-keyed buckets whole (a
   * pruned block's hash and its transactions' hashes lie anywhere in theirs).
   */
  async compactPruned(fromHeight: number, toHeight: number): Promise<void> {
    for (const b of HEIGHT_BUCKETS) await this.db.compactRange({ gte: key(b, u64Key(Math.max(0, fromHeight - 1))), lt: key(b, u64Key(toHeight)) });
    for (const b of HASH_BUCKETS) await this.db.compactRange({ gte: Uint8Array.of(b), lt: Uint8Array.of(b + 1) });
  }

  async genesisHash(): Promise<Uint8Array | undefined> {
    return this.get(Bucket.Meta, utf8.encode('genesis'));
  }

  /** Writes the genesis state (height 0) in one batch. */
  async writeGenesis(genesisHash: Uint8Array, changes: StateChange[], stateRoot: Uint8Array): Promise<void> {
    const ops: Op[] = [
      { type: 'put', key: key(Bucket.Meta, utf8.encode('genesis')), value: genesisHash },
      { type: 'put', key: key(Bucket.Meta, utf8.encode('head')), value: u64Key(0) },
      { type: 'put', key: key(Bucket.StateRoot, u64Key(0)), value: stateRoot },
    ];
    pushChanges(ops, changes);
    await this.db.write(ops, { sync: true });
  }

  /** The one atomic write per block. */
  async commitBlock(c: CommittedBlock): Promise<void> {
    const h = c.block.header.height;
    const hk = u64Key(h);
    const ops: Op[] = [
      { type: 'put', key: key(Bucket.Block, hk), value: encodeBlock(c.block) },
      { type: 'put', key: key(Bucket.BlockHash, c.blockHash), value: hk },
      { type: 'put', key: key(Bucket.Commit, hk), value: encodeCommit(c.commit) },
      { type: 'put', key: key(Bucket.Receipts, hk), value: encodeReceipts(c.receipts) },
      { type: 'put', key: key(Bucket.StateRoot, hk), value: c.stateRoot },
      { type: 'put', key: key(Bucket.Meta, utf8.encode('head')), value: hk },
    ];
    if (c.blockEvents !== undefined && c.blockEvents.length > 0) ops.push({ type: 'put', key: key(Bucket.BlockEvents, hk), value: encodeBlockEvents(c.blockEvents) });
    if (c.signers) ops.push({ type: 'put', key: key(Bucket.Meta, utf8.encode('headSigners')), value: c.signers });
    if (c.anchor) ops.push({ type: 'put', key: key(Bucket.LightAnchor, hk), value: encodeLightAnchor(c.anchor) });
    for (const r of c.receipts) {
      const loc = Buffer.allocUnsafe(12);
      loc.set(hk, 0);
      loc.writeUInt32BE(r.index, 8);
      ops.push({ type: 'put', key: key(Bucket.TxIndex, hexToBytes(r.txHash)), value: loc });
    }
    pushChanges(ops, c.changes);
    await this.db.write(ops, { sync: this.syncWrites });
  }

  /**
   * Reads every key once without filling the block cache, counting them by bucket (the
   * first byte): LevelDB checks each table block it reads, so a damaged block throws
   * here (LEVEL_CORRUPTION) rather than later, in the middle of a commit or a compaction.
   */
  async countKeys(): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    for await (const k of this.db.keys()) counts.set(k[0], (counts.get(k[0]) ?? 0) + 1);
    return counts;
  }

  async *stateRecords(): AsyncGenerator<[Uint8Array, Uint8Array]> {
    const it = this.db.entries({ gte: Uint8Array.of(Bucket.State), lt: Uint8Array.of(Bucket.State + 1) });
    for await (const [k, v] of it) yield [k.subarray(1), v];
  }

  /** The store as it is now (taken synchronously: right after block h's batch, the state at h; later blocks do not show in it). */
  stateView(): StateView {
    const snap = this.db.snapshot();
    const stateRange = { gte: Uint8Array.of(Bucket.State), lt: Uint8Array.of(Bucket.State + 1) };
    return {
      recordBatches: async function* (maxRecords) {
        for await (const batch of snap.entryBatches(stateRange, maxRecords)) {
          for (const e of batch) e[0] = e[0].subarray(1);
          yield batch;
        }
      },
      stateRoot: (height) => snap.get(key(Bucket.StateRoot, u64Key(height))),
      close: () => snap.close(),
    };
  }

  /** Restore (state sync): state records of a verified snapshot chunk, in one batch. */
  async putStateRecords(records: readonly (readonly [Uint8Array, Uint8Array])[]): Promise<void> {
    const ops: Op[] = records.map(([k, v]) => ({ type: 'put', key: key(Bucket.State, k), value: v }));
    await this.db.write(ops, { sync: this.syncWrites });
  }

  /** Restore (state sync): the state root of the snapshot's height. */
  async putStateRoot(height: number, root: Uint8Array): Promise<void> {
    await this.db.put(key(Bucket.StateRoot, u64Key(height)), root, { sync: true });
  }

  async getBlock(height: number): Promise<Block | undefined> {
    const v = await this.get(Bucket.Block, u64Key(height));
    return v ? decodeBlock(v) : undefined;
  }

  /** A committed block and its commit as stored (encoded), for peers that sync from us. */
  async getEncodedBlockAndCommit(height: number): Promise<{ block: Uint8Array; commit: Uint8Array } | undefined> {
    const k = u64Key(height);
    const [block, commit] = await Promise.all([this.get(Bucket.Block, k), this.get(Bucket.Commit, k)]);
    return block && commit ? { block, commit } : undefined;
  }

  async getHeightByHash(hash: Uint8Array): Promise<number | undefined> {
    const v = await this.get(Bucket.BlockHash, hash);
    return v ? readU64(v) : undefined;
  }

  async getCommit(height: number): Promise<Commit | undefined> {
    const v = await this.get(Bucket.Commit, u64Key(height));
    return v ? decodeCommit(v) : undefined;
  }

  async getReceipts(height: number): Promise<Receipt[] | undefined> {
    const v = await this.get(Bucket.Receipts, u64Key(height));
    return v ? decodeReceipts(v) : undefined;
  }

  /** The events of the block's own steps at `height`, in execution order: [] when it had none (or the folder predates them). */
  async getBlockEvents(height: number): Promise<ChainEvent[]> {
    const v = await this.get(Bucket.BlockEvents, u64Key(height));
    return v ? decodeBlockEvents(v) : [];
  }

  async getStateRoot(height: number): Promise<Uint8Array | undefined> {
    return this.get(Bucket.StateRoot, u64Key(height));
  }

  async getTxLocation(txHash: string): Promise<TxLocation | undefined> {
    const v = await this.get(Bucket.TxIndex, hexToBytes(txHash));
    if (!v) return undefined;
    return { height: readU64(v), index: new DataView(v.buffer, v.byteOffset).getUint32(8) };
  }

  /** The light anchors at heights in (fromExclusive, toInclusive], ascending (decision 128). */
  async lightAnchors(fromExclusive: number, toInclusive: number): Promise<LightAnchor[]> {
    const out: LightAnchor[] = [];
    if (toInclusive <= fromExclusive) return out;
    const it = this.db.entries({ gte: key(Bucket.LightAnchor, u64Key(fromExclusive + 1)), lt: key(Bucket.LightAnchor, u64Key(toInclusive + 1)) });
    try {
      for await (const [, v] of it) out.push(decodeLightAnchor(v));
    } catch (err) {
      this.onReadError?.(err);
      throw err;
    }
    return out;
  }

  /** Writes light anchors as given (a store restored from a snapshot keeps those of its proof). */
  async putLightAnchors(anchors: readonly LightAnchor[]): Promise<void> {
    if (anchors.length === 0) return;
    const ops: Op[] = anchors.map((a) => ({ type: 'put', key: key(Bucket.LightAnchor, u64Key(a.header.height)), value: encodeLightAnchor(a) }));
    await this.db.write(ops, { sync: this.syncWrites });
  }

  /**
   * The privval state as data folders before decision 58 kept it (it now lives in its own
   * files, src/storage/privval-file.ts): read once to carry it over, then deleted.
   */
  async getLegacyPrivValState(): Promise<Uint8Array | undefined> {
    return this.get(Bucket.SignedVote, utf8.encode('last'));
  }

  async deleteLegacyPrivValState(): Promise<void> {
    await this.db.del(key(Bucket.SignedVote, utf8.encode('last')), { sync: true });
  }

  /** Test support: a data folder as the versions before decision 58 wrote it. */
  async putLegacyPrivValState(v: Uint8Array): Promise<void> {
    await this.db.put(key(Bucket.SignedVote, utf8.encode('last')), v, { sync: true });
  }

  /**
   * State sync's last write, in one synced batch once every chunk is in: the verified
   * head block and its commit, the state root at it, the set that signed it, the base
   * (the lowest block kept: the head) and the genesis hash. Until this batch the store
   * has no genesis record and does not open (Chain.open calls it corrupt, and the heal
   * starts over), so a sync cut short never passes for a store.
   */
  async writeRestoredHead(r: { genesisHash: Uint8Array; block: Block; commit: Commit; blockHash: Uint8Array; stateRoot: Uint8Array; signers: Uint8Array }): Promise<void> {
    const hk = u64Key(r.block.header.height);
    const meta = (name: string, value: Uint8Array): Op => ({ type: 'put', key: key(Bucket.Meta, utf8.encode(name)), value });
    await this.db.write(
      [
        { type: 'put', key: key(Bucket.Block, hk), value: encodeBlock(r.block) },
        { type: 'put', key: key(Bucket.BlockHash, r.blockHash), value: hk },
        { type: 'put', key: key(Bucket.Commit, hk), value: encodeCommit(r.commit) },
        { type: 'put', key: key(Bucket.StateRoot, hk), value: r.stateRoot },
        meta('headSigners', r.signers),
        meta('base', hk),
        meta('head', hk),
        meta('genesis', r.genesisHash),
      ],
      { sync: true },
    );
  }
}

function pushChanges(ops: Op[], changes: StateChange[]): void {
  for (const ch of changes) {
    const k = key(Bucket.State, ch.key);
    ops.push(ch.value ? { type: 'put', key: k, value: ch.value } : { type: 'del', key: k });
  }
}

/**
 * A block's receipts as stored (decision 60): a tag byte 0x01, then V8's structured-clone
 * serialization (bigints stay bigints, native speed; decision 57) of the receipts with
 * their field names and repeated strings factored out. Each receipt and each of its
 * events becomes an array [shape, refs, ...values]: a shape is the object's key list,
 * stored once per block; a string value met before in the block (an address, a symbol,
 * a status) is replaced by the number of its first occurrence, and bit i of `refs` says
 * that value i is such a number. The decoder numbers first occurrences in the same walk
 * order, so the string table itself is not stored. Values below the events' first level
 * (arrays, nested objects) are stored as they are. A block of batched orders stores well
 * under half the bytes plain V8 serialization did, and LevelDB's writes and compaction
 * scale with the bytes. Receipts are node-local (no hash commits to these bytes); older
 * data folders hold plain V8 serialization (0xFF) or JSON ('['), and both are read.
 */
const SHAPED_TAG = 0x01;
/** Values at positions past this many in one object are never replaced by a reference (`refs` is a 31-bit mask). */
const MAX_REF_POSITIONS = 31;

interface ShapedReceipts {
  /** Key lists, by shape id. */
  k: string[][];
  r: unknown[][];
}

export function encodeReceipts(receipts: Receipt[]): Uint8Array {
  /** Shape ids by the object's `type` (events) or key count (receipts), then by key list. */
  const shapes = new Map<unknown, number[]>();
  const keyLists: string[][] = [];
  const strings = new Map<string, number>();
  const shapeId = (o: Record<string, unknown>, keys: string[]): number => {
    const tag = typeof o.type === 'string' ? o.type : keys.length;
    let ids = shapes.get(tag);
    if (ids === undefined) shapes.set(tag, (ids = []));
    for (const id of ids) {
      const known = keyLists[id];
      if (known.length !== keys.length) continue;
      let same = true;
      for (let i = 0; i < keys.length && same; i++) same = known[i] === keys[i];
      if (same) return id;
    }
    ids.push(keyLists.length);
    keyLists.push(keys);
    return keyLists.length - 1;
  };
  const flat = (o: Record<string, unknown>, isReceipt: boolean): unknown[] => {
    const keys = Object.keys(o);
    const id = shapeId(o, keys);
    const out: unknown[] = [id, 0];
    let refs = 0;
    for (let i = 0; i < keys.length; i++) {
      const v = o[keys[i]];
      if (isReceipt && keys[i] === 'events' && Array.isArray(v)) out.push(v.map((e) => flat(e as Record<string, unknown>, false)));
      else if (typeof v === 'string' && i < MAX_REF_POSITIONS) {
        const at = strings.get(v);
        if (at === undefined) {
          strings.set(v, strings.size);
          out.push(v);
        } else {
          out.push(at);
          refs |= 1 << i;
        }
      } else out.push(v);
    }
    out[1] = refs;
    return out;
  };
  const r = receipts.map((x) => flat(x as unknown as Record<string, unknown>, true));
  const body = v8.serialize({ k: keyLists, r } satisfies ShapedReceipts);
  const out = new Uint8Array(body.length + 1);
  out[0] = SHAPED_TAG;
  out.set(body, 1);
  return out;
}

/** V8's serialization starts with its version tag 0xFF; a data folder written before it holds JSON ('['). */
const V8_VERSION_TAG = 0xff;

function decodeShaped(bytes: Uint8Array): Receipt[] {
  const { k, r } = v8.deserialize(bytes.subarray(1)) as ShapedReceipts;
  const table: string[] = [];
  const obj = (a: unknown[], isReceipt: boolean): Record<string, unknown> => {
    const keys = k[a[0] as number];
    if (keys === undefined || a.length !== keys.length + 2) throw new Error(`stored receipts: bad shape ${String(a[0])}`);
    const refs = a[1] as number;
    const o: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const v = a[i + 2];
      if (isReceipt && keys[i] === 'events' && Array.isArray(v)) o[keys[i]] = v.map((e) => obj(e as unknown[], false));
      else if (i < MAX_REF_POSITIONS && (refs >>> i) & 1) {
        const str = table[v as number];
        if (str === undefined) throw new Error(`stored receipts: string reference ${String(v)} of ${table.length}`);
        o[keys[i]] = str;
      } else {
        if (typeof v === 'string' && i < MAX_REF_POSITIONS) table.push(v);
        o[keys[i]] = v;
      }
    }
    return o;
  };
  return r.map((x) => obj(x, true) as unknown as Receipt);
}

export function decodeReceipts(bytes: Uint8Array): Receipt[] {
  if (bytes[0] === SHAPED_TAG) return decodeShaped(bytes);
  if (bytes[0] === V8_VERSION_TAG) return v8.deserialize(bytes) as Receipt[];
  return JSON.parse(new TextDecoder().decode(bytes), (_k, v) =>
    v !== null && typeof v === 'object' && typeof v.$big === 'string' && Object.keys(v).length === 1 ? BigInt(v.$big) : v,
  ) as Receipt[];
}

/** A block's own events as stored: the shaped receipts encoding of one receipt `{events}` (bigints kept, shapes and strings shared). */
function encodeBlockEvents(events: ChainEvent[]): Uint8Array {
  return encodeReceipts([{ events } as unknown as Receipt]);
}

function decodeBlockEvents(bytes: Uint8Array): ChainEvent[] {
  const [one] = decodeReceipts(bytes);
  if (one === undefined || !Array.isArray(one.events)) throw new Error('stored block events: not one receipt of events');
  return one.events;
}
