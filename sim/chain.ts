/**
 * A simulated node's executed chain: the real execution (src/state: genesisState,
 * applyBlock, State.root) over an in-memory "disk" that survives the node's crashes.
 *
 * SimDisk stands for the node's LevelDB: the committed blocks with their commits and
 * state roots, the state records (the State bucket, written from each block's changes,
 * as ChainStore.commitBlock does), and the privval state. A block's write is atomic: a
 * node that crashes before it has not committed the block.
 *
 * SimChain is one incarnation's chain, opened from the disk the way Chain.open opens
 * the store: an empty disk gets the genesis state; otherwise the records are loaded in
 * key order into a fresh State, indexes rebuilt, invariants checked, and the recomputed
 * root must equal the root stored for the head height. Records are bytes, decoded
 * afresh, so a restarted node shares no mutable object with the crashed one. The VRF
 * seed is derived from the head block's proof, as Chain.open derives it.
 *
 * validatorsAt() is Chain.validatorsAt: the set that signs the next height, from the
 * executed state (activeValidators), and the head's own set, kept beside the head on the
 * disk (as the store keeps it: encodeValidatorSet), so a restarted node knows it too.
 *
 * worldGenesis() is the genesis of one run: the devnet genesis with the run's validators
 * (their sim keys) in place of devnet's, and, for the lifecycle scenario
 * (sim/lifecycle.ts), short epochs, a short downtime window, small bonds and the
 * joiners' accounts funded.
 */
import { join } from 'node:path';
import { commitHash, decodeBlock, type Block, type Commit } from '../src/codec/block';
import type { Tx } from '../src/codec/tx';
import { trimValidators } from '../src/cli/devnet';
import { buildNextBlock, type BlockInput, type ChainView } from '../src/chain/view';
import { ECVRF, genesisSeed, seedOfProof, type VrfScheme } from '../src/consensus/proposer-vrf';
import { decodeValidatorSet, encodeValidatorSet } from '../src/chain/validator-sets';
import { ValidatorSet, type QuorumRule } from '../src/consensus/validator-set';
import { genesisHash, loadGenesisFile } from '../src/genesis/load';
import type { ConsensusParams, Genesis, GenesisAccount, GenesisValidator } from '../src/genesis/types';
import { applyBlock, type BlockResult, type VerifiedCache } from '../src/state/apply';
import { genesisState } from '../src/state/genesis';
import { InvariantError, State, type StateChange } from '../src/state/state';
import { validatorRecord } from '../src/state/validator-records';
import { activeValidators, type ActiveValidator, type ValidatorSetView } from '../src/state/validators';
import { bytesToHex, equalBytes, hexToBytes, type Address } from '../src/util/bytes';

/** The devnet genesis (genesis/devnet.json, its 6 validators): read once per process. */
let devnet: { genesis: Genesis; hash: Uint8Array } | undefined;
export function simGenesis(): { genesis: Genesis; hash: Uint8Array } {
  if (devnet === undefined) {
    const genesis = trimValidators(loadGenesisFile(join(import.meta.dirname, '..', 'genesis', 'devnet.json')), 6);
    devnet = { genesis, hash: genesisHash(genesis) };
  }
  return devnet;
}

/**
 * The genesis of one run: devnet's, with `validators` (the run's keys and bonds) in place
 * of devnet's six, `consensus` overrides (the lifecycle scenario's short epochs and
 * windows) and `accounts` funded besides devnet's.
 */
export function worldGenesis(validators: GenesisValidator[], consensus: Partial<ConsensusParams> = {}, accounts: GenesisAccount[] = []): { genesis: Genesis; hash: Uint8Array } {
  const base = simGenesis().genesis;
  const genesis: Genesis = { ...base, validators, consensus: { ...base.consensus, ...consensus }, accounts: [...base.accounts, ...accounts] };
  return { genesis, hash: genesisHash(genesis) };
}

/**
 * The consensus ValidatorSet of each executed set (src/chain/validator-sets.ts
 * consensusSet), built with the run's quorum rule (a broken one in the test that shows
 * the checker catches it); one per state view, as the node caches them.
 */
export class SetsOf {
  readonly #sets = new WeakMap<ValidatorSetView, ValidatorSet>();
  constructor(private readonly quorum?: QuorumRule) {}

  of(view: ValidatorSetView): ValidatorSet {
    let set = this.#sets.get(view);
    if (set === undefined) {
      set = this.make(view.validators);
      this.#sets.set(view, set);
    }
    return set;
  }

  make(validators: readonly ActiveValidator[]): ValidatorSet {
    return new ValidatorSet(validators, this.quorum ? { unsafeQuorumForSimulation: this.quorum } : {});
  }
}

export interface StoredBlock {
  hash: Uint8Array;
  /** The block as decided (its canonical encoding). */
  bytes: Uint8Array;
  commit: Commit;
  /** State root after the block. */
  stateRoot: Uint8Array;
  txCount: number;
  /** The set that signed it (encodeValidatorSet), kept beside it as the store keeps the head's. */
  signers: Uint8Array;
}

/** What survives a crash. */
export class SimDisk {
  /** blocks[h - 1] is height h. */
  readonly blocks: StoredBlock[] = [];
  /** The State bucket: latin1 of the storage key -> encoded record. */
  readonly records = new Map<string, Uint8Array>();
  genesisRoot: Uint8Array | null = null;
  privval: Uint8Array | null = null;

  get height(): number {
    return this.blocks.length;
  }

  get stateRoot(): Uint8Array {
    return this.blocks.at(-1)?.stateRoot ?? (this.genesisRoot as Uint8Array);
  }

  writeChanges(changes: readonly StateChange[]): void {
    for (const c of changes) {
      const key = Buffer.from(c.key).toString('latin1');
      if (c.value === null) this.records.delete(key);
      else this.records.set(key, c.value.slice());
    }
  }
}

export class SimChain implements ChainView {
  private constructor(
    readonly disk: SimDisk,
    readonly state: State,
    readonly genesis: Genesis,
    private _height: number,
    private _lastBlockHash: Uint8Array,
    private _lastTimestampMs: number,
    private _stateRoot: Uint8Array,
    private _seed: Uint8Array,
    private readonly vrf: VrfScheme,
    private readonly sets: SetsOf,
    private _headSigners: ValidatorSet | undefined,
    private _nextSigners: ValidatorSet,
  ) {}

  /**
   * Chain.open over the simulated disk. Throws InvariantError when the stored state does
   * not match its root. `vrf`: the world's VRF (its blocks' proofs give the seeds).
   */
  static open(disk: SimDisk, genesis: Genesis, genesisHash: Uint8Array, vrf: VrfScheme = ECVRF, sets: SetsOf = new SetsOf()): SimChain {
    if (disk.genesisRoot === null) {
      const { state, changes, root } = genesisState(genesis, genesisHash);
      disk.writeChanges(changes);
      disk.genesisRoot = root;
      return new SimChain(disk, state, genesis, 0, genesisHash, genesis.genesisTimeMs, root, genesisSeed(genesisHash), vrf, sets, undefined, sets.of(activeValidators(state)));
    }
    const state = new State();
    // LevelDB iterates keys in byte order; latin1 strings compare by byte.
    for (const key of [...disk.records.keys()].sort()) state.loadRecord(Buffer.from(key, 'latin1'), disk.records.get(key) as Uint8Array);
    state.rebuildIndexes();
    state.checkInvariants();
    const root = state.root();
    const height = disk.height;
    if (!equalBytes(root, disk.stateRoot)) {
      throw new InvariantError(`state loaded at height ${height} has root ${bytesToHex(root)}, stored root is ${bytesToHex(disk.stateRoot)}`);
    }
    const head = state.head();
    if (head.height !== height) throw new InvariantError(`state head ${head.height} differs from stored head ${height}`);
    const lastHash = height === 0 ? genesisHash : disk.blocks[height - 1].hash;
    const seed = height === 0 ? genesisSeed(genesisHash) : seedOfProof(vrf, decodeBlock(disk.blocks[height - 1].bytes).header.vrfProof);
    const headSigners = height === 0 ? undefined : sets.make(decodeValidatorSet(disk.blocks[height - 1].signers).validators);
    return new SimChain(disk, state, genesis, height, lastHash, head.timestampMs, root, seed, vrf, sets, headSigners, sets.of(activeValidators(state)));
  }

  /** Chain.validatorsAt: the set that signs the next height (from the state), or the head's (kept with it). */
  validatorsAt(height: number): ValidatorSet {
    if (height === this._height + 1) return this._nextSigners;
    if (height === this._height && this._headSigners !== undefined) return this._headSigners;
    throw new RangeError(`the validator set of height ${height} is not known at head ${this._height}`);
  }

  /** Chain.vrfKeyOf: a validator's VRF public key from its record (genesis and registered ones). */
  vrfKeyOf = (validator: Address): Uint8Array | null => {
    const hex = validatorRecord(this.state, validator)?.vrfPubkey;
    return hex === undefined ? null : hexToBytes(hex);
  };

  get height(): number {
    return this._height;
  }
  get lastBlockHash(): Uint8Array {
    return this._lastBlockHash;
  }
  get lastTimestampMs(): number {
    return this._lastTimestampMs;
  }
  get stateRoot(): Uint8Array {
    return this._stateRoot;
  }
  get chainId(): number {
    return this.genesis.chainId;
  }
  get seed(): Uint8Array {
    return this._seed;
  }

  buildBlock(p: BlockInput): Block {
    return buildNextBlock(this, { vrf: this.vrf, ...p });
  }

  /** Chain.commit: applies a finalized block, then writes it, its commit and its state changes to the disk at once. */
  commit(block: Block, bytes: Uint8Array, commit: Commit, verified?: VerifiedCache, decoded?: Tx[]): BlockResult {
    const h = block.header;
    if (!equalBytes(h.parentHash, this._lastBlockHash)) {
      throw new InvariantError(`block ${h.height} parent ${bytesToHex(h.parentHash)} is not head ${bytesToHex(this._lastBlockHash)}`);
    }
    if (!equalBytes(h.lastCommitHash, commitHash(block.lastCommit))) throw new InvariantError(`block ${h.height} last-commit hash mismatch`);
    const seed = seedOfProof(this.vrf, h.vrfProof);
    const signers = this._nextSigners;
    const result = applyBlock(this.state, block, verified, decoded);
    this.disk.writeChanges(result.changes);
    this.disk.blocks.push({ hash: result.blockHash, bytes, commit, stateRoot: result.stateRoot, txCount: block.txs.length, signers: encodeValidatorSet(signers) });
    this._height = h.height;
    this._lastBlockHash = result.blockHash;
    this._lastTimestampMs = h.timestampMs;
    this._stateRoot = result.stateRoot;
    this._seed = seed;
    this._headSigners = signers;
    this._nextSigners = this.sets.of(activeValidators(this.state));
    return result;
  }
}
