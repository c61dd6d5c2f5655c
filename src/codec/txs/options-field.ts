/**
 * Reading the options trailer into a body (issue 24, decision 90): `{options}` when the
 * transaction carries any, `{}` otherwise, so a body decoded from a transaction without
 * options equals the body it was encoded from (no `options: {}` key appears).
 */
import type { Reader } from '../binary';
import { hasOptions, readOptions, type ActionOptions } from './options';

export function optionsField(r: Reader): { options?: ActionOptions } {
  const options = readOptions(r);
  return hasOptions(options) ? { options } : {};
}
