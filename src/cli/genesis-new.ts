/**
 * `npm run node -- genesis new --validator SOURCE[,name=…,endpoint=…,bond=…] … --out FILE`:
 * the genesis of a new network from its first validators' public values, so that several
 * operators can start a network without sharing a private key. Each SOURCE is a key file
 * (`init`'s node-key.json, read and checked by src/node/keyfile.ts), a JSON file holding
 * the line `init` printed, or that line itself. The genesis is built by
 * src/genesis/compose.ts and checked by the loader; the same inputs give the same file
 * and hash, so every operator can rebuild it and compare. With `--bridge-deployer` the
 * genesis names the bridge before it exists, at the addresses that account's next two
 * contracts will get, so the bridge deployed afterwards is bound to this genesis's hash
 * (decisions 150 and 152).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { composeGenesis, newNetworkTemplate, type NewValidator } from '../genesis/compose';
import { genesisToJson, renderJson } from '../genesis/build';
import { CHAIN_IDS, GenesisError, genesisHashHex, NETWORKS } from '../genesis/load';
import type { BridgeParams, Genesis, GenesisAccount } from '../genesis/types';
import { parsePublicValues, publicValues, readKeyFile, type PublicValues } from '../node/keyfile';
import type { Address } from '../util/bytes';
import { bridgeAddressesAt } from '../bridge/addresses';
import { parseFlags, usage, type FlagSpec } from './args';

const WEI_PER_TOKEN = 10n ** 18n;
/** A real chain's reorgs are shallower than this many blocks; the devnet's hardhat chain uses 2. */
const BRIDGE_CONFIRMATIONS_DEFAULT = 12;
/** An hour: room for the relayer to pay within the window on a congested chain. */
const BRIDGE_WITHDRAWAL_WINDOW_MS_DEFAULT = 3_600_000;
/** Fields a public-values JSON may carry besides the four `init` prints. */
const EXTRA_FIELDS = ['name', 'endpoint', 'bond'] as const;
const VALIDATOR_OPTIONS = /^(.*?)((?:,(?:name|endpoint|bond)=[^,]*)*)$/s;

const NEW_FLAGS = {
  out: { type: 'string', help: 'the genesis file to write (never overwritten)' },
  network: { type: 'string', default: 'testnet', help: 'devnet | testnet | mainnet: the network name in the genesis' },
  'chain-id': {
    type: 'int',
    help: `chain id (default the network's: testnet ${CHAIN_IDS.testnet}, mainnet ${CHAIN_IDS.mainnet}, devnet ${CHAIN_IDS.devnet}; the loader allows no other on testnet and mainnet)`,
  },
  'genesis-time-ms': { type: 'int', help: "block 0's time, Unix ms (default the template's: testnet 1761955200000, 2025-11-01)" },
  owners: { type: 'string', help: "three comma-separated owner addresses (2-of-3 governance); default the template's (genesis/testnet.json's); required on mainnet" },
  operator: { type: 'string', help: "the operator's address, whose ApproveValidator admits a candidate's registration; default the template's (testnet's operator-1); required on mainnet" },
  accounts: {
    type: 'string',
    help: "comma-separated ADDRESS=TOKENS: accounts funded at genesis with that many whole native tokens, beside the template's (a test network's faucet, or the bonds of validators who join later)",
  },
  'epoch-length-blocks': { type: 'int', help: "blocks per epoch: a registered validator enters the active set at the next boundary (default the template's, 10000)" },
  'bridge-deployer': {
    type: 'string',
    help: "the external account that will deploy the bridge (npm run bridge:deploy's deployer): the genesis's bridge section names the addresses its next two contracts get, USDC and the bridge (decision 152; default: the template's section, none on testnet and mainnet)",
  },
  'bridge-deployer-nonce': { type: 'int', help: "with --bridge-deployer: the deployer's next nonce on the external chain (default 0, a fresh account)" },
  'bridge-chain-id': { type: 'int', help: "with --bridge-deployer (required there): the external chain's id" },
  'bridge-confirmations': { type: 'int', default: BRIDGE_CONFIRMATIONS_DEFAULT, help: 'with --bridge-deployer: external blocks a deposit waits for (1 to 1000)' },
  'bridge-withdrawal-window-ms': { type: 'int', default: BRIDGE_WITHDRAWAL_WINDOW_MS_DEFAULT, help: 'with --bridge-deployer: how long a withdrawal signature stays valid on the external chain, ms (60000 to 30 days)' },
} satisfies FlagSpec;

const HELP = `usage: npm run node -- genesis new --validator SOURCE[,name=N,endpoint=HOST:PORT,bond=TOKENS] [--validator …] --out FILE [flags]
Builds a new network's genesis from its first validators' public values and prints one JSON line:
genesis_hash (what \`npm run node -- genesis FILE\` prints), out, network, chain_id, bootstrap: each validator's libp2p multiaddr, and with --bridge-deployer
bridge: {external_chain_id, usdc, address}, where the deploy must put the two contracts.
SOURCE is a key file made by \`init\` (DIR/node-key.json), a JSON file holding the line \`init\` printed, or that
line itself ({"address":…,"ecdsa_pubkey":…,"vrf_pubkey":…,"peer_id":…}). A JSON source may also carry name,
endpoint and bond; the ,name=… options after SOURCE take precedence. Defaults for validator i (1-based, in the
order given): name validator-i, endpoint 127.0.0.1:9000+10(i-1) (one machine's layout: give real endpoints for a
network of several machines), bond 10000000 (whole native tokens, 1000000 to 200000000).
--accounts ADDRESS=TOKENS,… funds accounts at genesis (besides the template's operator account); --epoch-length-blocks
sets how often the active set changes.
Every other parameter (consensus, fees, limits, pairs, perps, oracle, the funded operator account) is
genesis/testnet.json's; --network devnet starts from genesis/devnet.json's instead (its faucet, accounts and bridge).
--bridge-deployer ADDRESS --bridge-chain-id ID [--bridge-deployer-nonce N] writes the bridge section before the bridge
exists: the addresses that deployer's contracts at nonces N and N+1 will get (USDC, then the bridge). Then
\`npm run bridge:deploy -- --genesis FILE --rpc URL\` from that account deploys exactly there, bound to this genesis's
hash, and the validators run with --bridge and the deployment file it writes. (A deployment file cannot name the
bridge: a contract deployed before this genesis existed is bound to another genesis hash; decision 152.)
At least consensus.activeSetMin (4) validators; a repeated address, ecdsa_pubkey, vrf_pubkey, peer_id, name or
endpoint is refused.
Each operator then runs \`npm run node -- bind --home DIR --network FILE\` so that the key file names this genesis.
  --validator          SOURCE[,name=…,endpoint=…,bond=…], once per validator (at least 4)
${usage(NEW_FLAGS)}
`;

interface Input extends PublicValues {
  where: string;
  name?: string;
  endpoint?: string;
  bondTokens?: string;
}

/** Splits `--validator` (repeatable) out of argv; the rest goes to parseFlags. */
function takeValidators(argv: string[]): { validators: string[]; rest: string[] } {
  const validators: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--validator') {
      const v = argv[++i];
      if (v === undefined) throw new Error('--validator needs a value');
      validators.push(v);
    } else if (a.startsWith('--validator=')) validators.push(a.slice('--validator='.length));
    else rest.push(a);
  }
  return { validators, rest };
}

/** One `--validator` value → its public values and options. */
function readValidator(arg: string, index: number): Input {
  const m = VALIDATOR_OPTIONS.exec(arg)!;
  const source = m[1];
  const inline = source.trimStart().startsWith('{');
  // A path is named whole; an inline JSON line by its start (its address).
  const where = `--validator ${index + 1} (${inline && source.length > 40 ? `${source.slice(0, 40)}…` : source})`;
  let json: unknown;
  let values: PublicValues;
  if (inline) {
    json = parseJson(source, where);
    values = parsePublicValues(json, where, EXTRA_FIELDS);
  } else {
    const path = resolve(source);
    if (!existsSync(path)) throw new Error(`${where}: no such file`);
    json = parseJson(readFileSync(path, 'utf8'), where);
    if (json !== null && typeof json === 'object' && 'version' in json) {
      values = publicValues(readKeyFile(path)); // a key file: checked whole, only its public values used
      json = {};
    } else values = parsePublicValues(json, where, EXTRA_FIELDS);
  }
  const input: Input = { ...values, where };
  const fromJson = json as Record<string, unknown>;
  for (const k of EXTRA_FIELDS) {
    const v = fromJson[k];
    if (v === undefined) continue;
    if (typeof v !== 'string' && !(k === 'bond' && typeof v === 'number')) throw new Error(`${where}: ${k}: must be a string`);
    setOption(input, k, String(v));
  }
  for (const opt of m[2].split(',').slice(1)) {
    const [k, v] = opt.split(/=(.*)/s, 2) as [(typeof EXTRA_FIELDS)[number], string];
    setOption(input, k, v);
  }
  return input;
}

function setOption(input: Input, key: (typeof EXTRA_FIELDS)[number], value: string): void {
  if (key === 'bond') {
    if (!/^(0|[1-9][0-9]*)$/.test(value)) throw new Error(`${input.where}: bond: must be whole native tokens (digits only), got ${JSON.stringify(value)}`);
    input.bondTokens = value;
  } else input[key] = value;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${where}: invalid JSON: ${(err as Error).message}`);
  }
}

/** Refuses a value two inputs share, naming the field and both inputs. */
function refuseDuplicates(inputs: Input[]): void {
  const fields = ['address', 'ecdsa_pubkey', 'vrf_pubkey', 'peer_id', 'name', 'endpoint'] as const;
  for (const field of fields) {
    const seen = new Map<string, string>();
    for (const input of inputs) {
      const value = input[field];
      if (value === undefined) continue;
      const first = seen.get(value);
      if (first !== undefined) throw new Error(`${input.where}: duplicate ${field} ${value}, already given by ${first}`);
      seen.set(value, input.where);
    }
  }
}

/** The libp2p address peers dial to reach a validator: its endpoint and peer id. */
function bootstrapAddress(endpoint: string, peerId: string): string {
  const i = endpoint.lastIndexOf(':');
  const host = endpoint.slice(0, i);
  const port = endpoint.slice(i + 1);
  const proto = host.startsWith('[') ? 'ip6' : /^[0-9.]+$/.test(host) ? 'ip4' : 'dns';
  return `/${proto}/${host.replace(/^\[|\]$/g, '')}/tcp/${port}/p2p/${peerId}`;
}

/** `--accounts ADDRESS=TOKENS,…` → funded accounts (native tokens only), refusing a repeated address. */
function parseAccounts(value: string): GenesisAccount[] {
  const seen = new Set<string>();
  return value.split(',').map((part, i) => {
    const m = /^(0x[0-9a-fA-F]{40})=(0|[1-9][0-9]*)$/.exec(part.trim());
    if (!m) throw new Error(`--accounts: entry ${i + 1} ${JSON.stringify(part)} is not ADDRESS=TOKENS (0x and 40 hex digits, = whole native tokens)`);
    const address = m[1].toLowerCase() as Address;
    if (seen.has(address)) throw new Error(`--accounts: ${address} is given twice`);
    seen.add(address);
    return { address, usdc: 0n, nativeWei: BigInt(m[2]) * WEI_PER_TOKEN, label: `account-${i + 1}` };
  });
}

function parseOwners(value: string): [Address, Address, Address] {
  const parts = value.split(',');
  if (parts.length !== 3) throw new Error(`--owners: three comma-separated addresses, got ${parts.length}`);
  return parts.map((p) => {
    if (!/^0x[0-9a-fA-F]{40}$/.test(p)) throw new Error(`--owners: ${JSON.stringify(p)} is not an address (0x and 40 hex digits)`);
    return p.toLowerCase();
  }) as [Address, Address, Address];
}

interface BridgeFlags {
  'bridge-deployer'?: string;
  'bridge-deployer-nonce'?: number;
  'bridge-chain-id'?: number;
  'bridge-confirmations': number;
  'bridge-withdrawal-window-ms': number;
}

/**
 * `--bridge-deployer` and its flags: the bridge section naming where that deployer's next
 * two contracts will land (decision 152), so the contract deployed afterwards is bound to
 * this very genesis; nothing without it (the template's section stays).
 */
function bridgeSection(f: BridgeFlags): BridgeParams | undefined {
  const deployer = f['bridge-deployer'];
  if (deployer === undefined) {
    for (const k of ['bridge-deployer-nonce', 'bridge-chain-id'] as const) {
      if (f[k] !== undefined) throw new Error(`--${k} goes with --bridge-deployer ADDRESS, which is missing`);
    }
    return undefined;
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(deployer)) throw new Error(`--bridge-deployer: ${JSON.stringify(deployer)} is not an address (0x and 40 hex digits)`);
  const chainId = f['bridge-chain-id'];
  if (chainId === undefined) throw new Error("--bridge-chain-id ID is required with --bridge-deployer (the external chain's id)");
  const { usdc, bridge } = bridgeAddressesAt(deployer.toLowerCase(), BigInt(f['bridge-deployer-nonce'] ?? 0));
  return {
    externalChainId: chainId,
    address: bridge.toLowerCase() as Address,
    usdc: usdc.toLowerCase() as Address,
    confirmations: f['bridge-confirmations'],
    withdrawalWindowMs: f['bridge-withdrawal-window-ms'],
  };
}

/** `--bridge FILE` was how a genesis named a bridge deployed before it; that contract is bound to another genesis (decision 152). */
function refuseDeploymentFile(argv: string[]): void {
  if (!argv.some((a) => a === '--bridge' || a.startsWith('--bridge='))) return;
  throw new Error(
    '--bridge FILE: a genesis cannot name a bridge deployed before it: that contract is bound to the genesis hash it was deployed against, ' +
      'and naming it here changes the hash, so the network would refuse its own bridge (decision 152). ' +
      'Give --bridge-deployer ADDRESS --bridge-chain-id ID [--bridge-deployer-nonce N] instead, then deploy with npm run bridge:deploy -- --genesis FILE --rpc URL',
  );
}

export function genesisNew(argv: string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return;
  }
  const { validators: args, rest } = takeValidators(argv);
  refuseDeploymentFile(rest);
  const f = parseFlags(rest, NEW_FLAGS);
  if (f.out === undefined) throw new Error('--out FILE is required');
  const out = resolve(f.out);
  if (existsSync(out)) throw new Error(`--out ${out}: the file exists; genesis new never overwrites one`);
  if (!(NETWORKS as readonly string[]).includes(f.network)) throw new Error(`--network must be one of ${NETWORKS.join(', ')}, got ${f.network}`);
  const network = f.network as Genesis['network'];
  if (network === 'mainnet' && f.owners === undefined) throw new Error("--owners is required on mainnet (the default owners are the testnet's)");
  if (network === 'mainnet' && f.operator === undefined) throw new Error("--operator is required on mainnet (the default operator is the testnet's)");
  if (f.operator !== undefined && !/^0x[0-9a-fA-F]{40}$/.test(f.operator)) throw new Error(`--operator: ${JSON.stringify(f.operator)} is not an address (0x and 40 hex digits)`);
  const minimum = newNetworkTemplate(network).consensus.activeSetMin;
  const inputs = args.map(readValidator);
  if (inputs.length < minimum) {
    throw new Error(`--validator: a ${network} genesis needs at least consensus.activeSetMin = ${minimum} validators, got ${inputs.length}`);
  }
  refuseDuplicates(inputs);
  const validators: NewValidator[] = inputs.map((v) => ({
    name: v.name,
    address: v.address,
    ecdsaPubkey: `0x${v.ecdsa_pubkey}`,
    vrfPubkey: `0x${v.vrf_pubkey}`,
    endpoint: v.endpoint,
    bondWei: v.bondTokens === undefined ? undefined : BigInt(v.bondTokens) * WEI_PER_TOKEN,
  }));
  const bridge = bridgeSection(f);
  let genesis: Genesis;
  try {
    genesis = composeGenesis({
      network,
      chainId: f['chain-id'],
      genesisTimeMs: f['genesis-time-ms'],
      owners: f.owners === undefined ? undefined : parseOwners(f.owners),
      operator: f.operator === undefined ? undefined : (f.operator.toLowerCase() as Address),
      validators,
      bridge,
      accounts: f.accounts === undefined ? undefined : parseAccounts(f.accounts),
      epochLengthBlocks: f['epoch-length-blocks'],
    });
  } catch (err) {
    // Name the --validator a validator's error is about, not only its place in the file.
    const m = err instanceof GenesisError ? /^genesis\.validators\[(\d+)\]/.exec(err.path) : null;
    if (m) throw new Error(`${inputs[Number(m[1])].where}: ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
  writeFileSync(out, renderJson(genesisToJson(genesis)), { flag: 'wx' });
  process.stdout.write(
    `${JSON.stringify({
      genesis_hash: genesisHashHex(genesis),
      out,
      network: genesis.network,
      chain_id: genesis.chainId,
      bootstrap: genesis.validators.map((v, i) => bootstrapAddress(v.endpoint, inputs[i].peer_id)),
      ...(bridge ? { bridge: { external_chain_id: bridge.externalChainId, usdc: bridge.usdc, address: bridge.address } } : {}),
    })}\n`,
  );
}
