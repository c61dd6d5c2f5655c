/**
 * BridgeAttestation (issue 22 item 2; decision 82): a current validator's signed claims
 * about the external chain: deposits, and withdrawals queued, paid or void there.
 *   - shape: canonical claim list, amounts > 0, recipients not zero (400 INVALID_ATTESTATION);
 *   - verify: the signature recovers to `validator` (401);
 *   - admit and apply: the network has a bridge (422 BRIDGE_DISABLED), the validator is
 *     in the current active set (403 NOT_VALIDATOR), no deposit claim MAX_DEPOSITS_AHEAD
 *     past the next (422 DEPOSIT_TOO_FAR_AHEAD), no unknown withdrawal (422
 *     UNKNOWN_WITHDRAWAL), and at least one claim not late (409 ATTESTATION_STALE).
 * Apply records the votes and credits / steps what reaches a quorum (src/state/bridge/votes.ts).
 * No nonce, no fee: the per-(validator, claim) vote is the replay protection.
 */
import { attestationSigningHash, claimListProblem, type BridgeAttestationBody } from '../../codec/txs/bridge';
import { verifySigner } from '../../crypto/secp256k1';
import type { TxOp } from '../context';
import { badRequest, unauthorized } from '../errors';
import { applyAttestation, countedClaims } from '../bridge/votes';

export const bridgeAttestationOp: TxOp<BridgeAttestationBody> = {
  shape(b) {
    const problem = claimListProblem(b.claims);
    if (problem) throw badRequest('INVALID_ATTESTATION', `claims: ${problem}`);
  },
  verify(tx, chainId) {
    const b = tx.body;
    if (!verifySigner(attestationSigningHash(chainId, b), b.signature, b.validator)) throw unauthorized(`signature: the attestation does not recover to ${b.validator}`);
    return b.validator;
  },
  admit(state, b, signer) {
    countedClaims(state, b, signer);
  },
  apply(ctx, tx, signer) {
    applyAttestation({ state: ctx.state, params: ctx.params, nowMs: ctx.header.timestampMs, emit: ctx.emit }, ctx.header.height, tx.body, signer);
  },
};
