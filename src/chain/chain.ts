/**
 * The executed chain on one node: state in memory, blocks and state on disk.
 *
 * open(): a fresh data folder gets the genesis state; an existing one is checked
 * against the genesis hash, its state is loaded, and the recomputed state root must
 * equal the root stored for the head height. Before that, LevelDB's log and MANIFEST are
 * checksummed and every key is read once (src/storage/corruption.ts): anything found
 * wrong with what was stored throws a StoreCorruptionError naming the folder, which the
 * node answers by moving the store aside and syncing from its peers (src/node/store-heal.ts).
 * commit(): applies a finalized block and persists it in one batch; only after the
 * batch is written is the block "committed" for anyone waiting on it.
 *
 * The store is LevelDB in the data folder (src/storage/db.ts), or the one given
 * (ChainOptions.store: the simulator's in-memory store with a disk's faults, decision
 * 126), through the same chain store code and checks.
 *
 * A full disk (decision 121): when the batch fails for lack of space, the block stays
 * applied in memory (the head moves to it, so reads from memory stay consistent) and its
 * batch is kept; commit() throws StorageUnavailableError, and refuses every later block
 * the same way until retryUnwritten() has written the kept batch (the chain actor's
 * retry, run by the node's storage probe). The batch is a set of puts of absolute values,
 * so writing it again after LevelDB kept part of it is harmless.
 *
 * The VRF seed of the proposer draw (src/consensus/proposer-vrf.ts) is not stored on its
 * own: it is derived from the head header's proof, which the block hash commits to, at
 * open and at each commit, so a restarted node and one that synced find the same seed.
 * validatorsAt(): the validator set that signs the next height (from the state) and the
 * one that signed the head (kept with the head: src/chain/validator-sets.ts). When they
 * differ, the next block's batch carries a light anchor (src/chain/light.ts, decision 128).
 */
import { blockHash as hashHeader, commitHash, type Block, type BlockHeader, type Commit } from '../codec/block';
import type { Tx } from '../codec/tx';
import { ECVRF, genesisSeed, seedOfProof, type VrfKeyOf, type VrfScheme } from '../consensus/proposer-vrf';
import type { Genesis } from '../genesis/types';
import { applyBlock, type BlockResult, type VerifiedCache } from '../state/apply';
import { genesisState } from '../state/genesis';
import { InvariantError, State } from '../state/state';
import { activeValidators, type ActiveValidator, type ValidatorSetView } from '../state/validators/set';
import type { ValidatorSet } from '../consensus/validator-set';
import { ChainStore, type CommittedBlock, type KvChainStore } from '../storage/db';
import { isNoSpace, StorageUnavailableError } from '../storage/no-space';
import { isStoreCorruption, rootMessage, StoreCorruptionError } from '../storage/corruption';
import { validatorRecord } from '../state/validators/records';
import { bytesToHex, equalBytes, hexToBytes, type Address } from '../util/bytes';
import type { LightAnchor } from './light';
import { consensusSet, decodeValidatorSet, encodeValidatorSet, validatorsHash } from './validator-sets';
import { buildNextBlock, type BlockInput, type ChainView } from './view';

export interface ChainOptions {
  dataDir: string;
  genesis: Genesis;
  genesisHash: Uint8Array;
  /** fsync each block's batch (default true). */
  syncWrites?: boolean;
  /** Told when a read of the opened store finds corruption (KvChainStore.onReadError). */
  onCorruption?: (err: unknown) => void;
  /**
   * The store to open instead of LevelDB in `dataDir` (the simulator's in-memory one,
   * src/storage/memory-kv.ts; decision 126). `dataDir` still names it in errors.
   */
  store?: KvChainStore;
  /** The VRF of the proposer proofs (default ECVRF; the simulator's fast one). */
  vrf?: VrfScheme;
  /** How the validator sets are made (default consensusSet; the simulator's carries its quorum rule). */
  sets?: ChainSets;
}

/** Makes the consensus ValidatorSet of an executed set (cached per view) and of a stored list. */
export interface ChainSets {
  of(view: ValidatorSetView): ValidatorSet;
  make?(validators: readonly ActiveValidator[]): ValidatorSet;
}

const DEFAULT_SETS: ChainSets = { of: consensusSet };

/** A store's read-error hook that passes on corruptions only (a missing key or a closed store is the caller's). */
function corruptionHook(onCorruption: ((err: unknown) => void) | undefined): ((err: unknown) => void) | undefined {
  return onCorruption && ((err) => {
    if (isStoreCorruption(err)) onCorruption(err);
  });
}

export class Chain implements ChainView {
  /** The store write of the block last applied, while it is in flight. */
  private writing: Promise<void> | undefined;
  /** The block applied in memory whose batch failed for lack of space, kept to write again (decision 121). */
  private unwritten: { entry: CommittedBlock; result: BlockResult; commit: Commit } | undefined;

  private constructor(
    readonly store: KvChainStore,
    readonly state: State,
    readonly genesis: Genesis,
    readonly genesisHash: Uint8Array,
    private _height: number,
    private _lastBlockHash: Uint8Array,
    private _lastTimestampMs: number,
    private _stateRoot: Uint8Array,
    private _seed: Uint8Array,
    /** The set that signed the head block (undefined at height 0). */
    private _headSigners: ValidatorSet | undefined,
    /**
     * The set that signs the next height, taken from the state when the head moves (not
     * read live: while a block's write is in flight the state is already past the head).
     */
    private _nextSigners: ValidatorSet,
    private readonly vrf: VrfScheme,
    private readonly sets: ChainSets,
    /** The head block's header (undefined at height 0): the prevHeader of a light anchor written with the next block. */
    private _headHeader: BlockHeader | undefined,
  ) {}

  static async open(opts: ChainOptions): Promise<Chain> {
    const store = opts.store ?? new ChainStore(opts.dataDir, opts.syncWrites ?? true);
    const vrf = opts.vrf ?? ECVRF;
    const sets = opts.sets ?? DEFAULT_SETS;
    // LevelDB's own files first, before opening replays (and deletes) a log cut short.
    const bad = store.filesDamaged();
    if (bad) throw new StoreCorruptionError(opts.dataDir, bad);
    try {
      await store.open();
    } catch (err) {
      if (isStoreCorruption(err)) throw new StoreCorruptionError(opts.dataDir, rootMessage(err), { cause: err });
      throw err;
    }
    try {
      const storedGenesis = await loading(opts.dataDir, () => store.genesisHash());
      if (!storedGenesis) {
        const keys = await loading(opts.dataDir, () => store.countKeys());
        if (keys.size > 0) throw new StoreCorruptionError(opts.dataDir, `no genesis record beside ${[...keys.values()].reduce((a, b) => a + b, 0)} keys`);
        const { state, changes, root } = genesisState(opts.genesis, opts.genesisHash);
        await store.writeGenesis(opts.genesisHash, changes, root);
        store.onReadError = corruptionHook(opts.onCorruption);
        return new Chain(store, state, opts.genesis, opts.genesisHash, 0, opts.genesisHash, opts.genesis.genesisTimeMs, root, genesisSeed(opts.genesisHash), undefined, sets.of(activeValidators(state)), vrf, sets, undefined);
      }
      if (!equalBytes(storedGenesis, opts.genesisHash)) {
        throw new Error(
          `data folder ${opts.dataDir} belongs to genesis ${bytesToHex(storedGenesis)}, not ${bytesToHex(opts.genesisHash)} (this node's genesis file): ` +
            'start with the genesis file that folder was made with, or give another --data-dir (or move the folder away) to start this network from an empty one',
        );
      }
      // Every key read once (LevelDB checks each block), then the state rebuilt and its
      // root compared with the one committed at the head, and the head's block present.
      const { state, root, height, headHeader } = await loading(opts.dataDir, async () => {
        await store.countKeys();
        const state = new State();
        for await (const [k, v] of store.stateRecords()) state.loadRecord(k, v);
        state.rebuildIndexes();
        state.checkInvariants();
        const root = state.root();
        const height = (await store.headHeight()) ?? 0;
        const storedRoot = await store.getStateRoot(height);
        if (!storedRoot || !equalBytes(root, storedRoot)) {
          throw new InvariantError(
            `state loaded at height ${height} has root ${bytesToHex(root)}, stored root is ${storedRoot ? bytesToHex(storedRoot) : 'missing'}`,
          );
        }
        const head = state.head();
        if (head.height !== height) throw new InvariantError(`state head ${head.height} differs from stored head ${height}`);
        let headHeader: Block['header'] | undefined;
        if (height > 0) {
          const block = await store.getBlock(height);
          if (!block) throw new InvariantError(`the head block ${height} is missing`);
          // The hash index was written with the block: changed block bytes no longer hash to it.
          if ((await store.getHeightByHash(hashHeader(block.header))) !== height) throw new InvariantError(`the head block ${height} does not hash to the hash stored for it`);
          headHeader = block.header;
        }
        return { state, root, height, headHeader };
      });
      const head = state.head();
      const lastHash = headHeader === undefined ? opts.genesisHash : hashHeader(headHeader);
      const seed = headHeader === undefined ? genesisSeed(opts.genesisHash) : seedOfProof(vrf, headHeader.vrfProof);
      // A folder written before the head's set was kept: assume it is the next one (true
      // unless the head block itself changed the set).
      const signersBytes = height === 0 ? undefined : await store.headSigners();
      const next = sets.of(activeValidators(state));
      const stored = signersBytes ? decodeValidatorSet(signersBytes) : undefined;
      const headSigners = height === 0 ? undefined : stored ? (sets.make?.(stored.validators) ?? stored) : next;
      store.onReadError = corruptionHook(opts.onCorruption);
      return new Chain(store, state, opts.genesis, opts.genesisHash, height, lastHash, head.timestampMs, root, seed, headSigners, next, vrf, sets, headHeader);
    } catch (err) {
      await store.close();
      throw err;
    }
  }

  get height(): number {
    return this._height;
  }
  get lastBlockHash(): Uint8Array {
    return this._lastBlockHash;
  }
  get lastTimestampMs(): number {
    return this._lastTimestampMs;
  }
  /** State root after the head block: the next header's parentStateRoot. */
  get stateRoot(): Uint8Array {
    return this._stateRoot;
  }
  get chainId(): number {
    return this.genesis.chainId;
  }
  /** The VRF seed after the head block: the next height's proposer draw. */
  get seed(): Uint8Array {
    return this._seed;
  }

  /** A validator's VRF public key, from its record (a genesis validator's included); null for an unknown address. */
  vrfKeyOf: VrfKeyOf = (validator: Address) => {
    const hex = validatorRecord(this.state, validator)?.vrfPubkey;
    return hex === undefined ? null : hexToBytes(hex);
  };

  /**
   * The validator set that signs `height`: the next height's from the state at the head,
   * the head's as kept when it was applied. No other height's is known here.
   */
  validatorsAt(height: number): ValidatorSet {
    if (height === this._height + 1) return this._nextSigners;
    if (height === this._height && this._headSigners !== undefined) return this._headSigners;
    throw new RangeError(`the validator set of height ${height} is not known at head ${this._height} (only the head's and the next height's are)`);
  }

  /** Builds the header of the next block over the given transactions. */
  buildBlock(p: BlockInput): Block {
    return buildNextBlock(this, this.vrf === ECVRF ? p : { vrf: this.vrf, ...p });
  }

  /**
   * Applies and persists a finalized block. Throws (and the node halts) on divergence.
   * `onApplied` runs once the block is applied in memory, before it is on disk (see
   * ChainMsg.ackAtApply for who may answer then).
   */
  async commit(block: Block, commit: Commit, verified?: VerifiedCache, decoded?: Tx[], onApplied?: (result: BlockResult) => void): Promise<BlockResult> {
    const h = block.header;
    if (this.unwritten) {
      throw new StorageUnavailableError(this.store.path, `block ${h.height} not applied: block ${this._height} is not on disk yet (the disk is full)`);
    }
    if (!equalBytes(h.parentHash, this._lastBlockHash)) {
      throw new InvariantError(`block ${h.height} parent ${bytesToHex(h.parentHash)} is not head ${bytesToHex(this._lastBlockHash)}`);
    }
    if (!equalBytes(h.lastCommitHash, commitHash(block.lastCommit))) {
      throw new InvariantError(`block ${h.height} last-commit hash mismatch`);
    }
    // Consensus or block sync checked the proof; a proof that does not even decode here is a bug.
    const seed = seedOfProof(this.vrf, h.vrfProof);
    const signers = this._nextSigners;
    const result = applyBlock(this.state, block, verified, decoded);
    onApplied?.(result);
    const entry: CommittedBlock = { block, commit, ...result, signers: encodeValidatorSet(signers), anchor: this.anchorOf(block, commit, signers) };
    const write = this.store.commitBlock(entry);
    this.writing = write;
    let noSpace: unknown;
    try {
      await write;
    } catch (err) {
      // Any other failure: the caller closes this chain and reopens it from disk.
      if (!isNoSpace(err)) throw err;
      noSpace = err;
    } finally {
      if (this.writing === write) this.writing = undefined;
    }
    this._height = h.height;
    this._lastBlockHash = result.blockHash;
    this._lastTimestampMs = h.timestampMs;
    this._stateRoot = result.stateRoot;
    this._seed = seed;
    this._headSigners = signers;
    this._headHeader = h;
    this._nextSigners = this.sets.of(activeValidators(this.state));
    if (noSpace !== undefined) {
      this.unwritten = { entry, result, commit };
      throw new StorageUnavailableError(this.store.path, `block ${h.height} applied but not written: the disk is full (${noSpace instanceof Error ? noSpace.message : String(noSpace)})`, { cause: noSpace });
    }
    return result;
  }

  /**
   * The light anchor of `block` (decision 128) when the set that signs it differs from
   * the set that signed the head (its parent); none for block 1 (height 0 has no header
   * and no signers) and none when the sets are the same.
   */
  private anchorOf(block: Block, commit: Commit, signers: ValidatorSet): LightAnchor | undefined {
    const prev = this._headSigners;
    if (prev === undefined || this._headHeader === undefined || block.lastCommit === null) return undefined;
    if (equalBytes(validatorsHash(prev), validatorsHash(signers))) return undefined;
    return { prevHeader: this._headHeader, prevCommit: block.lastCommit, header: block.header, commit, set: encodeValidatorSet(signers) };
  }

  /** The block applied in memory but not yet on disk (the disk was full), if any. */
  get unwrittenHeight(): number | undefined {
    return this.unwritten?.entry.block.header.height;
  }

  /**
   * Writes the block kept unwritten (decision 121), if any, and returns it with its
   * result and commit. A LevelDB whose failed write set its background error refuses
   * every write until it is reopened: a second failure reopens the store and writes once
   * more. Throws when that fails too (the probe tries again later).
   */
  async retryUnwritten(): Promise<{ block: Block; commit: Commit; result: BlockResult } | undefined> {
    const u = this.unwritten;
    if (!u) return undefined;
    try {
      await this.store.commitBlock(u.entry);
    } catch {
      await this.store.reopen();
      await this.store.commitBlock(u.entry);
    }
    this.unwritten = undefined;
    return { block: u.entry.block, commit: u.commit, result: u.result };
  }

  /**
   * Resolves once the block applied in memory, if any, is in the store too (or its write
   * failed): a store read after an answer given at apply time waits here before it
   * reports a transaction or block as unknown.
   */
  async stored(): Promise<void> {
    await this.writing?.catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

/**
 * Runs a step of loading an existing store: whatever it finds wrong with what was stored
 * (LevelDB corruption, a record that does not decode, a state whose root is not the one
 * committed, a missing head block) becomes a StoreCorruptionError naming the folder. An
 * I/O failure (a LevelDB error other than corruption, an errno) stays what it is: the
 * disk, not the data.
 */
async function loading<T>(dir: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof StoreCorruptionError) throw err;
    if (!isStoreCorruption(err) && isIoFailure(err)) throw err;
    throw new StoreCorruptionError(dir, rootMessage(err), { cause: err });
  }
}

function isIoFailure(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && (e.code.startsWith('LEVEL_') || /^E[A-Z]+$/.test(e.code))) return true;
  }
  return false;
}
