/**
 * The 32-byte words the signed formats hash (Solidity's abi.encode and abi.encodePacked
 * of uintN and address, EIP-712's encodeData): one encoder, so the REST and timer
 * digests, the EIP-712 structs and the bridge withdrawal's message agree on the bytes of
 * a number and refuse the same out-of-range values.
 */
import type { Address } from '../util/bytes';

/** The big-endian word of `value`, an unsigned integer below 2^bits; `what` names it in the RangeError. */
export function uintWord(value: bigint, bits = 256, what = 'value'): Uint8Array {
  if (value < 0n || value >= 1n << BigInt(bits)) throw new RangeError(`${what}: ${value} is not a uint${bits}`);
  const out = new Uint8Array(32);
  writeUintWord(out, 0, value);
  return out;
}

/**
 * Writes the word of `value` (known to be in [0, 2^256)) at buf[off..off+32], which must
 * be zero: no allocation and no bigint division, for the hot paths (a block's EIP-712
 * hashes).
 */
export function writeUintWord(buf: Uint8Array, off: number, value: bigint): void {
  const dv = new DataView(buf.buffer, buf.byteOffset + off, 32);
  dv.setBigUint64(24, BigInt.asUintN(64, value));
  value >>= 64n;
  if (value === 0n) return; // most values (nonces, ids, small widths) fit one limb
  dv.setBigUint64(16, BigInt.asUintN(64, value));
  value >>= 64n;
  dv.setBigUint64(8, BigInt.asUintN(64, value));
  dv.setBigUint64(0, value >> 64n);
}

/** An address left-padded to a word (hex case, the checksum, does not change it). */
export function addressWord(address: Address): Uint8Array {
  const out = new Uint8Array(32);
  writeAddressWord(out, 0, address);
  return out;
}

/** Writes the word of an address the caller has checked (0x and 40 hex digits) at buf[off..off+32], which must be zero. */
export function writeAddressWord(buf: Uint8Array, off: number, address: string): void {
  buf.set(Buffer.from(address.slice(2), 'hex'), off + 12);
}
