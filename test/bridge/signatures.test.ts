/**
 * The withdrawal digest v3 (bound to the exchange chain: decision 150) written twice: src/bridge/signatures.ts (viem's ABI encoder,
 * used to sign and in the contract tests) and src/signing/bridge-withdrawal.ts (pure, what
 * execution checks). Both must give the same bytes for every input, and a validator's
 * signature made here must recover under the pure signing hash; the contract's own
 * `withdrawalDigest` view is compared to both in test/bridge/bridge-contract.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { getAddress, hashMessage, recoverMessageAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { signDigest, withdrawalDigest } from '../../src/bridge/signatures';
import { bridgeWithdrawalDigest, bridgeWithdrawalSigningHash, type BridgeWithdrawalMessage } from '../../src/signing/bridge-withdrawal';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';

const MAX = (1n << 256n) - 1n;
const GENESIS = hexToBytes('0x5be6a1ff3b0a1d38f7b4e2f4b3b5f17d2f6a43c1b0a2b1a0c3d4e5f60718293a');
const bound = (externalChainId: bigint, exchangeChainId: bigint, genesisHash: Uint8Array) => ({ externalChainId, exchangeChainId, genesisHash });
const cases: BridgeWithdrawalMessage[] = [
  { ...bound(31337n, 1337n, GENESIS), bridge: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0512', withdrawalId: 1n, recipient: '0x00000000000000000000000000000000000a11ce', amount: 1_000_000n, validUntilSec: 1_767_225_600n },
  { ...bound(1n, 0n, new Uint8Array(32)), bridge: '0x0000000000000000000000000000000000000001', withdrawalId: 0n, recipient: '0xffffffffffffffffffffffffffffffffffffffff', amount: 1n, validUntilSec: 0n },
  { ...bound(MAX, MAX, new Uint8Array(32).fill(255)), bridge: '0xffffffffffffffffffffffffffffffffffffffff', withdrawalId: MAX, recipient: '0x0000000000000000000000000000000000000001', amount: MAX, validUntilSec: MAX },
];
const viemDigest = (m: BridgeWithdrawalMessage): Hex =>
  withdrawalDigest({ chainId: m.externalChainId, bridge: getAddress(m.bridge), exchangeChainId: m.exchangeChainId, genesisHash: bytesToHex(m.genesisHash) }, m.withdrawalId, getAddress(m.recipient), m.amount, m.validUntilSec);

describe('the withdrawal digest v3: src/bridge/signatures.ts and src/signing/bridge-withdrawal.ts agree', () => {
  it('gives the same digest and EIP-191 signing hash for every case', () => {
    for (const m of cases) {
      expect(viemDigest(m)).toBe(bytesToHex(bridgeWithdrawalDigest(m)));
      expect(hashMessage({ raw: viemDigest(m) })).toBe(bytesToHex(bridgeWithdrawalSigningHash(m)));
    }
  });

  it('each field, the exchange chain id, the genesis hash and validUntil included, changes the digest', () => {
    const base = cases[0];
    const variants: BridgeWithdrawalMessage[] = [
      { ...base, externalChainId: base.externalChainId + 1n },
      { ...base, bridge: '0xe7f1725e7734ce288f8367e1bb143e90bb3f0513' },
      { ...base, exchangeChainId: base.exchangeChainId + 1n },
      { ...base, genesisHash: Uint8Array.from(GENESIS, (b, i) => (i === 31 ? b ^ 1 : b)) },
      { ...base, withdrawalId: base.withdrawalId + 1n },
      { ...base, recipient: '0x00000000000000000000000000000000000a11cf' },
      { ...base, amount: base.amount + 1n },
      { ...base, validUntilSec: base.validUntilSec + 1n },
    ];
    const digests = new Set([base, ...variants].map(viemDigest));
    expect(digests.size).toBe(variants.length + 1);
  });

  it("a validator's signature made with signDigest recovers to it under the pure signing hash", async () => {
    const key: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
    const signed = await signDigest(key, viemDigest(cases[0]));
    expect(signed.signer).toBe(privateKeyToAccount(key).address);
    expect(await recoverMessageAddress({ message: { raw: bytesToHex(bridgeWithdrawalDigest(cases[0])) }, signature: signed.signature })).toBe(signed.signer);
  });
});
