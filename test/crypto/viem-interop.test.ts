/**
 * viem as an independent implementation: what a real client signs must verify here,
 * and every hash must equal viem's.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  encodePacked,
  getAddress,
  hashDomain,
  hashMessage,
  hashStruct as viemHashStruct,
  hashTypedData,
  keccak256 as viemKeccak256,
  toHex,
  type Hex as ViemHex,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount, publicKeyToAddress as viemPublicKeyToAddress, type PrivateKeyAccount } from 'viem/accounts';
import { bytesToHex, hexToBytes, type Address } from '../../src/util/bytes';
import { hashPersonalMessage, keccak256, privateKeyToAddress, publicKeyFromPrivate, publicKeyToAddress, recoverSigner, verifySigner } from '../../src/crypto/index';
import {
  CHAIN_ID_MAINNET,
  CHAIN_ID_TESTNET,
  EIP712_PRIMARY_TYPES,
  EIP712_TYPES,
  domainSeparator,
  eip712Domain,
  hashStruct,
  hashTypedMessage,
  verifyTypedSigner,
  type Eip712Messages,
  type Eip712PrimaryType,
} from '../../src/signing/eip712';
import { batchDigest, cancelAllDigest, cancelDigest, placeOrderDigest, restSigningHash, verifyRestSignature } from '../../src/signing/exchange-digest';
import { messageArb, privateKeyHexArb } from './helpers';

const DEVNET_CHAIN_ID = 31337;
const CHAIN_IDS = [CHAIN_ID_MAINNET, CHAIN_ID_TESTNET, DEVNET_CHAIN_ID];

/** The 64-byte wire form: the 65-byte signature minus v. */
const strip = (sig: ViemHex): Address & ViemHex => sig.slice(0, 130) as Address & ViemHex;
const lower = (a: string): Address => a.toLowerCase() as Address;

function signTyped<P extends Eip712PrimaryType>(account: PrivateKeyAccount, chainId: number, primaryType: P, message: Eip712Messages[P]) {
  // viem's static types want `number` for the small uint widths; at run time it takes bigint for all.
  return account.signTypedData({ domain: eip712Domain(chainId), types: EIP712_TYPES, primaryType, message } as never);
}

describe('viem interop: personal messages', () => {
  const accounts = Array.from({ length: 64 }, () => privateKeyToAccount(generatePrivateKey()));

  it('account.signMessage(string) verifies in both wire forms, for 64 random keys', async () => {
    for (const [i, account] of accounts.entries()) {
      const message = `hello ${i} — ünïcødé ✓ ${'x'.repeat(i)}`;
      const sig = await account.signMessage({ message });
      const digest = hashPersonalMessage(message);
      expect(bytesToHex(digest)).toBe(hashMessage(message));
      expect(verifySigner(digest, sig, lower(account.address))).toBe(true);
      expect(verifySigner(digest, sig, account.address)).toBe(true); // checksummed claim is fine
      expect(verifySigner(digest, strip(sig), lower(account.address))).toBe(true);
      expect(verifySigner(digest, hexToBytes(strip(sig)), lower(account.address))).toBe(true);
      expect(recoverSigner(digest, sig)).toBe(lower(account.address));
      // Another key's address must not verify.
      const other = accounts[(i + 1) % accounts.length].address;
      expect(verifySigner(digest, sig, other)).toBe(false);
      expect(verifySigner(digest, strip(sig), other)).toBe(false);
    }
  });

  it('account.signMessage({ raw }) verifies in both wire forms', async () => {
    await fc.assert(
      fc.asyncProperty(privateKeyHexArb, fc.uint8Array({ minLength: 0, maxLength: 300 }), async (pk, raw) => {
        const account = privateKeyToAccount(pk);
        const sig = await account.signMessage({ message: { raw } });
        const digest = hashPersonalMessage(raw);
        expect(bytesToHex(digest)).toBe(hashMessage({ raw }));
        expect(verifySigner(digest, sig, account.address)).toBe(true);
        expect(verifySigner(digest, strip(sig), account.address)).toBe(true);
        expect(verifySigner(keccak256(digest), sig, account.address)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('addresses and public keys equal viem', () => {
    fc.assert(
      fc.property(privateKeyHexArb, (pk) => {
        const account = privateKeyToAccount(pk);
        const key = hexToBytes(pk);
        expect(privateKeyToAddress(key)).toBe(lower(account.address));
        expect(bytesToHex(publicKeyFromPrivate(key, false))).toBe(account.publicKey);
        expect(publicKeyToAddress(publicKeyFromPrivate(key, false))).toBe(lower(account.address));
        expect(publicKeyToAddress(publicKeyFromPrivate(key, true))).toBe(lower(account.address));
        expect(publicKeyToAddress(hexToBytes(account.publicKey))).toBe(lower(viemPublicKeyToAddress(account.publicKey)));
      }),
      { numRuns: 300 },
    );
  });

  it('keccak256 equals viem', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 600 }), (data) => {
        expect(bytesToHex(keccak256(data))).toBe(viemKeccak256(data));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('viem interop: EIP-712', () => {
  it.each(CHAIN_IDS)('domain separator for chainId %i equals viem hashDomain', (chainId) => {
    expect(bytesToHex(domainSeparator(chainId))).toBe(
      hashDomain({ domain: eip712Domain(chainId) as never, types: { EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ] } }),
    );
  });

  describe.each([...EIP712_PRIMARY_TYPES])('%s', (primaryType) => {
    it('hashTypedMessage equals viem hashTypedData and viem signatures verify (random keys and fields)', async () => {
      await fc.assert(
        fc.asyncProperty(
          privateKeyHexArb,
          messageArb(primaryType),
          fc.constantFrom(...CHAIN_IDS),
          async (pk, message, chainId) => {
            const account = privateKeyToAccount(pk);
            const digest = hashTypedMessage(chainId, primaryType, message);
            const typed = { domain: eip712Domain(chainId), types: EIP712_TYPES, primaryType, message } as never;
            expect(bytesToHex(digest)).toBe(hashTypedData(typed));
            expect(bytesToHex(hashStruct(primaryType, message))).toBe(
              viemHashStruct({ data: message as never, primaryType: primaryType as never, types: EIP712_TYPES as never }),
            );
            const sig = await signTyped(account, chainId, primaryType, message);
            expect(verifySigner(digest, sig, account.address)).toBe(true);
            expect(verifySigner(digest, strip(sig), account.address)).toBe(true);
            expect(verifyTypedSigner(chainId, primaryType, message, strip(sig), account.address)).toBe(true);
            // The same signature is worthless on another network (domain separation).
            const otherChain = chainId === CHAIN_ID_MAINNET ? CHAIN_ID_TESTNET : CHAIN_ID_MAINNET;
            expect(verifyTypedSigner(otherChain, primaryType, message, sig, account.address)).toBe(false);
          },
        ),
        { numRuns: 25 },
      );
    });
  });

  it('checksummed (mixed-case) addresses hash like lower-case ones, as in viem', () => {
    const owner = getAddress('0x52908400098527886e0f7030069857d2e4169ee7');
    const message = { owner: owner as Address, amount: 5n, destination: lower(owner), nonce: 1n };
    const digest = hashTypedMessage(CHAIN_ID_MAINNET, 'Withdraw', message);
    expect(bytesToHex(digest)).toBe(
      bytesToHex(hashTypedMessage(CHAIN_ID_MAINNET, 'Withdraw', { ...message, owner: lower(owner) })),
    );
    expect(bytesToHex(digest)).toBe(
      hashTypedData({ domain: eip712Domain(CHAIN_ID_MAINNET), types: EIP712_TYPES, primaryType: 'Withdraw', message } as never),
    );
  });
});

describe('viem interop: exchange REST digests', () => {
  const str = fc.string({ unit: 'grapheme', maxLength: 24 });
  const nonce = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
  const S = 'string' as const;

  it('placeOrderDigest equals keccak256(encodePacked(string×5, uint256))', () => {
    fc.assert(
      fc.property(str, str, str, str, str, nonce, (symbol, side, type, price, amount, n) => {
        const ours = placeOrderDigest({ symbol, side, type, price, amount, nonce: n });
        expect(bytesToHex(ours)).toBe(viemKeccak256(encodePacked([S, S, S, S, S, 'uint256'], [symbol, side, type, price, amount, n])));
      }),
      { numRuns: 500 },
    );
  });

  it('absent fields are ""', () => {
    const ours = placeOrderDigest({ symbol: 'ETH', side: 'buy', type: 'market', amount: '1.5', nonce: 1700000000000 });
    expect(bytesToHex(ours)).toBe(
      viemKeccak256(encodePacked([S, S, S, S, S, 'uint256'], ['ETH', 'buy', 'market', '', '1.5', 1700000000000n])),
    );
  });

  it('batchDigest equals keccak256(encodePacked("batch", orderSummary, uint256))', () => {
    const order = fc.record({ symbol: str, side: str, price: str, amount: str });
    fc.assert(
      fc.property(fc.array(order, { maxLength: 10 }), nonce, (orders, n) => {
        const summary = orders.map((o) => o.symbol + o.side + o.price + o.amount).join('');
        expect(bytesToHex(batchDigest(orders, n))).toBe(viemKeccak256(encodePacked([S, S, 'uint256'], ['batch', summary, n])));
      }),
      { numRuns: 300 },
    );
  });

  it('cancelDigest and cancelAllDigest equal viem', () => {
    fc.assert(
      fc.property(fc.oneof(str, fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String)), nonce, (orderId, n) => {
        expect(bytesToHex(cancelDigest(orderId, n))).toBe(viemKeccak256(encodePacked([S, S, 'uint256'], ['cancel', orderId, n])));
        expect(bytesToHex(cancelAllDigest(n))).toBe(viemKeccak256(encodePacked([S, 'uint256'], ['cancel-all', n])));
      }),
      { numRuns: 300 },
    );
  });

  it('a trader signing signMessage({ message: { raw: digest } }) verifies', async () => {
    await fc.assert(
      fc.asyncProperty(privateKeyHexArb, str, str, nonce, async (pk, price, amount, n) => {
        const account = privateKeyToAccount(pk);
        const digest = placeOrderDigest({ symbol: 'BTC', side: 'sell', type: 'limit', price, amount, nonce: n });
        expect(bytesToHex(restSigningHash(digest))).toBe(hashMessage({ raw: digest }));
        const sig = await account.signMessage({ message: { raw: toHex(digest) } });
        expect(verifyRestSignature(digest, sig, account.address)).toBe(true);
        expect(verifyRestSignature(digest, strip(sig), account.address)).toBe(true);
        // Signing the digest as a hex STRING (a common client bug) must not verify.
        const wrong = await account.signMessage({ message: toHex(digest) });
        expect(verifyRestSignature(digest, wrong, account.address)).toBe(false);
        // Nor does the bare digest without the EIP-191 prefix.
        expect(verifySigner(digest, sig, account.address)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });
});
