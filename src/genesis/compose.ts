/**
 * The genesis of a new network from its first validators' public values (pure; no I/O):
 * what `npm run node -- genesis new` writes. Every parameter but the ones given comes
 * from the generator's testnet (src/genesis/build.ts, the content of
 * genesis/testnet.json): consensus, fees, limits, pairs, perps, oracle, the funded
 * operator account, the owners and the validators' bond; a devnet starts from the
 * generator's devnet instead, since a devnet needs its faucet. The result is checked by
 * the loader (parseGenesis), so it loads with loadGenesisFile or not at all.
 */
import type { Address, Hex } from '../util/bytes';
import { buildGenesis, validatorEndpoint } from './build';
import { CHAIN_IDS, parseGenesis } from './load';
import type { BridgeParams, Genesis, GenesisAccount } from './types';

export interface NewValidator {
  /** Default `validator-<i>` (1-based). */
  name?: string;
  address: Address;
  ecdsaPubkey: Hex;
  vrfPubkey: Hex;
  /** Default the template's bond (10,000,000 native tokens). */
  bondWei?: bigint;
  /** Default the single-host layout, 127.0.0.1:9000 + 10(i − 1). */
  endpoint?: string;
}

export interface NewNetworkOptions {
  network: Genesis['network'];
  /** Default the network's own chain id (CHAIN_IDS). */
  chainId?: number;
  /** Default the template's genesis time. */
  genesisTimeMs?: number;
  /** Default the template's owners. */
  owners?: [Address, Address, Address];
  /** The operator who approves validators (decision 159); default the template's (the testnet's operator account, devnet's owner-1). */
  operator?: Address;
  validators: NewValidator[];
  /** Accounts funded at genesis, after the template's. */
  accounts?: GenesisAccount[];
  /** Default the template's (10,000). */
  epochLengthBlocks?: number;
  /** The external bridge this network honours; default the template's (the devnet's hardhat bridge; none on testnet and mainnet). */
  bridge?: BridgeParams;
}

/** The genesis a new network starts from, before the caller's values replace its own. */
export function newNetworkTemplate(network: Genesis['network']): Genesis {
  return parseGenesis(buildGenesis(network === 'devnet' ? 'devnet' : 'testnet'));
}

/** The new network's genesis, validated; throws the loader's GenesisError on any bad value. */
export function composeGenesis(opts: NewNetworkOptions): Genesis {
  const template = newNetworkTemplate(opts.network);
  const bondWei = template.validators[0].bondWei;
  const genesis: Genesis = {
    ...template,
    network: opts.network,
    chainId: opts.chainId ?? CHAIN_IDS[opts.network],
    genesisTimeMs: opts.genesisTimeMs ?? template.genesisTimeMs,
    consensus: opts.epochLengthBlocks === undefined ? template.consensus : { ...template.consensus, epochLengthBlocks: opts.epochLengthBlocks },
    owners: { addresses: opts.owners ?? template.owners.addresses, threshold: 2, operator: opts.operator ?? template.owners.operator },
    validators: opts.validators.map((v, i) => ({
      name: v.name ?? `validator-${i + 1}`,
      address: v.address,
      ecdsaPubkey: v.ecdsaPubkey,
      vrfPubkey: v.vrfPubkey,
      bondWei: v.bondWei ?? bondWei,
      endpoint: v.endpoint ?? validatorEndpoint(i + 1),
    })),
    accounts: [...template.accounts, ...(opts.accounts ?? [])],
    ...(opts.bridge ? { bridge: opts.bridge } : {}),
  };
  return parseGenesis(genesis);
}
