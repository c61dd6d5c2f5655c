/**
 * Genesis loader: parses and validates a genesis file (see docs/genesis.md).
 *
 * Every field is checked; the first problem throws a GenesisError whose message names
 * the field path and the reason, e.g.
 * `genesis.pairs[3].maxLeverage: must be an integer from 1 to 50, got 80`.
 * Unknown keys are rejected at every level, so a typo is never silently ignored.
 */
import { readFileSync } from 'node:fs';
import { keccak_256 } from '@noble/hashes/sha3.js';
import type { Address, Hex } from '../util/bytes';
import { canonicalJson } from './canonical';
import {
  addressFromPrivateKey,
  addressFromSecp256k1PublicKey,
  isValidCompressedSecp256k1PublicKey,
  isValidSecp256k1PrivateKey,
  isValidVrfPublicKey,
} from './keys';
import type {
  ConsensusParams,
  FaucetParams,
  FeeParams,
  Genesis,
  GenesisAccount,
  GenesisValidator,
  LimitParams,
  OracleParams,
  PairParams,
  PerpParams,
} from './types';

export { canonicalJson } from './canonical';

/** Chain ids: mainnet and testnet by contract [D-networks-ids]; devnet's own id so signatures never replay across. */
export const CHAIN_IDS = { mainnet: 713714, testnet: 713715, devnet: 713799 } as const;

/** Largest leverage the protocol allows anywhere (contract [C-limits-leverage]: "up to 50x"). */
export const PROTOCOL_MAX_LEVERAGE = 50;

export const NETWORKS = ['devnet', 'testnet', 'mainnet'] as const;

export class GenesisError extends Error {
  /** Field path, e.g. `genesis.pairs[3].maxLeverage`. */
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'GenesisError';
    this.path = path;
    this.reason = reason;
  }
}

const ROOT = 'genesis';
const U128_MAX = (1n << 128n) - 1n;
const U32_MAX = 0xffff_ffff;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const BPS = 10_000;
const PPM = 1_000_000;
/** 2100-01-01T00:00:00Z: a genesis time beyond this is a unit mistake (seconds vs ms, µs…). */
const MAX_GENESIS_TIME_MS = 4_102_444_800_000;
/** 2015-01-01T00:00:00Z: a genesis time before this is a unit mistake too. */
const MIN_GENESIS_TIME_MS = 1_420_070_400_000;

// ---------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------

/**
 * Validates a parsed-JSON genesis (big integers as decimal strings; bigint values are
 * accepted too, so a parsed Genesis can be validated again) and returns the typed
 * Genesis with addresses and hex lower-cased and big integers as bigint.
 */
export function parseGenesis(json: unknown): Genesis {
  const root = object(json, ROOT, TOP_LEVEL_REQUIRED, ['faucet']);

  const network = oneOf(root.network, `${ROOT}.network`, NETWORKS);
  const chainId = parseChainId(root.chainId, network);
  const genesisTimeMs = parseGenesisTime(root.genesisTimeMs, `${ROOT}.genesisTimeMs`);
  const nativeToken = parseNativeToken(root.nativeToken, `${ROOT}.nativeToken`);
  const consensus = parseConsensus(root.consensus, `${ROOT}.consensus`);
  const validators = parseValidators(root.validators, `${ROOT}.validators`, consensus);
  const owners = parseOwners(root.owners, `${ROOT}.owners`);
  const fees = parseFees(root.fees, `${ROOT}.fees`);
  const limits = parseLimits(root.limits, `${ROOT}.limits`);
  const pairs = parsePairs(root.pairs, `${ROOT}.pairs`, limits);
  const perps = parsePerps(root.perps, `${ROOT}.perps`);
  const oracle = parseOracle(root.oracle, `${ROOT}.oracle`);
  const accounts = parseAccounts(root.accounts, `${ROOT}.accounts`);
  const faucet = parseFaucet(root.faucet, `${ROOT}.faucet`, network);
  const feeAccount = address(root.feeAccount, `${ROOT}.feeAccount`);
  if (/^0x0{40}$/.test(feeAccount)) fail(`${ROOT}.feeAccount`, 'must not be the zero address');

  const genesis: Genesis = {
    network,
    chainId,
    genesisTimeMs,
    nativeToken,
    consensus,
    validators,
    owners,
    fees,
    limits,
    pairs,
    perps,
    oracle,
    accounts,
    feeAccount,
  };
  if (faucet !== undefined) genesis.faucet = faucet;
  return genesis;
}

/** Reads, parses and validates a genesis file. Duplicate keys in the JSON text are rejected. */
export function loadGenesisFile(path: string): Genesis {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new GenesisError(ROOT, `cannot read genesis file ${path}: ${(err as Error).message}`);
  }
  return parseGenesisText(text);
}

/** Parses genesis JSON text: JSON syntax, duplicate keys, then parseGenesis. */
export function parseGenesisText(text: string): Genesis {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new GenesisError(ROOT, `invalid JSON: ${(err as Error).message}`);
  }
  assertNoDuplicateKeys(text);
  return parseGenesis(json);
}

/**
 * keccak256 of the canonical JSON (see canonicalJson) of the validated genesis, UTF-8
 * encoded. The input is validated and normalized first, so key order, address case and
 * bigint-vs-decimal-string representation do not change the hash.
 */
export function genesisHash(genesis: Genesis): Uint8Array {
  return keccak_256(new TextEncoder().encode(canonicalJson(parseGenesis(genesis))));
}

/** genesisHash as 0x-prefixed lower-case hex (66 characters). */
export function genesisHashHex(genesis: Genesis): Hex {
  return `0x${Buffer.from(genesisHash(genesis)).toString('hex')}`;
}

// ---------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------

const TOP_LEVEL_REQUIRED = [
  'network',
  'chainId',
  'genesisTimeMs',
  'nativeToken',
  'consensus',
  'validators',
  'owners',
  'fees',
  'limits',
  'pairs',
  'perps',
  'oracle',
  'accounts',
  'feeAccount',
] as const;

function parseChainId(value: unknown, network: Genesis['network']): number {
  const path = `${ROOT}.chainId`;
  const chainId = int(value, path, 1, U32_MAX);
  if (network === 'mainnet' && chainId !== CHAIN_IDS.mainnet) {
    fail(path, `must be ${CHAIN_IDS.mainnet} on mainnet, got ${chainId}`);
  }
  if (network === 'testnet' && chainId !== CHAIN_IDS.testnet) {
    fail(path, `must be ${CHAIN_IDS.testnet} on testnet, got ${chainId}`);
  }
  if (network === 'devnet' && (chainId === CHAIN_IDS.mainnet || chainId === CHAIN_IDS.testnet)) {
    fail(path, `a devnet must not use the mainnet or testnet chain id (signatures would replay), got ${chainId}`);
  }
  return chainId;
}

function parseGenesisTime(value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value < MIN_GENESIS_TIME_MS) {
    const hint = value * 1000 >= MIN_GENESIS_TIME_MS && value * 1000 <= MAX_GENESIS_TIME_MS ? ' (this looks like seconds)' : '';
    fail(path, `must be Unix milliseconds from ${MIN_GENESIS_TIME_MS} (2015) to ${MAX_GENESIS_TIME_MS} (2100), got ${value}${hint}`);
  }
  return int(value, path, MIN_GENESIS_TIME_MS, MAX_GENESIS_TIME_MS);
}

function parseNativeToken(value: unknown, path: string): Genesis['nativeToken'] {
  const o = object(value, path, ['name', 'symbol', 'decimals']);
  const name = str(o.name, `${path}.name`, 1, 64);
  const symbol = pattern(o.symbol, `${path}.symbol`, /^[A-Z0-9]{1,12}$/, '1 to 12 characters of A-Z and 0-9');
  const decimals = int(o.decimals, `${path}.decimals`, 18, 18);
  return { name, symbol, decimals: decimals as 18 };
}

function parseConsensus(value: unknown, path: string): ConsensusParams {
  const o = object(value, path, [
    'blockTimeMs',
    'timeoutProposeMs',
    'timeoutProposeDeltaMs',
    'timeoutPrevoteMs',
    'timeoutPrevoteDeltaMs',
    'timeoutPrecommitMs',
    'timeoutPrecommitDeltaMs',
    'maxBlockTxs',
    'maxBlockBytes',
    'maxTxBytes',
    'maxClockDriftMs',
    'epochLengthBlocks',
    'unbondingEpochs',
    'votingPowerCapBps',
    'activeSetMax',
    'activeSetMin',
    'minBondWei',
    'maxBondWei',
    'downtimeWindowBlocks',
    'downtimeMaxMissedBps',
    'slashDowntimeBps',
    'slashDoubleSignBps',
    'timelockRoutineMs',
    'timelockHighImpactMs',
  ], ['evidenceMaxAgeBlocks']);
  const p = (k: string) => `${path}.${k}`;
  const HOUR = 3_600_000;
  const blockTimeMs = int(o.blockTimeMs, p('blockTimeMs'), 1, 60_000);
  const timeoutProposeMs = int(o.timeoutProposeMs, p('timeoutProposeMs'), 1, HOUR);
  const timeoutProposeDeltaMs = int(o.timeoutProposeDeltaMs, p('timeoutProposeDeltaMs'), 0, HOUR);
  const timeoutPrevoteMs = int(o.timeoutPrevoteMs, p('timeoutPrevoteMs'), 1, HOUR);
  const timeoutPrevoteDeltaMs = int(o.timeoutPrevoteDeltaMs, p('timeoutPrevoteDeltaMs'), 0, HOUR);
  const timeoutPrecommitMs = int(o.timeoutPrecommitMs, p('timeoutPrecommitMs'), 1, HOUR);
  const timeoutPrecommitDeltaMs = int(o.timeoutPrecommitDeltaMs, p('timeoutPrecommitDeltaMs'), 0, HOUR);
  const maxBlockTxs = int(o.maxBlockTxs, p('maxBlockTxs'), 1, 10_000_000);
  const maxBlockBytes = int(o.maxBlockBytes, p('maxBlockBytes'), 1, 1 << 30);
  const maxTxBytes = int(o.maxTxBytes, p('maxTxBytes'), 1, maxBlockBytes, undefined, 'consensus.maxBlockBytes');
  const maxClockDriftMs = int(o.maxClockDriftMs, p('maxClockDriftMs'), 1, HOUR);
  const epochLengthBlocks = int(o.epochLengthBlocks, p('epochLengthBlocks'), 1, MAX_SAFE);
  const unbondingEpochs = int(o.unbondingEpochs, p('unbondingEpochs'), 0, 1_000_000);
  const votingPowerCapBps = int(o.votingPowerCapBps, p('votingPowerCapBps'), 1, BPS);
  const activeSetMax = int(o.activeSetMax, p('activeSetMax'), 1, 1_000);
  const activeSetMin = int(o.activeSetMin, p('activeSetMin'), 1, activeSetMax, undefined, 'consensus.activeSetMax');
  const minBondWei = big(o.minBondWei, p('minBondWei'), 1n, U128_MAX);
  const maxBondWei = big(o.maxBondWei, p('maxBondWei'), minBondWei, U128_MAX, 'consensus.minBondWei');
  const downtimeWindowBlocks = int(o.downtimeWindowBlocks, p('downtimeWindowBlocks'), 1, 10_000_000);
  const downtimeMaxMissedBps = int(o.downtimeMaxMissedBps, p('downtimeMaxMissedBps'), 1, BPS);
  const slashDowntimeBps = int(o.slashDowntimeBps, p('slashDowntimeBps'), 0, BPS);
  const slashDoubleSignBps = int(o.slashDoubleSignBps, p('slashDoubleSignBps'), 0, BPS);
  const evidenceMaxAgeBlocks = o.evidenceMaxAgeBlocks === undefined ? undefined : int(o.evidenceMaxAgeBlocks, p('evidenceMaxAgeBlocks'), 1, 10_000_000);
  const timelockRoutineMs = int(o.timelockRoutineMs, p('timelockRoutineMs'), 1, MAX_SAFE);
  const timelockHighImpactMs = int(
    o.timelockHighImpactMs,
    p('timelockHighImpactMs'),
    timelockRoutineMs,
    MAX_SAFE,
    'consensus.timelockRoutineMs',
  );
  return {
    blockTimeMs,
    timeoutProposeMs,
    timeoutProposeDeltaMs,
    timeoutPrevoteMs,
    timeoutPrevoteDeltaMs,
    timeoutPrecommitMs,
    timeoutPrecommitDeltaMs,
    maxBlockTxs,
    maxBlockBytes,
    maxTxBytes,
    maxClockDriftMs,
    epochLengthBlocks,
    unbondingEpochs,
    votingPowerCapBps,
    activeSetMax,
    activeSetMin,
    minBondWei,
    maxBondWei,
    downtimeWindowBlocks,
    downtimeMaxMissedBps,
    slashDowntimeBps,
    slashDoubleSignBps,
    ...(evidenceMaxAgeBlocks === undefined ? {} : { evidenceMaxAgeBlocks }),
    timelockRoutineMs,
    timelockHighImpactMs,
  };
}

function parseValidators(value: unknown, path: string, consensus: ConsensusParams): GenesisValidator[] {
  const items = array(value, path, 1, 1_000);
  if (items.length < consensus.activeSetMin) {
    fail(path, `needs at least consensus.activeSetMin (${consensus.activeSetMin}) validators, got ${items.length}`);
  }
  const names = new Unique(path, 'name');
  const addresses = new Unique(path, 'address');
  const ecdsaKeys = new Unique(path, 'ecdsaPubkey');
  const vrfKeys = new Unique(path, 'vrfPubkey');
  const endpoints = new Unique(path, 'endpoint');
  return items.map((item, i) => {
    const at = `${path}[${i}]`;
    const o = object(item, at, ['name', 'address', 'ecdsaPubkey', 'vrfPubkey', 'bondWei', 'endpoint']);
    const name = pattern(o.name, `${at}.name`, /^[A-Za-z0-9_-]{1,32}$/, 'one word of 1 to 32 characters of A-Z a-z 0-9 _ -');
    const addr = address(o.address, `${at}.address`);
    const ecdsaPubkey = hex(o.ecdsaPubkey, `${at}.ecdsaPubkey`, 33);
    if (!isValidCompressedSecp256k1PublicKey(ecdsaPubkey)) {
      fail(`${at}.ecdsaPubkey`, `must be a compressed secp256k1 public key (02 or 03 then a point's X), got ${describe(o.ecdsaPubkey)}`);
    }
    const derived = addressFromSecp256k1PublicKey(ecdsaPubkey);
    if (derived !== addr) {
      fail(`${at}.address`, `does not match ecdsaPubkey, which derives to ${derived}; got ${addr}`);
    }
    const vrfPubkey = hex(o.vrfPubkey, `${at}.vrfPubkey`, 32);
    if (!isValidVrfPublicKey(vrfPubkey)) {
      fail(`${at}.vrfPubkey`, `must be an Ed25519 public key (a valid point not of small order), got ${describe(o.vrfPubkey)}`);
    }
    const bondWei = big(o.bondWei, `${at}.bondWei`, consensus.minBondWei, consensus.maxBondWei, 'consensus.minBondWei', 'consensus.maxBondWei');
    const endpoint = parseEndpoint(o.endpoint, `${at}.endpoint`);
    names.add(name, i);
    addresses.add(addr, i);
    ecdsaKeys.add(ecdsaPubkey, i);
    vrfKeys.add(vrfPubkey, i);
    endpoints.add(endpoint, i);
    return { name, address: addr, ecdsaPubkey, vrfPubkey, bondWei, endpoint };
  });
}

function parseEndpoint(value: unknown, path: string): string {
  const s = str(value, path, 3, 260);
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):(0|[1-9][0-9]{0,4})$/.exec(s);
  const port = m ? Number(m[2]) : 0;
  if (!m || port < 1 || port > 65535) {
    fail(path, `must be host:port with a port from 1 to 65535, got ${describe(value)}`);
  }
  return s;
}

function parseOwners(value: unknown, path: string): Genesis['owners'] {
  const o = object(value, path, ['addresses', 'threshold']);
  const items = array(o.addresses, `${path}.addresses`, 3, 3);
  const seen = new Unique(`${path}.addresses`, '');
  const addresses = items.map((a, i) => {
    const addr = address(a, `${path}.addresses[${i}]`);
    seen.add(addr, i);
    return addr;
  }) as [Address, Address, Address];
  const threshold = int(o.threshold, `${path}.threshold`, 2, 2);
  return { addresses, threshold: threshold as 2 };
}

function parseFees(value: unknown, path: string): FeeParams {
  const o = object(value, path, ['makerFeeBps', 'takerFeeBps', 'withdrawalFeeUsdc', 'minWithdrawalUsdc', 'gasPriceWei']);
  const takerFeeBps = int(o.takerFeeBps, `${path}.takerFeeBps`, 0, 100);
  const makerFeeBps = int(o.makerFeeBps, `${path}.makerFeeBps`, 0, takerFeeBps, undefined, 'fees.takerFeeBps');
  const withdrawalFeeUsdc = big(o.withdrawalFeeUsdc, `${path}.withdrawalFeeUsdc`, 0n, 1_000_000_000n); // ≤ 1000 USDC
  const minWithdrawalUsdc = big(o.minWithdrawalUsdc, `${path}.minWithdrawalUsdc`, 1n, U128_MAX);
  const gasPriceWei = big(o.gasPriceWei, `${path}.gasPriceWei`, 0n, U128_MAX);
  return { makerFeeBps, takerFeeBps, withdrawalFeeUsdc, minWithdrawalUsdc, gasPriceWei };
}

function parseLimits(value: unknown, path: string): LimitParams {
  const o = object(value, path, [
    'maxBatchOrders',
    'maxCandles',
    'maxTrades',
    'maxDepth',
    'maxOrdersListed',
    'priceAllCacheMs',
    'maxSessionDurationMs',
    'maxLeverage',
    'poolLockupMs',
    'tpslCheckIntervalMs',
    'fundingIntervalMs',
  ]);
  const p = (k: string) => `${path}.${k}`;
  return {
    maxBatchOrders: int(o.maxBatchOrders, p('maxBatchOrders'), 1, 10_000),
    maxCandles: int(o.maxCandles, p('maxCandles'), 1, 1_000_000),
    maxTrades: int(o.maxTrades, p('maxTrades'), 1, 1_000_000),
    maxDepth: int(o.maxDepth, p('maxDepth'), 1, 1_000_000),
    maxOrdersListed: int(o.maxOrdersListed, p('maxOrdersListed'), 1, 1_000_000),
    priceAllCacheMs: int(o.priceAllCacheMs, p('priceAllCacheMs'), 0, 3_600_000),
    maxSessionDurationMs: int(o.maxSessionDurationMs, p('maxSessionDurationMs'), 1, MAX_SAFE),
    maxLeverage: int(o.maxLeverage, p('maxLeverage'), 1, PROTOCOL_MAX_LEVERAGE),
    poolLockupMs: int(o.poolLockupMs, p('poolLockupMs'), 0, MAX_SAFE),
    tpslCheckIntervalMs: int(o.tpslCheckIntervalMs, p('tpslCheckIntervalMs'), 1, MAX_SAFE),
    fundingIntervalMs: int(o.fundingIntervalMs, p('fundingIntervalMs'), 1, MAX_SAFE),
  };
}

function parsePairs(value: unknown, path: string, limits: LimitParams): PairParams[] {
  const items = array(value, path, 1, 10_000);
  const ids = new Unique(path, 'id');
  const symbols = new Unique(path, 'symbol');
  return items.map((item, i) => {
    const at = `${path}[${i}]`;
    const o = object(item, at, [
      'id',
      'symbol',
      'tickSize',
      'lotSize',
      'minSize',
      'maxLeverage',
      'maintenanceMarginBps',
      'openInterestCapBps',
      'initialPrice',
    ]);
    const id = int(o.id, `${at}.id`, 1, U32_MAX);
    const symbol = pattern(o.symbol, `${at}.symbol`, /^[A-Z0-9]{1,12}$/, '1 to 12 characters of A-Z and 0-9');
    const tickSize = big(o.tickSize, `${at}.tickSize`, 1n, U128_MAX);
    const lotSize = big(o.lotSize, `${at}.lotSize`, 1n, U128_MAX);
    const minSize = big(o.minSize, `${at}.minSize`, lotSize, U128_MAX, 'lotSize');
    if (minSize % lotSize !== 0n) fail(`${at}.minSize`, `must be a multiple of lotSize (${lotSize}), got ${minSize}`);
    const maxLeverage = int(
      o.maxLeverage,
      `${at}.maxLeverage`,
      1,
      limits.maxLeverage,
      undefined,
      limits.maxLeverage < PROTOCOL_MAX_LEVERAGE ? 'limits.maxLeverage' : undefined,
    );
    if ((BPS / 2) % maxLeverage !== 0) {
      fail(
        `${at}.maxLeverage`,
        `must divide 5000 so that the maintenance margin (10000 / maxLeverage / 2 bps) is a whole number, got ${maxLeverage}`,
      );
    }
    const expectedMm = BPS / maxLeverage / 2;
    const maintenanceMarginBps = int(o.maintenanceMarginBps, `${at}.maintenanceMarginBps`, 1, BPS);
    if (maintenanceMarginBps !== expectedMm) {
      fail(
        `${at}.maintenanceMarginBps`,
        `must be half the initial margin at maxLeverage, 10000 / ${maxLeverage} / 2 = ${expectedMm}, got ${maintenanceMarginBps}`,
      );
    }
    const openInterestCapBps = int(o.openInterestCapBps, `${at}.openInterestCapBps`, 1, BPS);
    const initialPrice = big(o.initialPrice, `${at}.initialPrice`, tickSize, U128_MAX, 'tickSize');
    ids.add(id, i);
    symbols.add(symbol, i);
    return { id, symbol, tickSize, lotSize, minSize, maxLeverage, maintenanceMarginBps, openInterestCapBps, initialPrice };
  });
}

function parsePerps(value: unknown, path: string): PerpParams {
  const o = object(value, path, [
    'interestRatePer8hPpm',
    'fundingClampPpm',
    'fundingCapPpm',
    'adlPoolPnlThresholdBps',
    'initialPoolUsdc',
  ]);
  const p = (k: string) => `${path}.${k}`;
  const interestRatePer8hPpm = int(o.interestRatePer8hPpm, p('interestRatePer8hPpm'), 0, PPM);
  const fundingClampPpm = int(o.fundingClampPpm, p('fundingClampPpm'), 0, PPM);
  const fundingCapPpm = int(o.fundingCapPpm, p('fundingCapPpm'), 0, PPM);
  const adlPoolPnlThresholdBps = int(o.adlPoolPnlThresholdBps, p('adlPoolPnlThresholdBps'), 1, BPS);
  const initialPoolUsdc = big(o.initialPoolUsdc, p('initialPoolUsdc'), 0n, U128_MAX);
  return { interestRatePer8hPpm, fundingClampPpm, fundingCapPpm, adlPoolPnlThresholdBps, initialPoolUsdc };
}

function parseOracle(value: unknown, path: string): OracleParams {
  const o = object(value, path, ['maxStalenessMs', 'devnetSeed', 'devnetMaxStepBps']);
  return {
    maxStalenessMs: int(o.maxStalenessMs, `${path}.maxStalenessMs`, 1, 3_600_000),
    devnetSeed: str(o.devnetSeed, `${path}.devnetSeed`, 1, 256),
    devnetMaxStepBps: int(o.devnetMaxStepBps, `${path}.devnetMaxStepBps`, 0, BPS),
  };
}

function parseAccounts(value: unknown, path: string): GenesisAccount[] {
  const items = array(value, path, 0, 1_000_000);
  const addresses = new Unique(path, 'address');
  return items.map((item, i) => {
    const at = `${path}[${i}]`;
    const o = object(item, at, ['address', 'usdc', 'nativeWei'], ['label']);
    const addr = address(o.address, `${at}.address`);
    addresses.add(addr, i);
    const account: GenesisAccount = {
      address: addr,
      usdc: big(o.usdc, `${at}.usdc`, 0n, U128_MAX),
      nativeWei: big(o.nativeWei, `${at}.nativeWei`, 0n, U128_MAX),
    };
    if (o.label !== undefined) account.label = str(o.label, `${at}.label`, 1, 64);
    return account;
  });
}

function parseFaucet(value: unknown, path: string, network: Genesis['network']): FaucetParams | undefined {
  if (network !== 'devnet') {
    if (value !== undefined) fail(path, `a faucet is devnet only and must be absent on ${network}`);
    return undefined;
  }
  if (value === undefined) fail(path, 'required field is missing (devnet needs a faucet)');
  const o = object(value, path, ['address', 'privateKey', 'maxUsdcPerRequest', 'maxUsdcPerAddress', 'nativeWeiPerRequest']);
  const addr = address(o.address, `${path}.address`);
  const privateKey = hex(o.privateKey, `${path}.privateKey`, 32);
  if (!isValidSecp256k1PrivateKey(privateKey)) {
    fail(`${path}.privateKey`, 'must be a valid secp256k1 private key (from 1 to n-1)');
  }
  const derived = addressFromPrivateKey(privateKey);
  if (derived !== addr) fail(`${path}.address`, `does not match privateKey, which derives to ${derived}; got ${addr}`);
  const maxUsdcPerRequest = big(o.maxUsdcPerRequest, `${path}.maxUsdcPerRequest`, 1n, U128_MAX);
  const maxUsdcPerAddress = big(o.maxUsdcPerAddress, `${path}.maxUsdcPerAddress`, maxUsdcPerRequest, U128_MAX, 'faucet.maxUsdcPerRequest');
  const nativeWeiPerRequest = big(o.nativeWeiPerRequest, `${path}.nativeWeiPerRequest`, 0n, U128_MAX);
  return { address: addr, privateKey, maxUsdcPerRequest, maxUsdcPerAddress, nativeWeiPerRequest };
}

// ---------------------------------------------------------------------------------------
// Primitive checks
// ---------------------------------------------------------------------------------------

function fail(path: string, reason: string): never {
  throw new GenesisError(path, reason);
}

/** Short, unambiguous rendering of an offending value for error messages. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': {
      const s = JSON.stringify(value);
      return s.length > 80 ? `${s.slice(0, 77)}..."` : s;
    }
    case 'bigint':
      return `${value}n`;
    case 'object':
      return 'an object';
    default:
      return String(value);
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : `a ${t} (${describe(value)})`;
}

function object(
  value: unknown,
  path: string,
  required: readonly string[],
  optional: readonly string[] = [],
): Record<string, unknown> {
  if (value === undefined) fail(path, 'required field is missing');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(path, `must be an object, got ${typeName(value)}`);
  }
  const record = value as Record<string, unknown>;
  const known = [...required, ...optional];
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) {
      const hint = closest(key, known);
      fail(childPath(path, key), `unknown field${hint ? ` (did you mean "${hint}"?)` : ''}; allowed: ${known.join(', ')}`);
    }
  }
  for (const key of required) {
    if (record[key] === undefined) fail(childPath(path, key), 'required field is missing');
  }
  return record;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function array(value: unknown, path: string, min: number, max: number): unknown[] {
  if (value === undefined) fail(path, 'required field is missing');
  if (!Array.isArray(value)) fail(path, `must be an array, got ${typeName(value)}`);
  if (value.length < min || value.length > max) {
    fail(path, min === max ? `must have exactly ${min} entries, got ${value.length}` : `must have from ${min} to ${max} entries, got ${value.length}`);
  }
  return value;
}

function int(value: unknown, path: string, min: number, max: number, minName?: string, maxName?: string): number {
  const lo = `${min}${minName ? ` (${minName})` : ''}`;
  const hi = `${max}${maxName ? ` (${maxName})` : ''}`;
  const range =
    min === max ? `the integer ${lo}` : max === MAX_SAFE ? `an integer of at least ${lo}` : `an integer from ${lo} to ${hi}`;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    fail(path, `must be ${range}, got ${typeName(value)}`);
  }
  if (value < min || value > max) fail(path, `must be ${range}, got ${value}`);
  return value;
}

const DECIMAL_RE = /^(0|[1-9][0-9]*)$/;

function big(value: unknown, path: string, min: bigint, max: bigint, minName?: string, maxName?: string): bigint {
  let n: bigint;
  if (typeof value === 'bigint') {
    n = value;
  } else if (typeof value === 'string') {
    if (!DECIMAL_RE.test(value)) {
      fail(path, `must be a decimal string of an unsigned integer (digits only, no sign, exponent, point or leading zeros), got ${describe(value)}`);
    }
    n = BigInt(value);
  } else {
    fail(path, `must be a decimal string, got ${typeName(value)}`);
  }
  if (n < min || n > max) {
    const lo = `${min}${minName ? ` (${minName})` : ''}`;
    const hi = max === U128_MAX ? '2^128-1' : `${max}${maxName ? ` (${maxName})` : ''}`;
    fail(path, `must be from ${lo} to ${hi}, got ${n}`);
  }
  return n;
}

function str(value: unknown, path: string, minLen: number, maxLen: number): string {
  if (typeof value !== 'string') fail(path, `must be a string, got ${typeName(value)}`);
  if (value.length < minLen || value.length > maxLen) {
    fail(path, `must be a string of ${minLen} to ${maxLen} characters, got ${value.length} characters`);
  }
  if (value.trim() !== value || /[\u0000-\u001f\u007f]/.test(value)) {
    fail(path, `must not have leading or trailing whitespace or control characters, got ${describe(value)}`);
  }
  return value;
}

function pattern(value: unknown, path: string, re: RegExp, what: string): string {
  if (typeof value !== 'string') fail(path, `must be a string of ${what}, got ${typeName(value)}`);
  if (!re.test(value)) fail(path, `must be ${what}, got ${describe(value)}`);
  return value;
}

function oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    fail(path, `must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(value)}`);
  }
  return value as T;
}

function hex(value: unknown, path: string, bytes: number): Hex {
  if (typeof value !== 'string') fail(path, `must be a 0x-prefixed hex string of ${bytes} bytes, got ${typeName(value)}`);
  if (!/^0x[0-9a-fA-F]*$/.test(value)) fail(path, `must be 0x followed by hex digits, got ${describe(value)}`);
  if (value.length !== 2 + 2 * bytes) {
    fail(path, `must be ${bytes} bytes (0x + ${2 * bytes} hex digits), got ${value.length - 2} hex digits`);
  }
  return value.toLowerCase() as Hex;
}

/**
 * 0x + 40 hex digits, returned lower-case. All-lower or all-upper hex is accepted as is;
 * mixed case must be a valid EIP-55 checksum (a mistyped checksummed address is caught).
 */
function address(value: unknown, path: string): Address {
  if (typeof value !== 'string') fail(path, `must be an address (0x + 40 hex digits), got ${typeName(value)}`);
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) fail(path, `must be an address (0x + 40 hex digits), got ${describe(value)}`);
  const body = value.slice(2);
  const lower = body.toLowerCase();
  if (body !== lower && body !== body.toUpperCase() && checksum(lower) !== body) {
    fail(path, `has mixed case but is not a valid EIP-55 checksum address, got ${describe(value)}`);
  }
  return `0x${lower}` as Address;
}

function checksum(lowerHex40: string): string {
  const hash = keccak_256(new TextEncoder().encode(lowerHex40));
  let out = '';
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? lowerHex40[i].toUpperCase() : lowerHex40[i];
  }
  return out;
}

/** Tracks values that must be unique within an array; reports the later duplicate. */
class Unique {
  private readonly seen = new Map<string, number>();
  constructor(
    private readonly arrayPath: string,
    private readonly field: string,
  ) {}
  add(value: string | number, index: number): void {
    const key = String(value);
    const first = this.seen.get(key);
    const at = `${this.arrayPath}[${index}]${this.field ? `.${this.field}` : ''}`;
    if (first !== undefined) fail(at, `duplicate ${this.field || 'value'} ${describe(value)}, already used by ${this.arrayPath}[${first}]`);
    this.seen.set(key, index);
  }
}

/** The known key within edit distance 2 of `key`, if any (for "did you mean"). */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * JSON.parse keeps the last of duplicate keys silently; a genesis file with a key twice is
 * almost certainly an editing mistake, so reject it. `text` must already be valid JSON.
 */
function assertNoDuplicateKeys(text: string): void {
  let i = 0;
  const skipWs = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++; // closing quote
    return JSON.parse(text.slice(start, i)) as string;
  };
  const readValue = (path: string): void => {
    skipWs();
    const c = text[i];
    if (c === '{') {
      i++;
      skipWs();
      if (text[i] === '}') {
        i++;
        return;
      }
      const keys = new Set<string>();
      for (;;) {
        skipWs();
        const key = readString();
        if (keys.has(key)) fail(childPath(path, key), 'appears more than once in the JSON text');
        keys.add(key);
        skipWs();
        i++; // ':'
        readValue(childPath(path, key));
        skipWs();
        if (text[i++] === ',') continue;
        return; // '}'
      }
    }
    if (c === '[') {
      i++;
      skipWs();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (let index = 0; ; index++) {
        readValue(`${path}[${index}]`);
        skipWs();
        if (text[i++] === ',') continue;
        return; // ']'
      }
    }
    if (c === '"') {
      readString();
      return;
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++; // number, true, false, null
  };
  readValue(ROOT);
}
