/**
 * EIP-712 typed data of owner governance (decision 74), in the exchange's domain
 * (src/signing/eip712.ts: name ExchangeSession, version 1, the chain id, the verifying
 * contract 0x…1002), so every owner signature is bound to its chain. Kept apart from the
 * contract's own table (EIP712_TYPES: exactly the types contract [D-signatures-native]
 * gives, and nothing else) because these types are the project's, not the contract's.
 * Same encoding: flat structs of `address` and `uintN` members, one keccak per struct;
 * test/governance/typed-data.test.ts checks the digests against viem's hashTypedData.
 */
import type { Address } from '../util/bytes';
import { typedDigest } from './eip712-struct';

export const GOVERNANCE_EIP712_TYPES = {
  GovernancePropose: [
    { name: 'proposer', type: 'address' },
    { name: 'operationKind', type: 'uint8' },
    { name: 'payloadHash', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
  GovernanceApprove: [
    { name: 'owner', type: 'address' },
    { name: 'operationId', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
  GovernanceExecute: [
    { name: 'owner', type: 'address' },
    { name: 'operationId', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
  GovernanceCancel: [
    { name: 'owner', type: 'address' },
    { name: 'operationId', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

export type GovernancePrimaryType = keyof typeof GOVERNANCE_EIP712_TYPES;

export interface GovernanceProposeMessage {
  proposer: Address;
  operationKind: bigint;
  payloadHash: bigint;
  nonce: bigint;
}

/** Approve, execute and cancel: an owner naming an operation id. */
export interface GovernanceActionMessage {
  owner: Address;
  operationId: bigint;
  nonce: bigint;
}

export interface GovernanceMessages {
  GovernancePropose: GovernanceProposeMessage;
  GovernanceApprove: GovernanceActionMessage;
  GovernanceExecute: GovernanceActionMessage;
  GovernanceCancel: GovernanceActionMessage;
}

/** The EIP-712 digest (0x1901 ‖ domain separator ‖ hashStruct) an owner signs. */
export function hashGovernanceMessage<P extends GovernancePrimaryType>(chainId: number, primaryType: P, message: GovernanceMessages[P]): Uint8Array {
  return typedDigest(chainId, primaryType, GOVERNANCE_EIP712_TYPES[primaryType], message as unknown as Record<string, unknown>);
}
