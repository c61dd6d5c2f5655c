/**
 * Execution-level harness for the bridge (decisions 82, 83): a State from the devnet
 * genesis (which names the hardhat bridge) with a chosen validator set (the devnet's
 * public validator keys, bonds as given), attestations and withdrawal signatures signed
 * with those keys, owner-signed withdrawal requests, and blocks at chosen times applied
 * with applyBlock, the reserve check read after each.
 */
import { expect } from 'vitest';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import {
  BridgeClaimKind,
  signAttestation,
  signWithdrawalSignatures,
  WithdrawalVoidReason,
  type BridgeClaim,
} from '../../src/codec/txs/bridge';
import { Secp256k1Signer } from '../../src/consensus/signer';
import { bridgeWithdrawalSigningHash } from '../../src/signing/bridge-withdrawal';
import { hashTypedMessage } from '../../src/signing/eip712';
import { sign } from '../../src/crypto/secp256k1';
import type { Genesis } from '../../src/genesis/types';
import type { BlockResult } from '../../src/state/apply';
import { reserveCheck, withdrawalMessage } from '../../src/state/bridge/reads';
import { genesisState } from '../../src/state/genesis';
import type { State } from '../../src/state/state';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';
import { applyAt as applyBlockAt } from '../oracle/harness';

export const BASE = devnetGenesis(6).genesis;
export const chainId = BASE.chainId;
export const T0 = BASE.genesisTimeMs;
export const POWER = 10n ** 25n;

/** The devnet's six validator keys (public, devnet-only). */
export const signers = DEVNET_KEYS.validators.map((v) => new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey)));
/** A key outside every validator set. */
export const outsider = new Secp256k1Signer(Uint8Array.from({ length: 32 }, (_, i) => (i === 0 ? 0x42 : i)));

/** A funded devnet account (1,000,000 USDC at genesis) that requests withdrawals. */
const ownerKey = hexToBytes(DEVNET_KEYS.accounts[7].privateKey);
export const owner = DEVNET_KEYS.accounts[7].address.toLowerCase() as Address;
export const destination = '0x00000000000000000000000000000000000000d5' as Address;

/** The devnet genesis with the first powers.length validators bonded with those powers; `bridge: false` drops the bridge section. */
export function genesisWith(powers: bigint[], opts: { bridge?: boolean } = {}): Genesis {
  const validators = BASE.validators.slice(0, powers.length).map((v, i) => ({ ...v, bondWei: powers[i] }));
  const g: Genesis = { ...BASE, validators, consensus: { ...BASE.consensus, activeSetMin: 1 } };
  if (opts.bridge === false) delete g.bridge;
  return g;
}

export function freshState(powers: bigint[], opts: { bridge?: boolean } = {}): State {
  return genesisState(genesisWith(powers, opts), new Uint8Array(32)).state;
}

export const txHash = (b: number) => new Uint8Array(32).fill(b);

export function deposit(depositId: bigint, recipient: Address, amount: bigint, externalTx = txHash(Number(depositId % 200n) + 1)): BridgeClaim {
  return { kind: BridgeClaimKind.Deposit, depositId, recipient, amount, externalTx };
}
/** What the external log of withdrawal `id` carries when it is `state`'s record (an id the state does not hold: made-up fields). */
function recordFields(state: State, withdrawalId: bigint): { recipient: Address; amount: bigint; validUntil: bigint } {
  const w = state.withdrawals.get(String(withdrawalId));
  return w ? { recipient: w.destination, amount: w.amount, validUntil: w.validUntilSec } : { recipient: destination, amount: 1n, validUntil: 0n };
}
/** The Queued claim of withdrawal `id` as its record in `state` holds it (the watcher's, decision 154). */
export function queued(state: State, withdrawalId: bigint, externalTx = txHash(0xa1)): BridgeClaim {
  return { kind: BridgeClaimKind.WithdrawalQueued, withdrawalId, ...recordFields(state, withdrawalId), externalTx };
}
/** The Paid claim of withdrawal `id` as its record in `state` holds it. */
export function paid(state: State, withdrawalId: bigint, externalTx = txHash(0xb2)): BridgeClaim {
  const { recipient, amount } = recordFields(state, withdrawalId);
  return { kind: BridgeClaimKind.WithdrawalPaid, withdrawalId, recipient, amount, externalTx };
}
export const voided = (withdrawalId: bigint, reason = WithdrawalVoidReason.Expired, externalTx = txHash(0)): BridgeClaim => ({
  kind: BridgeClaimKind.WithdrawalVoid,
  withdrawalId,
  reason,
  externalTx,
});

type Signer = { address: Address; sign(d: Uint8Array): Uint8Array };

export function attestation(by: Signer, claims: BridgeClaim[]): Tx {
  return encodeTx(chainId, TxKind.BridgeAttestation, signAttestation(chainId, { validator: by.address, claims }, by));
}

/** `by`'s signature over withdrawal `id`'s message as stored in `state` (or as `tweak` changes it). */
export function withdrawalSignature(state: State, by: Signer, id: bigint, tweak: (m: ReturnType<typeof withdrawalMessage>) => ReturnType<typeof withdrawalMessage> = (m) => m): Uint8Array {
  const w = state.withdrawals.get(String(id));
  if (!w) throw new Error(`no withdrawal ${id}`);
  return by.sign(bridgeWithdrawalSigningHash(tweak(withdrawalMessage(state, w))));
}

export function signaturesTx(by: Signer, items: { withdrawalId: bigint; signature: Uint8Array }[]): Tx {
  return encodeTx(chainId, TxKind.WithdrawalSignatures, signWithdrawalSignatures(chainId, { validator: by.address, items }, by));
}

let withdrawNonce = 1n;
/** An owner-signed Withdraw of `amount` to `destination`. */
export function withdrawTx(amount: bigint, nonce = withdrawNonce++): Tx {
  const message = { owner, amount, destination, nonce };
  const signature = sign(hashTypedMessage(chainId, 'Withdraw', message), ownerKey);
  return encodeTx(chainId, TxKind.Withdraw, { owner, signer: owner, amount, destination, nonce, signature });
}

/** Applies one block at `timestampMs` carrying `txs` (the oracle harness's block), and checks the reserve reading stays exact. */
export function applyAt(state: State, txs: Tx[], timestampMs: number): BlockResult {
  const result = applyBlockAt(state, txs, timestampMs);
  expect(reserveCheck(state).difference).toBe(0n);
  return result;
}

/** Each receipt as its code, or 'ok'. */
export const outcomes = (r: BlockResult) => r.receipts.map((x) => x.code ?? x.status);
