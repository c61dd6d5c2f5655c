/**
 * The signed text of action options (issue 24, decision 87): present options only, in
 * the fixed order cloid, tif, reduceOnly, expiresAfter, as `key=value` joined by `;`:
 *   cloid=0x000102030405060708090a0b0c0d0e0f;tif=Ioc;reduceOnly=true;expiresAfter=1795673453245
 * "" when there are none, and then nothing about the signature changes. When it is not
 * empty each scheme signs it once: appended as a string after the nonce of an exchange
 * REST packed digest, as a trailing `string options` member of an EIP-712 type, as a
 * last `"options"` key of a perp JSON payload.
 */
import type { ActionOptions } from '../codec/txs/options';

export function optionsText(o: ActionOptions | undefined): string {
  if (!o) return '';
  const parts: string[] = [];
  if (o.cloid !== undefined) parts.push(`cloid=${o.cloid}`);
  if (o.tif !== undefined) parts.push(`tif=${o.tif}`);
  if (o.reduceOnly) parts.push('reduceOnly=true');
  if (o.expiresAfter !== undefined) parts.push(`expiresAfter=${o.expiresAfter}`);
  return parts.join(';');
}
