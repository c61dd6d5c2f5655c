/**
 * A write that failed because the disk is full (issue 26 deliver 2, decision 121). LevelDB
 * reports it as LEVEL_IO_ERROR "…: No space left on device" (its own text, no errno
 * code); node's fs as an error with code ENOSPC. Both are recognised here, so every
 * writer (chain store, privval files, index) tells a full disk from any other fault the
 * same way.
 */

/** True when `err`, or an error in its `cause` chain, says the disk is full. */
export function isNoSpace(err: unknown): boolean {
  if (err instanceof StorageUnavailableError) return true;
  for (let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === 'ENOSPC') return true;
    if (typeof e.message === 'string' && /ENOSPC|no space left on device/i.test(e.message)) return true;
  }
  return false;
}

/**
 * A write this node could not make for lack of space, or one refused because an earlier
 * one is still unwritten: the node stops taking part until space returns (it signs and
 * acknowledges nothing it could not persist). `folder` is where the write failed.
 */
export class StorageUnavailableError extends Error {
  constructor(
    readonly folder: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StorageUnavailableError';
  }
}
