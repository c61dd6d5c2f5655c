/**
 * Validator lifecycle transactions (contract [C-auth-register], [D-signatures-register],
 * [C-res-validator-fields], [C-onboard-register]; decision 68).
 *
 * RegisterValidator layout: `address candidate | 32 bytes vrf key | 33 bytes ecdsa key |
 * string name | string endpoint | big bond (wei) | big nonce | signature (64 or 65
 * bytes)`. Unbond and Unjail layout: `address validator | big nonce | signature`. The fields'
 * formats (name, endpoint, key prefixes, bond range, nonce a u64) are execution's shape
 * checks (src/state/ops/validator-registration.ts), made before the signature is looked at.
 *
 * ApproveValidator layout (decision 159): `address operator | address candidate | u64
 * expiresAtMs | big nonce | signature`: the network's operator (genesis owners.operator,
 * changed by the owners' SetOperator) approves a candidate address until a block time;
 * RegisterValidator of that candidate is refused without it.
 *
 * All are EIP-191 personal signatures over a text: registrationText is the contract's
 * text, line for line, with the network's own chain id; unbondText, unjailText and
 * approvalText follow its form.
 */
import { hashPersonalMessage } from '../../crypto/eip191';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../../util/bytes';
import { registerTxKind, TxKind } from '../tx';

export interface RegisterValidatorBody {
  /** Lower-case address: the signer, and the validator's address. */
  candidate: Address;
  /** Ed25519 VRF public key, 0x and 64 lower-case hex. */
  vrfPubkey: Hex;
  /** Compressed secp256k1 public key, 0x and 66 lower-case hex; derives to `candidate`. */
  ecdsaPubkey: Hex;
  name: string;
  /** host:port */
  endpoint: string;
  /** Self-bond in wei, whole native tokens. */
  bond: bigint;
  nonce: bigint;
  signature: Uint8Array;
}

export interface UnbondBody {
  validator: Address;
  nonce: bigint;
  signature: Uint8Array;
}

/** Same fields as Unbond; a text of its own. */
export type UnjailBody = UnbondBody;

export interface ApproveValidatorBody {
  /** Lower-case address: the signer, who must be the network's operator when it executes. */
  operator: Address;
  /** The approved candidate's address (its ECDSA key derives to it: the approval binds the key). */
  candidate: Address;
  /** Block time (Unix ms) from which the approval no longer admits a registration. */
  expiresAtMs: number;
  nonce: bigint;
  signature: Uint8Array;
}

const hex0x = (h: string) => (h.startsWith('0x') ? h.slice(2) : h).toLowerCase();

/** The registration text ([D-signatures-register]): lines joined by `\n`, no trailing newline. */
export function registrationText(chainId: number, b: Omit<RegisterValidatorBody, 'signature'>): string {
  return [
    'Exchange Validator Registration',
    `Chain: ${chainId}`,
    'Action: Register Validator',
    `Candidate: ${b.candidate.toLowerCase()}`,
    `Vrf: ${hex0x(b.vrfPubkey)}`,
    `Ecdsa: ${hex0x(b.ecdsaPubkey)}`,
    `Endpoint: ${b.endpoint}`,
    `Bond: ${b.bond}`,
    `Nonce: ${b.nonce}`,
  ].join('\n');
}

export function registrationDigest(chainId: number, b: Omit<RegisterValidatorBody, 'signature'>): Uint8Array {
  return hashPersonalMessage(registrationText(chainId, b));
}

/** The unbond text (decision 68), in the registration text's form. */
export function unbondText(chainId: number, b: Omit<UnbondBody, 'signature'>): string {
  return ['Exchange Validator Unbond', `Chain: ${chainId}`, 'Action: Unbond', `Validator: ${b.validator.toLowerCase()}`, `Nonce: ${b.nonce}`].join('\n');
}

export function unbondDigest(chainId: number, b: Omit<UnbondBody, 'signature'>): Uint8Array {
  return hashPersonalMessage(unbondText(chainId, b));
}

/** The unjail text (decision 69), in the registration text's form. */
export function unjailText(chainId: number, b: Omit<UnjailBody, 'signature'>): string {
  return ['Exchange Validator Unjail', `Chain: ${chainId}`, 'Action: Unjail', `Validator: ${b.validator.toLowerCase()}`, `Nonce: ${b.nonce}`].join('\n');
}

export function unjailDigest(chainId: number, b: Omit<UnjailBody, 'signature'>): Uint8Array {
  return hashPersonalMessage(unjailText(chainId, b));
}

/** The fields of an owners' AdminSeedValidator the seeded validator signs (decision 160). */
export interface SeedingFields {
  validator: Address;
  vrfPubkey: Hex;
  ecdsaPubkey: Hex;
  name: string;
  endpoint: string;
  bondWei: bigint;
  funder: Address;
}

/**
 * The seeding text (decision 160), in the registration text's form: the validator's
 * consent to be seeded with these keys, this bond and this funder, on this chain. No
 * nonce: an address is seeded once (a validator record of any status refuses another).
 */
export function seedingText(chainId: number, s: SeedingFields): string {
  return [
    'Exchange Validator Seeding',
    `Chain: ${chainId}`,
    'Action: Seed Validator',
    `Candidate: ${s.validator.toLowerCase()}`,
    `Vrf: ${hex0x(s.vrfPubkey)}`,
    `Ecdsa: ${hex0x(s.ecdsaPubkey)}`,
    `Name: ${s.name}`,
    `Endpoint: ${s.endpoint}`,
    `Bond: ${s.bondWei}`,
    `Funder: ${s.funder.toLowerCase()}`,
  ].join('\n');
}

export function seedingDigest(chainId: number, s: SeedingFields): Uint8Array {
  return hashPersonalMessage(seedingText(chainId, s));
}

/** The approval text (decision 159), in the registration text's form. */
export function approvalText(chainId: number, b: Omit<ApproveValidatorBody, 'signature'>): string {
  return [
    'Exchange Validator Approval',
    `Chain: ${chainId}`,
    'Action: Approve Validator',
    `Operator: ${b.operator.toLowerCase()}`,
    `Candidate: ${b.candidate.toLowerCase()}`,
    `Expires: ${b.expiresAtMs}`,
    `Nonce: ${b.nonce}`,
  ].join('\n');
}

export function approvalDigest(chainId: number, b: Omit<ApproveValidatorBody, 'signature'>): Uint8Array {
  return hashPersonalMessage(approvalText(chainId, b));
}

registerTxKind<RegisterValidatorBody>({
  kind: TxKind.RegisterValidator,
  name: 'RegisterValidator',
  encodeBody(w, b) {
    w.address(b.candidate)
      .fixed(hexToBytes(b.vrfPubkey), 32)
      .fixed(hexToBytes(b.ecdsaPubkey), 33)
      .string(b.name)
      .string(b.endpoint)
      .big(b.bond)
      .big(b.nonce)
      .bytes(b.signature);
  },
  decodeBody(r) {
    return {
      candidate: r.address(),
      vrfPubkey: bytesToHex(r.fixed(32)),
      ecdsaPubkey: bytesToHex(r.fixed(33)),
      name: r.string(),
      endpoint: r.string(),
      bond: r.big(),
      nonce: r.big(),
      signature: r.signature(),
    };
  },
});

registerTxKind<UnbondBody>({
  kind: TxKind.Unbond,
  name: 'Unbond',
  encodeBody(w, b) {
    w.address(b.validator).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { validator: r.address(), nonce: r.big(), signature: r.signature() };
  },
});

registerTxKind<UnjailBody>({
  kind: TxKind.Unjail,
  name: 'Unjail',
  encodeBody(w, b) {
    w.address(b.validator).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { validator: r.address(), nonce: r.big(), signature: r.signature() };
  },
});

registerTxKind<ApproveValidatorBody>({
  kind: TxKind.ApproveValidator,
  name: 'ApproveValidator',
  encodeBody(w, b) {
    w.address(b.operator).address(b.candidate).u64(b.expiresAtMs).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { operator: r.address(), candidate: r.address(), expiresAtMs: r.u64(), nonce: r.big(), signature: r.signature() };
  },
});
