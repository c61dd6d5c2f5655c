/**
 * The repository's own genesis files (genesis/devnet.json, genesis/testnet.json), the
 * networks `--network devnet|testnet` names. From the source tree they are read from the
 * repository, found from this file so they are found from any folder; the single-file
 * build (src/build/binary.ts, decision 77) replaces this module with
 * src/build/embedded-genesis.ts, which carries their text, so the built node needs no
 * file beside it for them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export type RepoNetwork = 'devnet' | 'testnet';

/** The genesis text of `network` and where it came from (for messages). */
export function repoGenesisText(network: RepoNetwork): { text: string; source: string } {
  const source = fileURLToPath(new URL(`../../genesis/${network}.json`, import.meta.url));
  return { text: readFileSync(source, 'utf8'), source };
}
