/**
 * The onboarding operator's key file (decision 78): what `npm run operator` signs with.
 *
 * Two forms are read:
 *   - an operator key file, `{"version":1,"address":"0x…","privateKey":"0x…"}`, written
 *     by `npm run operator -- keygen --out FILE` (mode 0600, never over an existing file);
 *   - a node's key file written by `npm run node -- init` (src/node/keyfile.ts), whose
 *     account key (`ecdsaPrivateKey`) then signs: an operator may use the key it already
 *     keeps.
 * Either must give group and others no access (mode 0600 or stricter), and its address
 * must be the private key's. Without a key file, on devnet only, the CLI signs with the
 * devnet's owner-1 key (public knowledge, genesis/devnet-keys.json), the devnet service's
 * default operator (src/onboarding/service.ts `defaultOperator`).
 */
import { closeSync, fsyncSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { addressFromPrivateKey, isValidSecp256k1PrivateKey } from '../genesis/keys';
import { deriveDevnetKeys } from '../genesis/build';
import { readKeyFile } from '../node/keyfile';
import { bytesToHex, isHex, type Address, type Hex } from '../util/bytes';

export const OPERATOR_KEY_VERSION = 1;
const KEY_FILE_BYTES_MAX = 64 * 1024;

export interface OperatorKey {
  address: Address;
  privateKey: Hex;
}

export function readOperatorKey(path: string): OperatorKey {
  const st = statSync(path);
  if (!st.isFile()) throw new Error(`${path}: not a file`);
  if ((st.mode & 0o077) !== 0) throw new Error(`${path}: mode ${(st.mode & 0o777).toString(8)} lets group or others read the operator key; chmod 600 it`);
  if (st.size > KEY_FILE_BYTES_MAX) throw new Error(`${path}: ${st.size} bytes is not a key file`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error(`${path}: not a key file object`);
  const o = json as Record<string, unknown>;
  if ('ecdsaPrivateKey' in o) {
    const keys = readKeyFile(path);
    return { address: keys.address, privateKey: keys.ecdsaPrivateKey };
  }
  const fields = Object.keys(o).sort().join(',');
  if (fields !== 'address,privateKey,version') throw new Error(`${path}: an operator key file has exactly version, address and privateKey (found ${fields})`);
  if (o.version !== OPERATOR_KEY_VERSION) throw new Error(`${path}: version ${String(o.version)}, this code reads ${OPERATOR_KEY_VERSION}`);
  if (!isHex(o.privateKey, 32) || !isValidSecp256k1PrivateKey(o.privateKey)) throw new Error(`${path}: privateKey is not a secp256k1 private key (0x + 64 hex)`);
  const address = addressFromPrivateKey(o.privateKey);
  if (typeof o.address !== 'string' || o.address.toLowerCase() !== address) throw new Error(`${path}: address ${String(o.address)} is not the private key's (${address})`);
  return { address, privateKey: o.privateKey };
}

/** A fresh operator key in a new file of mode 0600 (refuses an existing file), fsynced. */
export function writeNewOperatorKey(path: string): OperatorKey {
  let privateKey: Hex;
  do {
    const bytes = new Uint8Array(32);
    globalThis.crypto.getRandomValues(bytes);
    privateKey = bytesToHex(bytes);
  } while (!isValidSecp256k1PrivateKey(privateKey));
  const key: OperatorKey = { address: addressFromPrivateKey(privateKey), privateKey };
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ version: OPERATOR_KEY_VERSION, address: key.address, privateKey }, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return key;
}

/** The devnet's default operator key: owner-1 of genesis/devnet-keys.json (devnet only). */
export function devnetOperatorKey(): OperatorKey {
  const owner = deriveDevnetKeys().owners[0];
  return { address: owner.address, privateKey: owner.privateKey };
}
