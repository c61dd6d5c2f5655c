/**
 * RegisterValidator (contract [C-state-validator] observer → registered,
 * [C-res-validator-fields], [C-auth-register], [C-limits-bond]; decision 68): a candidate
 * bonds native tokens from its own balance and becomes a registered validator, active
 * from the next epoch boundary that ranks it into the set (src/state/validators/epoch.ts).
 *
 * Refusals, in order (each changes nothing but the nonce, consumed once included):
 *   - every field's format, before the signature (400): INVALID_VALIDATOR naming the
 *     field (name, vrf_pubkey, ecdsa_pubkey, endpoint), INVALID_AMOUNT (bond outside
 *     [minBondWei, maxBondWei] or not whole native tokens), INVALID_NONCE (not a u64);
 *   - the signature over registrationText with this network's chain id must recover to
 *     the candidate (401 INVALID_SIGNATURE): a wrong text, another chain id or another
 *     signer all land here;
 *   - the network's operator has approved the candidate (ApproveValidator, decision 159),
 *     and the approval has not expired at the block time: else 403 NOT_AUTHORIZED, before
 *     the nonce, at the door (POST /tx, the mempool) and in execution, whatever route
 *     the transaction came by;
 *   - the candidate, or its VRF key, already belongs to a validator of any status
 *     (409 VALIDATOR_EXISTS). The ECDSA key derives to the candidate (checked above),
 *     so a duplicate ECDSA key is a duplicate candidate;
 *   - the candidate's native balance below the bond (422 INSUFFICIENT_FUNDS).
 * A registration consumes its approval.
 */
import { registrationDigest, type RegisterValidatorBody } from '../../codec/txs/validators';
import { verifySigner } from '../../crypto/secp256k1';
import { addressFromSecp256k1PublicKey, isValidCompressedSecp256k1PublicKey, isValidVrfPublicKey } from '../../genesis/keys';
import type { Hex } from '../../util/bytes';
import type { ChainParams } from '../records';
import type { TxOp } from '../context';
import { badRequest, forbidden, rejected, TxError, unauthorized } from '../errors';
import { approvalRefusal, consumeApproval } from '../validators/approvals';
import type { State } from '../state';
import { stepValidator, validatorAddresses, validatorRecord } from '../validators/records';
import { U64_MAX } from './signature-checks';

const WEI_PER_TOKEN = 10n ** 18n;
const NAME = /^[A-Za-z0-9_-]{1,32}$/;
/** host:port: a DNS name or IPv4 address, or an IPv6 address in brackets; port 1..65535 without leading zeros. */
const ENDPOINT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?):([1-9][0-9]{0,4})$/;
const MAX_ENDPOINT_CHARS = 260;

const invalid = (field: string, why: string) => badRequest('INVALID_VALIDATOR', `${field}: ${why}`);

/** Why a validator name is refused ([C-res-validator-fields]), or null; the onboarding form checks the same. */
export function nameRefusal(name: string): string | null {
  return NAME.test(name) ? null : `must be one word of 1 to 32 characters of A-Z a-z 0-9 _ -, got ${JSON.stringify(name.slice(0, 40))}`;
}

/** Why an endpoint is refused ([C-res-validator-fields]), or null; the onboarding form checks the same. */
export function endpointRefusal(endpoint: string): string | null {
  const m = endpoint.length <= MAX_ENDPOINT_CHARS ? ENDPOINT.exec(endpoint) : null;
  return m && Number(m[2]) <= 65535 ? null : `must be host:port with a port from 1 to 65535, got ${JSON.stringify(endpoint.slice(0, 80))}`;
}

/** The format table of [C-res-validator-fields], field by field (400). */
export function registrationShape(b: RegisterValidatorBody, params: ChainParams): void {
  const badName = nameRefusal(b.name);
  if (badName !== null) throw invalid('name', badName);
  if (!isValidVrfPublicKey(b.vrfPubkey)) throw invalid('vrf_pubkey', 'must be an Ed25519 public key of 32 bytes (a valid point not of small order)');
  if (!/^0x0[23]/.test(b.ecdsaPubkey) || !isValidCompressedSecp256k1PublicKey(b.ecdsaPubkey)) {
    throw invalid('ecdsa_pubkey', 'must be a compressed secp256k1 public key of 33 bytes beginning 02 or 03');
  }
  const derived = addressFromSecp256k1PublicKey(b.ecdsaPubkey);
  if (derived !== b.candidate) throw invalid('ecdsa_pubkey', `derives to ${derived}, not the candidate ${b.candidate}`);
  const badEndpoint = endpointRefusal(b.endpoint);
  if (badEndpoint !== null) throw invalid('endpoint', badEndpoint);
  const { minBondWei, maxBondWei } = params.consensus;
  if (b.bond < minBondWei || b.bond > maxBondWei) throw badRequest('INVALID_AMOUNT', `bond: ${b.bond} wei is outside ${minBondWei}..${maxBondWei}`);
  if (b.bond % WEI_PER_TOKEN !== 0n) throw badRequest('INVALID_AMOUNT', `bond: ${b.bond} wei is not a whole number of native tokens`);
  if (b.nonce > U64_MAX) throw badRequest('INVALID_NONCE', `nonce: ${b.nonce} is not a u64`);
}

/** The state's refusals: duplicates (409) and funds (422). */
function registrationRefusal(state: State, b: RegisterValidatorBody): TxError | null {
  const duplicate = duplicateValidatorRefusal(state, b);
  if (duplicate) return duplicate;
  const balance = state.account(b.candidate).nativeWei;
  if (balance < b.bond) return rejected('INSUFFICIENT_FUNDS', `bond: ${b.bond} wei exceeds the candidate's native balance ${balance}`);
  return null;
}

/** The candidate, its VRF key or its ECDSA key already belongs to a validator of any status (409); shared with AdminSeedValidator. */
export function duplicateValidatorRefusal(state: State, b: Pick<RegisterValidatorBody, 'candidate' | 'vrfPubkey' | 'ecdsaPubkey'>): TxError | null {
  const own = validatorRecord(state, b.candidate);
  if (own) return new TxError(409, 'VALIDATOR_EXISTS', `candidate: ${b.candidate} is already a validator (${own.status})`);
  for (const a of validatorAddresses(state)) {
    const r = validatorRecord(state, a)!;
    if (r.vrfPubkey === (b.vrfPubkey.toLowerCase() as Hex)) return new TxError(409, 'VALIDATOR_EXISTS', `vrf_pubkey: already the VRF key of validator ${a}`);
    if (r.ecdsaPubkey === (b.ecdsaPubkey.toLowerCase() as Hex)) return new TxError(409, 'VALIDATOR_EXISTS', `ecdsa_pubkey: already the ECDSA key of validator ${a}`);
  }
  return null;
}

export const registerValidatorOp: TxOp<RegisterValidatorBody> = {
  shape: registrationShape,
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(registrationDigest(chainId, b), b.signature, b.candidate)) {
      throw unauthorized(`signature: does not recover to the candidate ${b.candidate} over chain ${chainId}'s registration text`);
    }
    return b.candidate;
  },
  nonce: (b) => b.nonce,
  // The operator gate (decision 159): who may register is the operator's to say, before the nonce.
  authorize(state, b, _signer, timeMs) {
    // A validator already (its approval consumed by its registration) hears why in apply: 409 VALIDATOR_EXISTS.
    if (validatorRecord(state, b.candidate)) return;
    const refusal = approvalRefusal(state, b.candidate, timeMs);
    if (refusal !== null) throw forbidden('NOT_AUTHORIZED', refusal);
  },
  apply(ctx, tx) {
    const b = tx.body;
    const refusal = registrationRefusal(ctx.state, b);
    if (refusal) throw refusal;
    consumeApproval(ctx.state, b.candidate);
    const acct = ctx.state.account(b.candidate);
    // The bond leaves the balance and is locked in the record (State.totals.bondLockedWei).
    ctx.state.accounts.set(b.candidate, { ...acct, nativeWei: acct.nativeWei - b.bond });
    stepValidator(
      ctx.state,
      b.candidate,
      { type: 'REGISTER', bondWei: b.bond, lockedWei: b.bond },
      // Keys stored lower-case, as the decoder gives them and the genesis records hold them.
      { address: b.candidate, name: b.name, endpoint: b.endpoint, ecdsaPubkey: b.ecdsaPubkey.toLowerCase() as Hex, vrfPubkey: b.vrfPubkey.toLowerCase() as Hex },
      ctx.header.height,
    );
  },
};
