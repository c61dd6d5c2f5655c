/**
 * Exchange REST trading digests (contract [C-auth-rest], [D-signatures-rest]):
 *   digest = keccak256(abi.encodePacked(...)) where every value is a Solidity `string`
 *   (its UTF-8 bytes exactly as sent on the wire, "" when absent) except the trailing
 *   `nonce`, a uint256 (32 bytes big-endian).
 * The trader signs the digest as an EIP-191 personal message of its 32 raw bytes
 * (viem `signMessage({ message: { raw: digest } })`), see restSigningHash.
 *
 * Values are NOT trimmed or normalized: "2500.50" and "2500.5" are different orders
 * as far as the signature is concerned, and the node must hash what the client sent.
 *
 * encodePacked has no separators, so digests of different operations can coincide:
 * cancelDigest("-all", n) === cancelAllDigest(n), and a place with symbol "batchETH"
 * can equal a batch. Callers must validate field shapes (decimal order id, known
 * symbol, side, type) BEFORE checking the signature; the format is fixed by the
 * contract (decision 8).
 *
 * Action options (issue 24, decision 87): when an action carries options, their text
 * (src/signing/action-options.ts optionsText; for a batch batchOptionsText) is appended
 * as a Solidity `string` AFTER the nonce: keccak256(encodePacked(..., nonce, text)).
 * Without options nothing is appended and every digest is what it always was. New
 * digests: modify ("modify", orderId+price+amount of each, nonce) and cancel by client
 * order id ("cancel-cloid", cloid, nonce).
 */
import { type Address, concatBytes, utf8 } from '../util/bytes';
import { hashPersonalMessage } from '../crypto/eip191';
import { uintWord } from '../crypto/abi-word';
import { keccak256 } from '../crypto/keccak';
import { verifySigner } from '../crypto/secp256k1';

/** A uint256 nonce. A number must be a safe integer (beyond 2^53 it was already rounded). */
export type NonceInput = bigint | number;

function nonceBytes(nonce: NonceInput): Uint8Array {
  if (typeof nonce === 'bigint') return uintWord(nonce, 256, 'nonce');
  if (typeof nonce === 'number' && Number.isSafeInteger(nonce)) return uintWord(BigInt(nonce), 256, 'nonce');
  throw new TypeError(`nonce must be a bigint or a safe integer, got ${String(nonce)}`);
}

/** A string field's text ('' when absent); anything else is a caller bug. */
function text(value: string | undefined, field: () => string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new TypeError(`${field()} must be a string`);
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/;
let scratch = new Uint8Array(1024);

/**
 * keccak256(encodePacked(...strings, uint256 nonce)). The strings are encoded as ONE
 * string: the UTF-8 of a concatenation is the concatenation of the UTF-8s, except where
 * a lone surrogate ends one part and starts the next (two would pair up), so such input
 * takes the part-by-part path. One encoding instead of one allocation per field.
 */
function packedDigest(parts: string, nonce: NonceInput, separate: () => string[], options = ''): Uint8Array {
  const n = nonceBytes(nonce);
  if (LONE_SURROGATE.test(parts) || LONE_SURROGATE.test(options)) return keccak256(concatBytes(...separate().map((p) => utf8.encode(p)), n, utf8.encode(options)));
  const max = (parts.length + options.length) * 3 + 32;
  if (scratch.length < max) scratch = new Uint8Array(Math.max(max, scratch.length * 2));
  const { written } = utf8.encodeInto(parts, scratch);
  scratch.set(n, written);
  const tail = options === '' ? 0 : utf8.encodeInto(options, scratch.subarray(written + 32)).written;
  return keccak256(scratch.subarray(0, written + 32 + tail));
}

export interface PlaceOrderDigestInput {
  symbol?: string;
  side?: string;
  type?: string;
  price?: string;
  amount?: string;
  nonce: NonceInput;
  /** optionsText of the action's options ("" or absent: none). */
  options?: string;
}

/** place: keccak256(encodePacked(symbol, side, type, price, amount, uint256 nonce[, string options])). */
export function placeOrderDigest(input: PlaceOrderDigestInput): Uint8Array {
  const fields = [
    text(input.symbol, () => 'symbol'),
    text(input.side, () => 'side'),
    text(input.type, () => 'type'),
    text(input.price, () => 'price'),
    text(input.amount, () => 'amount'),
  ];
  return packedDigest(fields.join(''), input.nonce, () => fields, text(input.options, () => 'options'));
}

export interface BatchOrderDigestItem {
  symbol?: string;
  side?: string;
  price?: string;
  amount?: string;
}

/**
 * batch: keccak256(encodePacked("batch", orderSummary, uint256 nonce)), orderSummary =
 * symbol+side+price+amount of each order, in order, with no separator.
 */
export function batchDigest(orders: readonly BatchOrderDigestItem[], nonce: NonceInput, options = ''): Uint8Array {
  if (!Array.isArray(orders)) throw new TypeError('orders must be an array');
  const fields: string[] = ['batch'];
  orders.forEach((o, i) => {
    fields.push(
      text(o.symbol, () => `orders[${i}].symbol`),
      text(o.side, () => `orders[${i}].side`),
      text(o.price, () => `orders[${i}].price`),
      text(o.amount, () => `orders[${i}].amount`),
    );
  });
  return packedDigest(fields.join(''), nonce, () => fields, options);
}

/**
 * The options text of a batch: each item's optionsText that is not empty as
 * `orders[i]:<text>`, then the batch's own (expiresAfter) text, joined by `|`:
 *   orders[0]:cloid=0x…;tif=Alo|orders[2]:reduceOnly=true|expiresAfter=1795673453245
 */
export function batchOptionsText(itemTexts: readonly string[], actionText: string): string {
  const parts = itemTexts.flatMap((t, i) => (t === '' ? [] : [`orders[${i}]:${t}`]));
  if (actionText !== '') parts.push(actionText);
  return parts.join('|');
}

/** cancel one: keccak256(encodePacked("cancel", orderId, uint256 nonce[, string options])). */
export function cancelDigest(orderId: string | undefined, nonce: NonceInput, options = ''): Uint8Array {
  const fields = ['cancel', text(orderId, () => 'orderId')];
  return packedDigest(fields.join(''), nonce, () => fields, options);
}

/** cancel all: keccak256(encodePacked("cancel-all", uint256 nonce[, string options])). */
export function cancelAllDigest(nonce: NonceInput, options = ''): Uint8Array {
  return packedDigest('cancel-all', nonce, () => ['cancel-all'], options);
}

/** cancel by client order id: keccak256(encodePacked("cancel-cloid", cloid, uint256 nonce[, string options])). */
export function cancelCloidDigest(cloid: string | undefined, nonce: NonceInput, options = ''): Uint8Array {
  const fields = ['cancel-cloid', text(cloid, () => 'cloid')];
  return packedDigest(fields.join(''), nonce, () => fields, options);
}

export interface ModifyDigestItem {
  orderId?: string;
  price?: string;
  amount?: string;
}

/**
 * modify: keccak256(encodePacked("modify", summary, uint256 nonce[, string options])),
 * summary = orderId+price+amount of each modify, in order, with no separator.
 */
export function modifyDigest(items: readonly ModifyDigestItem[], nonce: NonceInput, options = ''): Uint8Array {
  if (!Array.isArray(items)) throw new TypeError('orders must be an array');
  const fields: string[] = ['modify'];
  items.forEach((o, i) => {
    fields.push(text(o.orderId, () => `orders[${i}].orderId`), text(o.price, () => `orders[${i}].price`), text(o.amount, () => `orders[${i}].amount`));
  });
  return packedDigest(fields.join(''), nonce, () => fields, options);
}

/** What the trader's wallet actually signs: the EIP-191 personal-message hash of the 32 raw digest bytes. */
export function restSigningHash(digest: Uint8Array): Uint8Array {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) throw new TypeError('digest must be 32 bytes');
  return hashPersonalMessage(digest);
}

/** Did `trader` sign this REST digest? Never throws for a malformed signature. */
export function verifyRestSignature(digest: Uint8Array, signature: Uint8Array | string, trader: Address): boolean {
  return verifySigner(restSigningHash(digest), signature, trader);
}
