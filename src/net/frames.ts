/**
 * Length-prefixed frames on a long-lived stream: an unsigned varint (LEB128) length,
 * then that many bytes; the wire format of it-length-prefixed, without its two async
 * generator stages per message (a validator sends and receives a score of consensus
 * messages per block, so the per-message plumbing is the cost that repeats).
 */
import { FRAME_HEADER_BYTES_MAX } from './limits';

/** One frame: the varint length of `data`, then `data` (one allocation, one copy). */
export function frame(data: Uint8Array): Uint8Array {
  let n = data.length;
  let header = 1;
  for (let v = n; v >= 0x80; v = Math.floor(v / 128)) header++;
  const out = new Uint8Array(header + data.length);
  let i = 0;
  while (n >= 0x80) {
    out[i++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  out[i++] = n;
  out.set(data, i);
  return out;
}

export class FrameError extends Error {}

/** The most bytes a varint length may take (src/net/limits.ts). */
const MAX_HEADER_BYTES = FRAME_HEADER_BYTES_MAX;

/**
 * Reassembles frames from chunks cut anywhere. `push` returns the frames a chunk
 * completed, in order; a frame inside one chunk is a view of it (no copy). A length
 * above `maxFrameBytes` or a malformed varint throws FrameError: the stream is bad.
 */
export class FrameDecoder {
  /** Received bytes not yet returned, from parts[head] on (an index, not shift(): O(1)). */
  private parts: Uint8Array[] = [];
  private head = 0;
  private buffered = 0;
  /** The length of the frame being read, once its header is in; -1 before. */
  private need = -1;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes received but not yet returned as frames (a partial frame). */
  get pendingBytes(): number {
    return this.buffered;
  }

  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    if (chunk.length === 0) return out;
    if (this.head > 64 && this.head * 2 > this.parts.length) {
      this.parts = this.parts.slice(this.head);
      this.head = 0;
    }
    this.parts.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.need < 0 && !this.readHeader()) return out;
      if (this.buffered < this.need) return out;
      out.push(this.take(this.need));
      this.need = -1;
    }
  }

  /** Reads a length header if all its bytes are in; false when more are needed. */
  private readHeader(): boolean {
    if (this.buffered === 0) return false;
    // A header split across chunks: join the few bytes it can span.
    if (this.parts[this.head].length < MAX_HEADER_BYTES && this.parts.length - this.head > 1) {
      const all = this.buffered;
      this.parts = [this.take(all)];
      this.head = 0;
      this.buffered = all;
    }
    const head = this.parts[this.head];
    let value = 0;
    let scale = 1;
    for (let i = 0; i < head.length; i++) {
      if (i >= MAX_HEADER_BYTES) throw new FrameError('frame length varint is too long');
      const b = head[i];
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (i > 0 && b === 0) throw new FrameError('frame length varint is not minimal');
        if (value > this.maxFrameBytes) throw new FrameError(`frame of ${value} bytes exceeds ${this.maxFrameBytes}`);
        this.buffered -= i + 1;
        if (i + 1 === head.length) this.head++;
        else this.parts[this.head] = head.subarray(i + 1);
        this.need = value;
        return true;
      }
      scale *= 128;
    }
    return false;
  }

  /** The next n buffered bytes (n ≤ buffered): a view when one part holds them. */
  private take(n: number): Uint8Array {
    this.buffered -= n;
    if (n === 0) return new Uint8Array(0);
    const first = this.parts[this.head];
    if (first.length >= n) {
      if (first.length === n) this.head++;
      else this.parts[this.head] = first.subarray(n);
      return first.subarray(0, n);
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const p = this.parts[this.head];
      const k = Math.min(p.length, n - at);
      out.set(p.subarray(0, k), at);
      at += k;
      if (k === p.length) this.head++;
      else this.parts[this.head] = p.subarray(k);
    }
    return out;
  }
}
