/**
 * The chain state: every table, the running totals the invariants check, and the
 * incremental state tree. Execution mutates it only through the tables' journaled
 * writes; flush() ends a block, turning what changed into storage writes and a root.
 */
import type { Address } from '../util/bytes';
import {
  accountCodec,
  accountUsdc,
  bigintCodec,
  bigintListCodec,
  EMPTY_ACCOUNT,
  metaCodec,
  pairCodec,
  TableId,
  type Account,
  type ChainHead,
  type ChainParams,
  type Supply,
} from './records';
import { Journal, Table } from './table';
import { StateTree } from './tree';
import type { PairParams } from '../genesis/types';

/** One state change of a block: value null means deleted. */
export interface StateChange {
  key: Uint8Array;
  value: Uint8Array | null;
}

export class InvariantError extends Error {
  constructor(message: string) {
    super(`state invariant broken: ${message}`);
    this.name = 'InvariantError';
  }
}

export class State {
  readonly journal = new Journal();
  readonly tree = new StateTree();
  /** Sums over all accounts, kept exact through every write and rollback. */
  readonly totals = { usdc: 0n, nativeWei: 0n };

  readonly meta: Table<unknown>;
  readonly accounts: Table<Account>;
  readonly nonces: Table<bigint[]>;
  readonly faucetClaims: Table<bigint>;
  readonly pairs: Table<PairParams>;
  private readonly tables = new Map<number, Table<any>>();

  constructor() {
    this.meta = this.add(new Table(TableId.Meta, 'meta', metaCodec, this.journal));
    this.accounts = this.add(
      new Table(TableId.Account, 'accounts', accountCodec, this.journal, (prev, next) => {
        this.totals.usdc += (next ? accountUsdc(next) : 0n) - (prev ? accountUsdc(prev) : 0n);
        this.totals.nativeWei += (next?.nativeWei ?? 0n) - (prev?.nativeWei ?? 0n);
      }),
    );
    this.nonces = this.add(new Table(TableId.Nonce, 'nonces', bigintListCodec, this.journal));
    this.faucetClaims = this.add(new Table(TableId.FaucetClaim, 'faucetClaims', bigintCodec, this.journal));
    this.pairs = this.add(new Table(TableId.Pair, 'pairs', pairCodec, this.journal));
  }

  private add<T>(table: Table<T>): Table<T> {
    if (this.tables.has(table.id)) throw new Error(`table id ${table.id} used twice`);
    this.tables.set(table.id, table);
    return table;
  }

  account(address: Address): Account {
    return this.accounts.get(address) ?? EMPTY_ACCOUNT;
  }

  params(): ChainParams {
    return this.meta.get('params') as ChainParams;
  }

  head(): ChainHead {
    return (this.meta.get('head') as ChainHead | undefined) ?? { height: 0, timestampMs: 0, blockHash: '0x' };
  }

  supply(): Supply {
    return (this.meta.get('supply') as Supply | undefined) ?? { usdc: 0n, nativeWei: 0n };
  }

  /** Loads one stored record (startup). */
  loadRecord(storageKey: Uint8Array, value: Uint8Array): void {
    const table = this.tables.get(storageKey[0]);
    if (!table) throw new Error(`stored state has unknown table id ${storageKey[0]}`);
    const key = new TextDecoder().decode(storageKey.subarray(1));
    table.load(key, table.codec.decode(value));
    this.tree.update(storageKey, value);
  }

  /** Invariants checked at the end of every block; a broken one halts the node. */
  checkInvariants(): void {
    const supply = this.supply();
    if (this.totals.usdc !== supply.usdc) {
      throw new InvariantError(`USDC held by accounts ${this.totals.usdc} differs from USDC supply ${supply.usdc}`);
    }
    if (this.totals.nativeWei !== supply.nativeWei) {
      throw new InvariantError(`native token held ${this.totals.nativeWei} differs from supply ${supply.nativeWei}`);
    }
  }

  /**
   * Ends a block: encodes every key written since the last flush (in sorted order, so
   * the change list is identical on every node), updates the tree and returns the root.
   */
  flush(): { changes: StateChange[]; root: Uint8Array } {
    const changes: StateChange[] = [];
    const tables = [...this.journal.dirty.keys()].sort((a, b) => a.id - b.id);
    for (const table of tables) {
      const keys = [...this.journal.dirty.get(table)!].sort();
      for (const key of keys) {
        const storageKey = table.storageKey(key);
        const value = table.has(key) ? table.codec.encode(table.get(key)) : null;
        this.tree.update(storageKey, value);
        changes.push({ key: storageKey, value });
      }
    }
    this.journal.dirty.clear();
    this.journal.clearUndo();
    return { changes, root: this.tree.root() };
  }

  root(): Uint8Array {
    return this.tree.root();
  }
}
