import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFiles } from '../../scripts/make-genesis';
import { buildDevnetKeys, buildGenesis, renderJson } from '../../src/genesis/build';
import { CHAIN_IDS, genesisHashHex, loadGenesisFile, parseGenesis } from '../../src/genesis/load';

const ROOT = join(__dirname, '..', '..');
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

describe('committed genesis files', () => {
  // Shows contract [C-limits-fees], [C-limits-withdraw-fee], [C-limits-validator-set], [D-validators-params].
  it('devnet.json loads and has the agreed shape', () => {
    const g = loadGenesisFile(join(ROOT, 'genesis/devnet.json'));
    expect(g.network).toBe('devnet');
    expect(g.chainId).toBe(713799);
    expect(g.chainId).not.toBe(CHAIN_IDS.mainnet);
    expect(g.chainId).not.toBe(CHAIN_IDS.testnet);
    expect(g.validators).toHaveLength(6);
    expect(g.validators.map((v) => v.name)).toEqual(['validator-1', 'validator-2', 'validator-3', 'validator-4', 'validator-5', 'validator-6']);
    expect(g.validators.map((v) => v.endpoint)).toEqual([
      '127.0.0.1:9000',
      '127.0.0.1:9010',
      '127.0.0.1:9020',
      '127.0.0.1:9030',
      '127.0.0.1:9040',
      '127.0.0.1:9050',
    ]);
    for (const v of g.validators) expect(v.bondWei).toBe(10_000_000n * 10n ** 18n);
    expect(g.owners.threshold).toBe(2);
    expect(new Set(g.owners.addresses).size).toBe(3);
    expect(g.faucet).toBeDefined();
    expect(g.faucet!.maxUsdcPerRequest).toBe(100_000_000_000n);
    expect(g.faucet!.maxUsdcPerAddress).toBe(1_000_000_000_000n);
    expect(g.faucet!.nativeWeiPerRequest).toBe(10n * 10n ** 18n);
    expect(g.accounts.filter((a) => a.label?.startsWith('anvil-'))).toHaveLength(20);
    expect(g.fees).toEqual({
      makerFeeBps: 0,
      takerFeeBps: 3,
      withdrawalFeeUsdc: 1_000_000n,
      minWithdrawalUsdc: 1_000_000n,
      gasPriceWei: 1_000_000_000n,
    });
    expect(g.consensus.minBondWei).toBe(1_000_000n * 10n ** 18n);
    expect(g.consensus.maxBondWei).toBe(200_000_000n * 10n ** 18n);
    expect(g.consensus.timelockRoutineMs).toBe(48 * 3600_000);
    expect(g.consensus.timelockHighImpactMs).toBe(7 * 24 * 3600_000);
    expect(g.limits.maxSessionDurationMs).toBe(30 * 24 * 3600_000);
  });

  it('both networks carry the contract pair table with its ids ([C-res-pair-ids])', () => {
    const expected: [string, number][] = [
      ['ETH', 1], ['BTC', 2], ['BNB', 3], ['SOL', 4], ['POL', 5], ['ARB', 6], ['OP', 7], ['AVAX', 8],
      ['LINK', 9], ['UNI', 10], ['DOGE', 11], ['XRP', 12], ['ADA', 13], ['DOT', 14], ['SUI', 15],
    ];
    for (const file of ['genesis/devnet.json', 'genesis/testnet.json']) {
      const g = loadGenesisFile(join(ROOT, file));
      expect(g.pairs.map((p) => [p.symbol, p.id])).toEqual(expected);
      for (const p of g.pairs) {
        expect(p.maxLeverage).toBeLessThanOrEqual(50);
        expect(p.maintenanceMarginBps * 2 * p.maxLeverage).toBe(10_000);
        expect(p.minSize % p.lotSize).toBe(0n);
      }
      expect(g.pairs.find((p) => p.symbol === 'BTC')!.maxLeverage).toBe(50);
      expect(g.pairs.find((p) => p.symbol === 'ETH')!.maxLeverage).toBe(50);
    }
  });

  // Shows contract [D-networks-ids].
  it('testnet.json loads, has chain id 713715, no faucet and no private keys', () => {
    const g = loadGenesisFile(join(ROOT, 'genesis/testnet.json'));
    expect(g.network).toBe('testnet');
    expect(g.chainId).toBe(713715);
    expect(g.faucet).toBeUndefined();
    expect(g.validators).toHaveLength(6);
    const text = read('genesis/testnet.json');
    expect(text).not.toMatch(/private|secret|mnemonic/i);
    // Every 32-byte hex value in the file is a VRF public key, never a private key.
    const hex32 = [...text.matchAll(/"(\w+)": "0x[0-9a-f]{64}"/g)].map((m) => m[1]);
    expect(hex32.length).toBe(6);
    expect(new Set(hex32)).toEqual(new Set(['vrfPubkey']));
    const devnet = loadGenesisFile(join(ROOT, 'genesis/devnet.json'));
    const devnetKeys = new Set([...devnet.validators.map((v) => v.address), ...devnet.owners.addresses]);
    for (const v of g.validators) expect(devnetKeys.has(v.address)).toBe(false);
    for (const o of g.owners.addresses) expect(devnetKeys.has(o)).toBe(false);
  });

  it('the devnet and testnet genesis hashes differ', () => {
    const d = genesisHashHex(loadGenesisFile(join(ROOT, 'genesis/devnet.json')));
    const t = genesisHashHex(loadGenesisFile(join(ROOT, 'genesis/testnet.json')));
    expect(d).toMatch(/^0x[0-9a-f]{64}$/);
    expect(d).not.toBe(t);
  });
});

describe('generator determinism', () => {
  it('the committed files equal what the generator produces', () => {
    expect(read('genesis/devnet.json')).toBe(renderJson(buildGenesis('devnet')));
    expect(read('genesis/testnet.json')).toBe(renderJson(buildGenesis('testnet')));
    expect(read('genesis/devnet-keys.json')).toBe(renderJson(buildDevnetKeys()));
    for (const f of generatedFiles()) expect(read(f.path), f.path).toBe(f.text);
  });

  it('builds the same output twice and the output passes the loader', () => {
    for (const n of ['devnet', 'testnet'] as const) {
      expect(renderJson(buildGenesis(n))).toBe(renderJson(buildGenesis(n)));
      expect(() => parseGenesis(buildGenesis(n))).not.toThrow();
    }
  });

  it('writes big integers as decimal strings and uses 2-space indentation', () => {
    const text = read('genesis/devnet.json');
    expect(text.startsWith('{\n  "network": "devnet",\n')).toBe(true);
    expect(text).toContain('"minBondWei": "1000000000000000000000000"');
    expect(text.endsWith('}\n')).toBe(true);
  });
});
