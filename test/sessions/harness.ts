import { expect } from 'vitest';
/**
 * Execution-level harness for sessions and agents: a Chain in a temp folder, blocks at
 * chosen block times, and the native transactions signed with our own secp256k1 (both
 * wire forms). Also used by bench/caps.ts.
 */
import { canonicalCommit, type Block } from '../../src/codec/block';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { Chain } from '../../src/chain/chain';
import { hashTypedMessage, type Eip712Messages, type Eip712PrimaryType } from '../../src/signing/eip712';
import { privateKeyToAddress, sign, signCompact64 } from '../../src/crypto/secp256k1';
import type { Receipt } from '../../src/state/context';
import type { VerifiedCache } from '../../src/state/apply';
import { bytesToHex, hexToBytes, type Address } from '../../src/util/bytes';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trimValidators } from '../../src/cli/devnet';
import { genesisHash, loadGenesisFile } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';

// The devnet genesis and keys, loaded without the node (this module also serves the bench).
const ROOT = join(import.meta.dirname, '..', '..');
const DEVNET_KEYS = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet-keys.json'), 'utf8')) as {
  validators: { address: `0x${string}`; vrfPrivateKey: `0x${string}` }[];
  accounts: { privateKey: `0x${string}` }[];
};
export const genesis = trimValidators(loadGenesisFile(join(ROOT, 'genesis/devnet.json')), 1);
export const genesisHashBytes = genesisHash(genesis);

function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export const chainId = genesis.chainId;
const proposer = DEVNET_KEYS.validators[0].address;
const vrfKey = hexToBytes(DEVNET_KEYS.validators[0].vrfPrivateKey);
const commitOf = (b: Block) => canonicalCommit({ height: b.header.height, round: 0, blockHash: new Uint8Array(32), signatures: [] });

export interface Key {
  priv: Uint8Array;
  address: Address;
}

export function key(privHex: string): Key {
  const priv = hexToBytes(privHex);
  return { priv, address: privateKeyToAddress(priv) };
}

/** A fresh key from a seed (deterministic). */
export function seededKey(seed: number): Key {
  const priv = new Uint8Array(32);
  new DataView(priv.buffer).setUint32(28, seed + 0x1000);
  priv[0] = 0x42;
  return { priv, address: privateKeyToAddress(priv) };
}

/** Funded devnet accounts (1,000,000 USDC each at genesis). */
export const accounts = DEVNET_KEYS.accounts.map((a) => key(a.privateKey));

function signTyped<P extends Eip712PrimaryType>(type: P, message: Eip712Messages[P], by: Key, form: 64 | 65): Uint8Array {
  const h = hashTypedMessage(chainId, type, message);
  return form === 64 ? signCompact64(h, by.priv) : sign(h, by.priv);
}

export interface PlaceParams {
  pairId: number;
  side: 0 | 1;
  orderType: 0 | 1;
  price: bigint;
  size: bigint;
  leverage?: number;
  nonce: bigint;
}

/** Native transactions: `owner` acted for, `by` the key that signs. */
export const txs = {
  sessionCreate(owner: Address, by: Key, p: { sessionKey: Address; expiresAt: bigint; nonce: bigint }, form: 64 | 65 = 64): Tx {
    const signature = signTyped('SessionCreate', { sessionKey: p.sessionKey, expiresAt: p.expiresAt, nonce: p.nonce }, by, form);
    return encodeTx(chainId, TxKind.SessionCreate, { owner, signer: by.address, ...p, signature });
  },
  sessionRevoke(owner: Address, by: Key, nonce: bigint, form: 64 | 65 = 64): Tx {
    const signature = signTyped('SessionRevoke', { owner, nonce }, by, form);
    return encodeTx(chainId, TxKind.SessionRevoke, { owner, signer: by.address, nonce, signature });
  },
  caps(owner: Address, by: Key, c: { maxLeverage: bigint; allowedOrderTypes: number; maxInputPerTrade: bigint; maxTotalPosition: bigint; nonce: bigint }, form: 64 | 65 = 64): Tx {
    const signature = signTyped('SetAgentCaps', { owner, ...c, allowedOrderTypes: BigInt(c.allowedOrderTypes) }, by, form);
    return encodeTx(chainId, TxKind.SetAgentCaps, { owner, signer: by.address, ...c, signature });
  },
  mode(owner: Address, by: Key, mode: number, nonce: bigint, form: 64 | 65 = 64): Tx {
    const signature = signTyped('SetAgentMode', { owner, mode: BigInt(mode), nonce }, by, form);
    return encodeTx(chainId, TxKind.SetAgentMode, { owner, signer: by.address, mode, nonce, signature });
  },
  place(owner: Address, by: Key, p: PlaceParams, form: 64 | 65 = 65): Tx {
    const leverage = p.leverage ?? 1;
    const message = { owner, pairId: BigInt(p.pairId), side: BigInt(p.side), orderType: BigInt(p.orderType), price: p.price, size: p.size, leverage: BigInt(leverage), nonce: p.nonce };
    const signature = signTyped('PlaceOrder', message, by, form);
    return encodeTx(chainId, TxKind.NativePlace, { owner, signer: by.address, ...p, leverage, signature });
  },
  cancel(owner: Address, by: Key, orderId: bigint, nonce: bigint, form: 64 | 65 = 65): Tx {
    const signature = signTyped('CancelOrder', { owner, orderId, nonce }, by, form);
    return encodeTx(chainId, TxKind.NativeCancel, { owner, signer: by.address, orderId, nonce, signature });
  },
};

export class Harness {
  private constructor(
    readonly chain: Chain,
    private readonly dir: { path: string; remove(): void },
    /** Block time of the head. */
    public timeMs: number,
  ) {}

  /** `g`: another genesis of the same chain id (parameters under test); the devnet's by default. */
  static async open(syncWrites = false, g: Genesis = genesis): Promise<Harness> {
    const dir = tempDir('sessions-');
    const chain = await Chain.open({ dataDir: dir.path, genesis: g, genesisHash: g === genesis ? genesisHashBytes : genesisHash(g), syncWrites });
    return new Harness(chain, dir, g.genesisTimeMs);
  }

  private get dataDir(): string {
    return this.dir.path;
  }

  get state() {
    return this.chain.state;
  }

  /** Commits one block at `atMs` (default: 22 ms after the head) and returns its receipts. */
  async block(list: Tx[], atMs = this.timeMs + 22, verified?: VerifiedCache): Promise<Receipt[]> {
    const block = this.chain.buildBlock({ txs: list.map((t) => t.bytes), decoded: list, timestampMs: atMs, proposer, lastCommit: null, vrfKey });
    const result = await this.chain.commit(block, commitOf(block), verified, list);
    this.timeMs = block.header.timestampMs;
    return result.receipts;
  }

  /** One transaction in its own block; its receipt. */
  async one(t: Tx, atMs?: number): Promise<Receipt> {
    return (await this.block([t], atMs))[0];
  }

  /** Closes and reopens the store (a restart): the state is loaded from disk. */
  async reopen(): Promise<void> {
    const dataDir = this.dataDir;
    await this.chain.close();
    (this as { chain: Chain }).chain = await Chain.open({ dataDir, genesis, genesisHash: genesisHashBytes, syncWrites: false });
  }

  rootHex(): string {
    return bytesToHex(this.chain.stateRoot);
  }

  async close(): Promise<void> {
    await this.chain.close();
    this.dir.remove();
  }
}

/** Expects a failed receipt with this status and code. */
export function failure(r: Receipt): { status: number | undefined; code: string | undefined } {
  return { status: r.status === 'failed' ? r.errorStatus : 200, code: r.code };
}

/** The receipt succeeded (its code and message shown when not). */
export const ok = (r: Receipt) => expect(r.status, `${r.code}: ${r.message}`).toBe('ok');

/** The receipt failed with this status and code. */
export const refused = (r: Receipt, status: number, code: string) => expect(failure(r)).toEqual({ status, code });
