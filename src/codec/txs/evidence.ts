/**
 * DoubleSignEvidence (contract [D-validators-evidence]; decision 72): two conflicting
 * signed votes of one validator for the same height, round and step, as consensus
 * detected and gossiped them (src/consensus/evidence.ts), carried in a block so every
 * node executes the punishment (src/state/ops/double-sign-evidence.ts).
 *
 * Layout: the evidence's own encoding (`encodeEvidence`: `u8 1 | vote A | vote B`, the
 * votes in canonical order, nil first), length-prefixed. Only duplicate votes: the
 * contract's evidence is votes; conflicting proposals stay a consensus observation.
 * There is no nonce, fee or signature of the sender: the two votes' signatures are the
 * proof, and the offender's tombstone makes a second copy worthless.
 */
import { decodeEvidence, encodeEvidence, type DuplicateVoteEvidence } from '../../consensus/evidence';
import { EVIDENCE_BYTES_MAX } from '../../consensus/limits';
import { CodecError } from '../binary';
import { registerTxKind, TxKind } from '../tx';

export interface DoubleSignEvidenceBody {
  evidence: DuplicateVoteEvidence;
}

registerTxKind<DoubleSignEvidenceBody>({
  kind: TxKind.DoubleSignEvidence,
  name: 'DoubleSignEvidence',
  encodeBody(w, b) {
    if (b.evidence.kind !== 'duplicateVote') throw new CodecError('KIND', 'only duplicate-vote evidence is carried in blocks');
    w.bytes(encodeEvidence(b.evidence));
  },
  decodeBody(r) {
    const e = decodeEvidence(r.bytes(EVIDENCE_BYTES_MAX));
    if (e.kind !== 'duplicateVote') throw new CodecError('KIND', 'only duplicate-vote evidence is carried in blocks');
    return { evidence: e };
  },
});
