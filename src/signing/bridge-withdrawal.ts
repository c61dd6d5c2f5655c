/**
 * The message validators sign for a bridge withdrawal (contracts/ExchangeBridge.sol,
 * decisions 81 and 82), pure: execution checks these signatures, the relayer submits them
 * and the contract recovers them, so all three compute the same bytes.
 *
 *   digest = keccak256(abi.encode(keccak256("ExchangeBridge.Withdrawal.v2"), externalChainId,
 *                                 bridge, withdrawalId, recipient, amount, validUntil))
 *   signed = keccak256("\x19Ethereum Signed Message:\n32" ‖ digest)   (EIP-191)
 *
 * Every field is one 32-byte ABI word (uint256 big-endian, address left-padded), so
 * abi.encode here is a concatenation. `validUntil` (Unix seconds on the external chain)
 * is the last second the contract queues or pays the withdrawal: after it the withdrawal
 * can never be paid, which is what makes a refund on the exchange chain safe.
 */
import type { Address } from '../util/bytes';
import { utf8 } from '../util/bytes';
import { addressWord, uintWord } from '../crypto/abi-word';
import { hashPersonalMessage } from '../crypto/eip191';
import { keccak256 } from '../crypto/keccak';

const WITHDRAWAL_TAG_TEXT = 'ExchangeBridge.Withdrawal.v2';
const WITHDRAWAL_TAG = keccak256(utf8.encode(WITHDRAWAL_TAG_TEXT));

export interface BridgeWithdrawalMessage {
  /** The external chain's id (block.chainid there). */
  externalChainId: bigint;
  /** The bridge contract's address. */
  bridge: Address;
  withdrawalId: bigint;
  recipient: Address;
  /** USDC base units (6 decimals) paid to the recipient. */
  amount: bigint;
  /** Unix seconds: the contract refuses to queue or pay after this. */
  validUntilSec: bigint;
}

/** keccak256(abi.encode(tag, chainId, bridge, withdrawalId, recipient, amount, validUntil)): the contract's withdrawalDigest. */
export function bridgeWithdrawalDigest(m: BridgeWithdrawalMessage): Uint8Array {
  const buf = new Uint8Array(32 * 7);
  buf.set(WITHDRAWAL_TAG, 0);
  buf.set(uintWord(m.externalChainId, 256, 'externalChainId'), 32);
  buf.set(addressWord(m.bridge), 64);
  buf.set(uintWord(m.withdrawalId, 256, 'withdrawalId'), 96);
  buf.set(addressWord(m.recipient), 128);
  buf.set(uintWord(m.amount, 256, 'amount'), 160);
  buf.set(uintWord(m.validUntilSec, 256, 'validUntilSec'), 192);
  return keccak256(buf);
}

/** What a validator's key signs and the contract recovers from: the EIP-191 hash of the digest. */
export function bridgeWithdrawalSigningHash(m: BridgeWithdrawalMessage): Uint8Array {
  return hashPersonalMessage(bridgeWithdrawalDigest(m));
}
