/**
 * The simulator's application: deliberately trivial and deterministic. A block is
 * (height, parent hash, round, proposer, a few random transaction bytes); its hash is
 * keccak256 of its encoding; the "state root" after height h is
 * keccak256(root(h-1) ‖ hash(h)), a hash chain of the committed blocks, so two nodes
 * with equal roots at h committed the same blocks 1..h.
 *
 * SimChain is a node's disk: it survives crashes, like the real block store.
 */
import { Reader, Writer } from '../src/codec/binary';
import { ZERO_HASH, type Commit } from '../src/codec/block';
import type { ConsensusApp } from '../src/consensus/core';
import type { Certificate } from '../src/consensus/messages';
import { keccak256 } from '../src/crypto/keccak';
import type { Address } from '../src/util/bytes';
import { concatBytes, equalBytes, utf8 } from '../src/util/bytes';
import type { Prng } from './prng';

export interface SimBlock {
  height: number;
  parentHash: Uint8Array;
  round: number;
  proposer: Address;
  txs: Uint8Array;
}

export const MAX_SIM_TX_BYTES = 256;

export function encodeSimBlock(b: SimBlock): Uint8Array {
  return new Writer(128 + b.txs.length).u64(b.height).fixed(b.parentHash, 32).u32(b.round).address(b.proposer).bytes(b.txs).finish();
}

export function decodeSimBlock(bytes: Uint8Array): SimBlock {
  const r = new Reader(bytes, MAX_SIM_TX_BYTES);
  const b = { height: r.u64(), parentHash: r.fixed(32), round: r.u32(), proposer: r.address(), txs: r.bytes(MAX_SIM_TX_BYTES) };
  r.end();
  return b;
}

export const GENESIS_ROOT = keccak256(utf8.encode('exchange-chain/sim/genesis'));

export interface ChainEntry {
  hash: Uint8Array;
  bytes: Uint8Array;
  commit: Commit;
  stateRoot: Uint8Array;
}

export class SimChain {
  readonly entries: ChainEntry[] = [];

  get height(): number {
    return this.entries.length;
  }

  get lastHash(): Uint8Array {
    return this.entries.at(-1)?.hash ?? ZERO_HASH;
  }

  get stateRoot(): Uint8Array {
    return this.entries.at(-1)?.stateRoot ?? GENESIS_ROOT;
  }

  /** Commits the next block; returns the new state root. */
  append(height: number, hash: Uint8Array, bytes: Uint8Array, commit: Commit): Uint8Array {
    if (height !== this.height + 1) throw new Error(`commit of height ${height} on a chain at ${this.height}`);
    const stateRoot = keccak256(concatBytes(this.stateRoot, hash));
    this.entries.push({ hash, bytes, commit, stateRoot });
    return stateRoot;
  }
}

export class SimApp implements ConsensusApp {
  constructor(
    readonly chain: SimChain,
    private readonly prng: Prng,
    private readonly self: Address,
  ) {}

  proposeBlock(height: number, round: number): { hash: Uint8Array; bytes: Uint8Array } | null {
    if (height !== this.chain.height + 1) return null;
    const txs = this.prng.bytes(this.prng.range(0, 48));
    const bytes = encodeSimBlock({ height, parentHash: this.chain.lastHash, round, proposer: this.self, txs });
    return { hash: keccak256(bytes), bytes };
  }

  validateBlock(bytes: Uint8Array): Uint8Array | null {
    let b: SimBlock;
    try {
      b = decodeSimBlock(bytes);
    } catch {
      return null;
    }
    if (b.height !== this.chain.height + 1 || !equalBytes(b.parentHash, this.chain.lastHash)) return null;
    return keccak256(bytes);
  }

  /** Stand-in for the previous block's VRF output: its hash. */
  proposerSeed(height: number): Uint8Array {
    if (height !== this.chain.height + 1) throw new Error(`seed of height ${height} asked on a chain at ${this.chain.height}`);
    return this.chain.lastHash;
  }

  certificate(height: number): Certificate | null {
    const e = this.chain.entries[height - 1];
    return e === undefined ? null : { height, block: e.bytes, commit: e.commit };
  }
}
