import { describe, expect, it } from 'vitest';
import { buildGenesis } from '../../src/genesis/build';
import { GenesisError, parseGenesis, parseGenesisText } from '../../src/genesis/load';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEVNET = buildGenesis('devnet');
const devnet = (): Json => structuredClone(DEVNET);
const TESTNET = buildGenesis('testnet');
const testnet = (): Json => structuredClone(TESTNET);

interface Case {
  name: string;
  base?: () => Json;
  mutate: (g: Json) => void;
  /** The field path the error must name. */
  path: string;
  /** A fragment the reason must contain. */
  reason?: string | RegExp;
}

const cases: Case[] = [
  // root and types
  { name: 'root not an object', mutate: () => {}, path: 'genesis', reason: 'must be an object' },
  { name: 'chainId as a string', mutate: (g) => (g.chainId = '713799'), path: 'genesis.chainId', reason: 'must be an integer' },
  { name: 'chainId zero', mutate: (g) => (g.chainId = 0), path: 'genesis.chainId' },
  { name: 'chainId fractional', mutate: (g) => (g.chainId = 713799.5), path: 'genesis.chainId' },
  { name: 'devnet using the mainnet chain id', mutate: (g) => (g.chainId = 713714), path: 'genesis.chainId', reason: 'must not use' },
  { name: 'testnet with a wrong chain id', base: testnet, mutate: (g) => (g.chainId = 713799), path: 'genesis.chainId', reason: '713715' },
  { name: 'network not in the enum', mutate: (g) => (g.network = 'main'), path: 'genesis.network', reason: 'must be one of' },
  { name: 'genesisTimeMs in seconds', mutate: (g) => (g.genesisTimeMs = 1735689600), path: 'genesis.genesisTimeMs', reason: 'looks like seconds' },
  { name: 'genesisTimeMs negative', mutate: (g) => (g.genesisTimeMs = -1), path: 'genesis.genesisTimeMs' },
  { name: 'unknown top-level key (typo)', mutate: (g) => (g.feeAcount = g.feeAccount), path: 'genesis.feeAcount', reason: 'did you mean "feeAccount"' },
  { name: 'unknown nested key', mutate: (g) => (g.pairs[2].maxLeverge = 10), path: 'genesis.pairs[2].maxLeverge', reason: 'unknown field' },
  { name: 'missing top-level field', mutate: (g) => delete g.limits, path: 'genesis.limits', reason: 'missing' },
  { name: 'missing nested field', mutate: (g) => delete g.consensus.blockTimeMs, path: 'genesis.consensus.blockTimeMs', reason: 'missing' },
  { name: 'consensus is an array', mutate: (g) => (g.consensus = []), path: 'genesis.consensus', reason: 'must be an object' },
  { name: 'blockTimeMs fractional', mutate: (g) => (g.consensus.blockTimeMs = 22.5), path: 'genesis.consensus.blockTimeMs' },
  { name: 'blockTimeMs zero', mutate: (g) => (g.consensus.blockTimeMs = 0), path: 'genesis.consensus.blockTimeMs' },
  { name: 'nativeToken decimals 6', mutate: (g) => (g.nativeToken.decimals = 6), path: 'genesis.nativeToken.decimals' },
  { name: 'nativeToken symbol lower case', mutate: (g) => (g.nativeToken.symbol = 'exc'), path: 'genesis.nativeToken.symbol' },

  // decimal strings
  { name: 'non-canonical decimal "01"', mutate: (g) => (g.consensus.minBondWei = '01'), path: 'genesis.consensus.minBondWei', reason: 'leading zeros' },
  { name: 'decimal with exponent', mutate: (g) => (g.consensus.minBondWei = '1e24'), path: 'genesis.consensus.minBondWei', reason: 'decimal string' },
  { name: 'decimal with sign', mutate: (g) => (g.fees.gasPriceWei = '+1'), path: 'genesis.fees.gasPriceWei' },
  { name: 'negative decimal', mutate: (g) => (g.accounts[0].usdc = '-1'), path: 'genesis.accounts[0].usdc' },
  { name: 'decimal with a point', mutate: (g) => (g.perps.initialPoolUsdc = '1.5'), path: 'genesis.perps.initialPoolUsdc' },
  { name: 'decimal with whitespace', mutate: (g) => (g.pairs[0].tickSize = ' 10000'), path: 'genesis.pairs[0].tickSize' },
  { name: 'big integer as a JSON number', mutate: (g) => (g.pairs[0].tickSize = 10000), path: 'genesis.pairs[0].tickSize', reason: 'must be a decimal string' },
  { name: 'decimal beyond u128', mutate: (g) => (g.accounts[1].nativeWei = (1n << 128n).toString()), path: 'genesis.accounts[1].nativeWei', reason: '2^128-1' },
  { name: 'maxBondWei below minBondWei', mutate: (g) => (g.consensus.maxBondWei = '1'), path: 'genesis.consensus.maxBondWei' },

  // addresses and keys
  { name: 'short address', mutate: (g) => (g.owners.addresses[1] = '0x1234'), path: 'genesis.owners.addresses[1]', reason: '40 hex' },
  { name: 'address without 0x', mutate: (g) => (g.feeAccount = g.feeAccount.slice(2) + '00'), path: 'genesis.feeAccount' },
  { name: 'address with a bad EIP-55 checksum', mutate: (g) => (g.accounts[0].address = '0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266'), path: 'genesis.accounts[0].address', reason: 'EIP-55' },
  { name: 'fee account zero', mutate: (g) => (g.feeAccount = '0x' + '0'.repeat(40)), path: 'genesis.feeAccount' },
  { name: 'ecdsaPubkey not matching address', mutate: (g) => (g.validators[2].ecdsaPubkey = g.validators[3].ecdsaPubkey), path: 'genesis.validators[2].address', reason: 'does not match ecdsaPubkey' },
  { name: 'ecdsaPubkey uncompressed prefix', mutate: (g) => (g.validators[1].ecdsaPubkey = '0x04' + g.validators[1].ecdsaPubkey.slice(4)), path: 'genesis.validators[1].ecdsaPubkey' },
  { name: 'ecdsaPubkey not on the curve', mutate: (g) => (g.validators[1].ecdsaPubkey = '0x02' + '0'.repeat(64)), path: 'genesis.validators[1].ecdsaPubkey' },
  { name: 'ecdsaPubkey wrong length', mutate: (g) => (g.validators[0].ecdsaPubkey = g.validators[0].ecdsaPubkey.slice(0, -2)), path: 'genesis.validators[0].ecdsaPubkey', reason: '33 bytes (0x + 66 hex digits), got 64 hex digits' },
  { name: 'vrfPubkey wrong length', mutate: (g) => (g.validators[0].vrfPubkey = g.validators[0].vrfPubkey + '00'), path: 'genesis.validators[0].vrfPubkey', reason: '32 bytes (0x + 64 hex digits), got 66 hex digits' },
  { name: 'vrfPubkey of small order', mutate: (g) => (g.validators[0].vrfPubkey = '0x01' + '0'.repeat(62)), path: 'genesis.validators[0].vrfPubkey' },
  { name: 'vrfPubkey not hex', mutate: (g) => (g.validators[0].vrfPubkey = '0x' + 'z'.repeat(64)), path: 'genesis.validators[0].vrfPubkey' },

  // validators
  { name: 'no validators', mutate: (g) => (g.validators = []), path: 'genesis.validators' },
  { name: 'fewer validators than activeSetMin', mutate: (g) => (g.validators = g.validators.slice(0, 3)), path: 'genesis.validators', reason: 'activeSetMin' },
  { name: 'bond below minimum', mutate: (g) => (g.validators[2].bondWei = '999999999999999999999999'), path: 'genesis.validators[2].bondWei', reason: 'minBondWei' },
  { name: 'bond above maximum', mutate: (g) => (g.validators[2].bondWei = '200000000000000000000000001'), path: 'genesis.validators[2].bondWei', reason: 'maxBondWei' },
  { name: 'duplicate validator name', mutate: (g) => (g.validators[4].name = 'validator-1'), path: 'genesis.validators[4].name', reason: 'duplicate' },
  { name: 'validator name with a space', mutate: (g) => (g.validators[4].name = 'validator 5'), path: 'genesis.validators[4].name' },
  { name: 'duplicate validator (same keys)', mutate: (g) => (g.validators[5] = { ...g.validators[0], name: 'validator-x', endpoint: '127.0.0.1:9990' }), path: 'genesis.validators[5].address', reason: 'duplicate' },
  { name: 'duplicate vrf key', mutate: (g) => (g.validators[5].vrfPubkey = g.validators[0].vrfPubkey), path: 'genesis.validators[5].vrfPubkey', reason: 'duplicate' },
  { name: 'duplicate endpoint', mutate: (g) => (g.validators[5].endpoint = g.validators[0].endpoint), path: 'genesis.validators[5].endpoint', reason: 'duplicate' },
  { name: 'endpoint without port', mutate: (g) => (g.validators[0].endpoint = '127.0.0.1'), path: 'genesis.validators[0].endpoint' },
  { name: 'endpoint port out of range', mutate: (g) => (g.validators[0].endpoint = '127.0.0.1:70000'), path: 'genesis.validators[0].endpoint' },

  // owners
  { name: 'two owners', mutate: (g) => g.owners.addresses.pop(), path: 'genesis.owners.addresses', reason: 'exactly 3' },
  { name: 'duplicate owner', mutate: (g) => (g.owners.addresses[2] = g.owners.addresses[0].toUpperCase().replace('0X', '0x')), path: 'genesis.owners.addresses[2]', reason: 'duplicate' },
  { name: 'threshold 3', mutate: (g) => (g.owners.threshold = 3), path: 'genesis.owners.threshold' },

  // fees
  { name: 'taker fee above 100 bps', mutate: (g) => (g.fees.takerFeeBps = 101), path: 'genesis.fees.takerFeeBps' },
  { name: 'maker fee above taker fee', mutate: (g) => (g.fees.makerFeeBps = 4), path: 'genesis.fees.makerFeeBps', reason: 'takerFeeBps' },
  { name: 'negative maker fee', mutate: (g) => (g.fees.makerFeeBps = -1), path: 'genesis.fees.makerFeeBps' },

  // limits and pairs
  { name: 'limits.maxLeverage 60', mutate: (g) => (g.limits.maxLeverage = 60), path: 'genesis.limits.maxLeverage' },
  { name: 'poolLockupMs negative', mutate: (g) => (g.limits.poolLockupMs = -1), path: 'genesis.limits.poolLockupMs' },
  { name: 'fundingIntervalMs zero', mutate: (g) => (g.limits.fundingIntervalMs = 0), path: 'genesis.limits.fundingIntervalMs' },
  { name: 'pair maxLeverage 80', mutate: (g) => (g.pairs[3].maxLeverage = 80), path: 'genesis.pairs[3].maxLeverage', reason: 'must be an integer from 1 to 50, got 80' },
  { name: 'pair maxLeverage above limits.maxLeverage', mutate: (g) => (g.limits.maxLeverage = 25), path: 'genesis.pairs[0].maxLeverage', reason: 'from 1 to 25 (limits.maxLeverage), got 50' },
  { name: 'pair maxLeverage that does not divide 5000', mutate: (g) => ((g.pairs[4].maxLeverage = 30), (g.pairs[4].maintenanceMarginBps = 166)), path: 'genesis.pairs[4].maxLeverage', reason: 'divide 5000' },
  { name: 'maintenance margin mismatch', mutate: (g) => (g.pairs[0].maintenanceMarginBps = 150), path: 'genesis.pairs[0].maintenanceMarginBps', reason: '= 100' },
  { name: 'leverage changed without the maintenance margin', mutate: (g) => (g.pairs[1].maxLeverage = 25), path: 'genesis.pairs[1].maintenanceMarginBps' },
  { name: 'duplicate pair id', mutate: (g) => (g.pairs[4].id = 1), path: 'genesis.pairs[4].id', reason: 'duplicate' },
  { name: 'duplicate pair symbol', mutate: (g) => (g.pairs[6].symbol = 'ETH'), path: 'genesis.pairs[6].symbol', reason: 'duplicate' },
  { name: 'pair symbol lower case', mutate: (g) => (g.pairs[0].symbol = 'eth'), path: 'genesis.pairs[0].symbol' },
  { name: 'pair symbol too long', mutate: (g) => (g.pairs[0].symbol = 'ABCDEFGHIJKLM'), path: 'genesis.pairs[0].symbol' },
  { name: 'pair id zero', mutate: (g) => (g.pairs[0].id = 0), path: 'genesis.pairs[0].id' },
  { name: 'tick size zero', mutate: (g) => (g.pairs[0].tickSize = '0'), path: 'genesis.pairs[0].tickSize' },
  { name: 'minSize not a multiple of lotSize', mutate: (g) => (g.pairs[0].minSize = (BigInt(g.pairs[0].lotSize) * 3n + 1n).toString()), path: 'genesis.pairs[0].minSize', reason: 'multiple of lotSize' },
  { name: 'openInterestCapBps above 10000', mutate: (g) => (g.pairs[0].openInterestCapBps = 10001), path: 'genesis.pairs[0].openInterestCapBps' },
  { name: 'no pairs', mutate: (g) => (g.pairs = []), path: 'genesis.pairs' },

  // consensus relations
  { name: 'activeSetMin above activeSetMax', mutate: (g) => (g.consensus.activeSetMin = 22), path: 'genesis.consensus.activeSetMin', reason: 'activeSetMax' },
  { name: 'maxTxBytes above maxBlockBytes', mutate: (g) => (g.consensus.maxTxBytes = g.consensus.maxBlockBytes + 1), path: 'genesis.consensus.maxTxBytes' },
  { name: 'high-impact timelock shorter than routine', mutate: (g) => (g.consensus.timelockHighImpactMs = 1000), path: 'genesis.consensus.timelockHighImpactMs' },
  { name: 'votingPowerCapBps above 10000', mutate: (g) => (g.consensus.votingPowerCapBps = 10001), path: 'genesis.consensus.votingPowerCapBps' },
  { name: 'slash above 100%', mutate: (g) => (g.consensus.slashDoubleSignBps = 10001), path: 'genesis.consensus.slashDoubleSignBps' },

  // perps and oracle
  { name: 'funding cap above 100%', mutate: (g) => (g.perps.fundingCapPpm = 1_000_001), path: 'genesis.perps.fundingCapPpm' },
  { name: 'oracle staleness zero', mutate: (g) => (g.oracle.maxStalenessMs = 0), path: 'genesis.oracle.maxStalenessMs' },
  { name: 'oracle seed empty', mutate: (g) => (g.oracle.devnetSeed = ''), path: 'genesis.oracle.devnetSeed' },

  // accounts
  { name: 'duplicate account', mutate: (g) => (g.accounts[3].address = g.accounts[1].address), path: 'genesis.accounts[3].address', reason: 'duplicate' },
  { name: 'account label not a string', mutate: (g) => (g.accounts[0].label = 7), path: 'genesis.accounts[0].label' },
  { name: 'accounts not an array', mutate: (g) => (g.accounts = {}), path: 'genesis.accounts', reason: 'must be an array' },

  // faucet
  { name: 'faucet on testnet', base: testnet, mutate: (g) => (g.faucet = devnet().faucet), path: 'genesis.faucet', reason: 'devnet only' },
  { name: 'faucet missing on devnet', mutate: (g) => delete g.faucet, path: 'genesis.faucet', reason: 'missing' },
  { name: 'faucet key not matching its address', mutate: (g) => (g.faucet.address = g.accounts[0].address), path: 'genesis.faucet.address', reason: 'does not match privateKey' },
  { name: 'faucet key out of range', mutate: (g) => (g.faucet.privateKey = '0x' + 'f'.repeat(64)), path: 'genesis.faucet.privateKey' },
  { name: 'faucet per-address cap below per-request cap', mutate: (g) => (g.faucet.maxUsdcPerAddress = '1'), path: 'genesis.faucet.maxUsdcPerAddress' },

  // bridge (optional; decision 82)
  { name: 'bridge external chain id zero', mutate: (g) => (g.bridge.externalChainId = 0), path: 'genesis.bridge.externalChainId' },
  { name: 'bridge external chain id as a string', mutate: (g) => (g.bridge.externalChainId = '31337'), path: 'genesis.bridge.externalChainId', reason: 'must be an integer' },
  { name: 'bridge address not an address', mutate: (g) => (g.bridge.address = '0x1234'), path: 'genesis.bridge.address' },
  { name: 'bridge address zero', mutate: (g) => (g.bridge.address = '0x' + '0'.repeat(40)), path: 'genesis.bridge.address', reason: 'zero address' },
  { name: 'bridge usdc equal to the bridge', mutate: (g) => (g.bridge.usdc = g.bridge.address), path: 'genesis.bridge.usdc', reason: 'differ' },
  { name: 'bridge confirmations zero', mutate: (g) => (g.bridge.confirmations = 0), path: 'genesis.bridge.confirmations' },
  { name: 'bridge confirmations above 1000', mutate: (g) => (g.bridge.confirmations = 1001), path: 'genesis.bridge.confirmations' },
  { name: 'bridge window below a minute', mutate: (g) => (g.bridge.withdrawalWindowMs = 59_999), path: 'genesis.bridge.withdrawalWindowMs' },
  { name: 'bridge window above 30 days', mutate: (g) => (g.bridge.withdrawalWindowMs = 30 * 86_400_000 + 1), path: 'genesis.bridge.withdrawalWindowMs' },
  { name: 'bridge with an unknown field', mutate: (g) => (g.bridge.confirmation = 2), path: 'genesis.bridge.confirmation', reason: 'unknown field' },
  { name: 'bridge missing a field', mutate: (g) => delete g.bridge.usdc, path: 'genesis.bridge.usdc', reason: 'missing' },
];

describe('parseGenesis rejects bad genesis variants', () => {
  it('accepts both unmutated bases', () => {
    expect(() => parseGenesis(devnet())).not.toThrow();
    expect(() => parseGenesis(testnet())).not.toThrow();
  });

  it('the bridge section is optional; any-case addresses are kept lower-case', () => {
    const g = devnet();
    delete g.bridge;
    expect(parseGenesis(g).bridge).toBeUndefined();
    const h = devnet();
    h.bridge.address = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
    expect(parseGenesis(h).bridge).toEqual({
      externalChainId: 31337,
      address: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512',
      usdc: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
      confirmations: 2,
      withdrawalWindowMs: 600_000,
    });
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const base = (c.base ?? devnet)();
    const before = JSON.stringify(base);
    let input: Json = base;
    if (c.name === 'root not an object') input = [base];
    else c.mutate(base);
    if (input === base) expect(JSON.stringify(base)).not.toBe(before); // the mutation did something

    let error: unknown;
    try {
      parseGenesis(input);
    } catch (err) {
      error = err;
    }
    expect(error, 'expected a GenesisError').toBeInstanceOf(GenesisError);
    const e = error as GenesisError;
    expect(e.path).toBe(c.path);
    expect(e.message.startsWith(`${c.path}: `)).toBe(true);
    if (c.reason !== undefined) {
      if (typeof c.reason === 'string') expect(e.message).toContain(c.reason);
      else expect(e.message).toMatch(c.reason);
    }
  });

  it('gives the exact message for an out-of-range pair leverage', () => {
    const g = devnet();
    g.pairs[3].maxLeverage = 80;
    expect(() => parseGenesis(g)).toThrow('genesis.pairs[3].maxLeverage: must be an integer from 1 to 50, got 80');
  });

  it('rejects duplicate keys and malformed JSON text', () => {
    const text = JSON.stringify(devnet(), null, 2).replace('"takerFeeBps": 3,', '"takerFeeBps": 3,\n    "takerFeeBps": 50,');
    expect(() => parseGenesisText(text)).toThrow(/^genesis\.fees\.takerFeeBps: appears more than once/);
    expect(() => parseGenesisText('{"network": "devnet",')).toThrow(/^genesis: invalid JSON/);
    expect(() => parseGenesisText(JSON.stringify(devnet()))).not.toThrow();
  });

  it('normalizes addresses and hex to lower case and accepts valid EIP-55 checksums', () => {
    const g = devnet();
    g.accounts[0].address = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // valid checksum
    g.validators[0].ecdsaPubkey = g.validators[0].ecdsaPubkey.toUpperCase().replace('0X', '0x');
    const parsed = parseGenesis(g);
    expect(parsed.accounts[0].address).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(parsed.validators[0].ecdsaPubkey).toBe(devnet().validators[0].ecdsaPubkey);
  });

  it('returns bigints and is idempotent on its own output', () => {
    const parsed = parseGenesis(devnet());
    expect(typeof parsed.consensus.minBondWei).toBe('bigint');
    expect(typeof parsed.pairs[0].tickSize).toBe('bigint');
    expect(parseGenesis(parsed)).toEqual(parsed);
  });
});
