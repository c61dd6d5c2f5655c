/**
 * `npm run node -- init`: the real command line makes a key file of mode 0600 in a
 * folder of mode 0700, bound to the network it names, never overwrites one, and prints
 * one JSON line whose values follow from the keys in the file (derived here again with
 * the libraries directly). readKeyFile refuses a file others can read, an unknown
 * version, a malformed key and any public value that does not match its private key.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { privateKeyFromProtobuf } from '@libp2p/crypto/keys';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trimValidators } from '../../src/cli/devnet';
import { genesisHashHex, loadGenesisFile } from '../../src/genesis/load';
import { generateNodeKeys, KEY_FILE_NAME, readKeyFile, writeKeyFile, type NodeKeys } from '../../src/node/keyfile';
import { ROOT, runCli, tempDir, type CliResult } from './run-cli';

const dir = tempDir('exchain-init-');
afterAll(() => dir.remove());

const hexOf = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const bytesOf = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
const TESTNET_HASH = genesisHashHex(loadGenesisFile(join(ROOT, 'genesis/testnet.json')));

function onlyLine(r: CliResult): Record<string, unknown> {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n');
  expect(lines).toHaveLength(2); // one line and its newline
  expect(lines[1]).toBe('');
  return JSON.parse(lines[0]);
}

describe('init', () => {
  let printed: Record<string, unknown>;
  const home = join(dir.path, 'testnet-node');

  beforeAll(async () => {
    printed = onlyLine(await runCli(['init', '--home', home, '--network', 'testnet']));
  });

  it('prints address, ecdsa_pubkey, vrf_pubkey and peer_id in their formats', () => {
    expect(Object.keys(printed)).toEqual(['address', 'ecdsa_pubkey', 'vrf_pubkey', 'peer_id']);
    expect(printed.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(printed.ecdsa_pubkey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(printed.vrf_pubkey).toMatch(/^[0-9a-f]{64}$/);
    expect(printed.peer_id).toMatch(/^12D3KooW[1-9A-HJ-NP-Za-km-z]+$/); // base58 identity multihash of an Ed25519 key
  });

  it('writes the key file with mode 0600 in a folder of mode 0700, and nothing else', () => {
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
    expect(readdirSync(home)).toEqual([KEY_FILE_NAME]);
  });

  it('prints the values that follow from the private keys in the file', async () => {
    const file = JSON.parse(readFileSync(join(home, KEY_FILE_NAME), 'utf8'));
    // secp256k1: compressed public key, and the address = last 20 bytes of keccak256(X ‖ Y).
    const priv = bytesOf(file.ecdsaPrivateKey);
    expect(hexOf(secp256k1.getPublicKey(priv, true))).toBe(`0x${printed.ecdsa_pubkey}`);
    expect(hexOf(keccak_256(secp256k1.getPublicKey(priv, false).subarray(1)).subarray(12))).toBe(printed.address);
    // VRF: RFC 8032 public key of the 32-byte seed (RFC 9381 ECVRF-EDWARDS25519-SHA512-TAI).
    expect(file.vrfPrivateKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(hexOf(ed25519.getPublicKey(bytesOf(file.vrfPrivateKey)))).toBe(`0x${printed.vrf_pubkey}`);
    // libp2p: the peer id of the Ed25519 key in its protobuf encoding.
    const peerKey = privateKeyFromProtobuf(bytesOf(file.peerPrivateKey));
    expect(peerKey.type).toBe('Ed25519');
    expect(peerIdFromPrivateKey(peerKey as never).toString()).toBe(printed.peer_id);
  });

  it('records the version and the network it was made for', () => {
    const keys = readKeyFile(join(home, KEY_FILE_NAME));
    expect(keys.version).toBe(1);
    expect({ network: keys.network, chainId: keys.chainId, genesisHash: keys.genesisHash }).toEqual({
      network: 'testnet',
      chainId: 713715,
      genesisHash: TESTNET_HASH,
    });
    expect({ address: keys.address, ecdsa_pubkey: keys.ecdsaPubkey.slice(2), vrf_pubkey: keys.vrfPubkey.slice(2), peer_id: keys.peerId }).toEqual(printed);
  });

  it('refuses to overwrite a key file, leaving it as it was', async () => {
    const before = readFileSync(join(home, KEY_FILE_NAME));
    const r = await runCli(['init', '--home', home, '--network', 'testnet']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/node-key\.json: a key file is already there; init never overwrites a key/);
    expect(readFileSync(join(home, KEY_FILE_NAME)).equals(before)).toBe(true);
    expect(readdirSync(home)).toEqual([KEY_FILE_NAME]);
  });

  it('binds devnet keys to the network `npm start` runs (same genesis hash), by default', async () => {
    const devHome = join(dir.path, 'devnet-node');
    const line = onlyLine(await runCli(['init', '--home', devHome]));
    const keys = readKeyFile(join(devHome, KEY_FILE_NAME));
    // npm start: genesis/devnet.json with --validators 6 (trimValidators leaves it whole).
    const started = trimValidators(loadGenesisFile(join(ROOT, 'genesis/devnet.json')), 6);
    expect(keys.genesisHash).toBe(genesisHashHex(started));
    expect(keys.network).toBe('devnet');
    expect(keys.chainId).toBe(713799);
    expect(line.address).toBe(keys.address);
    expect(line.address).not.toBe(printed.address); // fresh random keys each time
  });

  it('binds to a genesis file given as --network', async () => {
    const file = join(dir.path, 'some-genesis.json');
    copyFileSync(join(ROOT, 'genesis/testnet.json'), file);
    const fileHome = join(dir.path, 'file-node');
    onlyLine(await runCli(['init', '--home', fileHome, '--network', file]));
    expect(readKeyFile(join(fileHome, KEY_FILE_NAME)).genesisHash).toBe(TESTNET_HASH);
  });

  it('refuses mainnet without a genesis file, an unknown network and a missing --home, creating nothing', async () => {
    const mainHome = join(dir.path, 'mainnet-node');
    const [mainnet, unknown, noHome] = await Promise.all([
      runCli(['init', '--home', mainHome, '--network', 'mainnet']),
      runCli(['init', '--home', mainHome, '--network', 'moonnet']),
      runCli(['init', '--network', 'testnet']),
    ]);
    expect(mainnet.code).not.toBe(0);
    expect(mainnet.stderr).toMatch(/no mainnet genesis file in the repository/);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/--network moonnet: neither devnet, testnet, mainnet nor an existing genesis file/);
    expect(noHome.code).not.toBe(0);
    expect(noHome.stderr).toMatch(/--home DIR is required/);
    expect(existsSync(mainHome)).toBe(false);
  });
});

describe('readKeyFile refuses', () => {
  let keys: NodeKeys;
  let n = 0;
  beforeAll(async () => {
    keys = await generateNodeKeys({ network: 'testnet', chainId: 713715, genesisHash: TESTNET_HASH });
  });

  /** A fresh key file of `keys` with `edit` applied to its JSON, mode 0600. */
  function fileWith(edit: (o: Record<string, unknown>) => void): string {
    const path = writeKeyFile(join(dir.path, `read-${++n}`), keys);
    const o = JSON.parse(readFileSync(path, 'utf8'));
    edit(o);
    writeFileSync(path, JSON.stringify(o)); // an existing file keeps its mode
    return path;
  }

  it('nothing in a file as written', () => {
    expect(readKeyFile(fileWith(() => undefined))).toEqual(keys);
  });

  it('a file group or others can read', () => {
    for (const mode of [0o640, 0o604, 0o660]) {
      const path = fileWith(() => undefined);
      chmodSync(path, mode);
      expect(() => readKeyFile(path)).toThrow(`mode is 0${mode.toString(8)}: group and others must have no access`);
    }
  });

  it('another version', () => {
    expect(() => readKeyFile(fileWith((o) => (o.version = 2)))).toThrow('version: unsupported version 2; this node reads key files of version 1');
  });

  it('a malformed key, a missing or an unknown field', () => {
    expect(() => readKeyFile(fileWith((o) => (o.ecdsaPrivateKey = '0x1234')))).toThrow('ecdsaPrivateKey: must be 0x and 64 lower-case hex digits');
    expect(() => readKeyFile(fileWith((o) => (o.ecdsaPrivateKey = `0x${'ff'.repeat(32)}`)))).toThrow('ecdsaPrivateKey: is not a valid secp256k1 private key');
    expect(() => readKeyFile(fileWith((o) => (o.peerPrivateKey = `0x${'00'.repeat(68)}`)))).toThrow('peerPrivateKey: is not a libp2p private key');
    expect(() => readKeyFile(fileWith((o) => delete o.vrfPrivateKey))).toThrow('vrfPrivateKey: required field is missing');
    expect(() => readKeyFile(fileWith((o) => (o.seed = '0x00')))).toThrow('seed: unknown field');
    expect(() => readKeyFile(fileWith((o) => (o.network = 'moonnet')))).toThrow('network: must be one of devnet, testnet, mainnet');
  });

  it('public values that do not follow from the private keys (tampering)', async () => {
    const other = await generateNodeKeys({ network: 'testnet', chainId: 713715, genesisHash: TESTNET_HASH });
    expect(() => readKeyFile(fileWith((o) => (o.ecdsaPubkey = other.ecdsaPubkey)))).toThrow('ecdsaPubkey: does not match ecdsaPrivateKey');
    expect(() => readKeyFile(fileWith((o) => (o.ecdsaPrivateKey = other.ecdsaPrivateKey)))).toThrow('ecdsaPubkey: does not match ecdsaPrivateKey');
    expect(() => readKeyFile(fileWith((o) => (o.address = other.address)))).toThrow('address: does not match ecdsaPubkey');
    expect(() => readKeyFile(fileWith((o) => (o.vrfPubkey = other.vrfPubkey)))).toThrow('vrfPubkey: does not match vrfPrivateKey');
    expect(() => readKeyFile(fileWith((o) => (o.vrfPrivateKey = other.vrfPrivateKey)))).toThrow('vrfPubkey: does not match vrfPrivateKey');
    expect(() => readKeyFile(fileWith((o) => (o.peerId = other.peerId)))).toThrow('peerId: does not match peerPrivateKey');
    expect(() => readKeyFile(fileWith((o) => (o.peerPrivateKey = other.peerPrivateKey)))).toThrow('peerId: does not match peerPrivateKey');
  });

  it('and writeKeyFile uses an existing folder only if group and others have no access to it', () => {
    const open = join(dir.path, 'open-folder');
    mkdirSync(open, { mode: 0o755 });
    chmodSync(open, 0o755);
    expect(() => writeKeyFile(open, keys)).toThrow('folder mode is 0755: group and others must have no access');
    expect(readdirSync(open)).toEqual([]);
    chmodSync(open, 0o700);
    expect(readKeyFile(writeKeyFile(open, keys))).toEqual(keys);
  });

  it('and writeKeyFile never replaces a key file', () => {
    const path = fileWith(() => undefined);
    const before = readFileSync(path);
    expect(() => writeKeyFile(join(path, '..'), keys)).toThrow('a key file is already there');
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(join(path, '..'))).toEqual([KEY_FILE_NAME]);
  });
});
