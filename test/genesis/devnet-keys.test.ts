import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { loadGenesisFile } from '../../src/genesis/load';

const ROOT = join(__dirname, '..', '..');
const genesis = loadGenesisFile(join(ROOT, 'genesis/devnet.json'));
const keys = JSON.parse(readFileSync(join(ROOT, 'genesis/devnet-keys.json'), 'utf8'));
const doc = readFileSync(join(ROOT, 'docs/devnet-accounts.md'), 'utf8');

const addr = (pk: string) => privateKeyToAccount(pk as `0x${string}`).address.toLowerCase();
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

describe('genesis/devnet-keys.json', () => {
  it('is loudly marked devnet-only and names the devnet chain id', () => {
    expect(keys.WARNING).toMatch(/DEVNET ONLY/);
    expect(keys.chainId).toBe(genesis.chainId);
    expect(doc).toMatch(/DEVNET ONLY/);
  });

  it('the 20 development accounts derive to the funded anvil-i addresses', () => {
    expect(keys.accounts).toHaveLength(20);
    const funded = genesis.accounts.filter((a) => a.label?.startsWith('anvil-'));
    expect(funded).toHaveLength(20);
    keys.accounts.forEach((a: { index: number; address: string; privateKey: string }, i: number) => {
      expect(a.index).toBe(i);
      expect(addr(a.privateKey)).toBe(a.address);
      expect(funded[i].address).toBe(a.address);
      expect(funded[i].label).toBe(`anvil-${i}`);
      expect(funded[i].usdc).toBe(1_000_000n * 10n ** 6n);
      expect(funded[i].nativeWei).toBe(1000n * 10n ** 18n);
    });
    // Independent check against the well-known Hardhat/Anvil account #0 and #19.
    expect(keys.accounts[0].address).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(keys.accounts[0].privateKey).toBe('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    expect(keys.accounts[19].address).toBe('0x8626f6940e2eb28930efb4cef49b2d1f2c9c1199');
    expect(mnemonicToAccount(keys.mnemonic, { addressIndex: 7 }).address.toLowerCase()).toBe(keys.accounts[7].address);
  });

  it('validator keys derive to the genesis validators (address, compressed ECDSA key, VRF key)', () => {
    expect(keys.validators).toHaveLength(genesis.validators.length);
    genesis.validators.forEach((v, i) => {
      const k = keys.validators[i];
      expect(k.name).toBe(v.name);
      expect(addr(k.ecdsaPrivateKey)).toBe(v.address);
      expect(k.address).toBe(v.address);
      expect(hex(secp256k1.getPublicKey(bytes(k.ecdsaPrivateKey), true))).toBe(v.ecdsaPubkey);
      expect(hex(ed25519.getPublicKey(bytes(k.vrfPrivateKey)))).toBe(v.vrfPubkey);
    });
  });

  it('owner and faucet keys derive to the genesis owners and faucet', () => {
    expect(keys.owners.map((o: { privateKey: string }) => addr(o.privateKey))).toEqual(genesis.owners.addresses);
    expect(addr(keys.faucet.privateKey)).toBe(genesis.faucet!.address);
    expect(keys.faucet.privateKey).toBe(genesis.faucet!.privateKey);
  });

  it('every funded devnet account has its key published, and every key appears in docs/devnet-accounts.md', () => {
    const published = new Map<string, string>();
    for (const a of keys.accounts) published.set(a.address, a.privateKey);
    for (const o of keys.owners) published.set(o.address, o.privateKey);
    for (const v of keys.validators) published.set(v.address, v.ecdsaPrivateKey);
    published.set(keys.faucet.address, keys.faucet.privateKey);
    for (const a of genesis.accounts) {
      const pk = published.get(a.address);
      expect(pk, `key for ${a.label} ${a.address}`).toBeDefined();
      expect(addr(pk!)).toBe(a.address);
    }
    for (const pk of [...published.values(), ...keys.validators.map((v: { vrfPrivateKey: string }) => v.vrfPrivateKey)]) {
      expect(doc).toContain(pk);
    }
  });
});
