/**
 * `npm run node -- validator apply|register|unbond|unjail --home DIR [--api URL] …`: the
 * validator's own lifecycle transactions (contract [C-auth-register]; decisions 68, 69),
 * signed with the key file `init` made and posted to a node's `POST /tx`, which answers
 * once the transaction is final. Prints one JSON line: the transaction hash and height.
 * A registration needs the network operator's approval first (decision 159): the
 * onboarding service sends it when the operator approves, or the operator sends it by
 * hand with `validator approve CANDIDATE --key FILE` (its operator key file, the devnet's
 * owner-1 by default on devnet). `validator seed-sign` prints the owners' AdminSeedValidator
 * operation for `gov propose --op`, signed by the validator's key (decision 160).
 *
 * The chain id signed is the one the key file is bound to (a node of another network
 * refuses it with WRONG_CHAIN); the nonce is the wall clock in milliseconds, as the
 * contract recommends (a second operation in the same millisecond gets the next one).
 * With `--onboarding URL`, `register` posts the same signed registration to the
 * onboarding service's POST /api/validators/register instead (the fields of contract [C-onboard-register], the
 * signature in its 64-byte form), which checks the candidate was approved and its node
 * is synced before submitting the transaction (decision 79).
 *
 * `validator apply --home DIR --onboarding URL --name … --endpoint … --email …` is the
 * step before: the application to the onboarding service (POST /api/validators/apply),
 * signed with the same key over the network's chain id and the wall clock
 * (src/onboarding/application-auth.ts; decision 164), so nobody applies in another's name.
 */
import { resolve } from 'node:path';
import { encodeTx, TxKind } from '../codec/tx';
import { GovOpKind } from '../codec/txs/governance';
import { operationToJson } from '../codec/txs/governance-json';
import { registrationDigest, seedingDigest, unbondDigest, unjailDigest, type RegisterValidatorBody, type UnbondBody } from '../codec/txs/validators';
import { sign } from '../crypto/secp256k1';
import { keyFilePath, readKeyFile, type NodeKeys } from '../node/keyfile';
import { signApplication, type ApplicationProof } from '../onboarding/application-auth';
import { APPROVAL_LIFETIME_MS, approvalTx } from '../onboarding/approval';
import type { Application } from '../onboarding/fields';
import { devnetOperatorKey, readOperatorKey } from '../onboarding/operator-key';
import { bytesToHex, hexToBytes, isAddress, type Address } from '../util/bytes';
import { resolveNetwork } from './init';
import { parseFlags, usage, type FlagSpec } from './args';
import { callEnvelope } from './envelope-client';

const WEI_PER_TOKEN = 10n ** 18n;

const COMMON_FLAGS = {
  home: { type: 'string', help: 'the node folder made by init (its node-key.json signs)' },
  api: { type: 'string', default: 'http://127.0.0.1:8545', help: "a node's REST address (any node of the network: a full node relays the transaction)" },
} satisfies FlagSpec;

const REGISTER_FLAGS = {
  ...COMMON_FLAGS,
  bond: { type: 'string', help: 'self-bond in whole native tokens (1,000,000 to 200,000,000 on the spec networks), locked from the key address\'s native balance' },
  name: { type: 'string', help: 'validator name: 1 to 32 characters of A-Z a-z 0-9 _ -' },
  endpoint: { type: 'string', help: "host:port of the node's libp2p endpoint" },
  onboarding: { type: 'string', help: "the onboarding service's address: register through its POST /api/validators/register (approved applicants) instead of a node's POST /tx" },
} satisfies FlagSpec;

const DAY_MS = 86_400_000;

const APPROVE_FLAGS = {
  api: COMMON_FLAGS.api,
  network: { type: 'string', default: 'devnet', help: 'devnet, testnet or a genesis file: the chain id the approval is signed for' },
  key: { type: 'string', help: "the operator's key file (npm run operator -- keygen, or a node key file); default on devnet: owner-1, the devnet's operator" },
  days: { type: 'int', default: APPROVAL_LIFETIME_MS / DAY_MS, help: 'how long the approval admits a registration, in days of block time (at most 30)' },
} satisfies FlagSpec;

const SEED_FLAGS = {
  home: COMMON_FLAGS.home,
  bond: REGISTER_FLAGS.bond,
  name: REGISTER_FLAGS.name,
  endpoint: REGISTER_FLAGS.endpoint,
  funder: { type: 'string', help: "who pays the bond: this validator's address (default) or an owner's" },
} satisfies FlagSpec;

/** The AdminSeedValidator operation's JSON for `gov propose --op`, signed by the validator's own key (decision 160). */
export function seedOperationJson(keys: NodeKeys, b: { bondWei: bigint; name: string; endpoint: string; funder: Address }): Record<string, unknown> {
  const fields = { validator: keys.address, vrfPubkey: keys.vrfPubkey, ecdsaPubkey: keys.ecdsaPubkey, name: b.name, endpoint: b.endpoint, bondWei: b.bondWei, funder: b.funder };
  const signature = sign(seedingDigest(keys.chainId, fields), hexToBytes(keys.ecdsaPrivateKey));
  return operationToJson({ kind: GovOpKind.AdminSeedValidator, ...fields, candidateSignature: bytesToHex(signature) });
}

const APPLY_FLAGS = {
  home: COMMON_FLAGS.home,
  onboarding: { type: 'string', help: "the onboarding service's address (its POST /api/validators/apply)" },
  name: REGISTER_FLAGS.name,
  endpoint: REGISTER_FLAGS.endpoint,
  email: { type: 'string', help: 'where the operator reaches you' },
} satisfies FlagSpec;

/** The application body signed with the node key (its address applies), stamped `nowMs`. */
export function applyRequest(keys: NodeKeys, form: { name: string; endpoint: string; email: string }, nowMs = Date.now()): Application & ApplicationProof {
  return signApplication(keys.ecdsaPrivateKey, keys.chainId, { address: keys.address.toLowerCase(), ...form }, nowMs);
}

let lastNonce = 0n;
/** Milliseconds since the epoch, strictly increasing within this process (the gov command's too). */
export function nextNonce(): bigint {
  const now = BigInt(Date.now());
  lastNonce = now > lastNonce ? now : lastNonce + 1n;
  return lastNonce;
}

function loadKeys(home: string | undefined): NodeKeys {
  if (home === undefined) throw new Error('--home DIR is required');
  return readKeyFile(keyFilePath(resolve(home)));
}

/** Posts the raw transaction; resolves with the final answer or throws the node's refusal (EnvelopeRefusal). */
export function submit(api: string, txBytes: Uint8Array): Promise<{ txHash: string; height: number }> {
  return callEnvelope(`${api.replace(/\/$/, '')}/tx`, { json: { tx: bytesToHex(txBytes) }, timeoutMs: 60_000 });
}

/** Whole tokens as wei; refuses anything but a plain decimal integer. */
export function tokensToWei(tokens: string): bigint {
  if (!/^[0-9]{1,30}$/.test(tokens)) throw new Error(`--bond must be a whole number of native tokens, got ${tokens}`);
  return BigInt(tokens) * WEI_PER_TOKEN;
}

type RegisterFields = { bondWei: bigint; name: string; endpoint: string; nonce: bigint };

function signedRegistration(keys: NodeKeys, b: RegisterFields): RegisterValidatorBody {
  const body: Omit<RegisterValidatorBody, 'signature'> = {
    candidate: keys.address,
    vrfPubkey: keys.vrfPubkey,
    ecdsaPubkey: keys.ecdsaPubkey,
    name: b.name,
    endpoint: b.endpoint,
    bond: b.bondWei,
    nonce: b.nonce,
  };
  return { ...body, signature: sign(registrationDigest(keys.chainId, body), hexToBytes(keys.ecdsaPrivateKey)) };
}

export function registerTx(keys: NodeKeys, b: RegisterFields): Uint8Array {
  return encodeTx(keys.chainId, TxKind.RegisterValidator, signedRegistration(keys, b)).bytes;
}

/** The onboarding service's register request (contract [C-onboard-register]'s fields; the signature's 64-byte form, r‖s). */
export function registerRequest(keys: NodeKeys, b: RegisterFields): Record<string, string> {
  const r = signedRegistration(keys, b);
  return {
    op: 'RegisterValidator',
    candidate: r.candidate,
    // The contract's forms: keys as bare hex (64 and 66 characters), the signature as 128 hex.
    vrf_pubkey: r.vrfPubkey.slice(2),
    ecdsa_pubkey: r.ecdsaPubkey.slice(2),
    name: r.name,
    endpoint: r.endpoint,
    bond: r.bond.toString(),
    nonce: r.nonce.toString(),
    signature: bytesToHex(r.signature.subarray(0, 64)).slice(2),
  };
}

/** Posts to the onboarding service's register route; resolves with its answer or throws its refusal (EnvelopeRefusal). */
async function submitToOnboarding(url: string, request: Record<string, string>): Promise<{ txHash: string; height: number }> {
  const r = await callEnvelope<{ txHash: string; height: number }>(`${url.replace(/\/$/, '')}/api/validators/register`, { json: request, timeoutMs: 90_000 });
  return { txHash: r.txHash, height: r.height };
}

export function leaveOrReturnTx(keys: NodeKeys, kind: TxKind.Unbond | TxKind.Unjail, nonce: bigint): Uint8Array {
  const body: Omit<UnbondBody, 'signature'> = { validator: keys.address, nonce };
  const digest = kind === TxKind.Unbond ? unbondDigest(keys.chainId, body) : unjailDigest(keys.chainId, body);
  return encodeTx(keys.chainId, kind, { ...body, signature: sign(digest, hexToBytes(keys.ecdsaPrivateKey)) }).bytes;
}

export async function validatorCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  const help = rest.includes('--help') || rest.includes('-h');
  switch (action) {
    case 'register': {
      if (help) return void process.stdout.write(`usage: npm run node -- validator register --home DIR --bond TOKENS --name NAME --endpoint HOST:PORT [--api URL | --onboarding URL]\n${usage(REGISTER_FLAGS)}\n`);
      const f = parseFlags(rest, REGISTER_FLAGS);
      for (const k of ['bond', 'name', 'endpoint'] as const) if (f[k] === undefined) throw new Error(`--${k} is required`);
      const keys = loadKeys(f.home);
      const fields = { bondWei: tokensToWei(f.bond), name: f.name, endpoint: f.endpoint, nonce: nextNonce() };
      const r = f.onboarding !== undefined ? await submitToOnboarding(f.onboarding, registerRequest(keys, fields)) : await submit(f.api, registerTx(keys, fields));
      process.stdout.write(`${JSON.stringify({ op: 'RegisterValidator', address: keys.address, ...r })}\n`);
      return;
    }
    case 'apply': {
      if (help) return void process.stdout.write(`usage: npm run node -- validator apply --home DIR --onboarding URL --name NAME --endpoint HOST:PORT --email ADDRESS\n${usage(APPLY_FLAGS)}\n`);
      const f = parseFlags(rest, APPLY_FLAGS);
      for (const k of ['onboarding', 'name', 'endpoint', 'email'] as const) if (f[k] === undefined) throw new Error(`--${k} is required`);
      const keys = loadKeys(f.home);
      const r = await callEnvelope<Record<string, unknown>>(`${f.onboarding.replace(/\/$/, '')}/api/validators/apply`, { json: applyRequest(keys, { name: f.name, endpoint: f.endpoint, email: f.email }), timeoutMs: 30_000 });
      process.stdout.write(`${JSON.stringify({ op: 'Apply', ...r })}\n`);
      return;
    }
    case 'unbond':
    case 'unjail': {
      if (help) return void process.stdout.write(`usage: npm run node -- validator ${action} --home DIR [--api URL]\n${usage(COMMON_FLAGS)}\n`);
      const f = parseFlags(rest, COMMON_FLAGS);
      const keys = loadKeys(f.home);
      const kind = action === 'unbond' ? TxKind.Unbond : TxKind.Unjail;
      const r = await submit(f.api, leaveOrReturnTx(keys, kind, nextNonce()));
      process.stdout.write(`${JSON.stringify({ op: action === 'unbond' ? 'Unbond' : 'Unjail', address: keys.address, ...r })}\n`);
      return;
    }
    case 'approve': {
      if (help) return void process.stdout.write(`usage: npm run node -- validator approve CANDIDATE [--key FILE] [--network N] [--api URL] [--days N]\n${usage(APPROVE_FLAGS)}\n`);
      const [candidate, ...flags] = rest;
      if (candidate === undefined || !isAddress(candidate)) throw new Error('validator approve CANDIDATE: the candidate address (0x and 40 hex characters) comes first');
      const f = parseFlags(flags, APPROVE_FLAGS);
      const { genesis } = resolveNetwork(f.network);
      if (f.key === undefined && genesis.network !== 'devnet') throw new Error('--key FILE is required outside devnet (the operator key file)');
      const key = f.key === undefined ? devnetOperatorKey() : readOperatorKey(resolve(f.key));
      if (f.days < 1 || f.days > 30) throw new Error(`--days ${f.days}: from 1 to 30`);
      const r = await submit(f.api, approvalTx(genesis.chainId, key, candidate as Address, Date.now() + f.days * DAY_MS, nextNonce()));
      process.stdout.write(`${JSON.stringify({ op: 'ApproveValidator', operator: key.address, candidate: candidate.toLowerCase(), ...r })}\n`);
      return;
    }
    case 'seed-sign': {
      if (help) return void process.stdout.write(`usage: npm run node -- validator seed-sign --home DIR --bond TOKENS --name NAME --endpoint HOST:PORT [--funder ADDRESS]\n${usage(SEED_FLAGS)}\n`);
      const f = parseFlags(rest, SEED_FLAGS);
      for (const k of ['bond', 'name', 'endpoint'] as const) if (f[k] === undefined) throw new Error(`--${k} is required`);
      const keys = loadKeys(f.home);
      if (f.funder !== undefined && !isAddress(f.funder)) throw new Error(`--funder ${f.funder}: must be 0x and 40 hex characters`);
      const funder = (f.funder ?? keys.address).toLowerCase() as Address;
      process.stdout.write(`${JSON.stringify(seedOperationJson(keys, { bondWei: tokensToWei(f.bond), name: f.name, endpoint: f.endpoint, funder }))}\n`);
      return;
    }
    default:
      process.stdout.write('usage: npm run node -- validator apply|register|unbond|unjail|approve|seed-sign … (--help on each)\n');
      if (action !== undefined && action !== '--help' && action !== '-h') process.exit(1);
  }
}
