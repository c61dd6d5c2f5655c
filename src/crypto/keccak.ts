/**
 * Keccak-256 (the pre-standard SHA-3 variant Ethereum uses; NOT FIPS-202 sha3_256).
 * Addresses, EIP-191/EIP-712 digests and the exchange REST digests are all built on it.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, type Hex } from '../util/bytes';

/** 32-byte Keccak-256 digest of `data`. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/** Keccak-256 digest as lower-case 0x hex (64 hex characters). */
export function keccak256Hex(data: Uint8Array): Hex {
  return bytesToHex(keccak_256(data));
}
