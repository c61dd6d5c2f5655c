/** The code a call refuses with (it must throw a TxError), or 'admitted' when it returns. */
import { expect } from 'vitest';
import { TxError } from '../../src/state/errors';

export function refusalCode(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TxError);
    return (err as TxError).code;
  }
  return 'admitted';
}
