/**
 * Digests of the timer actions (issue 24, decisions 90–91), in the exchange REST scheme
 * (src/signing/exchange-digest.ts): keccak256(abi.encodePacked(strings…, uint256 nonce
 * [, string optionsText])) signed as an EIP-191 personal message of the 32 raw bytes.
 * The options text (src/signing/action-options.ts) is appended only when not empty, so a
 * digest without options has the plain layout.
 *
 *   schedule-cancel: ("schedule-cancel", timeText, nonce[, options])  timeText "" clears
 *   twap:            ("twap", symbol, side, amount, minutes, "true"|"false", nonce[, options])
 *   twap-cancel:     ("twap-cancel", twapId, nonce[, options])
 */
import type { ActionOptions } from '../codec/txs/options';
import { concatBytes, utf8 } from '../util/bytes';
import { optionsText } from './action-options';
import { keccak256 } from '../crypto/keccak';
import { uintWord } from '../crypto/abi-word';

function packed(parts: readonly string[], nonce: bigint, options: ActionOptions | undefined): Uint8Array {
  return keccak256(concatBytes(...parts.map((p) => utf8.encode(p)), uintWord(nonce, 256, 'nonce'), utf8.encode(optionsText(options))));
}

/** The time as signed: decimal block-time ms, "" to clear the schedule. */
export function scheduleCancelDigest(timeMs: bigint | null, nonce: bigint, options?: ActionOptions): Uint8Array {
  return packed(['schedule-cancel', timeMs === null ? '' : timeMs.toString()], nonce, options);
}

export function twapPlaceDigest(b: { symbol: string; side: string; amount: string; minutes: number; randomize: boolean; nonce: bigint; options?: ActionOptions }): Uint8Array {
  return packed(['twap', b.symbol, b.side, b.amount, String(b.minutes), b.randomize ? 'true' : 'false'], b.nonce, b.options);
}

export function twapCancelDigest(twapId: string, nonce: bigint, options?: ActionOptions): Uint8Array {
  return packed(['twap-cancel', twapId], nonce, options);
}
