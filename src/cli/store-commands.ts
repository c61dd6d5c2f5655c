/**
 * The operator's commands on a stopped node's data folder (issue 26; decisions 123, 125):
 *   check --home DIR | --data-dir DIR [--json]
 *       reads the chain store end to end (src/chain/check.ts) and says whether it is
 *       sound: exit 0 sound, 1 not sound, 2 not checked (the node is running, no store, a move aside unfinished).
 *   privval-reset --home DIR | --data-dir DIR --height H
 *       lets a validator whose double-sign protection files were lost or damaged sign
 *       again, from height H on: the old files are moved aside into privval/.replaced-<time>/ (never deleted) and new
 *       ones say nothing below H may be signed. Never done by the node itself.
 * The data folder is --data-dir, else <home>/data (a local network's validator folder,
 * data/devnet-6v/validator-<i>, is a --data-dir).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkChainStore, StoreLockedError } from '../chain/check';
import { encodePrivValState, resetPrivValState } from '../consensus/privval';
import { keyFilePath, readKeyFile } from '../node/keyfile';
import { storeLocked } from '../storage/corruption';
import { REPLACED_PREFIX, setAsideInterrupted, setStoreAside, storeFolderEmpty } from '../storage/set-aside';
import { PrivValFile } from '../storage/privval-file';
import { hexToBytes } from '../util/bytes';
import { parseFlags, usage, type FlagSpec } from './args';

const FOLDER_FLAGS = {
  home: { type: 'string', help: 'the node folder made by init (data in <home>/data)' },
  'data-dir': { type: 'string', help: "the node's data folder (default <home>/data; a local network's: data/devnet-6v/validator-<i>)" },
} satisfies FlagSpec;

const CHECK_FLAGS = { ...FOLDER_FLAGS, json: { type: 'bool', default: false, help: 'print the result as JSON' } } satisfies FlagSpec;
const RESET_FLAGS = { ...FOLDER_FLAGS, height: { type: 'int', help: 'the lowest height this validator may sign again: above any height it may have signed' } } satisfies FlagSpec;

/** Exit codes of `check`. */
const CHECK_SOUND = 0;
const CHECK_NOT_SOUND = 1;
const CHECK_NOT_CHECKED = 2;

function dataDirOf(f: { home?: string; 'data-dir'?: string }): string {
  if (f['data-dir'] !== undefined) return resolve(f['data-dir']);
  if (f.home !== undefined) return join(resolve(f.home), 'data');
  throw new Error('--home DIR or --data-dir DIR is required');
}

/** The genesis hash the key file of --home names, if there is one (a check then also compares the store's). */
function homeGenesis(home: string | undefined): Uint8Array | undefined {
  if (home === undefined || !existsSync(keyFilePath(resolve(home)))) return undefined;
  return hexToBytes(readKeyFile(keyFilePath(resolve(home))).genesisHash);
}

export async function checkCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: npm run node -- check --home DIR | --data-dir DIR [--json]\nReads a stopped node's chain store end to end and says whether it is sound (exit 0), not sound (1) or could not be checked (2).\n${usage(CHECK_FLAGS)}\n`);
    return 0;
  }
  const f = parseFlags(argv, CHECK_FLAGS);
  const folder = join(dataDirOf(f), 'chain');
  // Half a store is not one to check: the node finishes the move at its next start (decision 166).
  const moving = setAsideInterrupted(folder);
  if (moving !== undefined) {
    process.stderr.write(`not checked: ${folder} is being set aside as corrupted (into ${moving}), a move a crash interrupted: start the node to finish it\n`);
    return CHECK_NOT_CHECKED;
  }
  let r;
  try {
    r = await checkChainStore(folder, { genesisHash: homeGenesis(f.home) });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    process.stderr.write(err instanceof StoreLockedError ? `not checked: ${why}\n` : `not checked: ${why}\n`);
    return CHECK_NOT_CHECKED;
  }
  if (f.json) process.stdout.write(`${JSON.stringify(r)}\n`);
  else if (r.sound) {
    process.stdout.write(`SOUND ${folder}: height ${r.height}, ${r.blocks} blocks and commits${r.base !== undefined && r.base > 1 ? ` (from ${r.base}: pruned below)` : ''}, ${r.stateRecords} state records, state root ${r.stateRoot} (the one committed at the head)\n`);
  } else {
    process.stdout.write(`NOT SOUND ${folder}${r.height !== undefined ? ` (head ${r.height})` : ''}:\n${r.findings.map((x) => `  - ${x}`).join('\n')}\n`);
    process.stdout.write('A node with peers moves such a store aside and syncs the chain again when it starts (docs/operations.md); a single node needs a backup.\n');
  }
  return r.sound ? CHECK_SOUND : CHECK_NOT_SOUND;
}

export async function privvalResetCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(
      'usage: npm run node -- privval-reset --home DIR | --data-dir DIR --height H\n' +
        "Confirms that a validator whose double-sign protection files were lost or damaged may sign again from height H on.\n" +
        'H must be above every height it may have signed (the network head now, plus one, is safe). The node must be stopped.\n' +
        `${usage(RESET_FLAGS)}\n`,
    );
    return 0;
  }
  const f = parseFlags(argv, RESET_FLAGS);
  if (f.height === undefined || f.height < 1) throw new Error('--height H is required (1 or more): the lowest height this validator may sign again');
  const dataDir = dataDirOf(f);
  if (storeLocked(join(dataDir, 'chain')) === true) {
    process.stderr.write(`not reset: the node using ${dataDir} is running (its chain store is locked): stop it first\n`);
    return 2;
  }
  const dir = join(dataDir, 'privval');
  let movedTo: string | undefined;
  // The old files move into a dated folder inside their own (never renamed: it may be a
  // mount point, decision 166), and are kept whatever room that takes.
  if (!storeFolderEmpty(dir)) movedTo = setStoreAside(dir, { prefix: REPLACED_PREFIX, mayDrop: false }).to;
  const file = await PrivValFile.open(dir);
  try {
    await file.write(encodePrivValState(resetPrivValState(f.height)));
  } finally {
    file.close();
  }
  process.stdout.write(`privval reset in ${dir}: this validator signs nothing below height ${f.height}${movedTo ? `; the old files are kept in ${movedTo}` : ''}. Start the node again.\n`);
  return 0;
}
