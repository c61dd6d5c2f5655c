/**
 * Genesis loader: parses and validates a genesis file (see docs/genesis.md), and hashes it.
 *
 * Every field is checked; the first problem throws a GenesisError whose message names
 * the field path and the reason, e.g.
 * `genesis.pairs[3].maxLeverage: must be an integer from 1 to 50, got 80`.
 * Unknown keys are rejected at every level, so a typo is never silently ignored.
 *
 * This file is the public face: the whole document assembled from its sections, the
 * file and text entry points, and the hash. The rules of each section are in
 * ./sections.ts, the generic field readers in ./fields.ts, the duplicate-key scan of
 * the JSON text in ./duplicate-keys.ts.
 */
import { readFileSync } from 'node:fs';
import { keccak256 } from '../crypto/keccak';
import type { Hex } from '../util/bytes';
import { canonicalJson } from './canonical';
import { assertNoDuplicateKeys } from './duplicate-keys';
import { address, fail, GenesisError, object, oneOf, ROOT } from './fields';
import {
  NETWORKS,
  parseAccounts,
  parseBridge,
  parseChainId,
  parseConsensus,
  parseFaucet,
  parseFees,
  parseGenesisTime,
  parseLimits,
  parseNativeToken,
  parseOracle,
  parseOwners,
  parsePairs,
  parsePerps,
  parseValidators,
  TOP_LEVEL_REQUIRED,
} from './sections';
import { parseStorage } from './storage';
import type { Genesis } from './types';

export { canonicalJson } from './canonical';
export { GenesisError } from './fields';
export { CHAIN_IDS, NETWORKS, PROTOCOL_MAX_LEVERAGE } from './sections';

// ---------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------

/**
 * Validates a parsed-JSON genesis (big integers as decimal strings; bigint values are
 * accepted too, so a parsed Genesis can be validated again) and returns the typed
 * Genesis with addresses and hex lower-cased and big integers as bigint.
 */
export function parseGenesis(json: unknown): Genesis {
  const root = object(json, ROOT, TOP_LEVEL_REQUIRED, ['faucet', 'bridge', 'storage']);

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
  const bridge = parseBridge(root.bridge, `${ROOT}.bridge`);
  const storage = parseStorage(root.storage, `${ROOT}.storage`);

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
  if (bridge !== undefined) genesis.bridge = bridge;
  if (storage !== undefined) genesis.storage = storage;
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
  return keccak256(new TextEncoder().encode(canonicalJson(parseGenesis(genesis))));
}

/** genesisHash as 0x-prefixed lower-case hex (66 characters). */
export function genesisHashHex(genesis: Genesis): Hex {
  return `0x${Buffer.from(genesisHash(genesis)).toString('hex')}`;
}
