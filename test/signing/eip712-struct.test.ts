/** The shared flat EIP-712 struct encoder (src/signing/eip712-struct.ts) against viem's hashTypedData, member type by member type. */
import { describe, expect, it } from 'vitest';
import { hashTypedData } from 'viem';
import { eip712Domain } from '../../src/signing/eip712';
import { memberWord, typedDigest, viemTypes, withOptionsMember, type Eip712Member } from '../../src/signing/eip712-struct';
import { bytesToHex } from '../../src/util/bytes';

const members: readonly Eip712Member[] = [
  { name: 'who', type: 'address' },
  { name: 'flag', type: 'bool' },
  { name: 'small', type: 'uint8' },
  { name: 'mid', type: 'uint64' },
  { name: 'big', type: 'uint256' },
  { name: 'id', type: 'bytes16' },
  { name: 'hash', type: 'bytes32' },
  { name: 'text', type: 'string' },
];
const message = {
  who: '0x00000000000000000000000000000000000000a1', flag: true, small: 255n, mid: 2n ** 64n - 1n, big: 2n ** 255n + 7n,
  id: '0x000102030405060708090a0b0c0d0e0f', hash: `0x${'ab'.repeat(32)}`, text: 'héllo;tif=Ioc',
} as const;

describe('eip712-struct', () => {
  it('hashes every member type as viem does, with and without the options member', () => {
    for (const chainId of [713714, 713799]) {
      expect(bytesToHex(typedDigest(chainId, 'Probe', members, message))).toBe(
        hashTypedData({ domain: eip712Domain(chainId), types: viemTypes('Probe', members), primaryType: 'Probe', message }),
      );
      const withOptions = withOptionsMember(members, 'expiresAfter=5');
      expect(bytesToHex(typedDigest(chainId, 'Probe', withOptions, { ...message, options: 'expiresAfter=5' }))).toBe(
        hashTypedData({ domain: eip712Domain(chainId), types: viemTypes('Probe', withOptions), primaryType: 'Probe', message: { ...message, options: 'expiresAfter=5' } }),
      );
    }
    expect(withOptionsMember(members, '')).toBe(members);
  });

  it('refuses a value out of its type and a type it does not take', () => {
    expect(() => memberWord('uint8', 256n, 'f')).toThrow(/uint8/);
    expect(() => memberWord('uint64', -1n, 'f')).toThrow(/uint64/);
    expect(() => memberWord('uint64', 1, 'f')).toThrow(/bigint/);
    expect(() => memberWord('bytes16', '0x00', 'f')).toThrow(/16 bytes/);
    expect(() => memberWord('address', '0x12', 'f')).toThrow(/address/);
    expect(() => memberWord('bool', 1, 'f')).toThrow(/boolean/);
    expect(() => memberWord('int256', 1n, 'f')).toThrow(/not one this encoder takes/);
  });
});
