/**
 * Execution-level harness for the timers (issue 24, decisions 90–91): a State from the
 * one-validator devnet genesis (its funded accounts, its public keys), REST-signed
 * timer and order transactions, oracle observations by the validator, and blocks at
 * chosen times applied with applyBlock; plus a restart: a second State loaded from
 * every change the first committed, as a node loads its store.
 */
import { merkleRoot, type Block } from '../../src/codec/block';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { signObservation } from '../../src/codec/txs/oracle';
import type { ActionOptions } from '../../src/codec/txs/options';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { placeOrderDigest, restSigningHash } from '../../src/signing/exchange-digest';
import { sign } from '../../src/crypto/secp256k1';
import { scheduleCancelDigest, twapCancelDigest, twapPlaceDigest } from '../../src/signing/timer-digest';
import type { Genesis } from '../../src/genesis/types';
import { applyBlock, type BlockResult } from '../../src/state/apply';
import { genesisState } from '../../src/state/genesis';
import { State } from '../../src/state/state';
import { bytesToHex, hexToBytes, type Address } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';

export const GENESIS = devnetGenesis(1).genesis;
export const T0 = GENESIS.genesisTimeMs;
const validator = new Secp256k1Signer(hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey));

export interface Trader {
  address: Address;
  priv: Uint8Array;
}

export const traders: Trader[] = DEVNET_KEYS.accounts.slice(0, 8).map((a) => ({ address: a.address.toLowerCase() as Address, priv: hexToBytes(a.privateKey) }));

export class TimerChain {
  readonly state: State;
  /** Every state change committed so far, by storage key (the store a restart loads). */
  readonly store = new Map<string, Uint8Array>();
  private nonce = 1n;

  constructor(readonly genesis: Genesis = GENESIS) {
    const g = genesisState(genesis, new Uint8Array(32));
    this.state = g.state;
    for (const c of g.changes) this.keep(c);
  }

  private keep(c: { key: Uint8Array; value: Uint8Array | null }): void {
    const k = bytesToHex(c.key);
    if (c.value === null) this.store.delete(k);
    else this.store.set(k, c.value);
  }

  /** A node restarting from the store: every record loaded, the indexes rebuilt. */
  restarted(): State {
    const s = new State();
    for (const [k, v] of [...this.store.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) s.loadRecord(hexToBytes(k), v);
    s.rebuildIndexes();
    return s;
  }

  private sig(by: Trader, digest: Uint8Array): Uint8Array {
    return sign(restSigningHash(digest), by.priv);
  }

  scheduleCancel(by: Trader, timeMs: number | null, options?: ActionOptions): Tx {
    const nonce = this.nonce++;
    const t = timeMs === null ? null : BigInt(timeMs);
    return encodeTx(this.genesis.chainId, TxKind.ScheduleCancel, { trader: by.address, timeMs: t, nonce, signature: this.sig(by, scheduleCancelDigest(t, nonce, options)), ...(options ? { options } : {}) });
  }

  twap(by: Trader, symbol: string, side: 'buy' | 'sell', amount: string, minutes: number, randomize = false): Tx {
    const nonce = this.nonce++;
    const fields = { symbol, side, amount, minutes, randomize, nonce };
    return encodeTx(this.genesis.chainId, TxKind.TwapPlace, { trader: by.address, ...fields, signature: this.sig(by, twapPlaceDigest(fields)) });
  }

  twapCancel(by: Trader, twapId: string): Tx {
    const nonce = this.nonce++;
    return encodeTx(this.genesis.chainId, TxKind.TwapCancel, { trader: by.address, twapId, nonce, signature: this.sig(by, twapCancelDigest(twapId, nonce)) });
  }

  order(by: Trader, symbol: string, side: 'buy' | 'sell', price: string, amount: string): Tx {
    const fields = { symbol, side, type: 'limit', price, amount, nonce: this.nonce++ };
    return encodeTx(this.genesis.chainId, TxKind.RestOrder, { trader: by.address, ...fields, signature: sign(restSigningHash(placeOrderDigest(fields)), by.priv) });
  }

  /** The validator's observation of `prices` ([pairId, price ×1e6]) at `timestampMs`. */
  observe(timestampMs: number, prices: [number, bigint][]): Tx {
    const body = signObservation(this.genesis.chainId, { validator: validator.address, timestampMs, prices: prices.map(([pairId, price]) => ({ pairId, price })) }, validator);
    return encodeTx(this.genesis.chainId, TxKind.OracleObservation, body);
  }

  /** Applies one block at `timestampMs` to `state` (the chain's own by default) and keeps its changes. */
  applyAt(txs: Tx[], timestampMs: number, state: State = this.state): BlockResult {
    const r = applyAt(state, this.genesis.chainId, txs, timestampMs);
    if (state === this.state) for (const c of r.changes) this.keep(c);
    return r;
  }
}

export function applyAt(state: State, chainId: number, txs: Tx[], timestampMs: number): BlockResult {
  const head = state.head();
  const block: Block = {
    header: {
      chainId, height: head.height + 1, timestampMs, round: 0, parentHash: new Uint8Array(32), parentStateRoot: state.root(), validatorsHash: new Uint8Array(32),
      proposer: validator.address, txRoot: merkleRoot(txs.map((t) => t.hash)), txCount: txs.length, lastCommitHash: new Uint8Array(32), vrfProof: new Uint8Array(80),
    },
    lastCommit: null,
    txs: txs.map((t) => t.bytes),
  };
  return applyBlock(state, block);
}
