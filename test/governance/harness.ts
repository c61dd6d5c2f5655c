/**
 * Execution-level harness for owner governance: the validators' test genesis
 * (test/validators/harness.ts) with short timelocks (routine 10 s, high-impact 60 s), the
 * three devnet owner keys, governance transactions signed as an owner's wallet would
 * (EIP-712), and blocks applied with applyBlock at block times the test chooses; orders
 * (native and REST), perp opens and the validators' oracle observations on any pair, for
 * the pairs governance adds (decision 76).
 */
import { commitHash, merkleRoot, type Block } from '../../src/codec/block';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { actionDigest, proposeDigest, operationIdOf, type GovActionType, type GovOperation } from '../../src/codec/txs/governance';
import { signFaucet } from '../../src/codec/txs/faucet';
import { signObservation } from '../../src/codec/txs/oracle';
import { perpOpenMessage, type PerpOpenBody } from '../../src/codec/txs/perps';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { hashPersonalMessage } from '../../src/crypto/eip191';
import { placeOrderDigest, restSigningHash } from '../../src/signing/exchange-digest';
import { hashTypedMessage } from '../../src/signing/eip712';
import { privateKeyToAddress, sign, signCompact64 } from '../../src/crypto/secp256k1';
import type { Genesis } from '../../src/genesis/types';
import { applyBlock, type BlockResult } from '../../src/state/apply';
import type { Receipt } from '../../src/state/context';
import type { State } from '../../src/state/state';
import { hexToBytes, type Address, type Hex } from '../../src/util/bytes';
import { DEVNET_KEYS } from '../helpers/devnet';
import { freshState, testGenesis } from '../validators/harness';

export const ROUTINE_MS = 10_000;
export const HIGH_IMPACT_MS = 60_000;

function govGenesis(): Genesis {
  return testGenesis({ timelockRoutineMs: ROUTINE_MS, timelockHighImpactMs: HIGH_IMPACT_MS });
}

export interface Signer {
  priv: Uint8Array;
  address: Address;
}

const keyOf = (hex: string): Signer => {
  const priv = hexToBytes(hex);
  return { priv, address: privateKeyToAddress(priv) };
};

export const OWNERS: Signer[] = (DEVNET_KEYS as unknown as { owners: { privateKey: string }[] }).owners.map((o) => keyOf(o.privateKey));
/** A funded trader (1,000,000 USDC at genesis) who is no owner. */
export const TRADER: Signer = keyOf(DEVNET_KEYS.accounts[0].privateKey);
/** Another funded trader, the counterparty. */
export const TRADER2: Signer = keyOf(DEVNET_KEYS.accounts[1].privateKey);
/** The genesis validators' signers (the governance genesis holds the first four devnet validators). */
export const VALIDATOR_SIGNERS = DEVNET_KEYS.validators.slice(0, 4).map((v) => new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey)));

export class GovChain {
  readonly state: State;
  readonly genesis: Genesis;
  readonly chainId: number;
  private nonces = new Map<string, bigint>();

  constructor(g: Genesis = govGenesis()) {
    this.genesis = g;
    this.chainId = g.chainId;
    this.state = freshState(g);
  }

  nextNonce(who: Address): bigint {
    const n = (this.nonces.get(who) ?? 0n) + 1n;
    this.nonces.set(who, n);
    return n;
  }

  get timeMs(): number {
    return this.state.head().timestampMs;
  }

  /** Applies one block carrying `txs` at block time `atMs` (default one second after the head). */
  block(txs: Tx[], atMs = this.timeMs + 1000): BlockResult {
    const head = this.state.head();
    const block: Block = {
      header: {
        chainId: this.chainId,
        height: head.height + 1,
        timestampMs: atMs,
        round: 0,
        parentHash: new Uint8Array(32),
        parentStateRoot: this.state.root(),
        validatorsHash: new Uint8Array(32),
        proposer: this.genesis.validators[0].address,
        txRoot: merkleRoot(txs.map((t) => t.hash)),
        txCount: txs.length,
        lastCommitHash: commitHash(null),
        vrfProof: new Uint8Array(80),
      },
      lastCommit: null,
      txs: txs.map((t) => t.bytes),
    };
    return applyBlock(this.state, block);
  }

  one(tx: Tx, atMs?: number): Receipt {
    return this.block([tx], atMs).receipts[0];
  }

  /** A proposal by `by`, signed over `signChainId` (the chain's own by default), sent with `txChainId`; `id` is its id on the signing chain. */
  propose(by: Signer, operation: GovOperation, o: { signChainId?: number; txChainId?: number; nonce?: bigint } = {}): { tx: Tx; id: Hex } {
    const unsigned = { proposer: by.address, operation, nonce: o.nonce ?? this.nextNonce(by.address) };
    const signature = signCompact64(proposeDigest(o.signChainId ?? this.chainId, unsigned), by.priv);
    return { tx: encodeTx(o.txChainId ?? this.chainId, TxKind.GovernancePropose, { ...unsigned, signature }), id: operationIdOf(o.signChainId ?? this.chainId, unsigned) };
  }

  action(type: GovActionType, by: Signer, operationId: Hex, o: { signChainId?: number; nonce?: bigint } = {}): Tx {
    const unsigned = { owner: by.address, operationId, nonce: o.nonce ?? this.nextNonce(by.address) };
    const signature = signCompact64(actionDigest(o.signChainId ?? this.chainId, type, unsigned), by.priv);
    const kind = type === 'GovernanceApprove' ? TxKind.GovernanceApprove : type === 'GovernanceExecute' ? TxKind.GovernanceExecute : TxKind.GovernanceCancel;
    return encodeTx(this.chainId, kind, { ...unsigned, signature });
  }

  approve(by: Signer, id: Hex, o?: { signChainId?: number }): Tx {
    return this.action('GovernanceApprove', by, id, o);
  }

  execute(by: Signer, id: Hex): Tx {
    return this.action('GovernanceExecute', by, id);
  }

  cancel(by: Signer, id: Hex): Tx {
    return this.action('GovernanceCancel', by, id);
  }

  /** A native limit order of `by` on pair 1 (far from any price, so it rests). */
  order(by: Signer, price = 1_000_000n): Tx {
    const p = { pairId: 1, side: 0, orderType: 1, price, size: 10n ** 16n, leverage: 1, nonce: this.nextNonce(by.address) };
    const message = { owner: by.address, pairId: 1n, side: 0n, orderType: 1n, price: p.price, size: p.size, leverage: 1n, nonce: p.nonce };
    const signature = sign(hashTypedMessage(this.chainId, 'PlaceOrder', message), by.priv);
    return encodeTx(this.chainId, TxKind.NativePlace, { owner: by.address, signer: by.address, ...p, signature });
  }

  /** A native limit order of `by` on `pairId`: side 0 buys, 1 sells. */
  orderOn(by: Signer, pairId: number, side: 0 | 1, price: bigint, size: bigint): Tx {
    const p = { pairId, side, orderType: 1, price, size, leverage: 1, nonce: this.nextNonce(by.address) };
    const message = { owner: by.address, pairId: BigInt(pairId), side: BigInt(side), orderType: 1n, price, size, leverage: 1n, nonce: p.nonce };
    const signature = sign(hashTypedMessage(this.chainId, 'PlaceOrder', message), by.priv);
    return encodeTx(this.chainId, TxKind.NativePlace, { owner: by.address, signer: by.address, ...p, signature });
  }

  /** A REST limit order of `by` on `symbol` (price and amount as decimal strings). */
  restOrder(by: Signer, symbol: string, side: 'buy' | 'sell', price: string, amount: string): Tx {
    const fields = { symbol, side, type: 'limit', price, amount, nonce: this.nextNonce(by.address) };
    const signature = sign(restSigningHash(placeOrderDigest(fields)), by.priv);
    return encodeTx(this.chainId, TxKind.RestOrder, { trader: by.address, ...fields, signature });
  }

  /** A perp open by `by` on `pairId` (margin a USDC decimal string), signed EIP-191 over the JSON as the route takes it. */
  perpOpen(by: Signer, pairId: number, margin = '100', leverage = 2): Tx {
    const fields = { wallet: by.address, pairId, isLong: true, leverage, margin, nonce: this.nextNonce(by.address), nonceQuoted: false };
    const signature = sign(hashPersonalMessage(perpOpenMessage(fields)), by.priv);
    return encodeTx<PerpOpenBody>(this.chainId, TxKind.PerpOpen, { ...fields, signer: by.address, signature });
  }

  /** Every genesis validator's oracle observation of `price` for `pairId`, stamped `atMs`. */
  observations(pairId: number, price: bigint, atMs: number): Tx[] {
    return VALIDATOR_SIGNERS.map((v) => encodeTx(this.chainId, TxKind.OracleObservation, signObservation(this.chainId, { validator: v.address, timestampMs: atMs, prices: [{ pairId, price }] }, v)));
  }

  withdraw(by: Signer, amount: bigint): Tx {
    const nonce = this.nextNonce(by.address);
    const signature = sign(hashTypedMessage(this.chainId, 'Withdraw', { owner: by.address, amount, destination: by.address, nonce }), by.priv);
    return encodeTx(this.chainId, TxKind.Withdraw, { owner: by.address, signer: by.address, amount, destination: by.address, nonce, signature });
  }

  faucet(to: Address, usdc: bigint): Tx {
    const key = hexToBytes(this.genesis.faucet!.privateKey);
    const nonce = this.nextNonce('faucet' as Address);
    return encodeTx(this.chainId, TxKind.Faucet, signFaucet(this.chainId, { to, usdc, nativeWei: 0n, nonce }, key));
  }
}

export function failure(r: Receipt): { status: number | undefined; code: string | undefined } {
  return { status: r.status === 'failed' ? r.errorStatus : 200, code: r.code };
}
