/**
 * Engine-level fixture for the perp tests: the devnet genesis state, a block context at
 * a chosen block time, operations run the way applyTx runs them (checkpoint, rollback
 * on TxError), the end-of-block step as applyBlock runs it, and oracle prices set
 * directly (the oracle's own tests cover how medians are formed).
 */
import { ZERO_HASH, type BlockHeader } from '../../src/codec/block';
import type { ChainEvent, ExecContext } from '../../src/state/context';
import { TxError } from '../../src/state/errors';
import { genesisState } from '../../src/state/genesis';
import { setOracleMedian } from '../../src/state/oracle';
import { endBlockPerps, openPosition } from '../../src/state/perps/engine';
import type { PerpPosition } from '../../src/state/records';
import type { State } from '../../src/state/state';
import type { Address } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';

export const { genesis, hash: genesisHashBytes } = devnetGenesis(1);
export const traders = DEVNET_KEYS.accounts.slice(0, 8).map((a) => a.address.toLowerCase() as Address);
export const ETH = genesis.pairs.find((p) => p.symbol === 'ETH')!;
export const BTC = genesis.pairs.find((p) => p.symbol === 'BTC')!;
export const USDC = 1_000_000n;
export const PRICE = 1_000_000n;

export class PerpFixture {
  readonly state: State;
  nowMs: number;
  height = 1;
  readonly blockEvents: ChainEvent[] = [];

  constructor() {
    this.state = genesisState(genesis, genesisHashBytes).state;
    this.nowMs = genesis.genesisTimeMs + 22;
  }

  /** Opens a position (must succeed). */
  open(owner: Address, o: { pairId?: number; isLong: boolean; leverage: number; margin: bigint }): PerpPosition {
    return this.must((ctx) => openPosition(ctx, { owner, signer: owner, pairId: o.pairId ?? ETH.id, isLong: o.isLong, leverage: o.leverage, margin: o.margin, isAgent: false }));
  }

  position(id: bigint): PerpPosition | undefined {
    return this.state.perpPositions.get(String(id));
  }

  /**
   * Ends blocks every `stepMs` (or less) up to and including one at `atMs`, setting
   * `prices` fresh in each; the next block then comes 22 ms after `atMs`.
   */
  advanceTo(atMs: number, prices: Record<number, bigint> = {}, stepMs = 1000): ChainEvent[] {
    const out: ChainEvent[] = [];
    for (;;) {
      for (const [id, p] of Object.entries(prices)) this.price(Number(id), p);
      const last = this.nowMs >= atMs;
      out.push(...this.endBlock(last ? 22 : Math.min(stepMs, atMs - this.nowMs)));
      if (last) return out;
    }
  }

  header(): BlockHeader {
    return {
      chainId: genesis.chainId, height: this.height, timestampMs: this.nowMs, round: 0, parentHash: ZERO_HASH, parentStateRoot: ZERO_HASH, validatorsHash: ZERO_HASH,
      proposer: traders[0], txRoot: ZERO_HASH, txCount: 0, lastCommitHash: ZERO_HASH,
    } as BlockHeader;
  }

  ctx(events: ChainEvent[]): ExecContext {
    return { state: this.state, params: this.state.params(), header: this.header(), emit: (e) => events.push(e) };
  }

  /** Runs an operation as applyTx does: a TxError rolls back everything it wrote. */
  run<T>(fn: (ctx: ExecContext) => T): { ok: true; value: T; events: ChainEvent[] } | { ok: false; code: string; status: number; events: ChainEvent[] } {
    const events: ChainEvent[] = [];
    const cp = this.state.journal.checkpoint();
    try {
      return { ok: true, value: fn(this.ctx(events)), events };
    } catch (err) {
      if (!(err instanceof TxError)) throw err;
      this.state.journal.rollback(cp);
      return { ok: false, code: err.code, status: err.status, events: [] };
    }
  }

  /** As run(), but the operation must succeed. */
  must<T>(fn: (ctx: ExecContext) => T): T {
    const r = this.run(fn);
    if (!r.ok) throw new Error(`operation refused: ${r.status} ${r.code}`);
    return r.value;
  }

  /** Sets the oracle median of a pair, observed now. */
  price(pairId: number, price: bigint, observedMs = this.nowMs): void {
    setOracleMedian(this.state, pairId, price, observedMs);
  }

  /**
   * Ends the current block as applyBlock does (perp steps, invariants, flush) and moves
   * to the next block `dtMs` later. Returns the end-of-block events.
   */
  endBlock(dtMs = 22): ChainEvent[] {
    const events: ChainEvent[] = [];
    const prev = (this.state.meta.get('head') as { timestampMs: number }).timestampMs;
    endBlockPerps(this.ctx(events), prev);
    this.state.meta.set('head', { height: this.height, timestampMs: this.nowMs, blockHash: '0x' });
    this.state.checkInvariants();
    this.state.flush();
    this.blockEvents.push(...events);
    this.height++;
    this.nowMs += dtMs;
    return events;
  }

  free(a: Address): bigint {
    return this.state.account(a).usdcFree;
  }

  poolUsdc(): bigint {
    return this.state.poolRecord().usdc;
  }
}
