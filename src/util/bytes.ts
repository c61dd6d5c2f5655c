/** Byte and hex helpers shared by every layer. Addresses are lower-case 0x strings. */

export type Hex = `0x${string}`;
export type Address = `0x${string}`;

const HEX_RE = /^0x[0-9a-fA-F]*$/;
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;

export function isHex(value: unknown, byteLength?: number): value is Hex {
  if (typeof value !== 'string' || !HEX_RE.test(value) || value.length % 2 !== 0) return false;
  return byteLength === undefined || value.length === 2 + byteLength * 2;
}

export function isAddress(value: unknown): value is Address {
  return typeof value === 'string' && ADDRESS_RE.test(value);
}

/** Normalizes an address to lower case; throws on anything that is not 20 bytes of hex. */
export function toAddress(value: string): Address {
  if (!isAddress(value)) throw new Error(`not an address: ${String(value).slice(0, 50)}`);
  return value.toLowerCase() as Address;
}

export function hexToBytes(hex: string): Uint8Array {
  if (!isHex(hex)) throw new Error('invalid hex');
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'));
}

export function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

export const utf8 = new TextEncoder();
export const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
