import type { Genesis } from '../genesis/types';

/** A devnet of the first N validators: the genesis is the file's with the set trimmed (its hash differs). */
export function trimValidators(g: Genesis, n: number): Genesis {
  if (n < 1 || n > g.validators.length) throw new Error(`--validators must be between 1 and ${g.validators.length}`);
  if (n === g.validators.length) return g;
  const consensus = { ...g.consensus, activeSetMin: Math.min(g.consensus.activeSetMin, n) };
  return { ...g, consensus, validators: g.validators.slice(0, n) };
}

