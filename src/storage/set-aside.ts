/**
 * A damaged store set aside inside its own folder (issue 41, decisions 166 and 167): the
 * folder itself is never renamed or removed, so the heal works whatever it is, a plain
 * folder, a mount point (which cannot be renamed: EBUSY) or a symlink to another disk.
 * Its contents move into `<folder>/.corrupt-<UTC time>/`: a rename of each entry within
 * one file system, so nothing is copied and nothing crosses disks.
 *
 * What belongs to a store: every entry of the folder except those whose name begins with
 * a dot (LevelDB writes none; the copies set aside and the marker below are dotted) and
 * `lost+found` (the root of an ext4 volume mounted there; fsck needs it in place).
 *
 * Crash safety: a marker file `<folder>/.set-aside`, naming the copy's folder, is written
 * (and synced) before the first entry moves and removed after the last; each entry moves
 * by one rename, so it is in exactly one of the two places whenever the process dies. A
 * start that finds the marker finishes the same move into the same folder before anything
 * opens the store (`resumeSetAside`): nothing is lost, nothing doubled, nothing split over
 * two copies.
 *
 * Room (decision 167): the copy stays on the store's volume, and the fresh store the heal
 * fills grows to about its size. When the volume's free space after the move is less than
 * the copy's size plus FRESH_STORE_HEADROOM_BYTES, the copy is dropped: a record of what
 * was found and of each file (name and size) is written into its folder first, then the
 * files are deleted; a volume with no room even for the marker (a full disk) has its store
 * deleted in place and the record written into the room that frees. Dropping, not waiting, because everything in the copy is on the
 * peers: a validator that waited for a person would sit out (and miss its blocks) to keep
 * bytes nobody needs to rebuild anything.
 */
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { storeLocked } from './corruption';
import { StorageRefusalError, storageRefusal } from './storage-errors';
import { freeBytesOf } from './storage-guard';
import { isNoSpace } from './no-space';

/** The prefix of a store's damaged copy inside its folder. */
export const CORRUPT_PREFIX = '.corrupt-';
/** The prefix of privval files replaced by privval-reset, inside the privval folder. */
export const REPLACED_PREFIX = '.replaced-';
/** The marker of a move in progress: it holds the name of the copy's folder. */
const MARKER = '.set-aside';
/** The record a dropped copy leaves in its folder. */
export const DROPPED_RECORD = 'DROPPED.txt';
/** Beyond the copy's own size, what a fresh store needs free: LevelDB's write-ahead log (4 MiB) and a compaction's new tables. */
export const FRESH_STORE_HEADROOM_BYTES = 16 * 1024 * 1024;

/** The entries of `dir` that are the store's (not the copies set aside, not the marker, not lost+found). */
export function storeEntries(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => !f.startsWith('.') && f !== 'lost+found')
    .sort();
}

/** No store in `dir`: absent, or holding nothing of a store (a copy set aside does not count). */
export function storeFolderEmpty(dir: string): boolean {
  return storeEntries(dir).length === 0;
}

/** Removes the store in `dir` (a derived index, a state sync that failed), leaving the folder, its copies set aside and lost+found. */
export function emptyStoreFolder(dir: string): void {
  for (const f of storeEntries(dir)) rmSync(join(dir, f), { recursive: true, force: true });
}

/** The copies set aside in `dir` (`prefix`), oldest first. */
export function setAsideFolders(dir: string, prefix = CORRUPT_PREFIX): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && !f.endsWith('.tmp'))
    .sort()
    .map((f) => join(dir, f));
}

/** Bytes the files under `path` take (their size; a folder's own entry not counted). */
export function bytesUnder(path: string): number {
  const s = lstatSync(path);
  if (!s.isDirectory()) return s.size;
  let n = 0;
  for (const f of readdirSync(path)) n += bytesUnder(join(path, f));
  return n;
}

/** What a set-aside did, for its log line. */
export interface SetAside {
  /** The store's folder (unchanged: a mount point stays one). */
  folder: string;
  /** The copy's folder, inside `folder`. */
  to: string;
  /** The store's files as they were set aside. */
  files: { name: string; bytes: number }[];
  bytes: number;
  /** Free bytes on the folder's volume after the move (statfs), null when unknown. */
  freeBytes: number | null;
  /** What keeping the copy and filling a fresh store needs free: the copy's size plus the headroom. */
  needBytes: number;
  /** The copy was dropped for lack of room (its record kept in `to`). */
  dropped: boolean;
  /** This finished a move a crash had interrupted. */
  resumed: boolean;
}

export interface SetAsideOptions {
  now?: Date;
  /** `.corrupt-` for a damaged store (the default), `.replaced-` for privval files being replaced. */
  prefix?: string;
  /** Whether a copy the volume has no room for may be dropped (false: privval files, which are kept whatever it costs). */
  mayDrop?: boolean;
  /** What was found, for a dropped copy's record. */
  found?: string;
  headroomBytes?: number;
  /** The volume's free bytes (statfs; tests give their own). */
  freeBytes?: (dir: string) => number | null;
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function writeSynced(path: string, text: string): void {
  const fd = openSync(path, 'w', 0o644);
  try {
    writeFileSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The refusal a failed step of the move becomes: the folder, the cause in words, the next step. */
function refused(dir: string, err: unknown): StorageRefusalError {
  return new StorageRefusalError(dir, `STORAGE: ${storageRefusal(err, dir, 'cannot set the damaged store aside in')}`, { cause: err });
}

/**
 * Sets the store in `dir` aside (see the module's comment); throws a StorageRefusalError
 * in words when it cannot (another process holds the store, the disk refuses). The store
 * must be closed: its LOCK is moved with it, and a lock still held means another process
 * has it open.
 */
export function setStoreAside(dir: string, opts: SetAsideOptions = {}): SetAside {
  const resumed = resumeSetAside(dir, opts);
  if (resumed && storeFolderEmpty(dir)) return resumed;
  if (storeLocked(dir) === true) {
    throw new StorageRefusalError(dir, `STORAGE: cannot set the damaged store aside in ${dir}: another process holds it (its LOCK file); stop the other node using this data folder, then start this one again`);
  }
  const now = opts.now ?? new Date();
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const prefix = opts.prefix ?? CORRUPT_PREFIX;
  let name = `${prefix}${stamp}`;
  for (let i = 1; existsSync(join(dir, name)); i++) name = `${prefix}${stamp}-${i}`;
  try {
    // The marker first, whole or absent: written under another name, synced, then renamed.
    writeSynced(join(dir, `${MARKER}.tmp`), name);
    renameSync(join(dir, `${MARKER}.tmp`), join(dir, MARKER));
    fsyncDir(dir);
  } catch (err) {
    rmSync(join(dir, `${MARKER}.tmp`), { force: true });
    // No room even for the marker: the copy cannot be kept (decision 167), so the store is
    // deleted in place and its record written into the room that frees. A crash meanwhile
    // leaves part of a store, which the next start finds damaged and sets aside again.
    if (isNoSpace(err) && (opts.mayDrop ?? true)) return dropInPlace(dir, name, opts);
    throw refused(dir, err);
  }
  return finish(dir, name, opts, false);
}

function dropInPlace(dir: string, name: string, opts: SetAsideOptions): SetAside {
  const files = storeEntries(dir).map((f) => ({ name: f, bytes: bytesUnder(join(dir, f)) }));
  const bytes = files.reduce((a, f) => a + f.bytes, 0);
  const freeBytes = (opts.freeBytes ?? freeBytesOf)(dir);
  const needBytes = bytes + (opts.headroomBytes ?? FRESH_STORE_HEADROOM_BYTES);
  const to = join(dir, name);
  try {
    emptyStoreFolder(dir);
    mkdirSync(to);
    writeSynced(join(to, DROPPED_RECORD), droppedRecord(files, { found: opts.found, freeBytes, needBytes }));
    fsyncDir(dir);
  } catch (err) {
    throw refused(dir, err);
  }
  return { folder: dir, to, files, bytes, freeBytes, needBytes, dropped: true, resumed: false };
}

/** The copy folder a move a crash interrupted was filling (its marker is in `dir`), or undefined. */
export function setAsideInterrupted(dir: string): string | undefined {
  const marker = join(dir, MARKER);
  return existsSync(marker) ? join(dir, readFileSync(marker, 'utf8').trim()) : undefined;
}

/**
 * Finishes a move a crash interrupted (the marker is there), into the folder the marker
 * names; returns what it did, or undefined when no move was in progress. Called before
 * anything opens or checks the store.
 */
export function resumeSetAside(dir: string, opts: SetAsideOptions = {}): SetAside | undefined {
  rmSync(join(dir, `${MARKER}.tmp`), { force: true }); // a marker never written whole: no move had begun
  const marker = join(dir, MARKER);
  if (!existsSync(marker)) return undefined;
  const name = readFileSync(marker, 'utf8').trim();
  if (!/^\.[a-z]+-[0-9TZ-]+$/.test(name)) throw new StorageRefusalError(dir, `STORAGE: ${marker} names no copy folder (${JSON.stringify(name.slice(0, 60))}); move the store's files aside by hand and delete the marker`);
  return finish(dir, name, opts, true);
}

function finish(dir: string, name: string, opts: SetAsideOptions, resumed: boolean): SetAside {
  const to = join(dir, name);
  try {
    mkdirSync(to, { recursive: true });
    fsyncDir(dir);
    for (const f of storeEntries(dir)) renameSync(join(dir, f), join(to, f));
    fsyncDir(to);
    fsyncDir(dir);
  } catch (err) {
    throw refused(dir, err);
  }
  const files = readdirSync(to)
    .filter((f) => f !== DROPPED_RECORD)
    .sort()
    .map((f) => ({ name: f, bytes: bytesUnder(join(to, f)) }));
  const bytes = files.reduce((a, f) => a + f.bytes, 0);
  const freeBytes = (opts.freeBytes ?? freeBytesOf)(dir);
  const needBytes = bytes + (opts.headroomBytes ?? FRESH_STORE_HEADROOM_BYTES);
  // A drop a crash interrupted is finished as decided (its record is written first).
  const dropped = existsSync(join(to, DROPPED_RECORD)) || ((opts.mayDrop ?? true) && freeBytes !== null && freeBytes < needBytes);
  try {
    if (dropped) dropCopy(to, files, { found: opts.found, freeBytes, needBytes });
    unlinkSync(join(dir, MARKER));
    fsyncDir(dir);
  } catch (err) {
    throw refused(dir, err);
  }
  return { folder: dir, to, files, bytes, freeBytes, needBytes, dropped, resumed };
}

function droppedRecord(files: { name: string; bytes: number }[], why: { found?: string; freeBytes: number | null; needBytes: number }): string {
  const lines = [
    `The damaged store set aside here was dropped for lack of room (decision 167): ${why.freeBytes} bytes free on its volume, ${why.needBytes} needed to keep it beside a fresh store.`,
    ...(why.found ? [`Found: ${why.found}`] : []),
    'Its files (name, bytes):',
    ...files.map((f) => `${f.name} ${f.bytes}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Writes the copy's record, then deletes its files. */
function dropCopy(to: string, files: { name: string; bytes: number }[], why: { found?: string; freeBytes: number | null; needBytes: number }): void {
  const record = join(to, DROPPED_RECORD);
  if (!existsSync(record)) writeSynced(record, droppedRecord(files, why));
  for (const f of readdirSync(to)) if (f !== DROPPED_RECORD) rmSync(join(to, f), { recursive: true, force: true });
  fsyncDir(to);
}

const MiB = (n: number | null) => (n === null ? 'unknown' : `${(n / 1024 / 1024).toFixed(1)} MiB`);

/**
 * The one line about room a set-aside earns, or undefined when the copy was kept with
 * room to spare: what it needs, what is free, what the operator can do.
 */
export function roomLine(r: SetAside): string | undefined {
  if (!r.dropped) return undefined;
  const headroom = r.needBytes - r.bytes;
  // Dropping freed the copy's bytes; still short of a fresh store's size, the sync will fill the disk.
  const stillShort = r.freeBytes !== null && r.freeBytes + r.bytes < r.needBytes;
  return (
    `STORAGE: no room to keep the damaged store beside a fresh one in ${r.folder}: that needs ${MiB(r.needBytes)} free (the copy's ${MiB(r.bytes)} again for the fresh store, plus ${MiB(headroom)}), ` +
    `${MiB(r.freeBytes)} is free; the copy was dropped (its file list kept in ${join(r.to, DROPPED_RECORD)}) and the heal goes on` +
    (stillShort ? ', though the volume may fill before the sync ends: the node then waits (storage: full) until space is freed' : '') +
    `. To keep the next one, give the volume at least twice the store's size plus ${MiB(headroom)}`
  );
}
