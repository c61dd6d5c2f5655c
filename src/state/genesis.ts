/** The state at height 0, built from a validated genesis. */
import type { Genesis } from '../genesis/types';
import { bytesToHex } from '../util/bytes';
import type { ChainParams } from './records';
import { State, type StateChange } from './state';
import { credit, mint } from './accounts/vault';
import { genesisBridgeOwners } from './bridge/sets';

export function genesisParams(g: Genesis): ChainParams {
  const { privateKey: _secret, ...faucet } = g.faucet ?? ({} as NonNullable<Genesis['faucet']>);
  return {
    network: g.network,
    chainId: g.chainId,
    consensus: g.consensus,
    fees: g.fees,
    limits: g.limits,
    perps: g.perps,
    oracle: g.oracle,
    owners: g.owners,
    feeAccount: g.feeAccount,
    ...(g.faucet ? { faucet } : {}),
    ...(g.bridge ? { bridge: { ...g.bridge } } : {}),
  };
}

export function genesisState(g: Genesis, genesisHash: Uint8Array): { state: State; changes: StateChange[]; root: Uint8Array } {
  const state = new State();
  state.meta.set('params', genesisParams(g));
  state.meta.set('validators', g.validators);
  state.meta.set('head', { height: 0, timestampMs: g.genesisTimeMs, blockHash: bytesToHex(genesisHash) });
  // The genesis hash every bridge message is bound to (decision 150; src/state/bridge/reads.ts).
  if (g.bridge) state.meta.set('genesisHash', bytesToHex(genesisHash));
  // And the owner set the contract's constructor got, which the chain's SetOwners moves on (decision 149).
  if (g.bridge) genesisBridgeOwners(state);
  for (const p of [...g.pairs].sort((a, b) => a.id - b.id)) state.pairs.set(String(p.id), p);
  const accounts = [...g.accounts].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  for (const a of accounts) {
    mint(state, a.usdc, a.nativeWei);
    credit(state, a.address, a.usdc, a.nativeWei);
  }
  // The liquidity pool starts with perps.initialPoolUsdc, minted like a deposit; its
  // shares are the protocol's (owned by no account, never withdrawn: src/state/perps/pool.ts).
  const initialPool = g.perps.initialPoolUsdc;
  if (initialPool > 0n) {
    mint(state, initialPool, 0n);
    state.pool.set('pool', { usdc: initialPool, totalShares: initialPool, protocolShares: initialPool });
  }
  // The reserve check's ledger starts with the USDC genesis issued (src/state/bridge/reads.ts).
  state.meta.set('bridgeLedger', { genesisUsdc: state.supply().usdc, faucetMinted: 0n, depositsCredited: 0n, withdrawalsPaid: 0n });
  state.checkInvariants();
  const { changes, root } = state.flush();
  return { state, changes, root };
}
