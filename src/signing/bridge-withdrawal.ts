/**
 * The messages validators sign for the bridge (contracts/ExchangeBridge.sol, decisions 81,
 * 82, 148 and 150), pure: execution checks these signatures, the relayer submits them and
 * the contract recovers them, so all three compute the same bytes. Every message is bound
 * to the domain (external chain id, bridge, exchange chain id, exchange genesis hash): a
 * signature for one external chain, one bridge or one exchange chain (a re-genesis beside
 * a used bridge) is worthless on another.
 *
 *   withdrawal = keccak256(abi.encode(keccak256("ExchangeBridge.Withdrawal.v3"), domain…,
 *                                     withdrawalId, recipient, amount, validUntil))
 *   set        = keccak256(abi.encode(keccak256("ExchangeBridge.ValidatorSet.v1"), domain…,
 *                                     setNonce, keccak256(packed validators), keccak256(packed powers)))
 *   owners     = keccak256(abi.encode(keccak256("ExchangeBridge.Owners.v1"), domain…,
 *                                     ownerSetNonce, keccak256(packed owners), threshold))
 *   signed     = keccak256("\x19Ethereum Signed Message:\n32" ‖ digest)   (EIP-191)
 *
 * Every field is one 32-byte ABI word (uint256 big-endian, address left-padded, bytes32 as
 * is), so abi.encode here is a concatenation, and Solidity's abi.encodePacked of an
 * address[] or uint256[] is the concatenation of its elements' words. `validUntil` (Unix
 * seconds on the external chain) is the last second the contract queues or pays the
 * withdrawal: after it the withdrawal can never be paid, which makes a refund safe.
 */
import type { Address } from '../util/bytes';
import { utf8 } from '../util/bytes';
import { addressWord, uintWord } from '../crypto/abi-word';
import { hashPersonalMessage } from '../crypto/eip191';
import { keccak256 } from '../crypto/keccak';

const WITHDRAWAL_TAG = keccak256(utf8.encode('ExchangeBridge.Withdrawal.v3'));
const VALIDATOR_SET_TAG = keccak256(utf8.encode('ExchangeBridge.ValidatorSet.v1'));
const OWNERS_TAG = keccak256(utf8.encode('ExchangeBridge.Owners.v1'));

/** What every bridge message is bound to. */
export interface BridgeMessageDomain {
  /** The external chain's id (block.chainid there). */
  externalChainId: bigint;
  /** The bridge contract's address. */
  bridge: Address;
  /** The exchange chain's id (genesis chainId) and genesis hash (32 bytes): the contract's constructor fixes both. */
  exchangeChainId: bigint;
  genesisHash: Uint8Array;
}

export interface BridgeWithdrawalMessage extends BridgeMessageDomain {
  withdrawalId: bigint;
  recipient: Address;
  /** USDC base units (6 decimals) paid to the recipient. */
  amount: bigint;
  /** Unix seconds: the contract refuses to queue or pay after this. */
  validUntilSec: bigint;
}

export interface BridgeSetMessage extends BridgeMessageDomain {
  setNonce: bigint;
  /** Ascending (the contract's order). */
  validators: readonly Address[];
  powers: readonly bigint[];
}

export interface BridgeOwnersMessage extends BridgeMessageDomain {
  ownerSetNonce: bigint;
  /** Ascending. */
  owners: readonly Address[];
  threshold: bigint;
}

/** tag ‖ domain words ‖ `rest` words, hashed. */
function boundDigest(tag: Uint8Array, d: BridgeMessageDomain, rest: readonly Uint8Array[]): Uint8Array {
  if (d.genesisHash.length !== 32) throw new RangeError(`genesisHash: ${d.genesisHash.length} bytes, want 32`);
  const words = [tag, uintWord(d.externalChainId, 256, 'externalChainId'), addressWord(d.bridge), uintWord(d.exchangeChainId, 256, 'exchangeChainId'), d.genesisHash, ...rest];
  const buf = new Uint8Array(32 * words.length);
  words.forEach((w, i) => buf.set(w, 32 * i));
  return keccak256(buf);
}

/** keccak256 of the concatenated words (Solidity's keccak256(abi.encodePacked(list))). */
function packedHash(words: readonly Uint8Array[]): Uint8Array {
  const buf = new Uint8Array(32 * words.length);
  words.forEach((w, i) => buf.set(w, 32 * i));
  return keccak256(buf);
}

/** The contract's withdrawalDigest. */
export function bridgeWithdrawalDigest(m: BridgeWithdrawalMessage): Uint8Array {
  return boundDigest(WITHDRAWAL_TAG, m, [
    uintWord(m.withdrawalId, 256, 'withdrawalId'),
    addressWord(m.recipient),
    uintWord(m.amount, 256, 'amount'),
    uintWord(m.validUntilSec, 256, 'validUntilSec'),
  ]);
}

/** The contract's validatorSetDigest. */
export function bridgeSetDigest(m: BridgeSetMessage): Uint8Array {
  return boundDigest(VALIDATOR_SET_TAG, m, [
    uintWord(m.setNonce, 256, 'setNonce'),
    packedHash(m.validators.map((v) => addressWord(v))),
    packedHash(m.powers.map((p) => uintWord(p, 256, 'power'))),
  ]);
}

/** The contract's ownersDigest. */
export function bridgeOwnersDigest(m: BridgeOwnersMessage): Uint8Array {
  return boundDigest(OWNERS_TAG, m, [uintWord(m.ownerSetNonce, 256, 'ownerSetNonce'), packedHash(m.owners.map((o) => addressWord(o))), uintWord(m.threshold, 256, 'threshold')]);
}

/** What a validator's key signs and the contract recovers from: the EIP-191 hash of the digest. */
export function bridgeWithdrawalSigningHash(m: BridgeWithdrawalMessage): Uint8Array {
  return hashPersonalMessage(bridgeWithdrawalDigest(m));
}

/** The EIP-191 hash of an owner set's digest. */
export function bridgeOwnersSigningHash(m: BridgeOwnersMessage): Uint8Array {
  return hashPersonalMessage(bridgeOwnersDigest(m));
}

/** The EIP-191 hash of a validator set's digest. */
export function bridgeSetSigningHash(m: BridgeSetMessage): Uint8Array {
  return hashPersonalMessage(bridgeSetDigest(m));
}
