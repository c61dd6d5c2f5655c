/**
 * Yamux receive-window updates as the yamux specification and go-yamux send them: only
 * once at least half of the window has been consumed (or when a flag such as ACK/FIN
 * must go out).
 *
 * @chainsafe/libp2p-yamux 7 sends a WINDOW_UPDATE frame after every chunk a stream
 * reads, however small. On a validator that is one extra noise frame, socket write,
 * read and decrypt for every consensus message on every link: about half of all the
 * node's socket writes (measured with strace on the 6-validator devnet, 30-byte frames
 * after each vote). The window logic is otherwise unchanged: the sender still never has
 * more credit than the receiver's capacity, so flow control holds; it just refills in
 * half-window steps instead of per message.
 *
 * Installed once, by Libp2pTransport.start (src/net/libp2p.ts). `yamuxWindowStats`
 * counts the updates sent and skipped, for tests.
 */
import { YamuxStream } from '@chainsafe/libp2p-yamux/stream';

/** FrameType.WindowUpdate of the yamux wire format (not exported by the package). */
const WINDOW_UPDATE = 1;

export const yamuxWindowStats = { windowUpdatesSent: 0, windowUpdatesSkipped: 0 };

interface StreamInternals {
  getSendFlags(): number;
  getRTT(): number;
  sendFrame(header: { type: number; flag: number; streamID: number; length: number }): void;
  config: { maxStreamWindowSize: number };
  recvWindow: number;
  recvWindowCapacity: number;
  epochStart: number;
  _id: number;
}

function sendWindowUpdate(this: StreamInternals): void {
  const flags = this.getSendFlags();
  const consumed = this.recvWindow - this.recvWindowCapacity;
  if (flags === 0 && consumed < this.recvWindow / 2) {
    yamuxWindowStats.windowUpdatesSkipped++;
    return;
  }
  // Auto-tuning as before: a window consumed within 4 round trips doubles (up to the max).
  const now = Date.now();
  const rtt = this.getRTT();
  if (flags === 0 && rtt > -1 && now - this.epochStart < rtt * 4) {
    this.recvWindow = Math.min(this.recvWindow * 2, this.config.maxStreamWindowSize);
  }
  const delta = this.recvWindow - this.recvWindowCapacity;
  this.recvWindowCapacity = this.recvWindow;
  this.epochStart = now;
  yamuxWindowStats.windowUpdatesSent++;
  this.sendFrame({ type: WINDOW_UPDATE, flag: flags, streamID: this._id, length: delta });
}

let installed = false;

export function installYamuxWindowPolicy(): void {
  if (installed) return;
  const proto = YamuxStream.prototype as unknown as { sendWindowUpdate?: unknown };
  if (typeof proto.sendWindowUpdate !== 'function') throw new Error('@chainsafe/libp2p-yamux changed: YamuxStream.sendWindowUpdate is gone');
  proto.sendWindowUpdate = sendWindowUpdate;
  installed = true;
}
