/**
 * Journaled key-value tables: the whole chain state lives in them.
 *
 * - Every write is undoable back to a checkpoint, so a transaction that fails halfway
 *   is rolled back and changes nothing.
 * - Every key written in a block is remembered, so the block's state changes feed
 *   both the state root and the storage batch, and nothing else needs rescanning.
 * - Records are treated as immutable values: replace them with set(), never mutate a
 *   record you got from get() (the journal keeps the old object for rollback).
 * - Map iteration order depends on history (a restarted node loads keys sorted), so
 *   execution must only iterate through sortedKeys().
 */
import { utf8 } from '../util/bytes';

export interface RecordCodec<T> {
  encode(value: T): Uint8Array;
  decode(bytes: Uint8Array): T;
}

type Undo = { table: Table<any>; key: string; prev: unknown; had: boolean };

export class Journal {
  private undo: Undo[] = [];
  readonly dirty = new Map<Table<any>, Set<string>>();

  record(table: Table<any>, key: string, prev: unknown, had: boolean): void {
    this.undo.push({ table, key, prev, had });
    let keys = this.dirty.get(table);
    if (!keys) this.dirty.set(table, (keys = new Set()));
    keys.add(key);
  }

  checkpoint(): number {
    return this.undo.length;
  }

  rollback(to: number): void {
    while (this.undo.length > to) {
      const u = this.undo.pop()!;
      u.table.restore(u.key, u.prev, u.had);
    }
  }

  /** The transaction succeeded: its undo entries are no longer needed once the block ends. */
  clearUndo(): void {
    this.undo.length = 0;
  }
}

export class Table<T> {
  private readonly map = new Map<string, T>();

  constructor(
    readonly id: number,
    readonly name: string,
    readonly codec: RecordCodec<T>,
    private readonly journal: Journal,
    /** Called on every change (including rollback) to keep running totals exact. */
    private readonly onChange?: (prev: T | undefined, next: T | undefined, key: string) => void,
  ) {}

  get size(): number {
    return this.map.size;
  }

  get(key: string): T | undefined {
    return this.map.get(key);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, value: T): void {
    const had = this.map.has(key);
    const prev = this.map.get(key);
    this.journal.record(this, key, prev, had);
    this.map.set(key, value);
    this.onChange?.(prev, value, key);
  }

  delete(key: string): void {
    if (!this.map.has(key)) return;
    const prev = this.map.get(key);
    this.journal.record(this, key, prev, true);
    this.map.delete(key);
    this.onChange?.(prev, undefined, key);
  }

  /** Rollback path: bypasses the journal. */
  restore(key: string, prev: unknown, had: boolean): void {
    const current = this.map.get(key);
    if (had) this.map.set(key, prev as T);
    else this.map.delete(key);
    this.onChange?.(current, had ? (prev as T) : undefined, key);
  }

  /** Startup path: fills the table from storage without journaling. */
  load(key: string, value: T): void {
    const prev = this.map.get(key);
    this.map.set(key, value);
    this.onChange?.(prev, value, key);
  }

  /** Deterministic iteration for execution. */
  sortedKeys(): string[] {
    return [...this.map.keys()].sort();
  }

  /** Read-only iteration for APIs and tests; never used by execution. */
  entries(): IterableIterator<[string, T]> {
    return this.map.entries();
  }

  /** The key as stored and hashed: table id byte, then the UTF-8 key. */
  storageKey(key: string): Uint8Array {
    // One allocation, from Node's pool for small keys (a block flushes hundreds).
    const out = Buffer.allocUnsafe(Buffer.byteLength(key, 'utf8') + 1);
    out[0] = this.id;
    out.write(key, 1, 'utf8');
    return out;
  }
}

/** Records encoded as canonical JSON (sorted keys, bigints as "123n"-free decimal strings tagged by schema). */
export function jsonCodec<T>(toJson: (v: T) => unknown, fromJson: (j: any) => T): RecordCodec<T> {
  return {
    encode: (v) => utf8.encode(canonicalStringify(toJson(v))),
    decode: (b) => fromJson(JSON.parse(new TextDecoder().decode(b))),
  };
}

function canonicalStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new Error('canonical JSON holds integers only');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalStringify).join(',')}]`;
  const keys = Object.keys(value).filter((k) => (value as any)[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalStringify((value as any)[k])}`).join(',')}}`;
}
