/**
 * The governance typed data (src/signing/eip712-governance.ts; decision 74) is EIP-712 as
 * a wallet computes it: each digest equals viem's hashTypedData in the exchange domain,
 * a signature by viem's account recovers to the owner through the transaction codec,
 * and the operation id changes with the chain id, the nonce and every operation field.
 */
import { describe, expect, it } from 'vitest';
import { hashTypedData } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { eip712Domain } from '../../src/signing/eip712';
import { GOVERNANCE_EIP712_TYPES, hashGovernanceMessage } from '../../src/signing/eip712-governance';
import { actionDigest, GovOpKind, GovParam, operationIdOf, proposeDigest, proposeMessage } from '../../src/codec/txs/governance';
import { verifySigner } from '../../src/crypto/secp256k1';
import { bytesToHex, hexToBytes, type Hex } from '../../src/util/bytes';
import { DEVNET_KEYS } from '../helpers/devnet';

const owner = (DEVNET_KEYS as unknown as { owners: { address: Hex; privateKey: Hex }[] }).owners[0];
const chainId = 713799;
const domain = { ...eip712Domain(chainId) };
/** viem types a uint8 as a number. */
const forViem = (m: ReturnType<typeof proposeMessage>) => ({ ...m, operationKind: Number(m.operationKind) });
const op = { kind: GovOpKind.SetParam, param: GovParam.TakerFeeBps, value: 7n } as const;

describe('governance typed data', () => {
  it('matches viem hashTypedData for every type', () => {
    const unsigned = { proposer: owner.address, operation: op, nonce: 5n };
    expect(bytesToHex(proposeDigest(chainId, unsigned))).toBe(
      hashTypedData({ domain, types: GOVERNANCE_EIP712_TYPES, primaryType: 'GovernancePropose', message: forViem(proposeMessage(unsigned)) }),
    );
    const id = operationIdOf(chainId, unsigned);
    for (const type of ['GovernanceApprove', 'GovernanceExecute', 'GovernanceCancel'] as const) {
      const ours = bytesToHex(actionDigest(chainId, type, { owner: owner.address, operationId: id, nonce: 9n }));
      expect(ours).toBe(hashTypedData({ domain, types: GOVERNANCE_EIP712_TYPES, primaryType: type, message: { owner: owner.address, operationId: BigInt(id), nonce: 9n } }));
    }
  });

  it("a wallet's signature recovers to the owner", async () => {
    const account = privateKeyToAccount(owner.privateKey);
    const unsigned = { proposer: owner.address, operation: op, nonce: 5n };
    const sig = await account.signTypedData({ domain, types: GOVERNANCE_EIP712_TYPES, primaryType: 'GovernancePropose', message: forViem(proposeMessage(unsigned)) });
    expect(verifySigner(proposeDigest(chainId, unsigned), hexToBytes(sig), owner.address.toLowerCase() as Hex)).toBe(true);
    expect(verifySigner(proposeDigest(chainId + 1, unsigned), hexToBytes(sig), owner.address.toLowerCase() as Hex)).toBe(false);
  });

  it('the operation id changes with the chain, the nonce and the operation', () => {
    const base = { proposer: owner.address, operation: op, nonce: 5n };
    const id = operationIdOf(chainId, base);
    expect(operationIdOf(chainId + 1, base)).not.toBe(id);
    expect(operationIdOf(chainId, { ...base, nonce: 6n })).not.toBe(id);
    expect(operationIdOf(chainId, { ...base, operation: { ...op, value: 8n } })).not.toBe(id);
    expect(operationIdOf(chainId, { ...base, operation: { ...op, param: GovParam.MakerFeeBps } })).not.toBe(id);
    expect(() => hashGovernanceMessage(chainId, 'GovernancePropose', { ...proposeMessage(base), operationKind: 256n })).toThrow(RangeError);
  });
});
