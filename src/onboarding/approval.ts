/**
 * The operator's approval as a chain transaction (decision 159): when the operator
 * approves an applicant (POST /api/operator/applicants/:address/approve), the service
 * signs ApproveValidator with the operator key it holds (`--operator-key FILE`, devnet's
 * owner-1 by default on devnet: src/onboarding/operator-key.ts) and submits it to the
 * network's node (`--node URL`), and records the approval in its book only once the
 * transaction is final: an approval the chain refused (another operator in force, the
 * node unreachable: the node's refusal passed on) leaves the applicant pending, for the
 * operator to approve again. Without a node or a key the service approves in its book
 * only, and RegisterValidator of that candidate is refused on chain (403) until the
 * operator sends the approval by hand (`npm run node -- validator approve`).
 */
import { encodeTx, TxKind } from '../codec/tx';
import { approvalDigest } from '../codec/txs/validators';
import { sign } from '../crypto/secp256k1';
import { hexToBytes, type Address } from '../util/bytes';
import type { ChainApprover } from './book';
import { submitToNode } from './node-client';
import type { OperatorKey } from './operator-key';

/** How long an approval the service sends admits a registration: a week of block time (execution allows 30 days). */
export const APPROVAL_LIFETIME_MS = 7 * 86_400_000;

/** ApproveValidator of `candidate` signed by the operator key, valid until `expiresAtMs`. */
export function approvalTx(chainId: number, key: OperatorKey, candidate: Address, expiresAtMs: number, nonce: bigint): Uint8Array {
  const body = { operator: key.address, candidate: candidate.toLowerCase() as Address, expiresAtMs, nonce };
  return encodeTx(chainId, TxKind.ApproveValidator, { ...body, signature: sign(approvalDigest(chainId, body), hexToBytes(key.privateKey)) }).bytes;
}

/** The chain approver over the node's POST /tx: one attempt, the nonce and the expiry from the service's clock. */
export function httpChainApprover(p: { chainId: number; nodeUrl: string; key: OperatorKey; nowMs?: () => number }): ChainApprover {
  const now = p.nowMs ?? Date.now;
  let lastNonce = 0n;
  return {
    operator: p.key.address,
    approve(candidate) {
      // A timestamp nonce (milliseconds), strictly increasing within the service.
      const t = BigInt(now());
      lastNonce = t > lastNonce ? t : lastNonce + 1n;
      return submitToNode(p.nodeUrl, approvalTx(p.chainId, p.key, candidate as Address, now() + APPROVAL_LIFETIME_MS, lastNonce));
    },
  };
}
