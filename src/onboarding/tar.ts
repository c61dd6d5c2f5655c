/**
 * A deterministic tar.gz writer (POSIX ustar inside gzip) for the onboarding boot bundle
 * (src/onboarding/boot-bundle.ts; decision 79). Deterministic so the sha256 the operator
 * publishes is stable: entries sorted by path, every header's mtime, uid, gid and owner
 * names fixed, and a gzip header written here (no mtime, no file name, OS byte 255
 * "unknown") around a raw deflate at a fixed level, rather than zlib's own header, whose
 * OS byte depends on the platform. The same entries give the same bytes on any machine
 * with the same zlib.
 *
 * Only regular files, with paths of at most 100 bytes of printable ASCII (the ustar name
 * field, no prefix split): all the bundle needs, and nothing a reader could misparse.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface TarEntry {
  /** Relative path, `/`-separated, printable ASCII, at most 100 bytes. */
  path: string;
  bytes: Uint8Array;
  /** Permission bits, e.g. 0o644 or 0o755 (scripts). */
  mode: number;
}

const BLOCK_BYTES = 512;
const NAME_BYTES_MAX = 100;
/** 2024-01-01T00:00:00Z: a fixed mtime (0 makes some tools warn of the epoch). */
export const TAR_MTIME_S = 1_704_067_200;
const GZIP_LEVEL = 9;

function writeString(block: Uint8Array, offset: number, length: number, s: string): void {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length > length) throw new Error(`tar: ${JSON.stringify(s)} does not fit ${length} bytes`);
  block.set(bytes, offset);
}

/** An octal number of `length - 1` digits and a NUL, as ustar numeric fields are written. */
function writeOctal(block: Uint8Array, offset: number, length: number, n: number): void {
  const digits = n.toString(8);
  if (digits.length > length - 1) throw new Error(`tar: ${n} does not fit a ${length}-byte field`);
  writeString(block, offset, length, `${digits.padStart(length - 1, '0')}\0`);
}

function header(e: TarEntry): Uint8Array {
  if (!/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(e.path) || e.path.length > NAME_BYTES_MAX || e.path.startsWith('/') || e.path.split('/').includes('..')) {
    throw new Error(`tar: path ${JSON.stringify(e.path)} must be relative printable ASCII of at most ${NAME_BYTES_MAX} bytes`);
  }
  const h = new Uint8Array(BLOCK_BYTES);
  writeString(h, 0, 100, e.path);
  writeOctal(h, 100, 8, e.mode & 0o7777);
  writeOctal(h, 108, 8, 0); // uid
  writeOctal(h, 116, 8, 0); // gid
  writeOctal(h, 124, 12, e.bytes.length);
  writeOctal(h, 136, 12, TAR_MTIME_S);
  h.fill(0x20, 148, 156); // checksum field counts as spaces while summing
  h[156] = 0x30; // '0': regular file
  writeString(h, 257, 6, 'ustar\0');
  writeString(h, 263, 2, '00');
  writeString(h, 265, 32, 'root');
  writeString(h, 297, 32, 'root');
  const sum = h.reduce((n, b) => n + b, 0);
  writeString(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** The uncompressed ustar archive of `entries`, sorted by path; two entries of one path are refused. */
export function tar(entries: readonly TarEntry[]): Uint8Array {
  const sorted = [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) if (sorted[i].path === sorted[i - 1].path) throw new Error(`tar: ${sorted[i].path} twice`);
  const size = sorted.reduce((n, e) => n + BLOCK_BYTES + Math.ceil(e.bytes.length / BLOCK_BYTES) * BLOCK_BYTES, 2 * BLOCK_BYTES);
  const out = new Uint8Array(size); // zero-filled: padding and the two closing blocks
  let at = 0;
  for (const e of sorted) {
    out.set(header(e), at);
    at += BLOCK_BYTES;
    out.set(e.bytes, at);
    at += Math.ceil(e.bytes.length / BLOCK_BYTES) * BLOCK_BYTES;
  }
  return out;
}

/** RFC 1952 gzip of `data` with a fixed header: no mtime, no name, XFL 2 (best compression), OS 255. */
export function gzipFixed(data: Uint8Array): Uint8Array {
  const body = deflateRawSync(data, { level: GZIP_LEVEL });
  const out = new Uint8Array(10 + body.length + 8);
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff], 0);
  out.set(body, 10);
  const tail = new DataView(out.buffer, out.byteOffset + 10 + body.length, 8);
  tail.setUint32(0, crc32(data), true);
  tail.setUint32(4, data.length >>> 0, true);
  return out;
}

export function tarGz(entries: readonly TarEntry[]): Uint8Array {
  return gzipFixed(tar(entries));
}
