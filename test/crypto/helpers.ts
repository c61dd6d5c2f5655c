/** Shared generators for the crypto and signing tests (test/crypto, test/signing). */
import fc from 'fast-check';
import { bytesToHex, type Address, type Hex } from '../../src/util/bytes';
import { EIP712_TYPES, type Eip712Messages, type Eip712PrimaryType } from '../../src/signing/eip712';
import { SECP256K1_N } from '../../src/crypto/secp256k1';

export function bigintTo32(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(value & 0xffn);
    value >>= 8n;
  }
  return out;
}
export function bytesToBigint(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(bytesToHex(bytes));
}

/** Valid private keys; fast-check biases toward the edges 1 and n-1, which we want. */
export const privateKeyArb: fc.Arbitrary<Uint8Array> = fc.bigInt({ min: 1n, max: SECP256K1_N - 1n }).map(bigintTo32);
export const privateKeyHexArb: fc.Arbitrary<Hex> = privateKeyArb.map((k) => bytesToHex(k));
export const bytes32Arb: fc.Arbitrary<Uint8Array> = fc.uint8Array({ minLength: 32, maxLength: 32 });
export const addressArb: fc.Arbitrary<Address> = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((b) => bytesToHex(b) as Address);

/** A random message for a primary type: every uint within its Solidity width (edges included). */
export function messageArb<P extends Eip712PrimaryType>(primaryType: P): fc.Arbitrary<Eip712Messages[P]> {
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const member of EIP712_TYPES[primaryType]) {
    if (member.type === 'address') record[member.name] = addressArb;
    else {
      const bits = BigInt(member.type.slice(4));
      record[member.name] = fc.bigInt({ min: 0n, max: (1n << bits) - 1n });
    }
  }
  return fc.record(record) as unknown as fc.Arbitrary<Eip712Messages[P]>;
}

/** A fixed valid message per type, for the error-path tests. */
export function sampleMessage<P extends Eip712PrimaryType>(primaryType: P): Eip712Messages[P] {
  const out: Record<string, unknown> = {};
  let i = 1n;
  for (const member of EIP712_TYPES[primaryType]) {
    out[member.name] = member.type === 'address' ? (`0x${'ab'.repeat(19)}${i.toString(16).padStart(2, '0')}` as Address) : i;
    i++;
  }
  return out as unknown as Eip712Messages[P];
}
