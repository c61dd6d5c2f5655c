/**
 * A storage failure in words an operator can act on (issue 41 deliver 4, decision 167):
 * the folder, the cause, and the next step, never a bare `EBUSY`/`EXDEV`/`ENOSPC`. Node's
 * fs puts an errno code on its errors (`code`, with `syscall` and `path`); LevelDB gives
 * only its own text ("IO error: …: No space left on device"), so that text is read too.
 * Every place the node prints a storage failure goes through `storageRefusal`: the heal's
 * move aside, the storage guard's retries, the chain database's open, privval-reset, and
 * the command line's last word on an error that ends the process.
 */

/** A failure's cause and the operator's next step. */
export interface StorageWords {
  /** The errno code (or LevelDB's) the words stand for. */
  code: string;
  cause: string;
  next: string;
}

const WORDS: Record<string, { cause: string; next: string }> = {
  EBUSY: {
    cause: 'the folder is busy: it is a mount point (which cannot be renamed or removed) or another process holds it',
    next: 'leave the mount in place; stop any other process using it (fuser -vm FOLDER), then start the node again',
  },
  EXDEV: {
    cause: 'the move would cross file systems (the two paths are on different disks or mounts)',
    next: 'keep the folder and what is set aside from it on one file system, or move the data by copying it while the node is stopped',
  },
  ENOSPC: { cause: 'the disk is full', next: 'free space on that disk (df -h FOLDER) or give the folder a larger volume' },
  EDQUOT: { cause: "the node's user has used up its disk quota", next: 'raise the quota or free space on that disk' },
  EACCES: { cause: 'permission denied', next: "give the node's user read and write access to the folder (chown -R USER FOLDER)" },
  EPERM: { cause: 'the operation is not permitted', next: "give the node's user read and write access to the folder, and check that nothing in it is immutable (lsattr)" },
  EROFS: { cause: 'the file system is mounted read-only', next: 'remount it read-write (one the kernel made read-only after errors needs fsck first)' },
  EIO: { cause: 'the disk reported an input/output error', next: 'check the disk (dmesg, smartctl) and replace it if failing; the node heals its store from its peers on a sound one' },
  ENOENT: { cause: 'the folder or a file in it does not exist', next: 'check the path: an unmounted volume, or a symlink whose target is gone' },
  ENOTDIR: { cause: 'a part of the path is not a folder', next: 'make the path a folder (or a mount point, or a symlink to one)' },
  ENOTEMPTY: { cause: 'the folder is not empty', next: 'move what is in it elsewhere, then start the node again' },
  EEXIST: { cause: 'something already exists under that name', next: 'move it away, then start the node again' },
  ELOOP: { cause: 'the path has a loop of symlinks', next: 'point the symlink at a real folder' },
  EMFILE: { cause: 'the process has too many open files', next: 'raise the open-file limit (ulimit -n, LimitNOFILE= under systemd)' },
  ENFILE: { cause: 'the system has too many open files', next: 'raise the system limit (fs.file-max) or stop other programs' },
  LEVEL_LOCKED: { cause: 'another process holds the store (its LOCK file)', next: 'stop the other node using this data folder, or give this one another --data-dir' },
};

/** LevelDB's own words for the errno failures it meets (it reports no code). */
const TEXTS: [RegExp, string][] = [
  [/no space left on device/i, 'ENOSPC'],
  [/disk quota exceeded/i, 'EDQUOT'],
  [/permission denied/i, 'EACCES'],
  [/operation not permitted/i, 'EPERM'],
  [/read-only file system/i, 'EROFS'],
  [/input\/output error/i, 'EIO'],
  [/device or resource busy/i, 'EBUSY'],
  [/invalid cross-device link/i, 'EXDEV'],
  [/too many open files/i, 'EMFILE'],
];

/** The storage code of `err` or of an error in its `cause` chain: an errno code, LevelDB's lock, or one read from LevelDB's text. */
export function storageCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && e.code in WORDS) return e.code;
    if (typeof e.message === 'string') {
      const coded = /\b(E[A-Z]{2,9})\b/.exec(e.message)?.[1];
      if (coded !== undefined && coded in WORDS) return coded;
      for (const [re, code] of TEXTS) if (re.test(e.message)) return code;
    }
  }
  return undefined;
}

/** The cause and next step of a storage failure in `folder`, or undefined when `err` is not one this module knows. */
export function storageWords(err: unknown, folder = 'the folder'): StorageWords | undefined {
  const code = storageCode(err);
  return code === undefined ? undefined : { code, cause: WORDS[code].cause, next: WORDS[code].next.replaceAll('FOLDER', folder) };
}

/** The path a node fs error names (`path`, the first of a rename), in `err` or its `cause` chain, if any. */
function pathOf(err: unknown): string | undefined {
  for (let e = err as { path?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.path === 'string') return e.path;
  }
  return undefined;
}

/**
 * One line for a storage failure: `<doing> <folder>: <cause> (<code>); <next step>`.
 * `folder` defaults to the path the error names; an error this module does not know keeps
 * its own message as the cause and says to check the folder.
 */
export function storageRefusal(err: unknown, folder = pathOf(err) ?? 'the data folder', doing?: string): string {
  const w = storageWords(err, folder);
  const head = doing ? `${doing} ${folder}` : folder;
  if (!w) return `${head}: ${err instanceof Error ? err.message : String(err)}; check that the folder exists, is writable and its disk has space`;
  return `${head}: ${w.cause} (${w.code}); ${w.next}`;
}

/** A storage failure already put in words (the message is the whole line); the original error is its cause. */
export class StorageRefusalError extends Error {
  constructor(
    readonly folder: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageRefusalError';
  }
}

/**
 * The message the command line prints for an error that ends the process: a node fs error
 * (an errno code and a path), or one in its cause chain, in words; anything else as it is.
 */
export function describeFailure(err: unknown): string {
  if (err instanceof StorageRefusalError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  // The fs error itself, or the cause of one that wraps it (an actor that gave up on it).
  for (let e = err as { code?: unknown; syscall?: unknown; path?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.code === 'string' && typeof e.syscall === 'string' && typeof e.path === 'string' && storageWords(e)) {
      const words = storageRefusal(e, e.path, `${e.syscall} failed on`);
      return depth === 0 ? words : `${message}: ${words}`;
    }
  }
  return message;
}
