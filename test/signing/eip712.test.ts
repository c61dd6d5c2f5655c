/** EIP-712 encoder: the exact types of contract [D-signatures-native], the domain, and input validation. */
import { describe, expect, it } from 'vitest';
import { keccak256 as viemKeccak256, stringToHex } from 'viem';
import { bytesToHex, type Address } from '../../src/util/bytes';
import {
  CHAIN_ID_MAINNET,
  CHAIN_ID_TESTNET,
  EIP712_PRIMARY_TYPES,
  EIP712_TYPES,
  EIP712_TYPE_STRINGS,
  domainSeparator,
  eip712Domain,
  hashTypedMessage,
  typeHash,
  type Eip712PrimaryType,
} from '../../src/signing/eip712';
import { sampleMessage } from '../crypto/helpers';

/** As contract [C-auth-eip712] and [D-signatures-native] give them: the wire contract. */
const CONTRACT_TYPES = [
  'SessionCreate(address sessionKey,uint256 expiresAt,uint256 nonce)',
  'SessionRevoke(address owner,uint256 nonce)',
  'SetAgentCaps(address owner,uint64 maxLeverage,uint32 allowedOrderTypes,uint128 maxInputPerTrade,uint128 maxTotalPosition,uint256 nonce)',
  'SetAgentMode(address owner,uint8 mode,uint256 nonce)',
  'PlaceOrder(address owner,uint32 pairId,uint8 side,uint8 orderType,uint256 price,uint256 size,uint32 leverage,uint256 nonce)',
  'CancelOrder(address owner,uint256 orderId,uint256 nonce)',
  'Withdraw(address owner,uint256 amount,address destination,uint256 nonce)',
  'PoolDeposit(address owner,uint256 amount,uint256 nonce)',
  'PoolWithdraw(address owner,uint256 shares,uint256 nonce)',
];

describe('EIP-712 types and domain', () => {
  it('type strings are exactly those of the contract, and nothing else', () => {
    expect(Object.values(EIP712_TYPE_STRINGS).sort()).toEqual([...CONTRACT_TYPES].sort());
    expect([...EIP712_PRIMARY_TYPES].sort()).toEqual(CONTRACT_TYPES.map((t) => t.slice(0, t.indexOf('('))).sort());
    for (const t of CONTRACT_TYPES) {
      const name = t.slice(0, t.indexOf('(')) as Eip712PrimaryType;
      expect(bytesToHex(typeHash(name))).toBe(viemKeccak256(stringToHex(t)));
    }
  });

  // Shows contract [D-networks-domain], [C-version-eip712].
  it('domain is ExchangeSession / 1 / chainId / 0x…1002', () => {
    expect(eip712Domain(CHAIN_ID_MAINNET)).toEqual({
      name: 'ExchangeSession',
      version: '1',
      chainId: 713714,
      verifyingContract: '0x0000000000000000000000000000000000001002',
    });
    expect(eip712Domain(CHAIN_ID_TESTNET).chainId).toBe(713715);
    expect(eip712Domain(424242).chainId).toBe(424242);
  });

  it('known domain separator (keccak of the encoded domain, computed independently)', () => {
    // encodeData(EIP712Domain) written out by hand with viem primitives.
    const enc =
      viemKeccak256(stringToHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)')).slice(2) +
      viemKeccak256(stringToHex('ExchangeSession')).slice(2) +
      viemKeccak256(stringToHex('1')).slice(2) +
      (713714).toString(16).padStart(64, '0') +
      '1002'.padStart(64, '0');
    expect(bytesToHex(domainSeparator(CHAIN_ID_MAINNET))).toBe(viemKeccak256(`0x${enc}`));
  });

  it('different networks give different digests; cached separator cannot be corrupted', () => {
    const m = sampleMessage('PlaceOrder');
    const main = bytesToHex(hashTypedMessage(CHAIN_ID_MAINNET, 'PlaceOrder', m));
    expect(bytesToHex(hashTypedMessage(CHAIN_ID_TESTNET, 'PlaceOrder', m))).not.toBe(main);
    domainSeparator(CHAIN_ID_MAINNET).fill(0);
    typeHash('PlaceOrder').fill(0);
    expect(bytesToHex(hashTypedMessage(CHAIN_ID_MAINNET, 'PlaceOrder', m))).toBe(main);
  });

  it('rejects bad chain ids', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => hashTypedMessage(bad, 'SessionRevoke', sampleMessage('SessionRevoke'))).toThrow(RangeError);
      expect(() => eip712Domain(bad)).toThrow(RangeError);
    }
  });

  it('types with the same member values still hash differently (type hash binds the type)', () => {
    const owner = '0x1111111111111111111111111111111111111111' as Address;
    const a = hashTypedMessage(CHAIN_ID_MAINNET, 'PoolDeposit', { owner, amount: 5n, nonce: 1n });
    const b = hashTypedMessage(CHAIN_ID_MAINNET, 'PoolWithdraw', { owner, shares: 5n, nonce: 1n });
    const c = hashTypedMessage(CHAIN_ID_MAINNET, 'SessionRevoke', { owner, nonce: 1n });
    expect(new Set([a, b, c].map(bytesToHex)).size).toBe(3);
  });
});

describe('EIP-712 input validation', () => {
  for (const primaryType of EIP712_PRIMARY_TYPES) {
    for (const member of EIP712_TYPES[primaryType]) {
      const label = `${primaryType}.${member.name} (${member.type})`;
      const hash = (value: unknown) =>
        hashTypedMessage(CHAIN_ID_MAINNET, primaryType, { ...sampleMessage(primaryType), [member.name]: value } as never);

      if (member.type === 'address') {
        it(`${label}: rejects non-addresses, accepts any hex case`, () => {
          for (const bad of [undefined, null, '', '0x', '0x1234', `0x${'g'.repeat(40)}`, `0x${'1'.repeat(41)}`, '1'.repeat(40), 5n]) {
            expect(() => hash(bad), String(bad)).toThrow(TypeError);
          }
          expect(bytesToHex(hash(`0x${'AB'.repeat(20)}`))).toBe(bytesToHex(hash(`0x${'ab'.repeat(20)}`)));
        });
      } else {
        const bits = BigInt(member.type.slice(4));
        const max = (1n << bits) - 1n;
        it(`${label}: accepts 0 and 2^${bits}-1, rejects 2^${bits}, negatives and non-bigints`, () => {
          expect(() => hash(0n)).not.toThrow();
          expect(() => hash(max)).not.toThrow();
          expect(bytesToHex(hash(max))).not.toBe(bytesToHex(hash(max - 1n)));
          expect(() => hash(max + 1n)).toThrow(RangeError);
          expect(() => hash(-1n)).toThrow(RangeError);
          expect(() => hash(-(1n << 255n))).toThrow(RangeError);
          for (const bad of [undefined, null, 1, '1', 1.5, true]) expect(() => hash(bad), String(bad)).toThrow(TypeError);
        });
      }
    }
  }

  it('rejects unknown primary types and non-object messages', () => {
    expect(() => hashTypedMessage(CHAIN_ID_MAINNET, 'EIP712Domain' as never, {} as never)).toThrow(TypeError);
    expect(() => hashTypedMessage(CHAIN_ID_MAINNET, 'toString' as never, {} as never)).toThrow(TypeError);
    expect(() => hashTypedMessage(CHAIN_ID_MAINNET, 'PlaceOrder', null as never)).toThrow(TypeError);
  });

  it('members not in the type are ignored (as in EIP-712 encodeData)', () => {
    const m = sampleMessage('CancelOrder');
    expect(bytesToHex(hashTypedMessage(CHAIN_ID_MAINNET, 'CancelOrder', { ...m, extra: 1n } as never))).toBe(
      bytesToHex(hashTypedMessage(CHAIN_ID_MAINNET, 'CancelOrder', m)),
    );
  });
});
