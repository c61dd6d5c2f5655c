/**
 * A submitted transaction once final: its receipt and block. A final but failed
 * transaction answers with the status and code its refusal carries (DECISIONS
 * envelope), so a route states only what its success looks like.
 */
import type { Receipt } from '../state/context';
import { ApiError } from './envelope';

export interface FinalTx {
  receipt: Receipt;
  height: number;
  blockHash: string;
}

/** A final but failed transaction answers with the status its error class carries. */
export function throwIfFailed(final: FinalTx): void {
  const r = final.receipt;
  if (r.status === 'failed') throw new ApiError(r.errorStatus ?? 422, r.code ?? 'REJECTED', r.message ?? 'rejected by execution');
}
