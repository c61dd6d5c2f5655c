/**
 * The genesis of a simulation run and the consensus sets of its validators. A node's
 * executed chain is the real Chain (src/chain/chain.ts) over an in-memory store
 * (sim/storage.ts, decision 126): opened, committed and reopened as the node does it.
 *
 * worldGenesis() is the genesis of one run: the devnet genesis with the run's validators
 * (their sim keys) in place of devnet's, and, for the lifecycle scenario
 * (sim/lifecycle.ts), short epochs, a short downtime window, small bonds and the
 * joiners' accounts funded.
 */
import { join } from 'node:path';
import { trimValidators } from '../src/cli/devnet';
import { ValidatorSet, type QuorumRule } from '../src/consensus/validator-set';
import { genesisHash, loadGenesisFile } from '../src/genesis/load';
import type { ConsensusParams, Genesis, GenesisAccount, GenesisValidator } from '../src/genesis/types';
import type { ActiveValidator, ValidatorSetView } from '../src/state/validators/set';

/** The devnet genesis (genesis/devnet.json, its 6 validators): read once per process. */
let devnet: { genesis: Genesis; hash: Uint8Array } | undefined;
export function simGenesis(): { genesis: Genesis; hash: Uint8Array } {
  if (devnet === undefined) {
    const genesis = trimValidators(loadGenesisFile(join(import.meta.dirname, '..', 'genesis', 'devnet.json')), 6);
    devnet = { genesis, hash: genesisHash(genesis) };
  }
  return devnet;
}

/**
 * The genesis of one run: devnet's, with `validators` (the run's keys and bonds) in place
 * of devnet's six, `consensus` overrides (the lifecycle scenario's short epochs and
 * windows) and `accounts` funded besides devnet's.
 */
export function worldGenesis(validators: GenesisValidator[], consensus: Partial<ConsensusParams> = {}, accounts: GenesisAccount[] = []): { genesis: Genesis; hash: Uint8Array } {
  const base = simGenesis().genesis;
  const genesis: Genesis = { ...base, validators, consensus: { ...base.consensus, ...consensus }, accounts: [...base.accounts, ...accounts] };
  return { genesis, hash: genesisHash(genesis) };
}

/**
 * The consensus ValidatorSet of each executed set (src/chain/validator-sets.ts
 * consensusSet), built with the run's quorum rule (a broken one in the test that shows
 * the checker catches it); one per state view, as the node caches them.
 */
export class SetsOf {
  readonly #sets = new WeakMap<ValidatorSetView, ValidatorSet>();
  constructor(private readonly quorum?: QuorumRule) {}

  of(view: ValidatorSetView): ValidatorSet {
    let set = this.#sets.get(view);
    if (set === undefined) {
      set = this.make(view.validators);
      this.#sets.set(view, set);
    }
    return set;
  }

  make(validators: readonly ActiveValidator[]): ValidatorSet {
    return new ValidatorSet(validators, this.quorum ? { unsafeQuorumForSimulation: this.quorum } : {});
  }
}
