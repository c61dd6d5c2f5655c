/**
 * A node's key file (`<home>/node-key.json`, written by `npm run node -- init`): the
 * secp256k1 consensus and account key, the Ed25519 VRF key (a 32-byte seed, RFC 9381
 * ECVRF-EDWARDS25519-SHA512-TAI derives the scalar from it as RFC 8032 does) and the
 * libp2p peer key (Ed25519, libp2p's protobuf encoding), each beside its public value,
 * and the network it was made for (name, chain id, genesis hash) so that a node can
 * refuse a key of another network.
 *
 * Writing never overwrites and is atomic: a temp file (mode 0600) is written and fsynced,
 * then hard-linked to the final name, which fails if that name exists (a rename would
 * replace it), and the folder is fsynced. Only rebindKeyFile replaces a key file, with
 * the same keys bound to another genesis of the same chain. Reading refuses a file that group or others
 * can read, an unknown version, any malformed or unknown field, and a file whose public
 * values do not follow from its private keys (a tampered or mixed-up file).
 */
import { closeSync, constants, fchmodSync, fstatSync, fsyncSync, linkSync, mkdirSync, chmodSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys';
// Two copies of @libp2p/interface are installed, so its key types differ by package: `as never` bridges them (as src/net/libp2p.ts does).
import { peerIdFromPrivateKey, peerIdFromString } from '@libp2p/peer-id';
import {
  addressFromPrivateKey,
  addressFromSecp256k1PublicKey,
  ed25519PublicKey,
  isValidCompressedSecp256k1PublicKey,
  isValidSecp256k1PrivateKey,
  isValidVrfPublicKey,
  secp256k1CompressedPublicKey,
} from '../genesis/keys';
import { NETWORKS } from '../genesis/load';
import type { Genesis } from '../genesis/types';
import { bytesToHex, hexToBytes, isHex, type Address, type Hex } from '../util/bytes';

/** The version this code writes and the only one it reads. */
export const KEY_FILE_VERSION = 1;
export const KEY_FILE_NAME = 'node-key.json';
/** A key file is a few hundred bytes; anything far larger is not one. */
const KEY_FILE_BYTES_MAX = 64 * 1024;

/** The network a key was made for. */
export interface KeyBinding {
  network: Genesis['network'];
  chainId: number;
  /** keccak256 of the genesis' canonical JSON (src/genesis/load.ts genesisHash). */
  genesisHash: Hex;
}

/** The key file's content, every field checked. Field order is the file's. */
export interface NodeKeys extends KeyBinding {
  version: typeof KEY_FILE_VERSION;
  address: Address;
  ecdsaPrivateKey: Hex;
  /** Compressed secp256k1 public key, 33 bytes (0x + 66 hex digits, 02 or 03 first). */
  ecdsaPubkey: Hex;
  /** Ed25519 seed, 32 bytes. */
  vrfPrivateKey: Hex;
  vrfPubkey: Hex;
  /** The libp2p private key in libp2p's protobuf encoding (privateKeyFromProtobuf reads it). */
  peerPrivateKey: Hex;
  peerId: string;
}

const FIELDS = [
  'version',
  'network',
  'chainId',
  'genesisHash',
  'address',
  'ecdsaPrivateKey',
  'ecdsaPubkey',
  'vrfPrivateKey',
  'vrfPubkey',
  'peerPrivateKey',
  'peerId',
] as const satisfies readonly (keyof NodeKeys)[];

/**
 * What `init` prints and `genesis new` reads: the public values, the names the API uses,
 * the keys in the contract's onboarding formats (contract [C-res-validator-fields]): hex
 * without 0x, 66 characters starting 02/03 for the ECDSA key, 64 for the VRF key.
 */
export interface PublicValues {
  address: Address;
  ecdsa_pubkey: string;
  vrf_pubkey: string;
  peer_id: string;
}

/** A 0x-prefixed key as the onboarding formats write it: hex without 0x. */
const bare = (hex: Hex): string => hex.slice(2);

export class KeyFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'KeyFileError';
  }
}

/** Fresh keys from the system's random source, bound to `binding`. */
export async function generateNodeKeys(binding: KeyBinding): Promise<NodeKeys> {
  const ecdsaPrivateKey = bytesToHex(secp256k1.utils.randomSecretKey());
  const vrfPrivateKey = bytesToHex(ed25519.utils.randomSecretKey());
  const peerKey = await generateKeyPair('Ed25519');
  return {
    version: KEY_FILE_VERSION,
    network: binding.network,
    chainId: binding.chainId,
    genesisHash: binding.genesisHash,
    address: addressFromPrivateKey(ecdsaPrivateKey),
    ecdsaPrivateKey,
    ecdsaPubkey: secp256k1CompressedPublicKey(ecdsaPrivateKey),
    vrfPrivateKey,
    vrfPubkey: ed25519PublicKey(vrfPrivateKey),
    peerPrivateKey: bytesToHex(privateKeyToProtobuf(peerKey)),
    peerId: peerIdFromPrivateKey(peerKey as never).toString(),
  };
}

export function publicValues(keys: NodeKeys): PublicValues {
  return { address: keys.address, ecdsa_pubkey: bare(keys.ecdsaPubkey), vrf_pubkey: bare(keys.vrfPubkey), peer_id: keys.peerId };
}

/**
 * Writes `keys` to `<home>/node-key.json`, creating `home` (mode 0700). Throws a
 * KeyFileError, and changes nothing, if the file exists. Returns the file's path.
 */
export function writeKeyFile(home: string, keys: NodeKeys): string {
  checkKeys(keys, '(keys to write)'); // before the folder is made
  const path = join(home, KEY_FILE_NAME);
  if (existsSync(home)) {
    // An existing folder is used as it is, never re-permissioned behind the operator's back.
    const st = statSync(home);
    if (!st.isDirectory()) throw new KeyFileError(home, 'exists and is not a folder');
    if ((st.mode & 0o077) !== 0) {
      throw new KeyFileError(home, `folder mode is ${(st.mode & 0o777).toString(8).padStart(4, '0')}: group and others must have no access (chmod 700 ${home}, or give a new folder)`);
    }
  } else {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    chmodSync(home, 0o700); // mkdir's mode is masked by the umask
  }
  if (existsSync(path)) throw new KeyFileError(path, 'a key file is already there; init never overwrites a key (move it away first if you mean to replace it)');
  writeNewPrivateFile(path, keyFileText(keys));
  return path;
}

/**
 * Binds the key file of `home` to another genesis of the same network and chain id (the
 * operators of a network built by `genesis new` made their keys before its genesis
 * existed). The keys stay as they are; a key is never moved to another chain id or
 * network name. The file is replaced atomically (temp file, fsync, rename).
 */
export function rebindKeyFile(home: string, binding: KeyBinding): NodeKeys {
  const path = join(home, KEY_FILE_NAME);
  const keys = readKeyFile(path);
  if (keys.network !== binding.network || keys.chainId !== binding.chainId) {
    throw new KeyFileError(
      path,
      `made for ${keys.network} (chain id ${keys.chainId}); a key is never moved to another network (${binding.network}, chain id ${binding.chainId}): make a new one with init`,
    );
  }
  if (keys.genesisHash === binding.genesisHash) return keys;
  const rebound: NodeKeys = { ...keys, genesisHash: binding.genesisHash };
  const tmp = writeTemp(home, rebound);
  try {
    renameSync(tmp, path);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
  fsyncFolder(home);
  return rebound;
}

/** A key file's text: the fields in their order. */
function keyFileText(keys: NodeKeys): string {
  return `${JSON.stringify(keys, FIELDS as unknown as string[], 2)}\n`;
}

/** Writes `keys` to a fresh temp file of mode 0600 in `home`, fsynced; returns its path. */
function writeTemp(home: string, keys: NodeKeys): string {
  checkKeys(keys, '(keys to write)'); // never write a file that readKeyFile would refuse
  return writePrivateTemp(join(home, KEY_FILE_NAME), keyFileText(keys));
}

/** Writes `text` to a fresh temp file of mode 0600 beside `path`, fsynced; returns the temp file's path. */
function writePrivateTemp(path: string, text: string): string {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    fchmodSync(fd, 0o600); // open's mode is masked by the umask
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  return tmp;
}

function fsyncFolder(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The key file of a home folder: `<home>/node-key.json`. */
export function keyFilePath(home: string): string {
  return join(home, KEY_FILE_NAME);
}

/** Reads and checks a key file; any problem throws a KeyFileError naming the field. */
export function readKeyFile(path: string): NodeKeys {
  return checkKeys(readPrivateJsonFile(path, KEY_FILE_BYTES_MAX), path);
}

/**
 * Reads a private JSON file (a key file of any kind): a regular file that group and
 * others cannot access, at most `maxBytes`, parsed. Any problem throws a KeyFileError.
 */
export function readPrivateJsonFile(path: string, maxBytes: number): unknown {
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
    if (st.size > maxBytes) throw new KeyFileError(path, `is ${st.size} bytes, more than a key file's ${maxBytes}`);
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
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new KeyFileError(path, `invalid JSON: ${(err as Error).message}`);
  }
}

/**
 * Writes `text` to a new private file at `path` (mode 0600) atomically and never over an
 * existing one: a temp file of mode 0600, fsynced, hard-linked to the final name (which
 * fails if the name exists; a rename would replace it), then the folder fsynced.
 * Throws a KeyFileError, changing nothing, if the file exists.
 */
export function writeNewPrivateFile(path: string, text: string): void {
  if (existsSync(path)) throw new KeyFileError(path, 'a file is already there; a key file is never overwritten');
  const tmp = writePrivateTemp(path, text);
  try {
    linkSync(tmp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyFileError(path, 'a file is already there; a key file is never overwritten');
    throw err;
  } finally {
    unlinkSync(tmp);
  }
  fsyncFolder(dirname(path));
}

/** Checks a parsed key file: exact fields, formats, and every public value against its private key. */
function checkKeys(json: unknown, path: string): NodeKeys {
  const fail = (field: string, reason: string): never => {
    throw new KeyFileError(path, `${field}: ${reason}`);
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('(file)', 'must be a JSON object');
  const o = json as Record<string, unknown>;
  if (o.version !== KEY_FILE_VERSION) {
    fail('version', `unsupported version ${JSON.stringify(o.version)}; this node reads key files of version ${KEY_FILE_VERSION}`);
  }
  for (const k of Object.keys(o)) if (!(FIELDS as readonly string[]).includes(k)) fail(k, 'unknown field');
  for (const k of FIELDS) if (o[k] === undefined) fail(k, 'required field is missing');

  if (!(NETWORKS as readonly unknown[]).includes(o.network)) fail('network', `must be one of ${NETWORKS.join(', ')}, got ${JSON.stringify(o.network)}`);
  if (typeof o.chainId !== 'number' || !Number.isSafeInteger(o.chainId) || o.chainId < 1) fail('chainId', 'must be a positive integer');
  const hex = (k: string, bytes: number): Hex => {
    const v = o[k];
    if (!isHex(v, bytes) || v !== v.toLowerCase()) fail(k, `must be 0x and ${2 * bytes} lower-case hex digits`);
    return v as Hex;
  };
  hex('genesisHash', 32);
  if (typeof o.address !== 'string' || !/^0x[0-9a-f]{40}$/.test(o.address)) fail('address', 'must be 0x and 40 lower-case hex digits');

  const ecdsaPrivateKey = hex('ecdsaPrivateKey', 32);
  if (!isValidSecp256k1PrivateKey(ecdsaPrivateKey)) fail('ecdsaPrivateKey', 'is not a valid secp256k1 private key (1 to n-1)');
  const ecdsaPubkey = hex('ecdsaPubkey', 33);
  if (!isValidCompressedSecp256k1PublicKey(ecdsaPubkey)) fail('ecdsaPubkey', 'is not a compressed secp256k1 public key');
  if (secp256k1CompressedPublicKey(ecdsaPrivateKey) !== ecdsaPubkey) fail('ecdsaPubkey', 'does not match ecdsaPrivateKey');
  if (addressFromSecp256k1PublicKey(ecdsaPubkey) !== o.address) fail('address', 'does not match ecdsaPubkey');

  const vrfPrivateKey = hex('vrfPrivateKey', 32);
  const vrfPubkey = hex('vrfPubkey', 32);
  if (!isValidVrfPublicKey(vrfPubkey)) fail('vrfPubkey', 'is not an Ed25519 public key (a point not of small order)');
  if (ed25519PublicKey(vrfPrivateKey) !== vrfPubkey) fail('vrfPubkey', 'does not match vrfPrivateKey');

  const peerPrivateKey = hex('peerPrivateKey', 68); // protobuf: type Ed25519 and 64 bytes (seed ‖ public key)
  let peerId: string;
  try {
    const key = privateKeyFromProtobuf(hexToBytes(peerPrivateKey));
    if (key.type !== 'Ed25519') fail('peerPrivateKey', `must be an Ed25519 libp2p key, got ${key.type}`);
    peerId = peerIdFromPrivateKey(key as never).toString();
  } catch (err) {
    if (err instanceof KeyFileError) throw err;
    return fail('peerPrivateKey', `is not a libp2p private key: ${(err as Error).message}`);
  }
  if (peerId !== o.peerId) fail('peerId', 'does not match peerPrivateKey');
  return Object.fromEntries(FIELDS.map((k) => [k, o[k]])) as unknown as NodeKeys;
}

/**
 * Parses the public values `init` prints (or a JSON object holding them and, besides,
 * `extra` fields the caller reads itself). Hex keys may come with or without 0x.
 * `where` names the input in errors.
 */
export function parsePublicValues(json: unknown, where: string, extra: readonly string[] = []): PublicValues {
  const fail = (field: string, reason: string): never => {
    throw new Error(`${where}: ${field}: ${reason}`);
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('(value)', 'must be a JSON object');
  const o = json as Record<string, unknown>;
  const known = ['address', 'ecdsa_pubkey', 'vrf_pubkey', 'peer_id', ...extra];
  for (const k of Object.keys(o)) if (!known.includes(k)) fail(k, `unknown field (known: ${known.join(', ')})`);
  const hexField = (k: string, digits: number): Hex => {
    const v = o[k];
    if (typeof v !== 'string') fail(k, 'required, a hex string');
    const s = (v as string).startsWith('0x') ? (v as string).slice(2) : (v as string);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(s)) fail(k, `must be ${digits} hex digits (0x optional), got ${JSON.stringify(v).slice(0, 80)}`);
    return `0x${s.toLowerCase()}`;
  };
  const ecdsa = hexField('ecdsa_pubkey', 66);
  if (!isValidCompressedSecp256k1PublicKey(ecdsa)) fail('ecdsa_pubkey', 'must be a compressed secp256k1 public key (02 or 03, then a point X)');
  const vrf = hexField('vrf_pubkey', 64);
  if (!isValidVrfPublicKey(vrf)) fail('vrf_pubkey', 'must be an Ed25519 public key (a valid point not of small order)');
  if (typeof o.address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(o.address)) fail('address', 'required, 0x and 40 hex digits');
  const address = (o.address as string).toLowerCase() as Address;
  const derived = addressFromSecp256k1PublicKey(ecdsa);
  if (derived !== address) fail('address', `does not match ecdsa_pubkey, which derives to ${derived}`);
  if (typeof o.peer_id !== 'string') fail('peer_id', 'required, a libp2p peer id');
  let peer: ReturnType<typeof peerIdFromString> | undefined;
  try {
    peer = peerIdFromString(o.peer_id as string);
  } catch (err) {
    fail('peer_id', `is not a libp2p peer id: ${(err as Error).message}`);
  }
  if (peer?.type !== 'Ed25519') fail('peer_id', `must be the peer id of an Ed25519 libp2p key, got a ${peer?.type} one`);
  return { address, ecdsa_pubkey: bare(ecdsa), vrf_pubkey: bare(vrf), peer_id: peer!.toString() };
}
