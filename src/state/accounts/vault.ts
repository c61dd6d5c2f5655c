/** Balance moves shared by every operation; each keeps the supply invariant exact. */
import type { Address } from '../../util/bytes';
import { rejected } from '../errors';
import type { State } from '../state';

export function credit(state: State, to: Address, usdc: bigint, nativeWei = 0n): void {
  const a = state.account(to);
  state.accounts.set(to, { ...a, usdcFree: a.usdcFree + usdc, nativeWei: a.nativeWei + nativeWei });
}

export function debitFree(state: State, from: Address, usdc: bigint): void {
  const a = state.account(from);
  if (a.usdcFree < usdc) throw rejected('INSUFFICIENT_BALANCE', `free balance ${a.usdcFree} below ${usdc} USDC units`);
  state.accounts.set(from, { ...a, usdcFree: a.usdcFree - usdc });
}

/** New money enters only through deposits (and the devnet faucet): supply grows with it. */
export function mint(state: State, usdc: bigint, nativeWei: bigint): void {
  const s = state.supply();
  state.meta.set('supply', { usdc: s.usdc + usdc, nativeWei: s.nativeWei + nativeWei });
}

/** Money leaves only through paid withdrawals (it left on the external chain): supply shrinks with it. */
export function burn(state: State, usdc: bigint): void {
  const s = state.supply();
  if (s.usdc < usdc) throw new Error(`burning ${usdc} USDC units exceeds the supply ${s.usdc}`);
  state.meta.set('supply', { usdc: s.usdc - usdc, nativeWei: s.nativeWei });
}
