/**
 * Corruption of the chain store (issue 26, decisions 123–125): the typed error a detected
 * corruption becomes, the classifier that tells a LevelDB corruption from other storage
 * failures, LevelDB's own log files read and checksummed here, and where the copies set aside are.
 *
 * classic-level 3.0 exposes neither LevelDB's `paranoid_checks` nor the read option
 * `verify_checksums` (both off by default in LevelDB), and LevelDB opening a store whose
 * write-ahead log ends in a torn record drops the tail silently and deletes the log. So
 * the checks that would catch that are made here: before the store is opened, every
 * record of its .log files and of its MANIFEST is read with its CRC-32C (LevelDB's log
 * format: 32 KiB blocks of records `masked crc32c u32 ‖ length u16 ‖ type u8 ‖ data`);
 * after it is opened, every key is read once (LevelDB checks each table block's type
 * and compression as it reads it) and the chain checks what it wrote (src/chain/check.ts).
 * A corrupted store is set aside by src/storage/set-aside.ts.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crc32c } from './crc32c';

export { crc32c };

/** A corruption of the chain store: which folder, what was found, what the node will do. */
export class StoreCorruptionError extends Error {
  constructor(
    readonly folder: string,
    readonly found: string,
    options?: { cause?: unknown },
  ) {
    super(`chain store ${folder} is corrupted: ${found}`, options);
    this.name = 'StoreCorruptionError';
  }
}

/** True when `err` (or a cause of it) is LevelDB reporting corruption, or already a StoreCorruptionError. */
export function isStoreCorruption(err: unknown): boolean {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e instanceof StoreCorruptionError) return true;
    if (e.code === 'LEVEL_CORRUPTION') return true;
    if (typeof e.message === 'string' && /\bCorruption: /.test(e.message)) return true;
  }
  return false;
}

/** The innermost message of an error chain (LevelDB's own words sit in `cause`). */
export function rootMessage(err: unknown): string {
  let e = err as { message?: unknown; cause?: unknown } | undefined;
  let msg = String(err);
  for (let depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) if (typeof e.message === 'string') msg = e.message;
  return msg;
}

const BLOCK_BYTES = 32_768;
const HEADER_BYTES = 7;
const enum RecordType {
  Zero = 0,
  Full = 1,
  First = 2,
  Middle = 3,
  Last = 4,
}

/** LevelDB stores a CRC masked, so a CRC of data holding CRCs does not collide. */
function unmask(masked: number): number {
  const rot = (masked - 0xa282ead8) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

/**
 * Reads one file in LevelDB's log format (a .log or the MANIFEST) and returns what is
 * wrong with it, or null when every record is whole and its checksum holds. A file
 * LevelDB wrote ends right after a record (block trailers are padded only when another
 * record follows), so bytes cut short at the end are a torn or truncated write.
 */
export function checkLogFile(path: string): string | null {
  const buf = readFileSync(path);
  const name = basename(path);
  let inFragmented = false;
  let pos = 0;
  while (pos < buf.length) {
    const left = BLOCK_BYTES - (pos % BLOCK_BYTES);
    if (left < HEADER_BYTES) {
      // The block's trailer: zeros up to the next block.
      if (buf.subarray(pos, Math.min(buf.length, pos + left)).some((b) => b !== 0)) return `${name}: non-zero block trailer at byte ${pos}`;
      pos += left;
      continue;
    }
    if (pos + HEADER_BYTES > buf.length) return `${name}: ends in the middle of a record header at byte ${pos} (truncated or torn write)`;
    const length = buf.readUInt16LE(pos + 4);
    const type = buf[pos + 6];
    if (HEADER_BYTES + length > left) return `${name}: record at byte ${pos} claims ${length} bytes, past its block`;
    if (pos + HEADER_BYTES + length > buf.length) return `${name}: ends in the middle of a record at byte ${pos} (truncated or torn write)`;
    if (type === RecordType.Zero && length === 0) return `${name}: zero-filled record at byte ${pos}`;
    const expected = unmask(buf.readUInt32LE(pos));
    const actual = crc32c(buf.subarray(pos + HEADER_BYTES, pos + HEADER_BYTES + length), crc32c(buf.subarray(pos + 6, pos + 7)));
    if (expected !== actual) return `${name}: record at byte ${pos} fails its checksum`;
    if (type === RecordType.Full || type === RecordType.First) {
      if (inFragmented) return `${name}: record at byte ${pos} starts before the previous one ended`;
      inFragmented = type === RecordType.First;
    } else if (type === RecordType.Middle || type === RecordType.Last) {
      if (!inFragmented) return `${name}: record fragment at byte ${pos} without its first part`;
      inFragmented = type === RecordType.Middle;
    } else return `${name}: unknown record type ${type} at byte ${pos}`;
    pos += HEADER_BYTES + length;
  }
  if (inFragmented) return `${name}: ends inside a fragmented record (truncated or torn write)`;
  return null;
}

/**
 * What is wrong with the files of the LevelDB store in `dir` before it is opened: CURRENT
 * names a MANIFEST that must exist and be whole, and every .log file must be whole. An
 * empty or absent folder is a new store, not a corrupted one. Null when nothing is wrong.
 */
export function checkStoreFiles(dir: string): string | null {
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir);
  const current = join(dir, 'CURRENT');
  const tables = files.filter((f) => /\.(ldb|sst)$/.test(f));
  const logs = files.filter((f) => /^\d+\.log$/.test(f));
  if (!existsSync(current)) {
    if (tables.length === 0 && logs.length === 0) return null;
    return `CURRENT is missing beside ${tables.length} table and ${logs.length} log files`;
  }
  const manifest = readFileSync(current, 'utf8');
  if (!/^MANIFEST-\d+\n$/.test(manifest)) return `CURRENT does not name a MANIFEST (${JSON.stringify(manifest.slice(0, 40))})`;
  const manifestPath = join(dir, manifest.trim());
  if (!existsSync(manifestPath)) return `${manifest.trim()} (named by CURRENT) is missing`;
  const bad = checkLogFile(manifestPath);
  if (bad) return bad;
  for (const log of logs.sort()) {
    const why = checkLogFile(join(dir, log));
    if (why) return why;
  }
  return null;
}

/**
 * Whether a process holds the LevelDB lock of the store in `dir` (LevelDB takes a POSIX
 * lock on its LOCK file; Linux lists those in /proc/locks by inode), read without opening
 * the store: opening replays its log, and a store another process writes is neither to
 * be checked nor moved. Undefined where /proc/locks cannot be read.
 */
export function storeLocked(dir: string): boolean | undefined {
  const lock = join(dir, 'LOCK');
  if (!existsSync(lock)) return false;
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return undefined;
  }
  const ino = String(statSync(lock).ino);
  return locks.split('\n').some((line) => line.split(/\s+/).some((field) => field.split(':')[2] === ino));
}

/**
 * The copies of the corrupted store `dir` set aside, oldest first: inside it,
 * `<store>/.corrupt-<time>` (src/storage/set-aside.ts, decision 166), and beside it,
 * `<store>.corrupt-<time>`, where nodes before decision 166 renamed the whole folder.
 */
export function storesMovedAside(dir: string): string[] {
  const inside = existsSync(dir) ? readdirSync(dir).filter((f) => f.startsWith('.corrupt-')).map((f) => join(dir, f)) : [];
  const parent = dirname(dir);
  const prefix = `${basename(dir)}.corrupt-`;
  const beside = existsSync(parent) ? readdirSync(parent).filter((f) => f.startsWith(prefix)).map((f) => join(parent, f)) : [];
  return [...beside, ...inside].sort((a, b) => basename(a).replace(/^.*\.corrupt-/, '').localeCompare(basename(b).replace(/^.*\.corrupt-/, '')));
}
