/**
 * `npm run node -- gov …` (issue 21; decision 80): owner governance from the command line.
 *   gov key new --out FILE [--network …]   a fresh owner key file (mode 0600); prints its address
 *   gov key devnet --out DIR               DEVNET ONLY: the three public devnet owner keys as owner-1..3.json
 *   gov propose --key FILE (--op JSON | --kind NAME [--FIELD VALUE …])   prints the operation id
 *   gov approve|execute|cancel --key FILE OPERATION_ID
 *   gov list [--table]                     GET /v1/governance/operations, one JSON line per operation
 * Every command takes `--api URL` (default the devnet's first node). A transaction is
 * signed with the owner key file (src/node/owner-keyfile.ts; `init`'s node-key.json serves
 * too) and posted to the node's POST /tx, which answers once it is final; the command
 * prints one JSON line, or the node's refusal (`error: STATUS CODE: message`) with exit
 * code 1, as `validator register` does (validator-ops.ts).
 *
 * Before signing, the node's GET /chain-config must name the key file's chain id and
 * network, so a signature is never made for another chain. The nonce is the wall clock in
 * milliseconds (the contract's recommendation: owners' nonces are a window, not a
 * sequence, and no route reads them), or `--nonce N`.
 */
import { existsSync, mkdirSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { encodeTx, TxKind } from '../codec/tx';
import { actionDigest, operationIdOf, proposeDigest, type GovActionType, type GovOperation } from '../codec/txs/governance';
import { GOV_JSON_KINDS, jsonFieldsOf, operationFromJson, operationFromJsonText, operationToJson } from '../codec/txs/governance-json';
import { sign } from '../crypto/secp256k1';
import { buildDevnetKeys } from '../genesis/build';
import { CHAIN_IDS, loadGenesisFile, NETWORKS } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { generateOwnerKey, OWNER_KEY_FILE_VERSION, readOwnerKeyFile, writeOwnerKeyFile, type OwnerKey } from '../node/owner-keyfile';
import { hexToBytes, type Hex } from '../util/bytes';
import { parseFlags, usage, type FlagSpec } from './args';
import { callEnvelope } from './envelope-client';
import { nextNonce, submit } from './validator-ops';

const API_FLAG = { api: { type: 'string', default: 'http://127.0.0.1:8545', help: "a node's REST address (any node of the network)" } } satisfies FlagSpec;

const SIGN_FLAGS = {
  key: { type: 'string', help: "the owner key file (gov key new / gov key devnet, or init's node-key.json)" },
  ...API_FLAG,
  nonce: { type: 'string', help: 'the nonce to sign (default: the wall clock in milliseconds)' },
} satisfies FlagSpec;

const PROPOSE_FLAGS = {
  ...SIGN_FLAGS,
  op: { type: 'string', help: `the operation as JSON, e.g. '{"kind":"SetParam","param":"fees.takerFeeBps","value":"5"}'` },
  kind: { type: 'string', help: `the operation kind (${GOV_JSON_KINDS.join(', ')}), its fields as --FIELD VALUE (instead of --op)` },
} satisfies FlagSpec;

const LIST_FLAGS = { ...API_FLAG, table: { type: 'bool', default: false, help: 'a readable table instead of one JSON line per operation' } } satisfies FlagSpec;

const KEY_NEW_FLAGS = {
  out: { type: 'string', help: 'the key file to write (mode 0600; never overwritten)' },
  network: { type: 'string', default: 'devnet', help: 'devnet, testnet, mainnet, or a genesis file: the chain the key signs for' },
} satisfies FlagSpec;

const KEY_DEVNET_FLAGS = { out: { type: 'string', help: 'the folder to write owner-1.json, owner-2.json and owner-3.json to (created with mode 0700)' } } satisfies FlagSpec;

const USAGE = `usage: npm run node -- gov key new --out FILE [--network devnet|testnet|mainnet|GENESIS_FILE]
       npm run node -- gov key devnet --out DIR          (devnet only: its owner keys are public)
       npm run node -- gov propose --key FILE [--api URL] (--op JSON | --kind NAME [--FIELD VALUE …])
       npm run node -- gov approve|execute|cancel --key FILE [--api URL] OPERATION_ID
       npm run node -- gov list [--api URL] [--table]
(--help after each for its flags)
`;

function getJson<T>(api: string, path: string): Promise<T> {
  return callEnvelope<T>(`${api.replace(/\/$/, '')}${path}`);
}

/** The owner key, after the node at `api` has shown it runs the key's chain: nothing is signed for another. */
async function keyForNode(path: string | undefined, api: string): Promise<OwnerKey> {
  if (path === undefined) throw new Error('--key FILE is required');
  const key = readOwnerKeyFile(resolve(path));
  const cfg = await getJson<{ chainId: number; network: string }>(api, '/chain-config');
  if (cfg.chainId !== key.chainId || cfg.network !== key.network) {
    throw new Error(`${path} signs for ${key.network} (chain id ${key.chainId}), but ${api} runs ${cfg.network} (chain id ${cfg.chainId}): nothing was signed`);
  }
  return key;
}

function nonceOf(flag: string | undefined): bigint {
  if (flag === undefined) return nextNonce();
  if (!/^[0-9]{1,30}$/.test(flag)) throw new Error(`--nonce must be a non-negative integer, got ${flag}`);
  return BigInt(flag);
}

/** The signed GovernancePropose transaction and the operation id it creates. */
export function proposeTx(key: OwnerKey, operation: GovOperation, nonce: bigint): { tx: Uint8Array; operationId: Hex } {
  const body = { proposer: key.address, operation, nonce };
  const signature = sign(proposeDigest(key.chainId, body), hexToBytes(key.privateKey));
  return { tx: encodeTx(key.chainId, TxKind.GovernancePropose, { ...body, signature }).bytes, operationId: operationIdOf(key.chainId, body) };
}

const ACTIONS = {
  approve: { type: 'GovernanceApprove', kind: TxKind.GovernanceApprove },
  execute: { type: 'GovernanceExecute', kind: TxKind.GovernanceExecute },
  cancel: { type: 'GovernanceCancel', kind: TxKind.GovernanceCancel },
} as const satisfies Record<string, { type: GovActionType; kind: TxKind }>;

/** The signed GovernanceApprove, GovernanceExecute or GovernanceCancel transaction. */
function actionTx(key: OwnerKey, action: keyof typeof ACTIONS, operationId: Hex, nonce: bigint): Uint8Array {
  const { type, kind } = ACTIONS[action];
  const body = { owner: key.address, operationId, nonce };
  return encodeTx(key.chainId, kind, { ...body, signature: sign(actionDigest(key.chainId, type, body), hexToBytes(key.privateKey)) }).bytes;
}

/**
 * Splits `gov propose`'s arguments: its own flags go to parseFlags, and with --kind every
 * other `--FIELD VALUE` (or `--FIELD=VALUE`) is a field of the operation's JSON form, its
 * value a string (operationFromJson names an unknown field).
 */
function splitProposeArgs(argv: string[]): { own: string[]; fields: Record<string, string> } {
  const own: string[] = [];
  const fields: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    const takesValue = name in PROPOSE_FLAGS;
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    if (takesValue) own.push(`--${name}`, value);
    else if (name in fields) throw new Error(`--${name} is given twice`);
    else fields[name] = value;
  }
  return { own, fields };
}

/** The operation of `gov propose`: --op JSON, or --kind and its fields as flags. */
function operationOf(op: string | undefined, kind: string | undefined, fields: Record<string, string>): GovOperation {
  if (op !== undefined) {
    if (kind !== undefined || Object.keys(fields).length > 0) throw new Error('give the operation either as --op JSON or as --kind NAME with --FIELD flags, not both');
    return operationFromJsonText(op);
  }
  if (kind === undefined) {
    if (Object.keys(fields).length > 0) throw new Error(`unknown flag --${Object.keys(fields)[0]} (an operation's fields need --kind)`);
    throw new Error(`the operation is required: --op JSON or --kind NAME (${GOV_JSON_KINDS.join(', ')})`);
  }
  return operationFromJson({ kind, ...fields });
}

/** `gov propose`'s flags and the operation they give. */
export function parseProposeArgs(argv: string[]): { f: Record<keyof typeof PROPOSE_FLAGS, any>; operation: GovOperation } {
  const { own, fields } = splitProposeArgs(argv);
  const f = parseFlags(own, PROPOSE_FLAGS);
  return { f, operation: operationOf(f.op, f.kind, fields) };
}

/** Takes the one positional OPERATION_ID out of `argv`; the flags (and the values of those that take one) stay. */
function operationIdArg(argv: string[], spec: FlagSpec): { id: Hex; rest: string[] } {
  const rest: string[] = [];
  const ids: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith('--')) {
      rest.push(arg);
      const name = arg.slice(2);
      if (!arg.includes('=') && spec[name] !== undefined && spec[name].type !== 'bool' && i + 1 < argv.length) rest.push(argv[++i]);
    } else ids.push(arg);
  }
  if (ids.length !== 1) throw new Error(ids.length === 0 ? 'OPERATION_ID is required (gov list shows them)' : `one OPERATION_ID, got ${ids.join(' ')}`);
  if (!/^0x[0-9a-fA-F]{64}$/.test(ids[0])) throw new Error(`OPERATION_ID must be 0x and 64 hex digits, got ${ids[0]}`);
  return { id: ids[0].toLowerCase() as Hex, rest };
}

interface ListedOperation {
  id: string;
  kind: string;
  operation: Record<string, unknown>;
  state: string;
  proposer: string;
  approvals: string[];
  readyAtMs: number | null;
  expiresAtMs: number;
  executedHeight: number | null;
}

async function listOperations(api: string): Promise<{ height: number; timestampMs: number; halted: unknown; operations: ListedOperation[] }> {
  return getJson(api, '/v1/governance/operations');
}

function table(data: Awaited<ReturnType<typeof listOperations>>): string {
  const time = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());
  const rows = data.operations.map((o) => [
    o.id,
    o.kind,
    o.state,
    `${o.approvals.length}/2`,
    time(o.readyAtMs),
    time(o.expiresAtMs),
    Object.entries(o.operation)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' '),
  ]);
  const head = ['ID', 'KIND', 'STATE', 'SIGNED', 'READY AT', 'EXPIRES AT', 'FIELDS'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  const halted = data.halted === null ? 'not halted' : `HALTED ${JSON.stringify(data.halted)}`;
  return [`height ${data.height}, block time ${time(data.timestampMs)}, ${halted}`, line(head), ...rows.map(line)].join('\n');
}

/** The network and chain id `gov key new --network` names. */
function bindingOf(value: string): { network: Genesis['network']; chainId: number } {
  if ((NETWORKS as readonly string[]).includes(value)) return { network: value as Genesis['network'], chainId: CHAIN_IDS[value as Genesis['network']] };
  if (existsSync(value)) {
    const g = loadGenesisFile(resolve(value));
    return { network: g.network, chainId: g.chainId };
  }
  throw new Error(`--network ${value}: neither devnet, testnet, mainnet nor an existing genesis file`);
}

async function keyCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const help = rest.includes('--help') || rest.includes('-h');
  if (sub === 'new') {
    if (help) return void process.stdout.write(`usage: npm run node -- gov key new --out FILE [--network devnet|testnet|mainnet|GENESIS_FILE]\n${usage(KEY_NEW_FLAGS)}\n`);
    const f = parseFlags(rest, KEY_NEW_FLAGS);
    if (f.out === undefined) throw new Error('--out FILE is required');
    const b = bindingOf(f.network);
    const key = generateOwnerKey(b.network, b.chainId);
    writeOwnerKeyFile(resolve(f.out), key);
    process.stdout.write(`${JSON.stringify({ address: key.address, network: key.network, chainId: key.chainId, file: resolve(f.out) })}\n`);
    return;
  }
  if (sub === 'devnet') {
    if (help) return void process.stdout.write(`usage: npm run node -- gov key devnet --out DIR   (DEVNET ONLY: these keys are public)\n${usage(KEY_DEVNET_FLAGS)}\n`);
    const f = parseFlags(rest, KEY_DEVNET_FLAGS);
    if (f.out === undefined) throw new Error('--out DIR is required');
    const dir = resolve(f.out);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
    }
    // The devnet owners are derived from public seeds (src/genesis/build.ts): anyone can sign as them.
    const owners = buildDevnetKeys().owners;
    for (const o of owners) {
      const file = join(dir, `${o.name}.json`);
      writeOwnerKeyFile(file, { version: OWNER_KEY_FILE_VERSION, network: 'devnet', chainId: CHAIN_IDS.devnet, address: o.address, privateKey: o.privateKey });
      process.stdout.write(`${JSON.stringify({ name: o.name, address: o.address, network: 'devnet', chainId: CHAIN_IDS.devnet, file })}\n`);
    }
    return;
  }
  process.stdout.write('usage: npm run node -- gov key new|devnet … (--help on each)\n');
  if (sub !== undefined && sub !== '--help' && sub !== '-h') process.exit(1);
}

export async function govCommand(argv: string[]): Promise<void> {
  const [action, ...rest] = argv;
  const help = rest.includes('--help') || rest.includes('-h');
  switch (action) {
    case 'key':
      return keyCommand(rest);
    case 'propose': {
      if (help) {
        const kinds = GOV_JSON_KINDS.map((k) => `  ${k}: ${jsonFieldsOf(k)!.map((x) => `--${x}`).join(' ') || '(no fields)'}`).join('\n');
        return void process.stdout.write(
          `usage: npm run node -- gov propose --key FILE [--api URL] (--op JSON | --kind NAME [--FIELD VALUE …])\n${usage(PROPOSE_FLAGS)}\nkinds and their fields (big integers in decimal; bond in wei):\n${kinds}\n`,
        );
      }
      const { f, operation } = parseProposeArgs(rest); // before the key: a bad operation needs no node
      const key = await keyForNode(f.key, f.api);
      const { tx, operationId } = proposeTx(key, operation, nonceOf(f.nonce));
      const r = await submit(f.api, tx);
      process.stdout.write(`${JSON.stringify({ op: 'GovernancePropose', operationId, operation: operationToJson(operation), proposer: key.address, ...r })}\n`);
      return;
    }
    case 'approve':
    case 'execute':
    case 'cancel': {
      if (help) return void process.stdout.write(`usage: npm run node -- gov ${action} --key FILE [--api URL] OPERATION_ID\n${usage(SIGN_FLAGS)}\n`);
      const { id, rest: flags } = operationIdArg(rest, SIGN_FLAGS);
      const f = parseFlags(flags, SIGN_FLAGS);
      const key = await keyForNode(f.key, f.api);
      const r = await submit(f.api, actionTx(key, action, id, nonceOf(f.nonce)));
      // The operation's state once the transaction is final (a halt's approval executes it).
      const listed = (await listOperations(f.api)).operations.find((o) => o.id === id);
      process.stdout.write(`${JSON.stringify({ op: ACTIONS[action].type, operationId: id, owner: key.address, ...r, state: listed?.state ?? null, readyAtMs: listed?.readyAtMs ?? null })}\n`);
      return;
    }
    case 'list': {
      if (help) return void process.stdout.write(`usage: npm run node -- gov list [--api URL] [--table]\n${usage(LIST_FLAGS)}\n`);
      const f = parseFlags(rest, LIST_FLAGS);
      const data = await listOperations(f.api);
      if (f.table) process.stdout.write(`${table(data)}\n`);
      else for (const o of data.operations) process.stdout.write(`${JSON.stringify(o)}\n`);
      return;
    }
    default:
      process.stdout.write(USAGE);
      if (action !== undefined && action !== '--help' && action !== '-h') process.exit(1);
  }
}
