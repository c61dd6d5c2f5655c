/**
 * EIP-712 typed-data hashing for the native operations (contract [C-auth-eip712],
 * [D-signatures-native], [D-networks-domain]).
 *
 * Hand-written rather than a generic encoder: every type here is flat (only `address`
 * and `uintN` members, no strings, arrays or nested structs), so a struct hash is one
 * keccak over a fixed-size buffer. Type hashes are computed once at load and the
 * domain separator once per chainId. One table (EIP712_FIELDS) is the single source
 * of the type strings, the viem `types` object and the encoder, so they cannot drift.
 */
import { type Address, isAddress, utf8 } from '../util/bytes';
import { writeAddressWord, writeUintWord } from '../crypto/abi-word';
import { keccak256 } from '../crypto/keccak';
import { verifySigner } from '../crypto/secp256k1';

const EIP712_DOMAIN_NAME = 'ExchangeSession';
const EIP712_DOMAIN_VERSION = '1';
const EIP712_VERIFYING_CONTRACT = '0x0000000000000000000000000000000000001002' as const;
export const CHAIN_ID_MAINNET = 713714;
export const CHAIN_ID_TESTNET = 713715;

/**
 * Member lists, in signing order. Viem-compatible `types` object (no EIP712Domain
 * entry: viem derives it from the domain, which has all four fields).
 */
export const EIP712_TYPES = {
  SessionCreate: [
    { name: 'sessionKey', type: 'address' },
    { name: 'expiresAt', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
  SessionRevoke: [
    { name: 'owner', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
  SetAgentCaps: [
    { name: 'owner', type: 'address' },
    { name: 'maxLeverage', type: 'uint64' },
    { name: 'allowedOrderTypes', type: 'uint32' },
    { name: 'maxInputPerTrade', type: 'uint128' },
    { name: 'maxTotalPosition', type: 'uint128' },
    { name: 'nonce', type: 'uint256' },
  ],
  SetAgentMode: [
    { name: 'owner', type: 'address' },
    { name: 'mode', type: 'uint8' },
    { name: 'nonce', type: 'uint256' },
  ],
  PlaceOrder: [
    { name: 'owner', type: 'address' },
    { name: 'pairId', type: 'uint32' },
    { name: 'side', type: 'uint8' },
    { name: 'orderType', type: 'uint8' },
    { name: 'price', type: 'uint256' },
    { name: 'size', type: 'uint256' },
    { name: 'leverage', type: 'uint32' },
    { name: 'nonce', type: 'uint256' },
  ],
  CancelOrder: [
    { name: 'owner', type: 'address' },
    { name: 'orderId', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
  Withdraw: [
    { name: 'owner', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'destination', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
  PoolDeposit: [
    { name: 'owner', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
  PoolWithdraw: [
    { name: 'owner', type: 'address' },
    { name: 'shares', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const;

// Frozen: the encoder below is precomputed from this table at load, so a later
// mutation would make the viem `types` and our hashes silently disagree.
for (const members of Object.values(EIP712_TYPES)) {
  for (const m of members) Object.freeze(m);
  Object.freeze(members);
}
Object.freeze(EIP712_TYPES);

export type Eip712PrimaryType = keyof typeof EIP712_TYPES;
export const EIP712_PRIMARY_TYPES: readonly Eip712PrimaryType[] = Object.freeze(
  Object.keys(EIP712_TYPES) as Eip712PrimaryType[],
);

// ---- Typed messages: bigint for every uint member, Address for addresses. ----

export interface SessionCreateMessage { sessionKey: Address; expiresAt: bigint; nonce: bigint }
export interface SessionRevokeMessage { owner: Address; nonce: bigint }
export interface SetAgentCapsMessage {
  owner: Address;
  maxLeverage: bigint;
  allowedOrderTypes: bigint;
  maxInputPerTrade: bigint;
  maxTotalPosition: bigint;
  nonce: bigint;
}
export interface SetAgentModeMessage { owner: Address; mode: bigint; nonce: bigint }
export interface PlaceOrderMessage {
  owner: Address;
  pairId: bigint;
  side: bigint;
  orderType: bigint;
  price: bigint;
  size: bigint;
  leverage: bigint;
  nonce: bigint;
}
export interface CancelOrderMessage { owner: Address; orderId: bigint; nonce: bigint }
export interface WithdrawMessage { owner: Address; amount: bigint; destination: Address; nonce: bigint }
export interface PoolDepositMessage { owner: Address; amount: bigint; nonce: bigint }
export interface PoolWithdrawMessage { owner: Address; shares: bigint; nonce: bigint }

export interface Eip712Messages {
  SessionCreate: SessionCreateMessage;
  SessionRevoke: SessionRevokeMessage;
  SetAgentCaps: SetAgentCapsMessage;
  SetAgentMode: SetAgentModeMessage;
  PlaceOrder: PlaceOrderMessage;
  CancelOrder: CancelOrderMessage;
  Withdraw: WithdrawMessage;
  PoolDeposit: PoolDepositMessage;
  PoolWithdraw: PoolWithdrawMessage;
}

// Compile-time proof that the interfaces above match the EIP712_TYPES table exactly.
type FieldTs<T extends string> = T extends 'address' ? Address : bigint;
type Derived<P extends Eip712PrimaryType> = {
  [F in (typeof EIP712_TYPES)[P][number] as F['name']]: FieldTs<F['type']>;
};
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _tableMatchesInterfaces: { [P in Eip712PrimaryType]: Same<Eip712Messages[P], Derived<P>> } = {
  SessionCreate: true,
  SessionRevoke: true,
  SetAgentCaps: true,
  SetAgentMode: true,
  PlaceOrder: true,
  CancelOrder: true,
  Withdraw: true,
  PoolDeposit: true,
  PoolWithdraw: true,
};
void _tableMatchesInterfaces;

// ---- Domain ----

export interface Eip712Domain {
  readonly name: typeof EIP712_DOMAIN_NAME;
  readonly version: typeof EIP712_DOMAIN_VERSION;
  readonly chainId: number;
  readonly verifyingContract: typeof EIP712_VERIFYING_CONTRACT;
}

function checkChainId(chainId: number): void {
  if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new RangeError(`chainId must be a positive integer, got ${chainId}`);
}

/** The viem-compatible domain object for a network (mainnet 713714, testnet 713715, devnet its own). */
export function eip712Domain(chainId: number): Eip712Domain {
  checkChainId(chainId);
  return { name: EIP712_DOMAIN_NAME, version: EIP712_DOMAIN_VERSION, chainId, verifyingContract: EIP712_VERIFYING_CONTRACT };
}

const DOMAIN_TYPE_HASH = keccak256(
  utf8.encode('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
);
const NAME_HASH = keccak256(utf8.encode(EIP712_DOMAIN_NAME));
const VERSION_HASH = keccak256(utf8.encode(EIP712_DOMAIN_VERSION));
// A node serves one network, so this holds one or two entries; the bound only stops an
// unexpected caller from growing it without limit.
const domainSeparators = new Map<number, Uint8Array>();
const MAX_CACHED_DOMAINS = 16;

function cachedDomainSeparator(chainId: number): Uint8Array {
  let sep = domainSeparators.get(chainId);
  if (sep === undefined) {
    checkChainId(chainId);
    const buf = new Uint8Array(32 * 5);
    buf.set(DOMAIN_TYPE_HASH, 0);
    buf.set(NAME_HASH, 32);
    buf.set(VERSION_HASH, 64);
    writeUintWord(buf, 96, BigInt(chainId));
    writeAddressWord(buf, 128, EIP712_VERIFYING_CONTRACT);
    sep = keccak256(buf);
    if (domainSeparators.size < MAX_CACHED_DOMAINS) domainSeparators.set(chainId, sep);
  }
  return sep;
}

/** hashStruct(EIP712Domain) for a chainId (cached per chainId; a copy is returned). */
export function domainSeparator(chainId: number): Uint8Array {
  return cachedDomainSeparator(chainId).slice();
}

// ---- Encoder ----

interface FieldCodec {
  name: string;
  type: string;
  /** 0 for address, else the uint width. */
  bits: number;
  max: bigint;
}
interface StructCodec {
  typeString: string;
  typeHash: Uint8Array;
  fields: FieldCodec[];
}

/** encodeType strings, e.g. "SessionRevoke(address owner,uint256 nonce)". */
export const EIP712_TYPE_STRINGS = {} as Readonly<Record<Eip712PrimaryType, string>>;
const codecs = {} as Record<Eip712PrimaryType, StructCodec>;
for (const primaryType of EIP712_PRIMARY_TYPES) {
  const members = EIP712_TYPES[primaryType];
  const typeString = `${primaryType}(${members.map((m) => `${m.type} ${m.name}`).join(',')})`;
  const fields = members.map((m): FieldCodec => {
    const bits = m.type === 'address' ? 0 : Number(m.type.slice(4));
    return { name: m.name, type: m.type, bits, max: bits === 0 ? 0n : (1n << BigInt(bits)) - 1n };
  });
  (EIP712_TYPE_STRINGS as Record<Eip712PrimaryType, string>)[primaryType] = typeString;
  codecs[primaryType] = { typeString, typeHash: keccak256(utf8.encode(typeString)), fields };
}
Object.freeze(EIP712_TYPE_STRINGS);

/** keccak256 of the type's encodeType string. */
export function typeHash(primaryType: Eip712PrimaryType): Uint8Array {
  return codecOf(primaryType).typeHash.slice();
}

function codecOf(primaryType: string): StructCodec {
  if (!Object.prototype.hasOwnProperty.call(codecs, primaryType)) throw new TypeError(`unknown EIP-712 type ${primaryType}`);
  return codecs[primaryType as Eip712PrimaryType];
}

/** hashStruct(message) = keccak256(typeHash ‖ encodeData(message)). Validates every member. */
export function hashStruct<P extends Eip712PrimaryType>(primaryType: P, message: Eip712Messages[P]): Uint8Array {
  const codec = codecOf(primaryType);
  if (typeof message !== 'object' || message === null) throw new TypeError(`${primaryType}: message must be an object`);
  const values = message as unknown as Record<string, unknown>;
  const buf = new Uint8Array(32 * (1 + codec.fields.length));
  buf.set(codec.typeHash, 0);
  for (let i = 0; i < codec.fields.length; i++) {
    const f = codec.fields[i];
    const v = values[f.name];
    const off = 32 * (i + 1);
    if (f.bits === 0) {
      if (!isAddress(v)) throw new TypeError(`${primaryType}.${f.name}: expected a 0x address of 20 bytes`);
      writeAddressWord(buf, off, v);
    } else {
      // bigint only: a JS number may already have lost precision before it got here.
      if (typeof v !== 'bigint') throw new TypeError(`${primaryType}.${f.name}: expected a bigint (${f.type})`);
      if (v < 0n || v > f.max) throw new RangeError(`${primaryType}.${f.name}: ${v} out of range for ${f.type}`);
      writeUintWord(buf, off, v);
    }
  }
  return keccak256(buf);
}

/**
 * The 32-byte EIP-712 digest keccak256(0x1901 ‖ domainSeparator(chainId) ‖ hashStruct(message)),
 * i.e. what viem `hashTypedData` / `signTypedData` compute for this domain and types.
 * @throws TypeError / RangeError for an unknown type, a missing or mistyped member,
 *   or an integer outside its Solidity width (including negatives).
 */
export function hashTypedMessage<P extends Eip712PrimaryType>(
  chainId: number,
  primaryType: P,
  message: Eip712Messages[P],
): Uint8Array {
  const buf = new Uint8Array(66);
  buf[0] = 0x19;
  buf[1] = 0x01;
  buf.set(cachedDomainSeparator(chainId), 2);
  buf.set(hashStruct(primaryType, message), 34);
  return keccak256(buf);
}

/**
 * Did `claimed` sign this typed message? Signature in either wire form (64 or 65 bytes).
 * Never throws for a malformed signature; throws like hashTypedMessage for a bad message.
 */
export function verifyTypedSigner<P extends Eip712PrimaryType>(
  chainId: number,
  primaryType: P,
  message: Eip712Messages[P],
  signature: Uint8Array | string,
  claimed: Address,
): boolean {
  return verifySigner(hashTypedMessage(chainId, primaryType, message), signature, claimed);
}
