/**
 * Which libp2p peer speaks for which validator, as the p2p actor (p2p-actor.ts) knows it,
 * and the hello exchange that teaches it (src/net/hello.ts, decision 71).
 *
 * Two sources of bindings: the genesis validators' peer ids derived from their secp256k1
 * keys (the devnet's identities: a devnet validator's peer key is its validator key), and
 * hellos: a node whose peer id does not follow from its validator key (a key file's
 * Ed25519 peer key) sends every peer it connects to a hello signed by its validator key,
 * and re-sends it, every HELLO_RETRY_MS, to peers that have not accepted it yet (a node
 * that registers as a validator after connecting is accepted once its registration is
 * executed at the receiver). The receiver binds the peer to the address when the hello
 * verifies and the address is a validator of its chain state. A later binding of an
 * address replaces the earlier one (the validator restarted with another peer key).
 */
import type { Address } from '../../src/util/bytes';
import { utf8 } from '../../src/util/bytes';
import { verifyHello, type HelloVerdict } from '../../src/net/hello';

export function helloProtocol(chainId: number): string {
  return `/exchange/${chainId}/hello/1`;
}

/** How often a hello not accepted yet is sent again to a connected peer. */
export const HELLO_RETRY_MS = 3_000;
/** How long one hello exchange may take. */
export const HELLO_TIMEOUT_MS = 5_000;

/** A peer's refusal text is shown, never trusted: invalid UTF-8 is replaced, not thrown. */
const lenient = new TextDecoder();

/** The answer to a hello: u8 1 (bound) or 0 (refused) | the refusal's code and reason as UTF-8. */
export function encodeHelloAnswer(v: HelloVerdict): Uint8Array {
  const text = v.ok ? '' : `${v.code}: ${v.reason}`;
  const bytes = utf8.encode(text);
  const out = new Uint8Array(1 + bytes.length);
  out[0] = v.ok ? 1 : 0;
  out.set(bytes, 1);
  return out;
}

export function decodeHelloAnswer(bytes: Uint8Array): { ok: boolean; reason: string } {
  return { ok: bytes[0] === 1, reason: lenient.decode(bytes.subarray(1)) };
}

export class ValidatorPeers {
  private readonly peerOf = new Map<Address, string>();
  private readonly addressOf = new Map<string, Address>();
  readonly stats = { hellosSent: 0, hellosAcceptedByPeers: 0, hellosRefusedByPeers: 0, hellosReceived: 0, peersBound: 0, hellosRefused: {} as Record<string, number> };

  /** The validator a peer speaks for, if known. */
  address(peer: string): Address | undefined {
    return this.addressOf.get(peer);
  }

  isValidatorPeer(peer: string): boolean {
    return this.addressOf.has(peer);
  }

  /** The peer a validator speaks from, if known. */
  peer(address: Address): string | undefined {
    return this.peerOf.get(address);
  }

  bind(address: Address, peer: string): void {
    const old = this.peerOf.get(address);
    if (old === peer) return;
    if (old !== undefined) this.addressOf.delete(old);
    const oldAddress = this.addressOf.get(peer);
    if (oldAddress !== undefined && oldAddress !== address) this.peerOf.delete(oldAddress);
    this.peerOf.set(address, peer);
    this.addressOf.set(peer, address);
  }

  /** Judges a hello from `from`; binds the peer when it verifies. The answer goes back to the sender. */
  receiveHello(data: Uint8Array, from: string, chainId: number, isValidator: (a: Address) => boolean): HelloVerdict {
    this.stats.hellosReceived++;
    const verdict = verifyHello(data, { chainId, from, isValidator });
    if (verdict.ok) {
      if (this.addressOf.get(from) !== verdict.address) this.stats.peersBound++;
      this.bind(verdict.address, from);
    } else this.stats.hellosRefused[verdict.code] = (this.stats.hellosRefused[verdict.code] ?? 0) + 1;
    return verdict;
  }
}

/**
 * The sending side: which connected peers have accepted this node's hello. `send` does
 * one exchange (the transport's request) and resolves to the peer's answer.
 */
export class HelloSender {
  private readonly accepted = new Set<string>();
  private readonly inFlight = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly hello: Uint8Array,
    private readonly send: (peer: string, hello: Uint8Array) => Promise<Uint8Array>,
    private readonly peers: () => string[],
    private readonly stats: ValidatorPeers['stats'],
    private readonly onRefused: (peer: string, reason: string) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      for (const p of this.peers()) this.greet(p);
    }, HELLO_RETRY_MS);
    this.timer.unref();
    for (const p of this.peers()) this.greet(p);
  }

  /** Sends the hello to `peer` unless it accepted it on this connection or an exchange is under way. */
  greet(peer: string): void {
    if (this.accepted.has(peer) || this.inFlight.has(peer)) return;
    this.inFlight.add(peer);
    this.stats.hellosSent++;
    this.send(peer, this.hello)
      .then((bytes) => {
        const answer = decodeHelloAnswer(bytes);
        if (answer.ok) {
          this.accepted.add(peer);
          this.stats.hellosAcceptedByPeers++;
        } else {
          this.stats.hellosRefusedByPeers++;
          this.onRefused(peer, answer.reason);
        }
      })
      // Not up yet, or the protocol is not served yet: the next round retries.
      .catch(() => {})
      .finally(() => this.inFlight.delete(peer));
  }

  /** The peer's last connection closed: a reconnect greets again (the peer may have restarted and forgotten us). */
  disconnected(peer: string): void {
    this.accepted.delete(peer);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
