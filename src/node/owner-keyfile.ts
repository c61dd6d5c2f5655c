/**
 * A governance owner's key file (decision 80): the secp256k1 key whose address is one of
 * the genesis owners, and the network it signs for, so that `npm run node -- gov` never
 * signs for another chain. One JSON object, mode 0600:
 *   {"version": 1, "network": "devnet", "chainId": 713799, "address": "0x…", "privateKey": "0x…"}
 * Made by `gov key new --out FILE` (a fresh key: its address is what a genesis, or a
 * SetOwners operation, names) or, devnet only, by `gov key devnet --out DIR` from the
 * public devnet owner keys (genesis/devnet-keys.json).
 *
 * An owner key is bound to a network name and chain id, not to a genesis hash: the
 * signatures it makes are bound to the chain id (the EIP-712 domain), and an owner outlives
 * a rebuilt genesis of its chain. The key file `init` makes (node-key.json) is read as an
 * owner key file too, its ECDSA key signing.
 *
 * Writing never overwrites and is atomic (a temp file of mode 0600, fsynced, hard-linked
 * to the final name, which fails if that name exists), as src/node/keyfile.ts does.
 * Reading refuses a file group or others can read, an unknown version, any malformed or
 * unknown field, and an address that is not the private key's.
 */
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, linkSync, openSync, readSync, unlinkSync, writeSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { addressFromPrivateKey, isValidSecp256k1PrivateKey } from '../genesis/keys';
import { NETWORKS } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { bytesToHex, isHex, type Address, type Hex } from '../util/bytes';
import { KeyFileError, readKeyFile } from './keyfile';

export const OWNER_KEY_FILE_VERSION = 1;
const OWNER_KEY_FILE_BYTES_MAX = 64 * 1024;

export interface OwnerKey {
  version: typeof OWNER_KEY_FILE_VERSION;
  network: Genesis['network'];
  chainId: number;
  address: Address;
  privateKey: Hex;
}

const FIELDS = ['version', 'network', 'chainId', 'address', 'privateKey'] as const satisfies readonly (keyof OwnerKey)[];

/** A fresh owner key from the system's random source. */
export function generateOwnerKey(network: Genesis['network'], chainId: number): OwnerKey {
  const privateKey = bytesToHex(secp256k1.utils.randomSecretKey());
  return checkOwnerKey({ version: OWNER_KEY_FILE_VERSION, network, chainId, address: addressFromPrivateKey(privateKey), privateKey }, '(key to write)');
}

/** Writes `key` to `path` (mode 0600); throws a KeyFileError, changing nothing, if the file exists. */
export function writeOwnerKeyFile(path: string, key: OwnerKey): void {
  checkOwnerKey(key, '(key to write)');
  if (existsSync(path)) throw new KeyFileError(path, 'a file is already there; a key file is never overwritten');
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    fchmodSync(fd, 0o600); // open's mode is masked by the umask
    writeSync(fd, `${JSON.stringify(key, FIELDS as unknown as string[], 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyFileError(path, 'a file is already there; a key file is never overwritten');
    throw err;
  } finally {
    unlinkSync(tmp);
  }
  const dfd = openSync(dir, constants.O_RDONLY);
  try {
    fsyncSync(dfd);
  } finally {
    closeSync(dfd);
  }
}

/** Reads an owner key file, or the ECDSA key of a node key file (`init`'s); any problem throws a KeyFileError. */
export function readOwnerKeyFile(path: string): OwnerKey {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch (err) {
    throw new KeyFileError(path, `cannot open: ${(err as Error).message}`);
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new KeyFileError(path, 'is not a regular file');
    if ((st.mode & 0o077) !== 0) {
      throw new KeyFileError(path, `mode is ${(st.mode & 0o777).toString(8).padStart(4, '0')}: group and others must have no access (chmod 600 ${path})`);
    }
    if (st.size > OWNER_KEY_FILE_BYTES_MAX) throw new KeyFileError(path, `is ${st.size} bytes, more than a key file's ${OWNER_KEY_FILE_BYTES_MAX}`);
    const buf = Buffer.alloc(st.size);
    let read = 0;
    while (read < st.size) {
      const n = readSync(fd, buf, read, st.size - read, read);
      if (n === 0) break;
      read += n;
    }
    text = buf.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new KeyFileError(path, `invalid JSON: ${(err as Error).message}`);
  }
  if (json !== null && typeof json === 'object' && 'ecdsaPrivateKey' in json) {
    // A node key file made by init: its own reader checks it whole.
    const k = readKeyFile(path);
    return { version: OWNER_KEY_FILE_VERSION, network: k.network, chainId: k.chainId, address: k.address, privateKey: k.ecdsaPrivateKey };
  }
  return checkOwnerKey(json, path);
}

function checkOwnerKey(json: unknown, path: string): OwnerKey {
  const fail = (field: string, reason: string): never => {
    throw new KeyFileError(path, `${field}: ${reason}`);
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('(file)', 'must be a JSON object');
  const o = json as Record<string, unknown>;
  if (o.version !== OWNER_KEY_FILE_VERSION) fail('version', `unsupported version ${JSON.stringify(o.version)}; this node reads owner key files of version ${OWNER_KEY_FILE_VERSION}`);
  for (const k of Object.keys(o)) if (!(FIELDS as readonly string[]).includes(k)) fail(k, 'unknown field');
  for (const k of FIELDS) if (o[k] === undefined) fail(k, 'required field is missing');
  if (!(NETWORKS as readonly unknown[]).includes(o.network)) fail('network', `must be one of ${NETWORKS.join(', ')}, got ${JSON.stringify(o.network)}`);
  if (typeof o.chainId !== 'number' || !Number.isSafeInteger(o.chainId) || o.chainId < 1) fail('chainId', 'must be a positive integer');
  if (typeof o.address !== 'string' || !/^0x[0-9a-f]{40}$/.test(o.address)) fail('address', 'must be 0x and 40 lower-case hex digits');
  if (!isHex(o.privateKey, 32) || o.privateKey !== o.privateKey.toLowerCase()) fail('privateKey', 'must be 0x and 64 lower-case hex digits');
  if (!isValidSecp256k1PrivateKey(o.privateKey as Hex)) fail('privateKey', 'is not a valid secp256k1 private key (1 to n-1)');
  if (addressFromPrivateKey(o.privateKey as Hex) !== o.address) fail('address', 'is not the address of privateKey');
  return Object.fromEntries(FIELDS.map((k) => [k, o[k]])) as unknown as OwnerKey;
}
