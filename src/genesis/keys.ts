/**
 * Key helpers used by the genesis loader, the generator and the key file. Derivations
 * and hashes run on the native libraries (src/crypto: libsecp256k1, libsodium, XKCP
 * keccak): every start loads the genesis (deriving the faucet's address) and checks its
 * key file, and @noble's first multiplication on a curve builds its tables (~0.1-0.15 s
 * each). Validity checks of public keys stay on @noble (no table is built for them).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { keccak256 } from '../crypto/keccak';
import { decompressPublicKey, publicKeyFromPrivate } from '../crypto/secp256k1';
import { vrfPublicKey } from '../crypto/vrf';
import type { Address, Hex } from '../util/bytes';

function hexToBytesStrict(hex: string): Uint8Array {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`invalid hex: ${hex.slice(0, 20)}`);
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
}

function toHex(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

/** Ethereum address of a secp256k1 public key (33-byte compressed or 65-byte uncompressed). */
export function addressFromSecp256k1PublicKey(publicKey: Uint8Array | Hex): Address {
  const bytes = typeof publicKey === 'string' ? hexToBytesStrict(publicKey) : publicKey;
  const uncompressed = decompressPublicKey(bytes); // 0x04 ‖ X ‖ Y
  return toHex(keccak256(uncompressed.subarray(1)).subarray(12)) as Address;
}

/** True if `key` is 32 bytes and a valid secp256k1 secret scalar (1 ≤ k < n). */
export function isValidSecp256k1PrivateKey(key: Hex): boolean {
  try {
    return secp256k1.utils.isValidSecretKey(hexToBytesStrict(key));
  } catch {
    return false;
  }
}

/** Compressed (33-byte) secp256k1 public key of a private key. */
export function secp256k1CompressedPublicKey(privateKey: Hex): Hex {
  return toHex(publicKeyFromPrivate(hexToBytesStrict(privateKey), true));
}

/** Ethereum address of a secp256k1 private key. */
export function addressFromPrivateKey(privateKey: Hex): Address {
  return addressFromSecp256k1PublicKey(publicKeyFromPrivate(hexToBytesStrict(privateKey), false));
}

/** True if `publicKey` is a 33-byte compressed secp256k1 point (prefix 02/03) on the curve. */
export function isValidCompressedSecp256k1PublicKey(publicKey: Hex): boolean {
  try {
    const bytes = hexToBytesStrict(publicKey);
    if (bytes.length !== 33 || (bytes[0] !== 2 && bytes[0] !== 3)) return false;
    secp256k1.Point.fromBytes(bytes).assertValidity();
    return true;
  } catch {
    return false;
  }
}

/**
 * Ed25519 public key of a 32-byte seed, as used by ECVRF-EDWARDS25519-SHA512-TAI (RFC 9381
 * §5.1: the secret scalar is derived from the seed exactly as in RFC 8032).
 */
export function ed25519PublicKey(seed: Hex): Hex {
  return toHex(vrfPublicKey(hexToBytesStrict(seed)));
}

/** True if `publicKey` is a 32-byte encoding of an Ed25519 point that is not of small order. */
export function isValidVrfPublicKey(publicKey: Hex): boolean {
  try {
    const bytes = hexToBytesStrict(publicKey);
    if (bytes.length !== 32) return false;
    const point = ed25519.Point.fromBytes(bytes);
    return !point.isSmallOrder();
  } catch {
    return false;
  }
}
