/**
 * The repository's genesis files as the single-file build carries them (decision 77):
 * binary.ts substitutes this module for src/genesis/repo-files.ts and generates
 * `exchange-build:genesis` from genesis/devnet.json and genesis/testnet.json.
 */
import { genesis } from 'exchange-build:genesis';
import type { RepoNetwork } from '../genesis/repo-files';

export function repoGenesisText(network: RepoNetwork): { text: string; source: string } {
  return { text: genesis[network], source: `the ${network} genesis built into this binary` };
}
