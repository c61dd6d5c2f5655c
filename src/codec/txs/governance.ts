/**
 * Owner governance transactions (contract [C-auth-governance], [C-limits-timelock];
 * decision 74): GovernancePropose, GovernanceApprove, GovernanceExecute and
 * GovernanceCancel, each an owner's EIP-712 signature (src/crypto/eip712-governance.ts).
 *
 * Propose layout: `address proposer | operation | big nonce | signature`, where an
 * operation is `u8 kind | fields of the kind`:
 *   1 SetParam:           u8 param | big value
 *   2 Halt, 3 Resume:     nothing
 *   4 AdminSeedValidator: address validator | string name | string endpoint |
 *                         33 bytes ecdsa key | 32 bytes vrf key | big bond (wei) | address funder
 *   7 SoftwareUpgrade:    string version (at most UPGRADE_VERSION_BYTES_MAX bytes) | u64 height
 * The proposal signs `GovernancePropose(proposer, operationKind, payloadHash, nonce)` with
 * payloadHash = keccak256 of the operation's encoding (operationBytes), and the operation
 * id is that message's EIP-712 digest (operationIdOf): bound to the chain id (the
 * domain), the proposer, its nonce and the operation's every field.
 *
 * Approve, execute and cancel layout: `address owner | 32 bytes operation id | big nonce |
 * signature`, signing `GovernanceApprove|Execute|Cancel(owner, operationId, nonce)`.
 */
import { keccak256 } from '../../crypto/keccak';
import { hashGovernanceMessage } from '../../crypto/eip712-governance';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../../util/bytes';
import { CodecError, Reader, Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';

/** Operation kinds. A retired number is never reused. */
export enum GovOpKind {
  SetParam = 1,
  Halt = 2,
  Resume = 3,
  AdminSeedValidator = 4,
  SoftwareUpgrade = 7,
}

/** Parameters a SetParam operation may change (decision 74). A retired number is never reused. */
export enum GovParam {
  MakerFeeBps = 1,
  TakerFeeBps = 2,
  WithdrawalFeeUsdc = 3,
  MinWithdrawalUsdc = 4,
}

export const GOV_PARAM_NAMES: Readonly<Record<GovParam, string>> = {
  [GovParam.MakerFeeBps]: 'fees.makerFeeBps',
  [GovParam.TakerFeeBps]: 'fees.takerFeeBps',
  [GovParam.WithdrawalFeeUsdc]: 'fees.withdrawalFeeUsdc',
  [GovParam.MinWithdrawalUsdc]: 'fees.minWithdrawalUsdc',
};

/** AdminSeedValidator's fields: what governance proposes and execution seeds (src/state/validator-admin-seed.ts). */
export interface AdminSeedValidator {
  /** The validator's address; its ECDSA key must derive to it. */
  validator: Address;
  name: string;
  endpoint: string;
  ecdsaPubkey: Hex;
  vrfPubkey: Hex;
  /** Whole native tokens, within [minBondWei, maxBondWei]. */
  bondWei: bigint;
  /** Whose native balance pays the bond: the operator's account, or the validator's own. */
  funder: Address;
}

export type GovOperation =
  | { kind: GovOpKind.SetParam; param: GovParam; value: bigint }
  | { kind: GovOpKind.Halt }
  | { kind: GovOpKind.Resume }
  | ({ kind: GovOpKind.AdminSeedValidator } & AdminSeedValidator)
  /** From block `height` on, only nodes of `version` or newer execute (decision 77). */
  | { kind: GovOpKind.SoftwareUpgrade; version: string; height: number };

/** The longest version string the codec reads (execution allows fewer: src/state/upgrade.ts). */
export const UPGRADE_VERSION_BYTES_MAX = 256;

export const GOV_OP_NAMES: Readonly<Record<GovOpKind, string>> = {
  [GovOpKind.SetParam]: 'SetParam',
  [GovOpKind.Halt]: 'Halt',
  [GovOpKind.Resume]: 'Resume',
  [GovOpKind.AdminSeedValidator]: 'AdminSeedValidator',
  [GovOpKind.SoftwareUpgrade]: 'SoftwareUpgrade',
};

export interface GovProposeBody {
  proposer: Address;
  operation: GovOperation;
  nonce: bigint;
  signature: Uint8Array;
}

/** Approve, execute and cancel: an owner naming an operation. */
export interface GovActionBody {
  owner: Address;
  /** 0x and 64 lower-case hex: the proposal's EIP-712 digest. */
  operationId: Hex;
  nonce: bigint;
  signature: Uint8Array;
}

export function writeOperation(w: Writer, op: GovOperation): void {
  w.u8(op.kind);
  switch (op.kind) {
    case GovOpKind.SetParam:
      w.u8(op.param).big(op.value);
      return;
    case GovOpKind.Halt:
    case GovOpKind.Resume:
      return;
    case GovOpKind.AdminSeedValidator:
      w.address(op.validator).string(op.name).string(op.endpoint).fixed(hexToBytes(op.ecdsaPubkey), 33).fixed(hexToBytes(op.vrfPubkey), 32).big(op.bondWei).address(op.funder);
      return;
    case GovOpKind.SoftwareUpgrade:
      w.string(op.version).u64(op.height);
      return;
  }
}

export function readOperation(r: Reader): GovOperation {
  const kind = r.u8();
  switch (kind) {
    case GovOpKind.SetParam: {
      const param = r.u8();
      if (!(param in GOV_PARAM_NAMES)) throw new CodecError('VALUE', `unknown governance parameter ${param}`);
      return { kind, param, value: r.big() };
    }
    case GovOpKind.Halt:
    case GovOpKind.Resume:
      return { kind };
    case GovOpKind.AdminSeedValidator:
      return {
        kind,
        validator: r.address(),
        name: r.string(),
        endpoint: r.string(),
        ecdsaPubkey: bytesToHex(r.fixed(33)),
        vrfPubkey: bytesToHex(r.fixed(32)),
        bondWei: r.big(),
        funder: r.address(),
      };
    case GovOpKind.SoftwareUpgrade:
      return { kind, version: r.string(UPGRADE_VERSION_BYTES_MAX), height: r.u64() };
    default:
      throw new CodecError('VALUE', `unknown governance operation kind ${kind}`);
  }
}

/** The canonical encoding of an operation: what payloadHash hashes. */
export function operationBytes(op: GovOperation): Uint8Array {
  const w = new Writer(128);
  writeOperation(w, op);
  return w.finish();
}

/** The GovernancePropose message a proposer signs. */
export function proposeMessage(b: Omit<GovProposeBody, 'signature'>) {
  return { proposer: b.proposer, operationKind: BigInt(b.operation.kind), payloadHash: BigInt(bytesToHex(keccak256(operationBytes(b.operation)))), nonce: b.nonce };
}

export function proposeDigest(chainId: number, b: Omit<GovProposeBody, 'signature'>): Uint8Array {
  return hashGovernanceMessage(chainId, 'GovernancePropose', proposeMessage(b));
}

/** The operation id: the proposal's EIP-712 digest, 0x and 64 lower-case hex. */
export function operationIdOf(chainId: number, b: Omit<GovProposeBody, 'signature'>): Hex {
  return bytesToHex(proposeDigest(chainId, b)).toLowerCase() as Hex;
}

export type GovActionType = 'GovernanceApprove' | 'GovernanceExecute' | 'GovernanceCancel';

export function actionDigest(chainId: number, type: GovActionType, b: Omit<GovActionBody, 'signature'>): Uint8Array {
  return hashGovernanceMessage(chainId, type, { owner: b.owner, operationId: BigInt(b.operationId), nonce: b.nonce });
}

registerTxKind<GovProposeBody>({
  kind: TxKind.GovernancePropose,
  name: 'GovernancePropose',
  encodeBody(w, b) {
    w.address(b.proposer);
    writeOperation(w, b.operation);
    w.big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { proposer: r.address(), operation: readOperation(r), nonce: r.big(), signature: r.signature() };
  },
});

for (const [kind, name] of [
  [TxKind.GovernanceApprove, 'GovernanceApprove'],
  [TxKind.GovernanceExecute, 'GovernanceExecute'],
  [TxKind.GovernanceCancel, 'GovernanceCancel'],
] as const) {
  registerTxKind<GovActionBody>({
    kind,
    name,
    encodeBody(w, b) {
      w.address(b.owner).fixed(hexToBytes(b.operationId), 32).big(b.nonce).bytes(b.signature);
    },
    decodeBody(r) {
      return { owner: r.address(), operationId: bytesToHex(r.fixed(32)).toLowerCase() as Hex, nonce: r.big(), signature: r.signature() };
    },
  });
}
