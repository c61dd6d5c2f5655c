/**
 * Execution-level harness for the validator lifecycle: the devnet genesis cut to four
 * validators with short windows (epoch of 5 blocks, unbonding 2 epochs, set of 4 to 6,
 * bonds 1,000 to 200,000 native tokens, 15% power cap), candidates with deterministic
 * keys funded at genesis, RegisterValidator and Unbond signed as a wallet would, and
 * blocks applied with applyBlock.
 */
import { canonicalCommit, commitHash, merkleRoot, precommitSigningHash, type Block, type Commit } from '../../src/codec/block';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import type { AdminSeedValidator } from '../../src/codec/txs/governance';
import { approvalDigest, seedingDigest, registrationDigest, unbondDigest, unjailDigest, type ApproveValidatorBody, type RegisterValidatorBody, type UnbondBody } from '../../src/codec/txs/validators';
import { recordApproval } from '../../src/state/validators/approvals';
import { privateKeyToAddress, sign, signCompact64 } from '../../src/crypto/secp256k1';
import { ed25519PublicKey, secp256k1CompressedPublicKey } from '../../src/genesis/keys';
import type { Genesis } from '../../src/genesis/types';
import { applyBlock, type BlockResult } from '../../src/state/apply';
import { genesisState } from '../../src/state/genesis';
import type { State } from '../../src/state/state';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../../src/util/bytes';
import { DEVNET_KEYS as DEVNET_OWNER_KEYS, devnetGenesis } from '../helpers/devnet';

export const TOKEN = 10n ** 18n;
const BASE = devnetGenesis(6).genesis;
export const chainId = BASE.chainId;
export const T0 = BASE.genesisTimeMs;
export const EPOCH = 5;

export interface Key {
  privateKey: Uint8Array;
  address: Address;
  ecdsaPubkey: Hex;
  vrfPubkey: Hex;
  /** The Ed25519 seed of the VRF key (proves blocks once the candidate proposes). */
  vrfPrivateKey: Uint8Array;
}

/** A deterministic candidate key from a small seed. */
export function keyOf(seed: number): Key {
  const privateKey = new Uint8Array(32);
  privateKey[0] = 0x5a;
  privateKey[28] = (seed >>> 24) & 0xff;
  privateKey[29] = (seed >>> 16) & 0xff;
  privateKey[30] = (seed >>> 8) & 0xff;
  privateKey[31] = (seed & 0xff) + 1;
  const vrfSeed = new Uint8Array(32).fill(0x33);
  vrfSeed[31] = seed & 0xff;
  vrfSeed[30] = (seed >>> 8) & 0xff;
  return {
    privateKey,
    address: privateKeyToAddress(privateKey),
    ecdsaPubkey: secp256k1CompressedPublicKey(bytesToHex(privateKey)),
    vrfPubkey: ed25519PublicKey(bytesToHex(vrfSeed)),
    vrfPrivateKey: vrfSeed,
  };
}

export const CANDIDATES = Array.from({ length: 12 }, (_, i) => keyOf(i));
export const FUNDED_WEI = 1_000_000n * TOKEN;
export const SMALL_FUNDED_WEI = 2_000n * TOKEN;

/** Four genesis validators of 10,000 tokens each; candidates 0..8 funded with 1,000,000 tokens, 9 with 2,000, 10 and 11 not at all. */
export function testGenesis(overrides: Partial<Genesis['consensus']> = {}, genesisBondWei = 10_000n * TOKEN): Genesis {
  return {
    ...BASE,
    validators: BASE.validators.slice(0, 4).map((v) => ({ ...v, bondWei: genesisBondWei })),
    consensus: {
      ...BASE.consensus,
      epochLengthBlocks: EPOCH,
      unbondingEpochs: 2,
      votingPowerCapBps: 1500,
      activeSetMin: 4,
      activeSetMax: 6,
      minBondWei: 1_000n * TOKEN,
      maxBondWei: 200_000n * TOKEN,
      ...overrides,
    },
    accounts: [...BASE.accounts, ...CANDIDATES.slice(0, 10).map((k, i) => ({ address: k.address, usdc: 0n, nativeWei: i === 9 ? SMALL_FUNDED_WEI : FUNDED_WEI }))],
  };
}

/**
 * The genesis state of `g`. With `approved` (the default) every candidate of CANDIDATES
 * starts with the operator's approval recorded (decision 159), as if ApproveValidator had
 * run before block 1: the lifecycle tests register without repeating it. The gate's own
 * tests (test/validators/approval.test.ts, test/exploits/) start without (`approved: false`).
 */
export function freshState(g: Genesis = testGenesis(), opts: { approved?: boolean } = {}): State {
  const state = genesisState(g, new Uint8Array(32)).state;
  if (opts.approved ?? true) {
    for (const k of CANDIDATES) recordApproval(state, k.address, { operator: g.owners.operator, expiresAtMs: Number.MAX_SAFE_INTEGER, height: 0 });
  }
  return state;
}

/** The network's operator key of the test genesis (devnet owner-1, public). */
export const OPERATOR_KEY = hexToBytes(DEVNET_OWNER_KEYS.owners[0].privateKey);

/** ApproveValidator of `candidate`, signed by `privateKey` (the operator's by default), valid until `expiresAtMs`. */
export function approve(candidate: Address, fields: Partial<Omit<ApproveValidatorBody, 'signature' | 'candidate'>> = {}, privateKey: Uint8Array = OPERATOR_KEY): Tx {
  const unsigned = { operator: privateKeyToAddress(privateKey), candidate, expiresAtMs: T0 + 86_400_000, nonce: 1n, ...fields };
  return encodeTx(chainId, TxKind.ApproveValidator, { ...unsigned, signature: signCompact64(approvalDigest(chainId, unsigned), privateKey) });
}

export function registerBody(k: Key, fields: Partial<RegisterValidatorBody> = {}, signChainId = chainId): RegisterValidatorBody {
  const unsigned = { candidate: k.address, vrfPubkey: k.vrfPubkey, ecdsaPubkey: k.ecdsaPubkey, name: 'node-1', endpoint: 'node1.example.org:26656', bond: 5_000n * TOKEN, nonce: 1n, ...fields };
  return { ...unsigned, signature: signCompact64(registrationDigest(signChainId, unsigned), k.privateKey) };
}

export function register(k: Key, fields: Partial<RegisterValidatorBody> = {}): Tx {
  return encodeTx(chainId, TxKind.RegisterValidator, registerBody(k, fields));
}

/** An AdminSeedValidator's fields for `k`, with `k`'s signature over its seeding (decision 160) made after `fields` apply; `after` changes fields once signed. */
export function seedFor(k: Key, fields: Partial<Omit<AdminSeedValidator, 'candidateSignature'>> = {}, after: Partial<AdminSeedValidator> = {}, signer: Uint8Array = k.privateKey, signChainId = chainId): AdminSeedValidator {
  const unsigned = { validator: k.address, name: 'seeded-1', endpoint: 'seed1.example.org:26656', ecdsaPubkey: k.ecdsaPubkey, vrfPubkey: k.vrfPubkey, bondWei: 5_000n * TOKEN, funder: k.address, ...fields };
  return { ...unsigned, candidateSignature: bytesToHex(signCompact64(seedingDigest(signChainId, unsigned), signer)), ...after };
}

/** Builds the body from `fields`, signs it, then overrides `after` (a field changed after signing). */
export function registerTampered(k: Key, fields: Partial<RegisterValidatorBody>, after: Partial<RegisterValidatorBody>): Tx {
  return encodeTx(chainId, TxKind.RegisterValidator, { ...registerBody(k, fields), ...after });
}

export function unbond(privateKey: Uint8Array, nonce = 2n, validator?: Address): Tx {
  const unsigned = { validator: validator ?? privateKeyToAddress(privateKey), nonce };
  const body: UnbondBody = { ...unsigned, signature: signCompact64(unbondDigest(chainId, unsigned), privateKey) };
  return encodeTx(chainId, TxKind.Unbond, body);
}

export function unjail(privateKey: Uint8Array, nonce: bigint, validator?: Address): Tx {
  const unsigned = { validator: validator ?? privateKeyToAddress(privateKey), nonce };
  return encodeTx(chainId, TxKind.Unjail, { ...unsigned, signature: signCompact64(unjailDigest(chainId, unsigned), privateKey) });
}

/** The devnet keys (public, devnet-only): the genesis validators' private keys. */
export { DEVNET_KEYS } from '../helpers/devnet';

/**
 * The commit of the head block signed (real precommit signatures) by the holders of
 * `keys`: what the next block carries as its lastCommit.
 */
export function headCommit(state: State, keys: readonly Uint8Array[]): Commit {
  const head = state.head();
  const blockHash = hexToBytes(head.blockHash);
  const digest = precommitSigningHash(chainId, head.height, 0, blockHash);
  return canonicalCommit({ height: head.height, round: 0, blockHash, signatures: keys.map((k) => ({ validator: privateKeyToAddress(k), signature: sign(digest, k) })) });
}

/** Applies one block carrying `txs`, one second after the head; `lastCommit` as given (none by default). */
export function applyNext(state: State, txs: Tx[] = [], lastCommit: Commit | null = null): BlockResult {
  const head = state.head();
  const block: Block = {
    header: {
      chainId,
      height: head.height + 1,
      timestampMs: head.timestampMs + 1000,
      round: 0,
      parentHash: new Uint8Array(32),
      parentStateRoot: state.root(),
      validatorsHash: new Uint8Array(32),
      proposer: BASE.validators[0].address,
      txRoot: merkleRoot(txs.map((t) => t.hash)),
      txCount: txs.length,
      lastCommitHash: commitHash(lastCommit),
      vrfProof: new Uint8Array(80), // execution does not read it (consensus checks it)
    },
    lastCommit,
    txs: txs.map((t) => t.bytes),
  };
  return applyBlock(state, block);
}

/** Applies empty blocks up to and including `height`. */
export function applyTo(state: State, height: number): void {
  while (state.head().height < height) applyNext(state);
}
