/**
 * Sub-account signing and addresses (decisions 93–94), against viem: the EIP-712 digests
 * of SubAccountCreate and SubAccountTransfer (with and without the `string options`
 * member), the derived address (keccak256(encodePacked("exchange-subaccount", master,
 * uint256 index)), last 20 bytes), the REST digest bound to a sub-account, and the
 * codec's options trailer (absent: not a byte more).
 */
import { encodePacked, hashTypedData, keccak256 as viemKeccak } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeTx, encodeTx, TxKind } from '../../src/codec/tx';
import '../../src/codec/txs';
import type { SubAccountCreateBody, SubAccountTransferBody } from '../../src/codec/txs/subaccounts';
import { eip712Domain } from '../../src/signing/eip712';
import { deriveSubAccount, hashSubAccountMessage, subAccountActionDigest, subAccountTypes } from '../../src/signing/eip712-subaccounts';
import { parseLimits } from '../../src/genesis/sections';
import { PROTOCOL_MAX_SUB_ACCOUNTS, isDerivedSubAccount } from '../../src/state/accounts/subaccounts';
import { bytesToHex } from '../../src/util/bytes';
import { devnetGenesis } from '../helpers/devnet';

const chainId = 713799;
const owner = '0x1111111111111111111111111111111111111111' as const;
const sub = '0x2222222222222222222222222222222222222222' as const;

describe('sub-account typed data', () => {
  it('SubAccountCreate and SubAccountTransfer hash as viem hashTypedData, options as a trailing string member', () => {
    const create = { owner, name: 'mm-1', nonce: 7n };
    expect(bytesToHex(hashSubAccountMessage(chainId, 'SubAccountCreate', create))).toBe(
      hashTypedData({ domain: eip712Domain(chainId), types: subAccountTypes('SubAccountCreate', false), primaryType: 'SubAccountCreate', message: create }),
    );
    const transfer = { owner, subAccount: sub, deposit: true, usdc: 250_000_000n, nonce: 8n };
    expect(bytesToHex(hashSubAccountMessage(chainId, 'SubAccountTransfer', transfer))).toBe(
      hashTypedData({ domain: eip712Domain(chainId), types: subAccountTypes('SubAccountTransfer', false), primaryType: 'SubAccountTransfer', message: transfer }),
    );
    const withdrawBack = { ...transfer, deposit: false };
    expect(hashSubAccountMessage(chainId, 'SubAccountTransfer', withdrawBack)).not.toEqual(hashSubAccountMessage(chainId, 'SubAccountTransfer', transfer));
    const options = { expiresAfter: 1_795_673_453_245n };
    expect(bytesToHex(hashSubAccountMessage(chainId, 'SubAccountCreate', create, options))).toBe(
      hashTypedData({ domain: eip712Domain(chainId), types: subAccountTypes('SubAccountCreate', true), primaryType: 'SubAccountCreate', message: { ...create, options: 'expiresAfter=1795673453245' } }),
    );
    // Empty options sign exactly as none.
    expect(hashSubAccountMessage(chainId, 'SubAccountCreate', create, {})).toEqual(hashSubAccountMessage(chainId, 'SubAccountCreate', create));
  });

  it('the address is the last 20 bytes of keccak256(encodePacked("exchange-subaccount", master, uint256 index)); the bound REST digest likewise', () => {
    for (const index of [0, 1, 9]) {
      const want = `0x${viemKeccak(encodePacked(['string', 'address', 'uint256'], ['exchange-subaccount', owner, BigInt(index)])).slice(26)}`;
      expect(deriveSubAccount(owner, index)).toBe(want);
    }
    expect(deriveSubAccount(owner, 0)).not.toBe(deriveSubAccount(owner, 1));
    const digest = new Uint8Array(32).fill(7);
    expect(bytesToHex(subAccountActionDigest(sub, digest))).toBe(viemKeccak(encodePacked(['string', 'address', 'bytes32'], ['exchange-subaccount-action', sub, bytesToHex(digest)])));
  });
});

describe('sub-account codec', () => {
  it('round-trips both kinds; without options no trailer byte, with expiresAfter a trailer', () => {
    const signature = new Uint8Array(65).fill(1);
    const create: SubAccountCreateBody = { owner, name: 'mm-1', nonce: 5n, signature };
    const plain = encodeTx(chainId, TxKind.SubAccountCreate, create);
    const withOptions = encodeTx(chainId, TxKind.SubAccountCreate, { ...create, options: { expiresAfter: 99n } });
    expect(withOptions.bytes.length).toBeGreaterThan(plain.bytes.length);
    expect(decodeTx(plain.bytes, 1 << 16).body).toEqual(create);
    expect(decodeTx(withOptions.bytes, 1 << 16).body).toEqual({ ...create, options: { expiresAfter: 99n } });
    const transfer: SubAccountTransferBody = { owner, subAccount: sub, deposit: false, usdc: 1n, nonce: 6n, signature };
    expect(decodeTx(encodeTx(chainId, TxKind.SubAccountTransfer, transfer).bytes, 1 << 16).body).toEqual(transfer);
  });
});

describe('limits.maxSubAccounts', () => {
  it('is optional (absent: the committed genesis keeps its bytes), from 1 to the protocol bound the derivation checks use', () => {
    const limits = devnetGenesis(1).genesis.limits;
    expect(limits.maxSubAccounts).toBeUndefined();
    expect(parseLimits({ ...limits, maxSubAccounts: PROTOCOL_MAX_SUB_ACCOUNTS }, 'limits').maxSubAccounts).toBe(PROTOCOL_MAX_SUB_ACCOUNTS);
    expect(() => parseLimits({ ...limits, maxSubAccounts: PROTOCOL_MAX_SUB_ACCOUNTS + 1 }, 'limits')).toThrow(/maxSubAccounts/);
    expect(() => parseLimits({ ...limits, maxSubAccounts: 0 }, 'limits')).toThrow(/maxSubAccounts/);
    // The stateless check finds the last index the bound allows, and none past it.
    expect(isDerivedSubAccount(owner, deriveSubAccount(owner, PROTOCOL_MAX_SUB_ACCOUNTS - 1), PROTOCOL_MAX_SUB_ACCOUNTS)).toBe(true);
    expect(isDerivedSubAccount(owner, deriveSubAccount(owner, PROTOCOL_MAX_SUB_ACCOUNTS), PROTOCOL_MAX_SUB_ACCOUNTS)).toBe(false);
    expect(isDerivedSubAccount(owner, owner, PROTOCOL_MAX_SUB_ACCOUNTS)).toBe(false);
  });
});
