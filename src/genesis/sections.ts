/**
 * Genesis sections: the rules of each part of a genesis file (network and chain id,
 * genesis time, native token, consensus, validators, owners, fees, limits, pairs, perps,
 * oracle, accounts, faucet, bridge), each read through the field readers of ./fields.ts.
 *
 * Separate from the loader (./load.ts), which assembles the sections into a Genesis,
 * reads files and hashes: here is what each value may be and how it relates to the
 * others (a pair's maxLeverage to limits.maxLeverage, a bond to the consensus bounds).
 */
import type { Address } from '../util/bytes';
import {
  addressFromPrivateKey,
  addressFromSecp256k1PublicKey,
  isValidCompressedSecp256k1PublicKey,
  isValidSecp256k1PrivateKey,
  isValidVrfPublicKey,
} from './keys';
import { address, array, big, describe, fail, hex, int, MAX_SAFE, object, pattern, ROOT, str, U128_MAX, U32_MAX, Unique } from './fields';
import type {
  BridgeParams,
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

/** Chain ids: mainnet and testnet by contract [D-networks-ids]; devnet's own id so signatures never replay across. */
export const CHAIN_IDS = { mainnet: 713714, testnet: 713715, devnet: 713799 } as const;

/** Largest leverage the protocol allows anywhere (contract [C-limits-leverage]: "up to 50x"). */
export const PROTOCOL_MAX_LEVERAGE = 50;
/** The ranges of the optional timer limits (decisions 90–91), shared with governance's SetParam (src/state/governance/params.ts). */
export const SCHEDULE_CANCELS_PER_DAY_RANGE = [1, 10_000] as const;
export const TWAP_SLICE_INTERVAL_MS_RANGE = [100, 3_600_000] as const;
/** The largest active set a genesis (or a governance change) may name. */
/**
 * The largest consensus.votingPowerCapBps (genesis and SetParam; decision 158): below
 * 1/3, so with the cap's small-set rule (src/state/validators/epoch.ts cappedPowers) no
 * validator of a set of 4 or more holds 1/3 of the power and can halt the chain alone.
 */
export const VOTING_POWER_CAP_BPS_MAX = 3_333;
export const ACTIVE_SET_MAX_BOUND = 1_000;

export const NETWORKS = ['devnet', 'testnet', 'mainnet'] as const;

const BPS = 10_000;
const PPM = 1_000_000;
/** 2100-01-01T00:00:00Z: a genesis time beyond this is a unit mistake (seconds vs ms, µs…). */
const MAX_GENESIS_TIME_MS = 4_102_444_800_000;
/** 2015-01-01T00:00:00Z: a genesis time before this is a unit mistake too. */
const MIN_GENESIS_TIME_MS = 1_420_070_400_000;

export const TOP_LEVEL_REQUIRED = [
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

export function parseChainId(value: unknown, network: Genesis['network']): number {
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

export function parseGenesisTime(value: unknown, path: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 && value < MIN_GENESIS_TIME_MS) {
    const hint = value * 1000 >= MIN_GENESIS_TIME_MS && value * 1000 <= MAX_GENESIS_TIME_MS ? ' (this looks like seconds)' : '';
    fail(path, `must be Unix milliseconds from ${MIN_GENESIS_TIME_MS} (2015) to ${MAX_GENESIS_TIME_MS} (2100), got ${value}${hint}`);
  }
  return int(value, path, MIN_GENESIS_TIME_MS, MAX_GENESIS_TIME_MS);
}

export function parseNativeToken(value: unknown, path: string): Genesis['nativeToken'] {
  const o = object(value, path, ['name', 'symbol', 'decimals']);
  const name = str(o.name, `${path}.name`, 1, 64);
  const symbol = pattern(o.symbol, `${path}.symbol`, /^[A-Z0-9]{1,12}$/, '1 to 12 characters of A-Z and 0-9');
  const decimals = int(o.decimals, `${path}.decimals`, 18, 18);
  return { name, symbol, decimals: decimals as 18 };
}

export function parseConsensus(value: unknown, path: string): ConsensusParams {
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
  const votingPowerCapBps = int(o.votingPowerCapBps, p('votingPowerCapBps'), 1, VOTING_POWER_CAP_BPS_MAX);
  const activeSetMax = int(o.activeSetMax, p('activeSetMax'), 1, ACTIVE_SET_MAX_BOUND);
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

export function parseValidators(value: unknown, path: string, consensus: ConsensusParams): GenesisValidator[] {
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

export function parseOwners(value: unknown, path: string): Genesis['owners'] {
  const o = object(value, path, ['addresses', 'threshold', 'operator']);
  const items = array(o.addresses, `${path}.addresses`, 3, 3);
  const seen = new Unique(`${path}.addresses`, '');
  const addresses = items.map((a, i) => {
    const addr = address(a, `${path}.addresses[${i}]`);
    seen.add(addr, i);
    return addr;
  }) as [Address, Address, Address];
  const threshold = int(o.threshold, `${path}.threshold`, 2, 2);
  // The operator approves validators (decision 159): any address but zero, an owner's included.
  const operator = address(o.operator, `${path}.operator`);
  if (/^0x0{40}$/.test(operator)) fail(`${path}.operator`, 'must not be the zero address');
  return { addresses, threshold: threshold as 2, operator };
}

export function parseFees(value: unknown, path: string): FeeParams {
  const o = object(value, path, ['makerFeeBps', 'takerFeeBps', 'withdrawalFeeUsdc', 'minWithdrawalUsdc', 'gasPriceWei']);
  const takerFeeBps = int(o.takerFeeBps, `${path}.takerFeeBps`, 0, 100);
  const makerFeeBps = int(o.makerFeeBps, `${path}.makerFeeBps`, 0, takerFeeBps, undefined, 'fees.takerFeeBps');
  const withdrawalFeeUsdc = big(o.withdrawalFeeUsdc, `${path}.withdrawalFeeUsdc`, 0n, 1_000_000_000n); // ≤ 1000 USDC
  const minWithdrawalUsdc = big(o.minWithdrawalUsdc, `${path}.minWithdrawalUsdc`, 1n, U128_MAX);
  const gasPriceWei = big(o.gasPriceWei, `${path}.gasPriceWei`, 0n, U128_MAX);
  return { makerFeeBps, takerFeeBps, withdrawalFeeUsdc, minWithdrawalUsdc, gasPriceWei };
}

export function parseLimits(value: unknown, path: string): LimitParams {
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
  ], ['maxSubAccounts', 'scheduleCancelsPerDay', 'twapSliceIntervalMs']);
  const p = (k: string) => `${path}.${k}`;
  return {
    ...(o.scheduleCancelsPerDay === undefined ? {} : { scheduleCancelsPerDay: int(o.scheduleCancelsPerDay, p('scheduleCancelsPerDay'), ...SCHEDULE_CANCELS_PER_DAY_RANGE) }),
    ...(o.twapSliceIntervalMs === undefined ? {} : { twapSliceIntervalMs: int(o.twapSliceIntervalMs, p('twapSliceIntervalMs'), ...TWAP_SLICE_INTERVAL_MS_RANGE) }),
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
    // Optional (decision 93): a genesis without it keeps its bytes; 32 bounds the derivation checks of src/state/accounts/subaccounts.ts.
    ...(o.maxSubAccounts === undefined ? {} : { maxSubAccounts: int(o.maxSubAccounts, p('maxSubAccounts'), 1, 32) }),
  };
}

export function parsePairs(value: unknown, path: string, limits: LimitParams): PairParams[] {
  const items = array(value, path, 1, 10_000);
  const ids = new Unique(path, 'id');
  const symbols = new Unique(path, 'symbol');
  return items.map((item, i) => {
    const pair = parsePair(item, `${path}[${i}]`, limits);
    ids.add(pair.id, i);
    symbols.add(pair.symbol, i);
    return pair;
  });
}

/**
 * One pair's fields and rules, at path `at`: what a genesis pair must be, and what an
 * AddPair operation's pair must be (src/state/governance/pairs.ts reads it through here,
 * so a pair added later is one the genesis could have held).
 */
export function parsePair(item: unknown, at: string, limits: LimitParams): PairParams {
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
  return { id, symbol, tickSize, lotSize, minSize, maxLeverage, maintenanceMarginBps, openInterestCapBps, initialPrice };
}

export function parsePerps(value: unknown, path: string): PerpParams {
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

export function parseOracle(value: unknown, path: string): OracleParams {
  const o = object(value, path, ['maxStalenessMs', 'devnetSeed', 'devnetMaxStepBps']);
  return {
    maxStalenessMs: int(o.maxStalenessMs, `${path}.maxStalenessMs`, 1, 3_600_000),
    devnetSeed: str(o.devnetSeed, `${path}.devnetSeed`, 1, 256),
    devnetMaxStepBps: int(o.devnetMaxStepBps, `${path}.devnetMaxStepBps`, 0, BPS),
  };
}

export function parseAccounts(value: unknown, path: string): GenesisAccount[] {
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

export function parseFaucet(value: unknown, path: string, network: Genesis['network']): FaucetParams | undefined {
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

/** Bounds of bridge.withdrawalWindowMs: a minute (the external chain must confirm a queueing in time) to 30 days. */
const BRIDGE_WINDOW_MIN_MS = 60_000;
const BRIDGE_WINDOW_MAX_MS = 30 * 24 * 3_600_000;

/** The optional bridge section (decision 82): absent, the network has no bridge. */
export function parseBridge(value: unknown, path: string): BridgeParams | undefined {
  if (value === undefined) return undefined;
  const o = object(value, path, ['externalChainId', 'address', 'usdc', 'confirmations', 'withdrawalWindowMs'], ['firstDepositId']);
  const externalChainId = int(o.externalChainId, `${path}.externalChainId`, 1, MAX_SAFE);
  const bridgeAddress = address(o.address, `${path}.address`);
  const usdc = address(o.usdc, `${path}.usdc`);
  if (/^0x0{40}$/.test(bridgeAddress)) fail(`${path}.address`, 'must not be the zero address');
  if (/^0x0{40}$/.test(usdc)) fail(`${path}.usdc`, 'must not be the zero address');
  if (usdc === bridgeAddress) fail(`${path}.usdc`, 'must differ from the bridge address');
  const confirmations = int(o.confirmations, `${path}.confirmations`, 1, 1000);
  const withdrawalWindowMs = int(o.withdrawalWindowMs, `${path}.withdrawalWindowMs`, BRIDGE_WINDOW_MIN_MS, BRIDGE_WINDOW_MAX_MS);
  // The first deposit id this chain credits (decision 150): a chain started beside a bridge
  // already used names the contract's nextDepositId here, so no earlier deposit is credited twice.
  const firstDepositId = o.firstDepositId === undefined ? undefined : int(o.firstDepositId, `${path}.firstDepositId`, 0, MAX_SAFE);
  return { externalChainId, address: bridgeAddress, usdc, confirmations, withdrawalWindowMs, ...(firstDepositId !== undefined ? { firstDepositId } : {}) };
}
