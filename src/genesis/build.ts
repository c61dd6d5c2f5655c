/**
 * Deterministic genesis generator (pure; no I/O). scripts/make-genesis.ts writes its
 * output to genesis/devnet.json, genesis/testnet.json and genesis/devnet-keys.json;
 * test/genesis checks that the committed files equal what these functions return.
 *
 * Key derivation (documented in docs/genesis.md and docs/devnet-accounts.md):
 * - devnet validator i (1..6): ECDSA key keccak256(utf8("exchange-devnet-validator-" + i)),
 *   VRF (Ed25519) seed = first 32 bytes of sha512(utf8("exchange-devnet-validator-vrf-" + i));
 * - devnet owner j (1..3): keccak256(utf8("exchange-devnet-owner-" + j));
 * - devnet faucet: keccak256(utf8("exchange-devnet-faucet"));
 * - devnet accounts: the 20 Hardhat/Anvil accounts of the mnemonic
 *   "test test test test test test test test test test test junk", m/44'/60'/0'/0/i;
 * - testnet: the same labels with "testnet", each hashed after a 32-byte secret that is NOT
 *   in the repository; only the public results are pinned below (TESTNET_PUBLIC).
 */
import { sha512 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { mnemonicToAccount } from 'viem/accounts';
import { DEVNET_TIMEOUTS } from '../consensus/params';
import type { Address, Hex } from '../util/bytes';
import {
  addressFromPrivateKey,
  ed25519PublicKey,
  isValidSecp256k1PrivateKey,
  secp256k1CompressedPublicKey,
} from './keys';
import { CHAIN_IDS } from './load';
import type { Genesis, GenesisAccount, GenesisValidator, PairParams } from './types';

/** A value as it appears in the JSON file: every bigint becomes a decimal string. */
export type Jsonified<T> = T extends bigint
  ? string
  : T extends readonly unknown[]
    ? { [K in keyof T]: Jsonified<T[K]> }
    : T extends object
      ? { [K in keyof T]: Jsonified<T[K]> }
      : T;

/** The JSON form of a genesis file. */
export type GenesisJson = Jsonified<Genesis>;

export type GeneratedNetwork = 'devnet' | 'testnet';

// ---------------------------------------------------------------------------------------
// Units
// ---------------------------------------------------------------------------------------

const NATIVE = 10n ** 18n; // one native token in wei
const USDC = 10n ** 6n; // one USDC in base units
const PRICE = 1_000_000n; // prices ×1e6
const SIZE = 10n ** 18n; // sizes ×1e18
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------------------------------
// Seeds and derivation
// ---------------------------------------------------------------------------------------

const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';
const DEVNET_ACCOUNT_COUNT = 20;
const VALIDATOR_COUNT = 6;
const DEVNET_ORACLE_SEED = 'exchange-devnet-oracle-v1';
const TESTNET_ORACLE_SEED = 'exchange-testnet-oracle-v1';
const FEE_ACCOUNT: Address = '0x00000000000000000000000000000000000fee01';

/** The devnet's bridge (decision 82): hardhat's deterministic deployments by its first dev account on chain 31337 (nonce 0 TestUSDC, nonce 1 ExchangeBridge). */
export const DEVNET_BRIDGE = {
  externalChainId: 31337,
  address: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512' as Address,
  usdc: '0x5fbdb2315678afecb367f032d93f642f64180aa3' as Address,
  confirmations: 2,
  withdrawalWindowMs: 600_000,
};
/** 2025-01-01T00:00:00Z */
const DEVNET_GENESIS_TIME_MS = 1_735_689_600_000;
/** 2025-11-01T00:00:00Z */
const TESTNET_GENESIS_TIME_MS = 1_761_955_200_000;

const utf8 = (s: string) => new TextEncoder().encode(s);
const hexOf = (b: Uint8Array): Hex => `0x${Buffer.from(b).toString('hex')}`;

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** secp256k1 private key = keccak256(prefix ‖ utf8(label)). */
function ecdsaKey(prefix: Uint8Array, label: string): Hex {
  const key = hexOf(keccak_256(concat(prefix, utf8(label))));
  // keccak output is ≥ n with probability ~2^-128; fail loudly rather than silently re-derive.
  if (!isValidSecp256k1PrivateKey(key)) throw new Error(`derived key for ${label} is not a valid secp256k1 scalar`);
  return key;
}

/** Ed25519 seed = first 32 bytes of sha512(prefix ‖ utf8(label)). */
function vrfSeed(prefix: Uint8Array, label: string): Hex {
  return hexOf(sha512(concat(prefix, utf8(label))).slice(0, 32));
}

export interface ValidatorKeys {
  name: string;
  address: Address;
  ecdsaPrivateKey: Hex;
  ecdsaPubkey: Hex;
  vrfPrivateKey: Hex;
  vrfPubkey: Hex;
}

export interface KeyPair {
  address: Address;
  privateKey: Hex;
}

export interface NetworkKeys {
  validators: ValidatorKeys[];
  owners: KeyPair[];
}

function deriveNetworkKeys(network: GeneratedNetwork, prefix: Uint8Array): NetworkKeys {
  const validators: ValidatorKeys[] = [];
  for (let i = 1; i <= VALIDATOR_COUNT; i++) {
    const ecdsaPrivateKey = ecdsaKey(prefix, `exchange-${network}-validator-${i}`);
    const vrfPrivateKey = vrfSeed(prefix, `exchange-${network}-validator-vrf-${i}`);
    validators.push({
      name: `validator-${i}`,
      address: addressFromPrivateKey(ecdsaPrivateKey),
      ecdsaPrivateKey,
      ecdsaPubkey: secp256k1CompressedPublicKey(ecdsaPrivateKey),
      vrfPrivateKey,
      vrfPubkey: ed25519PublicKey(vrfPrivateKey),
    });
  }
  const owners: KeyPair[] = [];
  for (let j = 1; j <= 3; j++) {
    const privateKey = ecdsaKey(prefix, `exchange-${network}-owner-${j}`);
    owners.push({ address: addressFromPrivateKey(privateKey), privateKey });
  }
  return { validators, owners };
}

/** Devnet validator and owner keys (public knowledge: devnet only). */
export function deriveDevnetKeys(): NetworkKeys {
  return deriveNetworkKeys('devnet', new Uint8Array(0));
}

/** The devnet faucet signer (public knowledge: devnet only). */
function deriveDevnetFaucetKey(): KeyPair {
  const privateKey = ecdsaKey(new Uint8Array(0), 'exchange-devnet-faucet');
  return { address: addressFromPrivateKey(privateKey), privateKey };
}

let devnetAccountsCache: KeyPair[] | undefined;

/** The 20 Hardhat/Anvil development accounts (public knowledge: devnet only). */
function deriveDevnetAccounts(): KeyPair[] {
  // BIP-39 seed stretching is slow (PBKDF2 per account); the result never changes, so cache it.
  devnetAccountsCache ??= computeDevnetAccounts();
  return devnetAccountsCache.map((a) => ({ ...a }));
}

function computeDevnetAccounts(): KeyPair[] {
  const out: KeyPair[] = [];
  for (let i = 0; i < DEVNET_ACCOUNT_COUNT; i++) {
    const account = mnemonicToAccount(DEVNET_MNEMONIC, { addressIndex: i });
    const key = account.getHdKey().privateKey;
    if (!key) throw new Error(`no private key for devnet account ${i}`);
    out.push({ address: account.address.toLowerCase() as Address, privateKey: hexOf(key) });
  }
  return out;
}

/**
 * Testnet keys from the operator's secret (32 bytes hex, kept outside the repository).
 * Only the public parts are committed (TESTNET_PUBLIC); `npx tsx scripts/make-genesis.ts
 * --testnet-keys` with EXCHANGE_TESTNET_SECRET set re-derives and checks them.
 */
export function deriveTestnetKeys(secret: Hex): NetworkKeys & { operators: KeyPair[] } {
  if (!/^0x[0-9a-fA-F]{64}$/.test(secret)) throw new Error('testnet secret must be 0x + 64 hex digits');
  const prefix = Uint8Array.from(Buffer.from(secret.slice(2), 'hex'));
  const keys = deriveNetworkKeys('testnet', prefix);
  const operatorKey = ecdsaKey(prefix, 'exchange-testnet-operator-1');
  return { ...keys, operators: [{ address: addressFromPrivateKey(operatorKey), privateKey: operatorKey }] };
}

/** Public testnet key material, derived once from the operator's secret (see deriveTestnetKeys). */
export const TESTNET_PUBLIC: {
  validators: { name: string; address: Address; ecdsaPubkey: Hex; vrfPubkey: Hex }[];
  owners: [Address, Address, Address];
  operators: Address[];
} = {
  validators: [
    {
      name: 'validator-1',
      address: '0x0fe35e09d48b7c99e40d38586c1f7eda61ad11a9',
      ecdsaPubkey: '0x03cc13e747844534873b4e78de77effb8684cf9f78da847d0e90fb362b13da2f51',
      vrfPubkey: '0x3aed829fff51bd5581f059f441c2dc01a387a7767e65d540c8d216758d25fad5',
    },
    {
      name: 'validator-2',
      address: '0x9c14de4ba233282b9628a45c19d17d079c15c078',
      ecdsaPubkey: '0x03422478608eaa35e4035ce4fbe6f2f45cf66431d58881000554022bd4c5d98dc9',
      vrfPubkey: '0x9b89c18a283bf4b59519780dc288a3ada4ce3087ae147136ceeb0c02abc6b68e',
    },
    {
      name: 'validator-3',
      address: '0xa8c75610d26b2b0f223a674ccbda121db5886390',
      ecdsaPubkey: '0x035c72eaafc4d2f99414e8068dcd3ef62b00dc47bdd730b7fcc3537771716510b9',
      vrfPubkey: '0x31994e586509141253149eab10e5969af9c67f60682e60fc7e32fb49f0c177c9',
    },
    {
      name: 'validator-4',
      address: '0x0aa3aac9e6d1eedfd038fc496dbe3ae99e7e7dfd',
      ecdsaPubkey: '0x03890357a700c0c8ccff661566c355bd52831ea11c676e5d44415077a367125ac4',
      vrfPubkey: '0x1f85088ceb3add993e6dc0958b8dd9dc9d2f6d396794e1352c2bcef379ef019a',
    },
    {
      name: 'validator-5',
      address: '0xa3bb05ad2fece84032959ecee47b5cbda960c3b9',
      ecdsaPubkey: '0x026515525c312cdeb995a5255f17d926a51d2a17672cc3743a4296d158038cf7fc',
      vrfPubkey: '0x5080a5ee773b1d8c4ae875c96a6f7034eb0719b8b61b16fb8a71fdde5323f68e',
    },
    {
      name: 'validator-6',
      address: '0x8007c13018fbfa9f5bb58884c205ef37c29ba26d',
      ecdsaPubkey: '0x03bdd4576d3cde87f9db5ef521e2af76c1d30f89f79415233806de9bb0c49b20d2',
      vrfPubkey: '0xe503c8f31e7328a0b1150cbd926a2b64ce974ad24add3ec1b6813ae3feb723ef',
    },
  ],
  owners: [
    '0x3dbba4feca7e4c76422686d2f93b6bec0bc878e5',
    '0x36dc8dddcf646cba3ccfff95178ff65f456339c3',
    '0xaa3ffb2a6123e9a6f9b06bac9d7fbdc7ce9ae08d',
  ],
  operators: [
    '0x127043c2588b9c5427130e23f4575a7a62bf6c11',
  ],
};

// ---------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------

/**
 * Gossip endpoint of validator i (1-based) in the single-host layout: base port
 * 9000 + 10·(i−1); the node's other ports are base+1 (session/agent API), base+2 (RPC and
 * admin) and 8545 + 10·(i−1) (exchange REST / JSON-RPC). See docs/genesis.md.
 */
export function validatorEndpoint(i: number): string {
  return `127.0.0.1:${9000 + 10 * (i - 1)}`;
}

const VALIDATOR_BOND_WEI = 10_000_000n * NATIVE;

function consensusParams(): Genesis['consensus'] {
  return {
    blockTimeMs: 22,
    ...DEVNET_TIMEOUTS,
    maxBlockTxs: 10_000,
    maxBlockBytes: 4 * 1024 * 1024,
    maxTxBytes: 16 * 1024,
    maxClockDriftMs: 1000,
    epochLengthBlocks: 10_000,
    unbondingEpochs: 2,
    votingPowerCapBps: 1500,
    activeSetMax: 21,
    activeSetMin: 4,
    minBondWei: 1_000_000n * NATIVE,
    maxBondWei: 200_000_000n * NATIVE,
    downtimeWindowBlocks: 1000,
    downtimeMaxMissedBps: 5000,
    slashDowntimeBps: 10,
    slashDoubleSignBps: 500,
    timelockRoutineMs: 48 * HOUR,
    timelockHighImpactMs: 7 * DAY,
  };
}

function feeParams(): Genesis['fees'] {
  return {
    makerFeeBps: 0,
    takerFeeBps: 3,
    withdrawalFeeUsdc: 1n * USDC,
    minWithdrawalUsdc: 1n * USDC,
    gasPriceWei: 1_000_000_000n, // 1 gwei
  };
}

function limitParams(): Genesis['limits'] {
  return {
    maxBatchOrders: 10,
    maxCandles: 500,
    maxTrades: 200,
    maxDepth: 50,
    maxOrdersListed: 50,
    priceAllCacheMs: 3 * SECOND,
    maxSessionDurationMs: 30 * DAY,
    maxLeverage: 50,
    poolLockupMs: 1 * HOUR,
    tpslCheckIntervalMs: 1 * SECOND,
    fundingIntervalMs: 1 * HOUR,
  };
}

/**
 * Pair table. Decimal amounts are written as [numerator, denominator] of whole units to
 * keep everything integer: tick in USDC, lot/min in coins, price in USDC.
 */
interface PairSpec {
  id: number;
  symbol: string;
  /** Price tick in USDC as a decimal string. */
  tick: string;
  /** Lot and minimum size in coins as decimal strings. */
  lot: string;
  min: string;
  maxLeverage: 50 | 25 | 20 | 10;
  openInterestCapBps: number;
  /** Starting price in USDC as a decimal string. */
  price: string;
}

const PAIRS: PairSpec[] = [
  { id: 1, symbol: 'ETH', tick: '0.01', lot: '0.001', min: '0.005', maxLeverage: 50, openInterestCapBps: 5000, price: '3000' },
  { id: 2, symbol: 'BTC', tick: '0.1', lot: '0.00001', min: '0.0001', maxLeverage: 50, openInterestCapBps: 5000, price: '90000' },
  { id: 3, symbol: 'BNB', tick: '0.01', lot: '0.001', min: '0.01', maxLeverage: 25, openInterestCapBps: 3000, price: '900' },
  { id: 4, symbol: 'SOL', tick: '0.001', lot: '0.01', min: '0.1', maxLeverage: 25, openInterestCapBps: 3000, price: '140' },
  { id: 5, symbol: 'POL', tick: '0.00001', lot: '1', min: '50', maxLeverage: 10, openInterestCapBps: 1000, price: '0.2' },
  { id: 6, symbol: 'ARB', tick: '0.00001', lot: '1', min: '50', maxLeverage: 10, openInterestCapBps: 1000, price: '0.3' },
  { id: 7, symbol: 'OP', tick: '0.00001', lot: '1', min: '25', maxLeverage: 10, openInterestCapBps: 1000, price: '0.45' },
  { id: 8, symbol: 'AVAX', tick: '0.001', lot: '0.1', min: '1', maxLeverage: 20, openInterestCapBps: 2000, price: '14' },
  { id: 9, symbol: 'LINK', tick: '0.001', lot: '0.1', min: '1', maxLeverage: 20, openInterestCapBps: 2000, price: '13' },
  { id: 10, symbol: 'UNI', tick: '0.001', lot: '0.1', min: '2', maxLeverage: 10, openInterestCapBps: 1000, price: '6' },
  { id: 11, symbol: 'DOGE', tick: '0.00001', lot: '1', min: '100', maxLeverage: 20, openInterestCapBps: 2000, price: '0.16' },
  { id: 12, symbol: 'XRP', tick: '0.0001', lot: '1', min: '5', maxLeverage: 25, openInterestCapBps: 3000, price: '2.1' },
  { id: 13, symbol: 'ADA', tick: '0.00001', lot: '1', min: '25', maxLeverage: 20, openInterestCapBps: 2000, price: '0.42' },
  { id: 14, symbol: 'DOT', tick: '0.0001', lot: '0.1', min: '4', maxLeverage: 10, openInterestCapBps: 1000, price: '2.5' },
  { id: 15, symbol: 'SUI', tick: '0.0001', lot: '0.1', min: '10', maxLeverage: 20, openInterestCapBps: 2000, price: '1.6' },
];

/** Exact decimal string → integer scaled by `scale` (a power of ten); throws if not exact. */
function scaled(decimal: string, scale: bigint): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!m) throw new Error(`bad decimal ${decimal}`);
  const frac = m[2] ?? '';
  const denom = 10n ** BigInt(frac.length);
  const value = (BigInt(m[1]) * denom + BigInt(frac || '0')) * scale;
  if (value % denom !== 0n) throw new Error(`${decimal} is not a whole multiple of 1/${scale}`);
  return value / denom;
}

function pairParams(): PairParams[] {
  return PAIRS.map((p) => ({
    id: p.id,
    symbol: p.symbol,
    tickSize: scaled(p.tick, PRICE),
    lotSize: scaled(p.lot, SIZE),
    minSize: scaled(p.min, SIZE),
    maxLeverage: p.maxLeverage,
    maintenanceMarginBps: 10_000 / p.maxLeverage / 2,
    openInterestCapBps: p.openInterestCapBps,
    initialPrice: scaled(p.price, PRICE),
  }));
}

function perpParams(): Genesis['perps'] {
  return {
    interestRatePer8hPpm: 100,
    fundingClampPpm: 500,
    fundingCapPpm: 40_000,
    adlPoolPnlThresholdBps: 5000,
    initialPoolUsdc: 10_000_000n * USDC,
  };
}

// ---------------------------------------------------------------------------------------
// Genesis
// ---------------------------------------------------------------------------------------

function validator(v: { name: string; address: Address; ecdsaPubkey: Hex; vrfPubkey: Hex }, i: number): GenesisValidator {
  return {
    name: v.name,
    address: v.address,
    ecdsaPubkey: v.ecdsaPubkey,
    vrfPubkey: v.vrfPubkey,
    bondWei: VALIDATOR_BOND_WEI,
    endpoint: validatorEndpoint(i + 1),
  };
}

/** The devnet's default block window (genesis.storage.retainBlocks). */
export const DEVNET_RETAIN_BLOCKS = 100_000;
/** The devnet's state snapshots (genesis.storage.snapshotIntervalBlocks, snapshotKeep): every few minutes at its block rate, the newest two kept. */
const DEVNET_SNAPSHOT_INTERVAL_BLOCKS = 10_000;
const DEVNET_SNAPSHOT_KEEP = 2;

function buildDevnet(): Genesis {
  const keys = deriveDevnetKeys();
  const faucetKey = deriveDevnetFaucetKey();
  const accounts: GenesisAccount[] = [
    ...deriveDevnetAccounts().map((a, i) => ({
      address: a.address,
      usdc: 1_000_000n * USDC,
      nativeWei: 1000n * NATIVE,
      label: `anvil-${i}`,
    })),
    ...keys.validators.map((v) => ({ address: v.address, usdc: 0n, nativeWei: 1000n * NATIVE, label: v.name })),
    ...keys.owners.map((o, j) => ({ address: o.address, usdc: 0n, nativeWei: 1000n * NATIVE, label: `owner-${j + 1}` })),
    { address: faucetKey.address, usdc: 1_000_000_000n * USDC, nativeWei: 1_000_000n * NATIVE, label: 'faucet' },
  ];
  return {
    network: 'devnet',
    chainId: CHAIN_IDS.devnet,
    genesisTimeMs: DEVNET_GENESIS_TIME_MS,
    nativeToken: { name: 'Exchange Token', symbol: 'EXC', decimals: 18 },
    consensus: consensusParams(),
    validators: keys.validators.map(validator),
    // The devnet's operator is owner-1, whose key is public: the onboarding service's default (decision 159).
    owners: { addresses: keys.owners.map((o) => o.address) as [Address, Address, Address], threshold: 2, operator: keys.owners[0].address },
    fees: feeParams(),
    limits: limitParams(),
    pairs: pairParams(),
    perps: perpParams(),
    oracle: { maxStalenessMs: 5000, devnetSeed: DEVNET_ORACLE_SEED, devnetMaxStepBps: 20 },
    accounts,
    faucet: {
      address: faucetKey.address,
      privateKey: faucetKey.privateKey,
      maxUsdcPerRequest: 100_000n * USDC,
      maxUsdcPerAddress: 1_000_000n * USDC,
      nativeWeiPerRequest: 10n * NATIVE,
    },
    feeAccount: FEE_ACCOUNT,
    bridge: { ...DEVNET_BRIDGE },
    // 40 to 80 minutes of blocks at the devnet's 20 to 45 a second (decision 132): its disk stays bounded.
    storage: { retainBlocks: DEVNET_RETAIN_BLOCKS, snapshotIntervalBlocks: DEVNET_SNAPSHOT_INTERVAL_BLOCKS, snapshotKeep: DEVNET_SNAPSHOT_KEEP },
  };
}

function buildTestnet(): Genesis {
  return {
    network: 'testnet',
    chainId: CHAIN_IDS.testnet,
    genesisTimeMs: TESTNET_GENESIS_TIME_MS,
    nativeToken: { name: 'Exchange Token', symbol: 'EXC', decimals: 18 },
    consensus: consensusParams(),
    validators: TESTNET_PUBLIC.validators.map(validator),
    owners: { addresses: [...TESTNET_PUBLIC.owners], threshold: 2, operator: TESTNET_PUBLIC.operators[0] },
    fees: feeParams(),
    limits: limitParams(),
    pairs: pairParams(),
    perps: perpParams(),
    oracle: { maxStalenessMs: 5000, devnetSeed: TESTNET_ORACLE_SEED, devnetMaxStepBps: 20 },
    accounts: TESTNET_PUBLIC.operators.map((address, i) => ({
      address,
      usdc: 10_000_000n * USDC,
      nativeWei: 100_000n * NATIVE,
      label: `operator-${i + 1}`,
    })),
    feeAccount: FEE_ACCOUNT,
  };
}

/** Converts bigints to decimal strings, keeping key order (for writing the JSON file). */
export function genesisToJson(genesis: Genesis): GenesisJson {
  return jsonify(genesis) as GenesisJson;
}

function jsonify(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString(10);
  if (Array.isArray(value)) return value.map(jsonify);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = jsonify(v);
    return out;
  }
  return value;
}

/** The genesis of `network` as the JSON object written to genesis/<network>.json. Pure and deterministic. */
export function buildGenesis(network: GeneratedNetwork): GenesisJson {
  switch (network) {
    case 'devnet':
      return genesisToJson(buildDevnet());
    case 'testnet':
      return genesisToJson(buildTestnet());
    default:
      throw new Error(`buildGenesis: unsupported network ${String(network)}`);
  }
}

/** The JSON object written to genesis/devnet-keys.json (DEVNET ONLY: every key in it is public). */
export function buildDevnetKeys(): DevnetKeysFile {
  const keys = deriveDevnetKeys();
  return {
    WARNING:
      'DEVNET ONLY. Every private key in this file is public knowledge. Never use these keys or addresses on testnet, mainnet or any chain holding real value.',
    chainId: CHAIN_IDS.devnet,
    mnemonic: DEVNET_MNEMONIC,
    derivationPath: "m/44'/60'/0'/0/{index}",
    validators: keys.validators.map((v) => ({
      name: v.name,
      address: v.address,
      ecdsaPrivateKey: v.ecdsaPrivateKey,
      vrfPrivateKey: v.vrfPrivateKey,
    })),
    owners: keys.owners.map((o, j) => ({ name: `owner-${j + 1}`, address: o.address, privateKey: o.privateKey })),
    accounts: deriveDevnetAccounts().map((a, index) => ({ index, address: a.address, privateKey: a.privateKey })),
    faucet: deriveDevnetFaucetKey(),
  };
}

export interface DevnetKeysFile {
  WARNING: string;
  chainId: number;
  mnemonic: string;
  derivationPath: string;
  validators: { name: string; address: Address; ecdsaPrivateKey: Hex; vrfPrivateKey: Hex }[];
  owners: { name: string; address: Address; privateKey: Hex }[];
  accounts: { index: number; address: Address; privateKey: Hex }[];
  faucet: KeyPair;
}

/** The exact text of a generated file: 2-space JSON plus a trailing newline. */
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The text of docs/devnet-accounts.md, generated from the same keys (so it cannot drift). */
export function renderDevnetAccountsDoc(): string {
  const keys = buildDevnetKeys();
  const genesis = buildGenesis('devnet');
  const funding = new Map(genesis.accounts.map((a) => [a.address, a]));
  const usdc = (units: string | undefined) => (units === undefined ? '0' : groupThousands(BigInt(units) / USDC));
  const native = (wei: string | undefined) => (wei === undefined ? '0' : groupThousands(BigInt(wei) / NATIVE));
  const lines: string[] = [];
  const out = (s = '') => lines.push(s);
  out('# Devnet accounts and keys');
  out();
  out('> **⚠️ DEVNET ONLY — EVERY PRIVATE KEY ON THIS PAGE IS PUBLIC KNOWLEDGE. ⚠️**');
  out('>');
  out('> These keys are committed to the repository (also in `genesis/devnet-keys.json`) and the');
  out('> account keys come from the well-known Hardhat/Anvil test mnemonic. Anyone can sign with');
  out('> them. Never use them, or send anything of value to their addresses, on testnet, mainnet');
  out('> or any other chain. Devnet uses its own chain id, ' + String(CHAIN_IDS.devnet) + ', so signatures made');
  out('> on devnet cannot be replayed on testnet (' + String(CHAIN_IDS.testnet) + ') or mainnet (' + String(CHAIN_IDS.mainnet) + ').');
  out();
  out('This file is generated by `npx tsx scripts/make-genesis.ts`; do not edit it by hand.');
  out('See `docs/genesis.md` for how the keys are derived.');
  out();
  out('## Validators');
  out();
  out('ECDSA key = `keccak256(utf8("exchange-devnet-validator-" + i))`; VRF (Ed25519, ECVRF-EDWARDS25519-SHA512-TAI)');
  out('seed = first 32 bytes of `sha512(utf8("exchange-devnet-validator-vrf-" + i))`, i = 1..6.');
  out();
  out('| Name | Gossip endpoint | Address | ECDSA private key | VRF private key (seed) |');
  out('|---|---|---|---|---|');
  genesis.validators.forEach((v, i) => {
    const k = keys.validators[i];
    out(`| ${v.name} | ${v.endpoint} | \`${k.address}\` | \`${k.ecdsaPrivateKey}\` | \`${k.vrfPrivateKey}\` |`);
  });
  out();
  out('## Owners (2-of-3 protocol governance)');
  out();
  out('Private key = `keccak256(utf8("exchange-devnet-owner-" + j))`, j = 1..3. Any two of them sign an owner operation.');
  out();
  out('| Name | Address | Private key |');
  out('|---|---|---|');
  for (const o of keys.owners) out(`| ${o.name} | \`${o.address}\` | \`${o.privateKey}\` |`);
  out();
  out('## Faucet signer');
  out();
  out('Private key = `keccak256(utf8("exchange-devnet-faucet"))`. The node signs `/faucet` credits with it.');
  out();
  out('| Address | Private key |');
  out('|---|---|');
  out(`| \`${keys.faucet.address}\` | \`${keys.faucet.privateKey}\` |`);
  out();
  out('## Funded development accounts');
  out();
  out(`Mnemonic \`${DEVNET_MNEMONIC}\`, path \`m/44'/60'/0'/0/{index}\` (the Hardhat/Anvil defaults).`);
  out();
  out('| Index | Address | Private key | USDC | Native (EXC) |');
  out('|---|---|---|---|---|');
  for (const a of keys.accounts) {
    const f = funding.get(a.address);
    out(`| ${a.index} | \`${a.address}\` | \`${a.privateKey}\` | ${usdc(f?.usdc)} | ${native(f?.nativeWei)} |`);
  }
  out();
  out('The validator, owner and faucet addresses above are funded too (see `genesis/devnet.json`,');
  out('labels `validator-i`, `owner-j`, `faucet`), so they can pay gas.');
  out();
  return lines.join('\n');
}

function groupThousands(n: bigint): string {
  return n.toString(10).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
