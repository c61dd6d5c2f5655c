/**
 * Signature checks shared by the operations: each answers the signer (who then must be
 * authorized for the operation) or throws 401 naming the claimed signer.
 */
import { hashPersonalMessage } from '../../crypto/eip191';
import { type Eip712Messages, type Eip712PrimaryType } from '../../signing/eip712';
import { hashTypedWithOptions } from '../../signing/eip712-options';
import type { ActionOptions } from '../../codec/txs/options';
import { verifySigner } from '../../crypto/secp256k1';
import type { Address } from '../../util/bytes';
import type { TxOp } from '../context';
import { badRequest, unauthorized } from '../errors';

/** Largest u64: the bound of the validator operations' nonces (contract [C-res-validator-fields]). */
export const U64_MAX = (1n << 64n) - 1n;

/** An EIP-712 message of the exchange domain signed by `signer`, with its action options when it has any (src/signing/eip712-options.ts). */
export function verifyTyped<P extends Eip712PrimaryType>(chainId: number, type: P, message: Eip712Messages[P], signature: Uint8Array, signer: Address, options?: ActionOptions): Address {
  if (!verifySigner(hashTypedWithOptions(chainId, type, message, options), signature, signer)) throw unauthorized(`signature: does not recover to ${signer}`);
  return signer;
}

/** An EIP-191 personal message signed by `signer`. */
export function verifyPersonal(message: string, signature: Uint8Array, signer: Address): Address {
  if (!verifySigner(hashPersonalMessage(message), signature, signer)) throw unauthorized(`signature: does not recover to ${signer}`);
  return signer;
}

/**
 * Shape, signature and nonce of an operation a validator signs for itself (Unbond,
 * Unjail): a u64 nonce, and `digest` (its EIP-191 text over the chain id) recovering to
 * `validator`.
 */
export function signedByValidator<B extends { validator: Address; nonce: bigint; signature: Uint8Array }>(
  digest: (chainId: number, body: B) => Uint8Array,
): Pick<TxOp<B>, 'shape' | 'verify' | 'nonce'> {
  return {
    shape(b) {
      if (b.nonce > U64_MAX) throw badRequest('INVALID_NONCE', `nonce: ${b.nonce} is not a u64`);
    },
    verify(tx, chainId) {
      const b = tx.body;
      if (!verifySigner(digest(chainId, b), b.signature, b.validator)) throw unauthorized(`signature: does not recover to validator ${b.validator}`);
      return b.validator;
    },
    nonce: (b) => b.nonce,
  };
}
