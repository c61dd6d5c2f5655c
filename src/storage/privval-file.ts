/**
 * The privval state (what this validator last signed, and its lock) in its own pair of
 * files, not in the chain's LevelDB: CometBFT keeps priv_validator_state.json apart
 * from the block store for the same reasons. It is written twice per block, before each
 * vote leaves, so its cost is on every round's critical path: `npm run bench -- privval`
 * compares a LevelDB put with sync against this file's write. It can also be copied,
 * inspected or moved with the key without opening the chain's database.
 *
 * Two slots, `a` and `b`, written alternately, as TigerBeetle keeps redundant superblock
 * copies: a crash in the middle of a write tears only the slot being written, and the
 * other one still holds the previous state. Falling back to that state is safe because
 * the state is persisted before its signature is released: a torn write's signature
 * never left the node.
 *
 * Slot layout (little-endian): magic "XPV1" ‖ sequence u64 ‖ payload length u32 ‖
 * CRC-32 of the preceding 16 bytes and the payload u32 ‖ payload. Bytes past the payload
 * are left from longer earlier states and ignored. Loading takes the valid slot with the
 * highest sequence; a slot whose checksum fails is ignored (torn). When neither slot is
 * intact after the first write completed, loading throws rather than start with no
 * memory of what was signed.
 *
 * The files are opened O_DSYNC: each write returns once its data (and the size needed to
 * read it) is on disk, one system call instead of a write and an fdatasync. The call
 * runs on libuv's thread pool, not on the event loop (decision 118).
 */
import fs from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';

const MAGIC = 0x31565058; // "XPV1" little-endian
const HEADER = 20;
const SLOTS = ['a', 'b'] as const;

export class PrivValFileError extends Error {}

interface Slot {
  seq: bigint;
  payload: Uint8Array;
}

function encodeSlot(seq: bigint, payload: Uint8Array): Buffer {
  const buf = Buffer.allocUnsafe(HEADER + payload.length);
  buf.writeUInt32LE(MAGIC, 0);
  buf.writeBigUInt64LE(seq, 4);
  buf.writeUInt32LE(payload.length, 12);
  buf.set(payload, HEADER);
  buf.writeUInt32LE(crc32(payload, crc32(buf.subarray(0, 16))), 16);
  return buf;
}

/** A slot's state, or undefined when the bytes are not a whole, intact slot (empty, torn, foreign). */
export function decodeSlot(bytes: Uint8Array): Slot | undefined {
  if (bytes.length < HEADER) return undefined;
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (buf.readUInt32LE(0) !== MAGIC) return undefined;
  const len = buf.readUInt32LE(12);
  if (HEADER + len > buf.length) return undefined;
  const payload = buf.subarray(HEADER, HEADER + len);
  if (crc32(payload, crc32(buf.subarray(0, 16))) !== buf.readUInt32LE(16)) return undefined;
  return { seq: buf.readBigUInt64LE(4), payload: new Uint8Array(payload) };
}

export class PrivValFile {
  private seq: bigint;
  private closed = false;

  private constructor(
    private readonly fds: [number, number],
    latest: Slot | undefined,
  ) {
    this.seq = latest?.seq ?? 0n;
    this.latest = latest?.payload;
  }

  /** The state last written, as loaded at open (undefined: nothing was ever written). */
  readonly latest: Uint8Array | undefined;

  /** Opens (creating) the two slots in `dir` and loads the newest intact state. */
  static async open(dir: string): Promise<PrivValFile> {
    await fs.promises.mkdir(dir, { recursive: true });
    const paths = SLOTS.map((s) => join(dir, s));
    const existed = paths.map((p) => fs.existsSync(p));
    const fds: number[] = [];
    try {
      for (const p of paths) fds.push(fs.openSync(p, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_DSYNC, 0o600));
      if (!existed[0] || !existed[1]) {
        // New directory entries must survive a crash too.
        const d = fs.openSync(dir, fs.constants.O_RDONLY);
        try {
          fs.fsyncSync(d);
        } finally {
          fs.closeSync(d);
        }
      }
      const slots = fds.map((fd) => decodeSlot(fs.readFileSync(fd)));
      // Nothing intact is legitimate only before the first write completed: slot b takes
      // sequence 1, so slot a is still empty. Anything else lost what was signed.
      if (slots[0] === undefined && slots[1] === undefined && fs.fstatSync(fds[0]).size > 0) {
        throw new PrivValFileError(`privval state in ${dir}: no intact slot; refusing to start without knowing what this validator signed`);
      }
      const latest = slots[0] === undefined ? slots[1] : slots[1] === undefined || slots[0].seq > slots[1].seq ? slots[0] : slots[1];
      return new PrivValFile(fds as [number, number], latest);
    } catch (err) {
      for (const fd of fds) fs.closeSync(fd);
      throw err;
    }
  }

  /**
   * Writes `payload` as the newest state; resolves once it is on disk (the O_DSYNC write
   * returned), rejects when the write failed or was short. The write runs on libuv's
   * thread pool (decision 118): the event loop goes on with other peers' messages while
   * the disk flushes, where the blocking write held it for the flush (4.5–7.5% of an
   * idle validator's profile samples). The caller's signature still waits for this
   * promise, so nothing signed leaves before it is durable. Writes are serialised here
   * too (each waits for the one before), so the slots alternate in the order asked
   * whatever the caller does.
   */
  write(payload: Uint8Array): Promise<void> {
    // Asked before close: it goes on (close waits for it); asked after: refused.
    if (this.closed) return Promise.reject(new PrivValFileError('privval state file is closed'));
    const run = this.#tail.then(() => this.#writeNow(payload));
    // The next write waits for this one, failed or not (a failure leaves seq alone).
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** The last write asked for, settled or not: the next one, and close, wait for it. */
  #tail: Promise<void> = Promise.resolve();

  async #writeNow(payload: Uint8Array): Promise<void> {
    const seq = this.seq + 1n;
    const buf = encodeSlot(seq, payload);
    const written = await new Promise<number>((resolve, reject) => fs.write(this.fds[Number(seq & 1n)], buf, 0, buf.length, 0, (err, n) => (err ? reject(err) : resolve(n))));
    // A failed or short write leaves seq alone: the next write goes to the same slot,
    // and the other slot still holds the last complete state.
    if (written !== buf.length) throw new PrivValFileError(`short write of the privval state: ${written} of ${buf.length} bytes`);
    this.seq = seq;
  }

  /**
   * No write starts after this; the files are closed once the write in flight (if any)
   * has returned, so its descriptor is never closed under it (nor reused for another
   * file while the thread pool still writes to it).
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.#tail.then(() => {
      for (const fd of this.fds) fs.closeSync(fd);
    });
  }
}

/** Where data folders before decision 58 kept the state (the chain store). */
export interface LegacyPrivValStore {
  getLegacyPrivValState(): Promise<Uint8Array | undefined>;
  deleteLegacyPrivValState(): Promise<void>;
}

/**
 * Opens the privval files in `dir` and returns them with the state to start from. A
 * state still in the chain store (an older data folder) is carried over: written to the
 * files first, deleted from the store after, so a crash in between leaves it in both.
 */
export async function openPrivValState(dir: string, legacy: LegacyPrivValStore): Promise<{ file: PrivValFile; saved: Uint8Array | undefined }> {
  const file = await PrivValFile.open(dir);
  try {
    const old = await legacy.getLegacyPrivValState();
    if (old === undefined) return { file, saved: file.latest };
    if (file.latest === undefined) await file.write(old);
    await legacy.deleteLegacyPrivValState();
    return { file, saved: file.latest ?? old };
  } catch (err) {
    file.close();
    throw err;
  }
}

/** What the operator runs to let a node whose privval files were lost or damaged sign again (decision 125). */
export const PRIVVAL_RESET_HINT =
  'To sign again, stop the node, find the highest height this validator may have signed (the network head when its files were lost is safe), and run: npm run node -- privval-reset --home DIR --height H (H above that height; --data-dir for a local-network folder)';

/**
 * Why the privval files in `dir` count as lost, or null: a chain store that already holds
 * blocks (`chainHeight` > 0) beside no privval files means they were deleted or never
 * moved with the data folder. A new node (height 0) creates them, but not one whose
 * store was moved aside as corrupted (`storesAside`, the folders src/node/store-heal.ts
 * left): that node had blocks, and may have signed them, before it started over at 0.
 */
export function privvalMissing(dir: string, chainHeight: number, storesAside: readonly string[] = []): string | null {
  if (SLOTS.some((s) => fs.existsSync(join(dir, s)))) return null;
  if (chainHeight > 0) return `the double-sign protection files (${dir}) are missing beside a chain store at height ${chainHeight}`;
  if (storesAside.length > 0) return `the double-sign protection files (${dir}) are missing beside a chain store moved aside as corrupted (${storesAside.join(', ')})`;
  return null;
}
