/**
 * The applicant's signature over an application (issue 37; decision 164). Pure: no I/O.
 *
 * An application names the address that will register as a validator; unsigned, anyone
 * could apply in another's name and hold it (an address applies once: the owner's own
 * application would then be 409). So the applicant personal-signs (EIP-191,
 * src/crypto/eip191.ts) with the key of that address this text, one field a line:
 *
 *   exchange-chain validator application
 *   chain: <chain id>
 *   address: <the address, lower-case>
 *   name: <name>
 *   endpoint: <endpoint>
 *   email: <email>
 *   timestamp: <Unix ms>
 *
 * and sends `timestamp` and `signature` (0x + 130 hex, r‖s‖v: what a wallet's
 * personal_sign and `npm run node -- validator apply` give) beside the four fields. The
 * fields are checked first (their formats hold no line break, so the text is
 * unambiguous); then, in order: the signature's format (400 INVALID_SIGNATURE_FORMAT),
 * the timestamp within the window of the service's clock (401 REQUEST_EXPIRED), and the
 * signer the address applied for (401 INVALID_SIGNATURE: a signature over another text,
 * another chain's included, recovers to another address). The chain id binds an
 * application to one network's service; the timestamp bounds how long a signed
 * application can be held back and sent by someone else. Within the window, sending the
 * same application again is the store's 409 VALIDATOR_EXISTS (an address applies once).
 */
import { hashPersonalMessage } from '../crypto/eip191';
import { recoverSigner, sign, SignatureError } from '../crypto/secp256k1';
import { badRequest, TxError, unauthorized } from '../state/errors';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../util/bytes';
import type { Application } from './fields';

/** How far an application's timestamp may be from the service's clock, either way. */
export const APPLY_WINDOW_MS_DEFAULT = 5 * 60 * 1000;

/** What the applicant adds to the four fields. */
export interface ApplicationProof {
  /** Unix ms when it was signed. */
  timestamp: number;
  /** 0x + 130 hex: r‖s‖v of the EIP-191 signature over applicationMessage. */
  signature: string;
}

export function applicationMessage(chainId: number, a: Application, timestampMs: number): string {
  return [
    'exchange-chain validator application',
    `chain: ${chainId}`,
    `address: ${a.address.toLowerCase()}`,
    `name: ${a.name}`,
    `endpoint: ${a.endpoint}`,
    `email: ${a.email}`,
    `timestamp: ${timestampMs}`,
  ].join('\n');
}

/** The request body of an application signed with `privateKey` (whose address must be `form.address`). */
export function signApplication(privateKey: Hex, chainId: number, form: Application, timestampMs: number): Application & ApplicationProof {
  const signature = sign(hashPersonalMessage(applicationMessage(chainId, form, timestampMs)), hexToBytes(privateKey));
  return { ...form, timestamp: timestampMs, signature: bytesToHex(signature) };
}

/** Throws the refusal unless `proof` is the applicant's signature over `a` for `chainId`, made within the window of `nowMs`. */
export function verifyApplication(p: { chainId: number; application: Application; proof: ApplicationProof; nowMs: number; windowMs: number }): void {
  const { timestamp, signature } = p.proof;
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw badRequest('INVALID_SIGNATURE_FORMAT', 'signature: must be 0x and 130 hex characters (r, s, v of the EIP-191 signature)');
  if (Math.abs(p.nowMs - timestamp) > p.windowMs) {
    throw new TxError(401, 'REQUEST_EXPIRED', `timestamp: ${timestamp} is ${Math.round((p.nowMs - timestamp) / 1000)} s from the service's clock; at most ${p.windowMs / 1000} s either way: sign the application again`);
  }
  let signer: Address;
  try {
    signer = recoverSigner(hashPersonalMessage(applicationMessage(p.chainId, p.application, timestamp)), signature);
  } catch (err) {
    if (err instanceof SignatureError && err.reason === 'RECOVERY') throw unauthorized(`signature: ${err.message}`);
    if (err instanceof SignatureError) throw badRequest('INVALID_SIGNATURE_FORMAT', `signature: ${err.message}`);
    throw err;
  }
  if (signer.toLowerCase() !== p.application.address.toLowerCase()) {
    throw unauthorized(`signature: recovers to ${signer.toLowerCase()}, not the address applied for ${p.application.address.toLowerCase()} over chain ${p.chainId}'s application text; only the address's own key applies for it`);
  }
}
