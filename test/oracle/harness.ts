/**
 * Execution-level harness for the oracle: a State from the devnet genesis with a chosen
 * validator set (the devnet's public validator keys, bonds as given), observations
 * signed with those keys, and blocks at chosen times applied with applyBlock.
 */
import { merkleRoot, type Block } from '../../src/codec/block';
import { encodeTx, TxKind, type Tx } from '../../src/codec/tx';
import { signObservation, type ObservedPrice, type OracleObservationBody } from '../../src/codec/txs/oracle';
import { Secp256k1Signer } from '../../src/consensus/signer';
import type { Genesis } from '../../src/genesis/types';
import { applyBlock, type BlockResult } from '../../src/state/apply';
import { genesisState } from '../../src/state/genesis';
import { State } from '../../src/state/state';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { DEVNET_KEYS, devnetGenesis } from '../helpers/devnet';

export const BASE = devnetGenesis(6).genesis;
export const chainId = BASE.chainId;
export const T0 = BASE.genesisTimeMs;
export const STALE_MS = BASE.oracle.maxStalenessMs;

/** The devnet's six validator keys (public, devnet-only). */
export const signers = DEVNET_KEYS.validators.map((v) => new Secp256k1Signer(hexToBytes(v.ecdsaPrivateKey)));

/** The devnet genesis with the first powers.length validators, bonded with those powers. */
export function genesisWith(powers: bigint[]): Genesis {
  if (powers.length > BASE.validators.length) throw new Error('at most six validators');
  const validators = BASE.validators.slice(0, powers.length).map((v, i) => ({ ...v, bondWei: powers[i] }));
  return { ...BASE, validators, consensus: { ...BASE.consensus, activeSetMin: 1 } };
}

export function freshState(powers: bigint[]): State {
  return genesisState(genesisWith(powers), new Uint8Array(32)).state;
}

export function observationBody(by: { address: Address; sign(d: Uint8Array): Uint8Array }, timestampMs: number, prices: ObservedPrice[]): OracleObservationBody {
  return signObservation(chainId, { validator: by.address, timestampMs, prices }, by);
}

export function observation(by: { address: Address; sign(d: Uint8Array): Uint8Array }, timestampMs: number, prices: ObservedPrice[]): Tx {
  return encodeTx(chainId, TxKind.OracleObservation, observationBody(by, timestampMs, prices));
}

/** Shorthand: [[pairId, price], …] → ObservedPrice[]. */
export const px = (...list: [number, bigint][]): ObservedPrice[] => list.map(([pairId, price]) => ({ pairId, price }));

/** Applies one block at `timestampMs` carrying `txs`. */
export function applyAt(state: State, txs: Tx[], timestampMs: number): BlockResult {
  const head = state.head();
  const block: Block = {
    header: {
      chainId,
      height: head.height + 1,
      timestampMs,
      round: 0,
      parentHash: new Uint8Array(32),
      parentStateRoot: state.root(),
      validatorsHash: new Uint8Array(32),
      proposer: signers[0].address,
      txRoot: merkleRoot(txs.map((t) => t.hash)),
      txCount: txs.length,
      lastCommitHash: new Uint8Array(32),
      vrfProof: new Uint8Array(80), // execution does not read it (consensus checks it)
    },
    lastCommit: null,
    txs: txs.map((t) => t.bytes),
  };
  return applyBlock(state, block);
}
