/**
 * Signature checks shared by the operations: each answers the signer (who then must be
 * authorized for the operation) or throws 401 naming the claimed signer.
 */
import { hashPersonalMessage } from '../../crypto/eip191';
import { hashTypedMessage, type Eip712Messages, type Eip712PrimaryType } from '../../crypto/eip712';
import { verifySigner } from '../../crypto/secp256k1';
import type { Address } from '../../util/bytes';
import { unauthorized } from '../errors';

/** An EIP-712 message of the exchange domain signed by `signer`. */
export function verifyTyped<P extends Eip712PrimaryType>(chainId: number, type: P, message: Eip712Messages[P], signature: Uint8Array, signer: Address): Address {
  if (!verifySigner(hashTypedMessage(chainId, type, message), signature, signer)) throw unauthorized(`signature: does not recover to ${signer}`);
  return signer;
}

/** An EIP-191 personal message signed by `signer`. */
export function verifyPersonal(message: string, signature: Uint8Array, signer: Address): Address {
  if (!verifySigner(hashPersonalMessage(message), signature, signer)) throw unauthorized(`signature: does not recover to ${signer}`);
  return signer;
}
