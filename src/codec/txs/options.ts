/**
 * Action options (issue 24, decisions 87 and 90): what a trader-signed action may carry
 * beyond its kind's own fields — a client order id, a time in force, reduce-only, and
 * an expiry. They travel as an optional trailer after the kind's fields: a transaction
 * without options has exactly the bytes it had before options existed (old blocks
 * decode unchanged), and the trailer, when present, is one flags byte then the fields
 * the flags name, in flag order. Which options a kind accepts is its `shape` rule's
 * business (400 INVALID_OPTIONS); the signed text of the options is
 * src/signing/action-options.ts.
 */
import { bytesToHex, hexToBytes, type Hex } from '../../util/bytes';
import { CodecError, type Reader, type Writer } from '../binary';

export type TimeInForce = 'Gtc' | 'Ioc' | 'Alo';
export const TIME_IN_FORCE: readonly TimeInForce[] = ['Gtc', 'Ioc', 'Alo'];

export interface ActionOptions {
  /** Client order id: 16 bytes, 0x + 32 lower-case hex. */
  cloid?: Hex;
  /** Time in force of a placed order (absent: Gtc). */
  tif?: TimeInForce;
  /** Present only as true: the order may only reduce the trader's position. */
  reduceOnly?: true;
  /** Block time (ms) after which the action is refused 422 ACTION_EXPIRED. */
  expiresAfter?: bigint;
}

const CLOID = 1;
const TIF = 2;
const REDUCE_ONLY = 4;
const EXPIRES_AFTER = 8;
const KNOWN = CLOID | TIF | REDUCE_ONLY | EXPIRES_AFTER;

export const CLOID_RE = /^0x[0-9a-f]{32}$/;

export function hasOptions(o: ActionOptions | undefined): o is ActionOptions {
  return o !== undefined && (o.cloid !== undefined || o.tif !== undefined || o.reduceOnly !== undefined || o.expiresAfter !== undefined);
}

/** The trailer: nothing when there are no options. */
export function writeOptions(w: Writer, o: ActionOptions | undefined): void {
  if (!hasOptions(o)) return;
  const flags = (o.cloid !== undefined ? CLOID : 0) | (o.tif !== undefined ? TIF : 0) | (o.reduceOnly ? REDUCE_ONLY : 0) | (o.expiresAfter !== undefined ? EXPIRES_AFTER : 0);
  w.u8(flags);
  if (o.cloid !== undefined) {
    if (!CLOID_RE.test(o.cloid)) throw new CodecError('RANGE', 'cloid must be 0x and 32 lower-case hex digits');
    w.fixed(hexToBytes(o.cloid), 16);
  }
  if (o.tif !== undefined) {
    const i = TIME_IN_FORCE.indexOf(o.tif);
    if (i < 0) throw new CodecError('RANGE', `tif must be one of ${TIME_IN_FORCE.join(', ')}`);
    w.u8(i);
  }
  if (o.expiresAfter !== undefined) w.big(o.expiresAfter);
}

/** The trailer if any bytes remain, else no options. A flags byte naming nothing, or an unknown flag, is malformed. */
export function readOptions(r: Reader): ActionOptions {
  if (r.remaining === 0) return {};
  const flags = r.u8();
  if (flags === 0 || (flags & ~KNOWN) !== 0) throw new CodecError('MALFORMED', `options flags ${flags} are not a known non-empty set`);
  const o: ActionOptions = {};
  if (flags & CLOID) o.cloid = bytesToHex(r.fixed(16));
  if (flags & TIF) {
    const tif = TIME_IN_FORCE[r.u8()];
    if (tif === undefined) throw new CodecError('MALFORMED', 'unknown time in force');
    o.tif = tif;
  }
  if (flags & REDUCE_ONLY) o.reduceOnly = true;
  if (flags & EXPIRES_AFTER) o.expiresAfter = r.big();
  return o;
}
