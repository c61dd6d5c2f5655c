/**
 * Owner governance transactions (contract [C-auth-governance], [C-limits-timelock];
 * decision 74): GovernancePropose, GovernanceApprove, GovernanceExecute and
 * GovernanceCancel, each an owner's EIP-712 signature (src/signing/eip712-governance.ts).
 *
 * Propose layout: `address proposer | operation | big nonce | signature`, where an
 * operation is `u8 kind | fields of the kind`:
 *   1 SetParam:           u8 param | big value
 *   2 Halt, 3 Resume:     nothing
 *   4 AdminSeedValidator: address validator | string name | string endpoint |
 *                         33 bytes ecdsa key | 32 bytes vrf key | big bond (wei) | address funder |
 *                         candidate signature (64 or 65 bytes: the validator's EIP-191
 *                         signature over seedingText, decision 160)
 *   5 AddPair:            u32 id | string symbol | big tickSize | big lotSize | big minSize |
 *                         u32 maxLeverage | u32 maintenanceMarginBps | u32 openInterestCapBps |
 *                         big initialPrice | u8 markets (bitmask: 1 spot, 2 perp) |
 *                         string oracleSource (at most ORACLE_SOURCE_BYTES_MAX bytes) (decision 76)
 *   6 SetOwners:          address owner ×3 (decision 76)
 *   7 SoftwareUpgrade:    string version (at most UPGRADE_VERSION_BYTES_MAX bytes) | u64 height
 *   8 SetOperator:        address operator (decision 159)
 * The proposal signs `GovernancePropose(proposer, operationKind, payloadHash, nonce)` with
 * payloadHash = keccak256 of the operation's encoding (operationBytes), and the operation
 * id is that message's EIP-712 digest (operationIdOf): bound to the chain id (the
 * domain), the proposer, its nonce and the operation's every field.
 *
 * Approve, execute and cancel layout: `address owner | 32 bytes operation id | big nonce |
 * signature`, signing `GovernanceApprove|Execute|Cancel(owner, operationId, nonce)`.
 */
import { keccak256 } from '../../crypto/keccak';
import { hashGovernanceMessage } from '../../signing/eip712-governance';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../../util/bytes';
import { CodecError, Reader, Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';
import type { PairParams } from '../../genesis/types';

/** Operation kinds. A retired number is never reused. */
export enum GovOpKind {
  SetParam = 1,
  Halt = 2,
  Resume = 3,
  AdminSeedValidator = 4,
  /** A new pair: its spot book, perp market or both, and its oracle source (decision 76). */
  AddPair = 5,
  /** The three owner addresses replaced (decision 76). */
  SetOwners = 6,
  SoftwareUpgrade = 7,
  /** The network's operator replaced: the key whose ApproveValidator admits registrations (decision 159). */
  SetOperator = 8,
}

/** Parameters a SetParam operation may change (decision 74). A retired number is never reused. */
export enum GovParam {
  MakerFeeBps = 1,
  TakerFeeBps = 2,
  WithdrawalFeeUsdc = 3,
  MinWithdrawalUsdc = 4,
  // Decision 76: the limits that are protocol rules, and the validator parameters
  // execution reads from the state (not consensus.epochLengthBlocks: see the decision).
  MaxSessionDurationMs = 5,
  MaxLeverage = 6,
  PoolLockupMs = 7,
  TpslCheckIntervalMs = 8,
  FundingIntervalMs = 9,
  UnbondingEpochs = 10,
  SlashDowntimeBps = 11,
  SlashDoubleSignBps = 12,
  DowntimeWindowBlocks = 13,
  DowntimeMaxMissedBps = 14,
  MinBondWei = 15,
  MaxBondWei = 16,
  ActiveSetMin = 17,
  ActiveSetMax = 18,
  VotingPowerCapBps = 19,
  // Issue 24's limits, genesis-optional until then (decision 114).
  MaxSubAccounts = 20,
  ScheduleCancelsPerDay = 21,
  TwapSliceIntervalMs = 22,
}

/** Each parameter's name: its path in the chain parameters (state meta `params`). */
export const GOV_PARAM_NAMES: Readonly<Record<GovParam, string>> = {
  [GovParam.MakerFeeBps]: 'fees.makerFeeBps',
  [GovParam.TakerFeeBps]: 'fees.takerFeeBps',
  [GovParam.WithdrawalFeeUsdc]: 'fees.withdrawalFeeUsdc',
  [GovParam.MinWithdrawalUsdc]: 'fees.minWithdrawalUsdc',
  [GovParam.MaxSessionDurationMs]: 'limits.maxSessionDurationMs',
  [GovParam.MaxLeverage]: 'limits.maxLeverage',
  [GovParam.PoolLockupMs]: 'limits.poolLockupMs',
  [GovParam.TpslCheckIntervalMs]: 'limits.tpslCheckIntervalMs',
  [GovParam.FundingIntervalMs]: 'limits.fundingIntervalMs',
  [GovParam.UnbondingEpochs]: 'consensus.unbondingEpochs',
  [GovParam.SlashDowntimeBps]: 'consensus.slashDowntimeBps',
  [GovParam.SlashDoubleSignBps]: 'consensus.slashDoubleSignBps',
  [GovParam.DowntimeWindowBlocks]: 'consensus.downtimeWindowBlocks',
  [GovParam.DowntimeMaxMissedBps]: 'consensus.downtimeMaxMissedBps',
  [GovParam.MinBondWei]: 'consensus.minBondWei',
  [GovParam.MaxBondWei]: 'consensus.maxBondWei',
  [GovParam.ActiveSetMin]: 'consensus.activeSetMin',
  [GovParam.ActiveSetMax]: 'consensus.activeSetMax',
  [GovParam.VotingPowerCapBps]: 'consensus.votingPowerCapBps',
  [GovParam.MaxSubAccounts]: 'limits.maxSubAccounts',
  [GovParam.ScheduleCancelsPerDay]: 'limits.scheduleCancelsPerDay',
  [GovParam.TwapSliceIntervalMs]: 'limits.twapSliceIntervalMs',
};

/** AdminSeedValidator's fields: what governance proposes and execution seeds (src/state/validators/admin-seed.ts). */
export interface AdminSeedValidator {
  /** The validator's address; its ECDSA key must derive to it. */
  validator: Address;
  name: string;
  endpoint: string;
  ecdsaPubkey: Hex;
  vrfPubkey: Hex;
  /** Whole native tokens, within [minBondWei, maxBondWei]. */
  bondWei: bigint;
  /** Whose native balance pays the bond: the validator's own, or an owner's (decision 160). */
  funder: Address;
  /**
   * The validator's EIP-191 signature over seedingText (src/codec/txs/validators.ts): it
   * consents to its seeding, on this chain. Hex (0x, 128 or 130 lower-case digits): the
   * governance record stores operations as JSON.
   */
  candidateSignature: Hex;
}

export type GovOperation =
  | { kind: GovOpKind.SetParam; param: GovParam; value: bigint }
  | { kind: GovOpKind.Halt }
  | { kind: GovOpKind.Resume }
  | ({ kind: GovOpKind.AdminSeedValidator } & AdminSeedValidator)
  | { kind: GovOpKind.AddPair; pair: AddedPair }
  | { kind: GovOpKind.SetOwners; owners: [Address, Address, Address] }
  /** From block `height` on, only nodes of `version` or newer execute (decision 77). */
  | { kind: GovOpKind.SoftwareUpgrade; version: string; height: number }
  | { kind: GovOpKind.SetOperator; operator: Address };

/** An AddPair's pair: the genesis fields, and the two a genesis pair leaves out (its markets, its oracle source) always given. */
export type AddedPair = PairParams & Required<Pick<PairParams, 'markets' | 'oracleSource'>>;

/** The longest oracle source the codec reads (execution allows fewer: src/state/pair-markets.ts). */
const ORACLE_SOURCE_BYTES_MAX = 256;

/** The longest version string the codec reads (execution allows fewer: src/state/governance/upgrade.ts). */
const UPGRADE_VERSION_BYTES_MAX = 256;

export const GOV_OP_NAMES: Readonly<Record<GovOpKind, string>> = {
  [GovOpKind.SetParam]: 'SetParam',
  [GovOpKind.Halt]: 'Halt',
  [GovOpKind.Resume]: 'Resume',
  [GovOpKind.AdminSeedValidator]: 'AdminSeedValidator',
  [GovOpKind.AddPair]: 'AddPair',
  [GovOpKind.SetOwners]: 'SetOwners',
  [GovOpKind.SoftwareUpgrade]: 'SoftwareUpgrade',
  [GovOpKind.SetOperator]: 'SetOperator',
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

function writeOperation(w: Writer, op: GovOperation): void {
  w.u8(op.kind);
  switch (op.kind) {
    case GovOpKind.SetParam:
      w.u8(op.param).big(op.value);
      return;
    case GovOpKind.Halt:
    case GovOpKind.Resume:
      return;
    case GovOpKind.AdminSeedValidator:
      w.address(op.validator).string(op.name).string(op.endpoint).fixed(hexToBytes(op.ecdsaPubkey), 33).fixed(hexToBytes(op.vrfPubkey), 32).big(op.bondWei).address(op.funder).bytes(hexToBytes(op.candidateSignature));
      return;
    case GovOpKind.AddPair: {
      const p = op.pair;
      w.u32(p.id).string(p.symbol).big(p.tickSize).big(p.lotSize).big(p.minSize).u32(p.maxLeverage).u32(p.maintenanceMarginBps).u32(p.openInterestCapBps).big(p.initialPrice).u8(p.markets).string(p.oracleSource);
      return;
    }
    case GovOpKind.SetOwners:
      for (const o of op.owners) w.address(o);
      return;
    case GovOpKind.SoftwareUpgrade:
      w.string(op.version).u64(op.height);
      return;
    case GovOpKind.SetOperator:
      w.address(op.operator);
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
        candidateSignature: bytesToHex(r.signature()).toLowerCase() as Hex,
      };
    case GovOpKind.AddPair:
      return {
        kind,
        pair: {
          id: r.u32(),
          symbol: r.string(),
          tickSize: r.big(),
          lotSize: r.big(),
          minSize: r.big(),
          maxLeverage: r.u32(),
          maintenanceMarginBps: r.u32(),
          openInterestCapBps: r.u32(),
          initialPrice: r.big(),
          markets: r.u8(),
          oracleSource: r.string(ORACLE_SOURCE_BYTES_MAX),
        },
      };
    case GovOpKind.SetOwners:
      return { kind, owners: [r.address(), r.address(), r.address()] };
    case GovOpKind.SoftwareUpgrade:
      return { kind, version: r.string(UPGRADE_VERSION_BYTES_MAX), height: r.u64() };
    case GovOpKind.SetOperator:
      return { kind, operator: r.address() };
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
