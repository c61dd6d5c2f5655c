/**
 * EIP-712 with action options (issue 24, decision 90) for the contract's own types
 * (EIP712_TYPES: sessions, agent settings, withdraw, pool): when an action carries
 * options, its type gains a trailing `string options` member holding optionsText
 * (src/signing/action-options.ts), same type name, so a different type hash:
 *   Withdraw(address owner,uint256 amount,address destination,uint256 nonce,string options)
 * Without options the digest is hashTypedMessage's, unchanged. The order types do the
 * same in src/signing/eip712-orders.ts. test/timers/expires-after.test.ts checks the
 * digests against viem's hashTypedData.
 */
import type { ActionOptions } from '../codec/txs/options';
import { optionsText } from './action-options';
import { EIP712_TYPES, hashTypedMessage, type Eip712Messages, type Eip712PrimaryType } from './eip712';
import { typedDigest, viemTypes, withOptionsMember, type Eip712Member } from './eip712-struct';

/** The members signed: the type's own, plus `string options` when there are options. */
function typeMembersWithOptions(primaryType: Eip712PrimaryType, options: ActionOptions | undefined): readonly Eip712Member[] {
  return withOptionsMember(EIP712_TYPES[primaryType], optionsText(options));
}

/** The viem `types` for signTypedData of `primaryType` with these options (the message then carries `options: optionsText`). */
export function typedDataTypesWithOptions(primaryType: Eip712PrimaryType, options: ActionOptions | undefined): Record<string, { name: string; type: string }[]> {
  return viemTypes(primaryType, typeMembersWithOptions(primaryType, options));
}

/** The EIP-712 digest of `message` with `options`: hashTypedMessage's when there are none. */
export function hashTypedWithOptions<P extends Eip712PrimaryType>(chainId: number, primaryType: P, message: Eip712Messages[P], options: ActionOptions | undefined): Uint8Array {
  const text = optionsText(options);
  if (text === '') return hashTypedMessage(chainId, primaryType, message);
  return typedDigest(chainId, primaryType, typeMembersWithOptions(primaryType, options), { ...(message as unknown as Record<string, unknown>), options: text });
}
