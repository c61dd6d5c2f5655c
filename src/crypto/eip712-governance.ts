/**
 * EIP-712 typed data of owner governance (decision 74), in the exchange's domain
 * (src/crypto/eip712.ts: name ExchangeSession, version 1, the chain id, the verifying
 * contract 0x…1002), so every owner signature is bound to its chain. Kept apart from the
 * contract's own table (EIP712_TYPES: exactly the types contract [D-signatures-native]
 * gives, and nothing else) because these types are the project's, not the contract's.
 * Same encoding: flat structs of `address` and `uintN` members, one keccak per struct;
 * test/governance/typed-data.test.ts checks the digests against viem's hashTypedData.
 */
import { utf8, type Address } from '../util/bytes';
import { domainSeparator } from './eip712';
import { keccak256 } from './keccak';

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

const TYPE_HASHES = new Map<string, Uint8Array>(
  Object.entries(GOVERNANCE_EIP712_TYPES).map(([name, members]) => [name, keccak256(utf8.encode(`${name}(${members.map((m) => `${m.type} ${m.name}`).join(',')})`))]),
);

function word(value: bigint, bits: number, field: string): Uint8Array {
  if (value < 0n || value >= 1n << BigInt(bits)) throw new RangeError(`${field}: ${value} is not a uint${bits}`);
  const out = new Uint8Array(32);
  let v = value;
  for (let i = 31; i >= 0 && v > 0n; i--, v >>= 8n) out[i] = Number(v & 0xffn);
  return out;
}

function addressWord(a: string, field: string): Uint8Array {
  if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new TypeError(`${field}: not an address`);
  const out = new Uint8Array(32);
  out.set(Buffer.from(a.slice(2), 'hex'), 12);
  return out;
}

/** The EIP-712 digest (0x1901 ‖ domain separator ‖ hashStruct) an owner signs. */
export function hashGovernanceMessage<P extends GovernancePrimaryType>(chainId: number, primaryType: P, message: GovernanceMessages[P]): Uint8Array {
  const members = GOVERNANCE_EIP712_TYPES[primaryType];
  const buf = new Uint8Array(32 * (members.length + 1));
  buf.set(TYPE_HASHES.get(primaryType)!, 0);
  members.forEach((m, i) => {
    const v = (message as unknown as Record<string, unknown>)[m.name];
    buf.set(m.type === 'address' ? addressWord(v as string, m.name) : word(v as bigint, Number(m.type.slice(4)), m.name), 32 * (i + 1));
  });
  const digest = new Uint8Array(66);
  digest[0] = 0x19;
  digest[1] = 0x01;
  digest.set(domainSeparator(chainId), 2);
  digest.set(keccak256(buf), 34);
  return keccak256(digest);
}
