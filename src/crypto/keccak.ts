/**
 * Keccak-256 (the pre-standard SHA-3 variant Ethereum uses; NOT FIPS-202 sha3_256).
 * Addresses, EIP-191/EIP-712 digests, the exchange REST digests and transaction and
 * block hashes are all built on it.
 *
 * Hot path: the XKCP implementation in the `keccak` package's native addon, driven
 * through one reused sponge state (3–4× @noble/hashes on 32–200-byte inputs here; the
 * package's stream wrapper would cost more than the hash). @noble/hashes stays as the
 * reference the tests compare against. A missing native build fails loudly at import.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, type Hex } from '../util/bytes';
import { loadAddon } from '../util/native-addons';

interface KeccakState {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Buffer;
}

const NativeKeccakState = loadAddon('keccak') as new () => KeccakState;
if (typeof NativeKeccakState !== 'function') throw new Error('native keccak addon failed to load');

/** One sponge, reinitialized per hash: execution is single-threaded, and allocation is the cost. */
const sponge = new NativeKeccakState();
const RATE_BITS = 1088;
const CAPACITY_BITS = 512;
/** Keccak's padding suffix (SHA-3 would be 0x06). */
const KECCAK_SUFFIX = 0x01;

/** 32-byte Keccak-256 digest of `data`. */
export function keccak256(data: Uint8Array): Uint8Array {
  sponge.initialize(RATE_BITS, CAPACITY_BITS);
  sponge.absorb(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  sponge.absorbLastFewBits(KECCAK_SUFFIX);
  const out = sponge.squeeze(32);
  return new Uint8Array(out.buffer, out.byteOffset, 32);
}

/** The pure-JS reference implementation (@noble/hashes). */
export function keccak256Noble(data: Uint8Array): Uint8Array {
  return keccak_256(data);
}

/** Keccak-256 digest as lower-case 0x hex (64 hex characters). */
export function keccak256Hex(data: Uint8Array): Hex {
  return bytesToHex(keccak256(data));
}
