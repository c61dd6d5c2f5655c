/**
 * Canonical binary encoding. Every value has exactly one encoding, so hashes of
 * encoded objects are identities, and the reader rejects anything else:
 * - fixed-width unsigned integers, big-endian;
 * - bigints as a 1-byte length plus minimal big-endian magnitude (0 is length 0),
 *   non-negative only, at most 32 bytes; a leading zero byte is non-canonical;
 * - byte strings and UTF-8 strings with a u32 length prefix, bounded;
 * - booleans as exactly 0 or 1;
 * - a decoder must consume its input exactly: trailing bytes are an error.
 */
import { utf8, utf8Decoder } from '../util/bytes';

/** Strings up to this many bytes try the ASCII path of Reader.string (longer ones would build cons strings). */
const SHORT_ASCII_MAX = 12;

export class CodecError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'CodecError';
  }
}

/** 2^53 − 1: bigints up to here convert to a double exactly. */
const MAX_SAFE_BIG = BigInt(Number.MAX_SAFE_INTEGER);
const TWO_64 = 1n << 64n;
const TWO_128 = 1n << 128n;
/** Big-endian halves of a bigint below 2^128 (Writer.big). */
const BIG_BYTES = new Uint8Array(16);
const BIG_VIEW = new DataView(BIG_BYTES.buffer);

/** A lowercase hex digit's value (bigint.toString(16) writes lowercase). */
function nibble(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}

/**
 * Scratch buffers for Writers, reused: a Writer takes one when created and gives it
 * back in finish(), whose result is an exact-size copy. Every state record, tx and
 * message is encoded through a Writer, and allocating an ArrayBuffer (plus its
 * DataView) per encoding cost more than the encoding. A Writer abandoned without
 * finish() (an encoding that threw) simply keeps its buffer, and the pool makes a new one.
 */
interface Scratch {
  buf: Uint8Array;
  view: DataView;
}
const SCRATCH_BYTES = 4096;
/** Buffers grown past this are not kept: one huge block must not pin its memory. */
const SCRATCH_KEEP_MAX = 1 << 20;
const SCRATCH_POOL_MAX = 16;
const scratchPool: Scratch[] = [];
const newScratch = (size: number): Scratch => {
  const buf = new Uint8Array(size);
  return { buf, view: new DataView(buf.buffer) };
};
const FINISHED: Scratch = newScratch(0);

export class Writer {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;
  private scratch: Scratch;

  constructor(initialCapacity = 256) {
    this.scratch = (initialCapacity <= SCRATCH_BYTES && scratchPool.pop()) || newScratch(Math.max(initialCapacity, SCRATCH_BYTES));
    this.buf = this.scratch.buf;
    this.view = this.scratch.view;
  }

  private ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    if (this.scratch === FINISHED) throw new Error('Writer used after finish()');
    let cap = this.buf.length * 2;
    while (cap < this.pos + extra) cap *= 2;
    const next = newScratch(cap);
    next.buf.set(this.buf.subarray(0, this.pos));
    this.scratch = next;
    this.buf = next.buf;
    this.view = next.view;
  }

  u8(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xff) throw new CodecError('RANGE', `u8 out of range: ${v}`);
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new CodecError('RANGE', `u16 out of range: ${v}`);
    this.ensure(2);
    this.view.setUint16(this.pos, v);
    this.pos += 2;
    return this;
  }

  u32(v: number): this {
    if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new CodecError('RANGE', `u32 out of range: ${v}`);
    this.ensure(4);
    this.view.setUint32(this.pos, v);
    this.pos += 4;
    return this;
  }

  /** Safe-integer u64 (heights, timestamps in ms). */
  u64(v: number): this {
    if (!Number.isSafeInteger(v) || v < 0) throw new CodecError('RANGE', `u64 out of range: ${v}`);
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt(v));
    this.pos += 8;
    return this;
  }

  bool(v: boolean): this {
    return this.u8(v ? 1 : 0);
  }

  /** Non-negative bigint, minimal big-endian, at most 32 bytes. */
  big(v: bigint): this {
    if (v < 0n) throw new CodecError('RANGE', 'negative bigint');
    if (v === 0n) return this.u8(0);
    if (v <= MAX_SAFE_BIG) {
      // Fast path (most amounts): the bytes of an exact double, no string round trip.
      let n = Number(v);
      let len = 0;
      for (let x = n; x >= 1; x = Math.floor(x / 256)) len++;
      this.u8(len);
      this.ensure(len);
      for (let i = this.pos + len - 1; i >= this.pos; i--) {
        this.buf[i] = n % 256;
        n = Math.floor(n / 256);
      }
      this.pos += len;
      return this;
    }
    if (v < TWO_128) {
      // Sizes and values in 18 decimals: two 64-bit halves through a DataView, about a
      // third of the string round trip's time; the same bytes.
      if (v < TWO_64) {
        BIG_VIEW.setBigUint64(0, 0n);
        BIG_VIEW.setBigUint64(8, v);
      } else {
        BIG_VIEW.setBigUint64(0, v >> 64n);
        BIG_VIEW.setBigUint64(8, BigInt.asUintN(64, v));
      }
      let i = 0;
      while (BIG_BYTES[i] === 0) i++;
      const len = 16 - i;
      this.u8(len);
      this.ensure(len);
      for (; i < 16; i++) this.buf[this.pos++] = BIG_BYTES[i];
      return this;
    }
    let hex = v.toString(16);
    if (hex.length % 2) hex = '0' + hex;
    const len = hex.length >> 1;
    if (len > 32) throw new CodecError('RANGE', 'bigint wider than 256 bits');
    this.u8(len);
    this.ensure(len);
    for (let j = 0; j < hex.length; j += 2) this.buf[this.pos++] = (nibble(hex.charCodeAt(j)) << 4) | nibble(hex.charCodeAt(j + 1));
    return this;
  }

  /** Signed bigint: a sign byte (0 positive or zero, 1 negative) then the magnitude. */
  sbig(v: bigint): this {
    if (v < 0n) return this.u8(1).big(-v);
    return this.u8(0).big(v);
  }

  /** Exactly n raw bytes (addresses, hashes, signatures). */
  fixed(bytes: Uint8Array, n: number): this {
    if (bytes.length !== n) throw new CodecError('LENGTH', `expected ${n} bytes, got ${bytes.length}`);
    this.ensure(n);
    this.buf.set(bytes, this.pos);
    this.pos += n;
    return this;
  }

  bytes(bytes: Uint8Array): this {
    this.u32(bytes.length);
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
    return this;
  }

  string(s: string): this {
    // At most 3 UTF-8 bytes per UTF-16 unit: encode in place, then fill in the length.
    this.ensure(4 + s.length * 3);
    const start = this.pos;
    const { written } = utf8.encodeInto(s, this.buf.subarray(start + 4));
    this.view.setUint32(start, written);
    this.pos = start + 4 + written;
    return this;
  }

  /** 20-byte address from a lower-case 0x string. */
  address(a: string): this {
    if (a.length !== 42) throw new CodecError('LENGTH', 'address must be 20 bytes');
    this.ensure(20);
    for (let i = 0; i < 20; i++) {
      const b = parseInt(a.substr(2 + i * 2, 2), 16);
      if (Number.isNaN(b)) throw new CodecError('HEX', 'address is not hex');
      this.buf[this.pos++] = b;
    }
    return this;
  }

  /** The encoded bytes (an exact-size copy); the Writer cannot be written to afterwards. */
  finish(): Uint8Array {
    const s = this.scratch;
    if (s === FINISHED) throw new Error('Writer finished twice');
    const out = this.buf.slice(0, this.pos);
    if (s.buf.length <= SCRATCH_KEEP_MAX && scratchPool.length < SCRATCH_POOL_MAX) scratchPool.push(s);
    this.scratch = FINISHED;
    this.buf = FINISHED.buf;
    this.view = FINISHED.view;
    this.pos = 0;
    return out;
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class Reader {
  private pos = 0;
  private readonly view: DataView;

  constructor(private readonly buf: Uint8Array, private readonly maxBytesField = 1 << 24) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new CodecError('TRUNCATED', 'input ends early');
  }

  u8(): number {
    this.need(1);
    return this.buf[this.pos++];
  }

  /** The next byte without consuming it (a trailer that starts with a tag, src/codec/txs/orders.ts). */
  peekU8(): number {
    this.need(1);
    return this.buf[this.pos];
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  u64(): number {
    this.need(8);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new CodecError('RANGE', 'u64 above 2^53');
    return Number(v);
  }

  bool(): boolean {
    const v = this.u8();
    if (v > 1) throw new CodecError('NON_CANONICAL', 'boolean must be 0 or 1');
    return v === 1;
  }

  big(): bigint {
    const len = this.u8();
    if (len === 0) return 0n;
    if (len > 32) throw new CodecError('RANGE', 'bigint wider than 256 bits');
    this.need(len);
    if (this.buf[this.pos] === 0) throw new CodecError('NON_CANONICAL', 'bigint has a leading zero byte');
    if (len <= 6) {
      // Fast path: up to 48 bits is exact in a double.
      let n = 0;
      for (let i = 0; i < len; i++) n = n * 256 + this.buf[this.pos + i];
      this.pos += len;
      return BigInt(n);
    }
    let hex = '';
    for (let i = 0; i < len; i++) hex += HEX[this.buf[this.pos + i]];
    this.pos += len;
    return BigInt('0x' + hex);
  }

  sbig(): bigint {
    const sign = this.u8();
    if (sign > 1) throw new CodecError('NON_CANONICAL', 'sign byte must be 0 or 1');
    const mag = this.big();
    if (sign === 1 && mag === 0n) throw new CodecError('NON_CANONICAL', 'negative zero');
    return sign === 1 ? -mag : mag;
  }

  fixed(n: number): Uint8Array {
    this.need(n);
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  bytes(max = this.maxBytesField): Uint8Array {
    const start = this.skipField(max);
    return this.buf.slice(start, this.pos);
  }

  string(max = this.maxBytesField): string {
    const start = this.skipField(max);
    const end = this.pos;
    // Short ASCII (symbols, sides, decimal amounts: four per order) without TextDecoder:
    // 26 against 93 ns a string, and no copy of the bytes.
    if (end - start <= SHORT_ASCII_MAX) {
      let s = '';
      for (let i = start; i < end; i++) {
        const c = this.buf[i];
        if (c > 0x7f) {
          s = '';
          break;
        }
        s += String.fromCharCode(c);
      }
      if (s.length === end - start) return s;
    }
    try {
      return utf8Decoder.decode(this.buf.subarray(start, end));
    } catch {
      throw new CodecError('UTF8', 'string is not valid UTF-8');
    }
  }

  /** Steps over a length-prefixed field of at most `max` bytes; returns where its bytes start. */
  private skipField(max: number): number {
    const len = this.u32();
    if (len > max) throw new CodecError('TOO_LARGE', `field of ${len} bytes exceeds ${max}`);
    this.need(len);
    this.pos += len;
    return this.pos - len;
  }

  /** A wire signature: 64 bytes (r‖s) or 65 (r‖s‖v), length-prefixed. */
  signature(): Uint8Array {
    const sig = this.bytes(65);
    if (sig.length !== 64 && sig.length !== 65) throw new CodecError('LENGTH', 'signature must be 64 or 65 bytes');
    return sig;
  }

  address(): `0x${string}` {
    this.need(20);
    let s = '0x';
    for (let i = 0; i < 20; i++) s += HEX[this.buf[this.pos + i]];
    this.pos += 20;
    return s as `0x${string}`;
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  /** Every decoder ends here: trailing bytes mean two encodings of one value. */
  end(): void {
    if (this.pos !== this.buf.length) throw new CodecError('TRAILING', `${this.buf.length - this.pos} trailing bytes`);
  }
}
