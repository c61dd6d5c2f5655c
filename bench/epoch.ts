/**
 * Validator-set figures (issue 20, decision 72): the cost of an epoch transition with 21
 * active validators and registered candidates beside them, against an ordinary block in
 * the same run, and the cost of the per-block downtime accounting.
 *
 * The chain: the devnet genesis (6 validators of 10,000,000 tokens) with epochs of 10
 * blocks; 25 candidates register at block 1 with bonds of 11,000,000 to 35,000,000
 * tokens, so the boundary at block 10 seats 21 of the 31 candidates and leaves 10
 * registered (the 6 genesis validators among them). Measured on fresh states, each
 * built to height 8, then block 9 (ordinary) and block 10 (the boundary) applied whole
 * (applyBlock: execution, the end-of-block steps and the state root), and
 * endBlockValidators alone at the boundary and off it (rolled back after each call).
 * Downtime: beginBlockDowntime for a block whose parent's commit carries all 21
 * signatures, and one that lacks 7 (each then rewrites its missed-heights record).
 */
import { canonicalCommit, type Commit } from '../src/codec/block';
import { encodeTx, TxKind, type Tx } from '../src/codec/tx';
import { registrationDigest } from '../src/codec/txs/validators';
import { privateKeyToAddress, signCompact64 } from '../src/crypto/secp256k1';
import { ed25519PublicKey, secp256k1CompressedPublicKey } from '../src/genesis/keys';
import type { Genesis } from '../src/genesis/types';
import { genesisState } from '../src/state/genesis';
import type { State } from '../src/state/state';
import { beginBlockDowntime } from '../src/state/validators/downtime';
import { endBlockValidators } from '../src/state/validators/epoch';
import { activeValidators } from '../src/state/validators/set';
import { bytesToHex, hexToBytes, type Address } from '../src/util/bytes';
import { devnetGenesis } from '../test/helpers/devnet';
import { applyNext } from '../test/validators/harness';

const TOKEN = 10n ** 18n;
const EPOCH = 10;
const CANDIDATES = 25;
const base = devnetGenesis(6).genesis;

const keys = Array.from({ length: CANDIDATES }, (_, i) => {
  const privateKey = new Uint8Array(32).fill(0x6b);
  privateKey[31] = i + 1;
  const vrfSeed = new Uint8Array(32).fill(0x44);
  vrfSeed[31] = i;
  return { privateKey, address: privateKeyToAddress(privateKey), ecdsaPubkey: secp256k1CompressedPublicKey(bytesToHex(privateKey)), vrfPubkey: ed25519PublicKey(bytesToHex(vrfSeed)) };
});

const genesis: Genesis = {
  ...base,
  consensus: { ...base.consensus, epochLengthBlocks: EPOCH, activeSetMax: 21 },
  accounts: [...base.accounts, ...keys.map((k) => ({ address: k.address, usdc: 0n, nativeWei: 40_000_000n * TOKEN }))],
};

const registrations: Tx[] = keys.map((k, i) => {
  const unsigned = { candidate: k.address, vrfPubkey: k.vrfPubkey, ecdsaPubkey: k.ecdsaPubkey, name: `cand-${i}`, endpoint: `cand${i}.example.org:26656`, bond: BigInt(11_000_000 + i * 1_000_000) * TOKEN, nonce: 1n };
  return encodeTx(genesis.chainId, TxKind.RegisterValidator, { ...unsigned, signature: signCompact64(registrationDigest(genesis.chainId, unsigned), k.privateKey) });
});

/** The next block over `state` (the validators' execution harness: execution reads neither parent hash nor proof). */
const next = applyNext;

function built(height: number): State {
  const state = genesisState(genesis, new Uint8Array(32)).state;
  if (next(state, registrations).receipts.some((r) => r.status !== 'ok')) throw new Error('a registration failed');
  while (state.head().height < height) next(state);
  return state;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x: number) => +x.toFixed(4);

/** Runs `f` `n` times, rolling the state back after each: the median ms. */
function timedRolledBack(state: State, n: number, f: () => void): number {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const cp = state.journal.checkpoint();
    const s = performance.now();
    f();
    out.push(performance.now() - s);
    state.journal.rollback(cp);
  }
  return median(out);
}

export async function benchEpoch(): Promise<Record<string, unknown>> {
  const reps = 15;
  const ordinary: number[] = [];
  const boundary: number[] = [];
  let seated = 0;
  let state!: State;
  for (let r = 0; r < reps; r++) {
    state = built(EPOCH - 2);
    let s = performance.now();
    next(state);
    ordinary.push(performance.now() - s);
    s = performance.now();
    next(state);
    boundary.push(performance.now() - s);
    seated = activeValidators(state).validators.length;
  }
  const params = state.params();

  // endBlockValidators alone: seating 21 (a state at height 9), a steady boundary, an ordinary height.
  const before = built(EPOCH - 1);
  const seating = timedRolledBack(before, 200, () => endBlockValidators(before, params, EPOCH));
  while (state.head().height < 2 * EPOCH - 1) next(state);
  const steady = timedRolledBack(state, 200, () => endBlockValidators(state, params, 2 * EPOCH));
  const offBoundary = timedRolledBack(state, 2000, () => endBlockValidators(state, params, 2 * EPOCH - 1));

  // Downtime accounting at the start of block h + 1 over the commit of h (signatures are not checked by execution).
  const set = activeValidators(state).validators.map((v) => v.address);
  const h = state.head().height;
  const commit = (signers: readonly Address[]): Commit =>
    canonicalCommit({ height: h, round: 0, blockHash: hexToBytes(state.head().blockHash), signatures: signers.map((validator) => ({ validator, signature: new Uint8Array(65) })) });
  const all = commit(set);
  const missing7 = commit(set.slice(7));
  const sink = () => {};
  const allSigned = timedRolledBack(state, 2000, () => beginBlockDowntime(state, params, h + 1, all, sink));
  const sevenMissing = timedRolledBack(state, 2000, () => beginBlockDowntime(state, params, h + 1, missing7, sink));

  return {
    conditions: `${seated} active of ${CANDIDATES + base.validators.length} candidates, epochs of ${EPOCH} blocks, ${reps} fresh states; endBlockValidators and downtime medians of 200/2000 calls rolled back`,
    ordinaryBlockApplyMs: ms(median(ordinary)),
    boundaryBlockApplyMs: ms(median(boundary)),
    endBlockValidatorsSeating21Ms: ms(seating),
    endBlockValidatorsSteadyBoundaryMs: ms(steady),
    endBlockValidatorsOffBoundaryMs: ms(offBoundary),
    downtimeAllSignedMs: ms(allSigned),
    downtime7of21MissingMs: ms(sevenMissing),
  };
}
