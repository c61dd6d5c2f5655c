/**
 * A corrupted chain store heals from the node's peers (issue 26, decision 124): the store
 * is set aside inside its own folder (`<store>/.corrupt-<time>/`, decision 166: the folder
 * may be a mount point or a symlink, so it is never renamed), kept unless its volume has
 * no room for it beside a fresh store (decision 167), the folder is opened empty at genesis, and the node's block sync (src/chain/sync.ts) fetches the chain again,
 * checking every commit against the validator set of its height, before consensus takes
 * part. The privval files are not in the store and are never rebuilt (decision 125).
 *
 * Only a node with peers to sync from heals itself: a single-node devnet, or a node
 * whose key alone holds a 2/3 majority, has nobody to get the chain from, so it refuses
 * to start and says what to restore. Each detection is one log line: the folder, what was
 * found, and what the node does. When the peers have pruned the blocks a sync from
 * genesis needs (their base above 1), the empty store is filled by state sync instead
 * (decision 140, src/node/state-sync-join.ts) and block sync goes on from its height.
 */
import { Chain, type ChainOptions } from '../chain/chain';
import { StoreCorruptionError } from '../storage/corruption';
import { roomLine, setStoreAside, type SetAside } from '../storage/set-aside';
import type { Logger } from '../util/log';

/** What the node does about a corrupted store, in the words of its log line. */
export function healAction(healsFromPeers: boolean, when: 'open' | 'running', aside?: SetAside): string {
  if (!healsFromPeers) {
    return 'the node does not start on it and has no peers to rebuild it from: stop it, move the files out of the folder and restore them from a backup (npm run node -- check tells whether a folder is sound)';
  }
  const kept = !aside
    ? 'set aside in a dated folder inside it (kept unless its volume has no room)'
    : aside.dropped
      ? `set aside to ${aside.to}, then dropped for lack of room (its file list kept there)`
      : `moved aside to ${aside.to} (kept, not deleted)`;
  return when === 'open'
    ? `${kept}; the node starts from an empty store and syncs the chain from its peers, checking every commit, then resumes validating`
    : `the node stops now (exit code 2), the store is ${kept}, and when started again (the local-network launcher restarts it) it syncs the chain from its peers, checking every commit, then resumes validating`;
}

/** The one line a detected corruption is logged as. */
export function corruptionLine(err: StoreCorruptionError, action: string): string {
  return `STORE CORRUPTED: ${err.folder}: ${err.found}; ${action}`;
}

/**
 * Opens the chain; a corrupted store is moved aside and an empty one opened in its place
 * when the node can sync from peers, and otherwise refused (the error is rethrown).
 */
export async function openChainHealing(opts: ChainOptions, healsFromPeers: boolean, log: Logger, fillEmpty?: () => Promise<void>): Promise<Chain> {
  try {
    return await Chain.open(opts);
  } catch (err) {
    if (!(err instanceof StoreCorruptionError)) throw err;
    if (!healsFromPeers) {
      log.fatal({ folder: err.folder, found: err.found }, corruptionLine(err, healAction(false, 'open')));
      throw err;
    }
    const aside = setAsideLogged(opts.dataDir, err, log);
    log.error({ folder: err.folder, found: err.found, movedTo: aside.to, bytes: aside.bytes, freeBytes: aside.freeBytes }, corruptionLine(err, healAction(true, 'open', aside)));
    // The empty folder is filled by state sync when the peers have pruned the blocks a
    // sync from genesis would need (decision 140); otherwise it opens at genesis.
    await fillEmpty?.();
    return Chain.open(opts);
  }
}

/**
 * Sets the corrupted store aside (src/storage/set-aside.ts); a copy dropped for lack of
 * room is one more line, saying what it needed and what was free. A move that fails throws
 * its StorageRefusalError (the folder, the cause in words, the next step).
 */
export function setAsideLogged(dir: string, err: StoreCorruptionError | undefined, log: Logger): SetAside {
  const aside = setStoreAside(dir, { found: err?.found });
  const room = roomLine(aside);
  if (room) log.warn({ folder: dir, bytes: aside.bytes, freeBytes: aside.freeBytes, needBytes: aside.needBytes }, room);
  return aside;
}
