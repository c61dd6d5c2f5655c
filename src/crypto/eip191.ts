/**
 * EIP-191 version 0x45 ("personal_sign") message hashing, as wallets, viem
 * `signMessage` and ethers `signMessage` produce it.
 */
import { concatBytes, utf8 } from '../util/bytes';
import { keccak256 } from './keccak';

const PREFIX = utf8.encode('\x19Ethereum Signed Message:\n');

/**
 * keccak256("\x19Ethereum Signed Message:\n" + decimal byte length + message).
 *
 * A string is always taken as UTF-8 text, never decoded as hex, even when it
 * starts with "0x" (this matches viem `signMessage({ message: string })`). To sign
 * raw bytes (viem `{ message: { raw } }`, ethers `getBytes(...)`), pass a Uint8Array.
 * The length is the BYTE length, not the number of UTF-16 code units.
 */
export function hashPersonalMessage(message: Uint8Array | string): Uint8Array {
  const bytes = typeof message === 'string' ? utf8.encode(message) : message;
  if (!(bytes instanceof Uint8Array)) throw new TypeError('message must be a string or a Uint8Array');
  return keccak256(concatBytes(PREFIX, utf8.encode(String(bytes.length)), bytes));
}
