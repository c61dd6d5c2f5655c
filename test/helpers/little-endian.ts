/**
 * Little-endian integers for the VRF tests (RFC 9381's int_to_string for the edwards25519
 * suite), written apart from src/crypto so the tests do not check the code with itself.
 */
export function le(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
}

export function leBytes(n: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
}
