/**
 * `npm run node -- validator register|unbond|unjail --home DIR [--api URL] …`: the
 * validator's own lifecycle transactions (contract [C-auth-register]; decisions 68, 69),
 * signed with the key file `init` made and posted to a node's `POST /tx`, which answers
 * once the transaction is final. Prints one JSON line: the transaction hash and height.
 *
 * The chain id signed is the one the key file is bound to (a node of another network
 * refuses it with WRONG_CHAIN); the nonce is the wall clock in milliseconds, as the
 * contract recommends (a second operation in the same millisecond gets the next one).
 * The self-service registration route of the onboarding service (POST
 * /api/validators/register) is the governance and onboarding issue's; this command
 * submits the same transaction directly.
 */
import { resolve } from 'node:path';
import { encodeTx, TxKind } from '../codec/tx';
import { registrationDigest, unbondDigest, unjailDigest, type RegisterValidatorBody, type UnbondBody } from '../codec/txs/validators';
import { sign } from '../crypto/secp256k1';
import { keyFilePath, readKeyFile, type NodeKeys } from '../node/keyfile';
import { bytesToHex, hexToBytes } from '../util/bytes';
import { parseFlags, usage, type FlagSpec } from './args';

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
} satisfies FlagSpec;

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

/** Posts the raw transaction; resolves with the final answer or throws the node's error envelope as a message. */
export async function submit(api: string, txBytes: Uint8Array): Promise<{ txHash: string; height: number }> {
  const res = await fetch(`${api.replace(/\/$/, '')}/tx`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tx: bytesToHex(txBytes) }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await res.json().catch(() => null)) as { success?: boolean; data?: { txHash: string; height: number }; error?: { code: string; message: string } } | null;
  if (!res.ok || !body?.success || !body.data) {
    const e = body?.error;
    throw new Error(e ? `${res.status} ${e.code}: ${e.message}` : `${res.status} from ${api}/tx`);
  }
  return body.data;
}

/** Whole tokens as wei; refuses anything but a plain decimal integer. */
export function tokensToWei(tokens: string): bigint {
  if (!/^[0-9]{1,30}$/.test(tokens)) throw new Error(`--bond must be a whole number of native tokens, got ${tokens}`);
  return BigInt(tokens) * WEI_PER_TOKEN;
}

export function registerTx(keys: NodeKeys, b: { bondWei: bigint; name: string; endpoint: string; nonce: bigint }): Uint8Array {
  const body: Omit<RegisterValidatorBody, 'signature'> = {
    candidate: keys.address,
    vrfPubkey: keys.vrfPubkey,
    ecdsaPubkey: keys.ecdsaPubkey,
    name: b.name,
    endpoint: b.endpoint,
    bond: b.bondWei,
    nonce: b.nonce,
  };
  const signature = sign(registrationDigest(keys.chainId, body), hexToBytes(keys.ecdsaPrivateKey));
  return encodeTx(keys.chainId, TxKind.RegisterValidator, { ...body, signature }).bytes;
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
      if (help) return void process.stdout.write(`usage: npm run node -- validator register --home DIR --bond TOKENS --name NAME --endpoint HOST:PORT [--api URL]\n${usage(REGISTER_FLAGS)}\n`);
      const f = parseFlags(rest, REGISTER_FLAGS);
      for (const k of ['bond', 'name', 'endpoint'] as const) if (f[k] === undefined) throw new Error(`--${k} is required`);
      const keys = loadKeys(f.home);
      const tx = registerTx(keys, { bondWei: tokensToWei(f.bond), name: f.name, endpoint: f.endpoint, nonce: nextNonce() });
      const r = await submit(f.api, tx);
      process.stdout.write(`${JSON.stringify({ op: 'RegisterValidator', address: keys.address, ...r })}\n`);
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
    default:
      process.stdout.write('usage: npm run node -- validator register|unbond|unjail --home DIR [--api URL] … (--help on each)\n');
      if (action !== undefined && action !== '--help' && action !== '-h') process.exit(1);
  }
}
