/**
 * The p2p actor's check of each peer's chain identity (src/net/identity.ts): this node
 * serves its own on IDENTITY_PROTOCOL, asks every peer that connects for the peer's, and
 * refuses a peer of another chain id or genesis: it closes the connection, does not dial
 * it for PEER_REFUSED_MS, and logs one warning per peer and genesis that names both
 * hashes and what the operator can do. A peer that does not answer (an older node, or
 * one that left) is not refused: the blocks and votes it sends are checked anyway.
 */
import { bytesToHex } from '../../src/util/bytes';
import type { Logger } from '../../src/util/log';
import { compareIdentity, decodeIdentity, encodeIdentity, IDENTITY_PROTOCOL, type ChainIdentity } from '../../src/net/identity';

/** How long a refused peer is not dialled (then tried again: its operator may have fixed it). */
export const PEER_REFUSED_MS = 60_000;
/** How long one identity exchange may take. */
export const IDENTITY_TIMEOUT_MS = 5_000;
/** Warnings remembered (peer and genesis), so a peer that reconnects is not logged again. */
const WARNED_KEPT_MAX = 1_024;

/** What to do about a peer of another genesis, in words; the same text in docs/operations.md's "Reading the logs". */
export const GENESIS_MISMATCH_REMEDY =
  "If most of the network runs the peer's genesis, this node is on the wrong one: stop it, get the network's genesis file " +
  '(the onboarding service serves it at GET /api/validators/download/genesis with the download token of your approval, ' +
  'and its sha256 at GET /api/validators/checksums), run `npm run node -- init` again with it (or `bind` the key file to it), ' +
  "and start on an empty data folder. If this node's genesis is the network's, the peer's operator must do that; nothing to do here.";

/** What the check needs of the transport (Libp2pTransport). */
export interface IdentityTransport {
  handle(protocol: string, handler: (data: Uint8Array, from: string) => Promise<Uint8Array>): Promise<void>;
  request(peer: string, protocol: string, data: Uint8Array, timeoutMs?: number): Promise<Uint8Array>;
  refuse(peer: string, forMs: number): Promise<void>;
}

export class PeerIdentityCheck {
  readonly stats = { checked: 0, unanswered: 0, refused: {} as Record<string, number> };
  private readonly warned = new Set<string>();
  private readonly inFlight = new Set<string>();
  private readonly answer: Uint8Array;

  constructor(
    private readonly own: ChainIdentity,
    private readonly t: IdentityTransport,
    private readonly log: Logger,
    /** Told of each refusal (the peer table bans the peer as long: discovery.ts). */
    private readonly onRefused?: (peer: string, code: string, forMs: number) => void,
  ) {
    this.answer = encodeIdentity(own);
  }

  /** Serves this node's identity to whoever asks. */
  async serve(): Promise<void> {
    await this.t.handle(IDENTITY_PROTOCOL, async () => this.answer);
  }

  /** A peer connected: ask for its identity and refuse it if it runs another chain. Resolves when judged. */
  async connected(peer: string): Promise<void> {
    if (this.inFlight.has(peer)) return;
    this.inFlight.add(peer);
    try {
      let theirs: ChainIdentity;
      try {
        theirs = decodeIdentity(await this.t.request(peer, IDENTITY_PROTOCOL, new Uint8Array(0), IDENTITY_TIMEOUT_MS));
      } catch (err) {
        this.stats.unanswered++;
        this.log.debug({ peer, err: (err as Error).message }, 'peer identity: no answer; the peer stays, its messages are checked as usual');
        return;
      }
      this.stats.checked++;
      const mismatch = compareIdentity(this.own, theirs);
      if (mismatch === null) return;
      this.stats.refused[mismatch.code] = (this.stats.refused[mismatch.code] ?? 0) + 1;
      const key = `${peer} ${theirs.chainId} ${bytesToHex(theirs.genesisHash)}`;
      const fields = {
        peer,
        code: mismatch.code,
        reason: mismatch.reason,
        genesisHash: bytesToHex(this.own.genesisHash),
        peerGenesisHash: bytesToHex(theirs.genesisHash),
        chainId: this.own.chainId,
        peerChainId: theirs.chainId,
        network: this.own.network,
        peerNetwork: theirs.network,
        retryInMs: PEER_REFUSED_MS,
        remedy: GENESIS_MISMATCH_REMEDY,
      };
      if (this.warned.has(key)) this.log.debug(fields, 'peer refused again: it runs another genesis');
      else {
        if (this.warned.size >= WARNED_KEPT_MAX) this.warned.delete(this.warned.values().next().value!);
        this.warned.add(key);
        this.log.warn(
          fields,
          mismatch.code === 'WRONG_CHAIN'
            ? 'peer refused: it runs another chain (chain id differs); disconnected'
            : 'peer refused: it runs another genesis than this node (genesis hashes differ); disconnected',
        );
      }
      this.onRefused?.(peer, mismatch.code, PEER_REFUSED_MS);
      await this.t.refuse(peer, PEER_REFUSED_MS).catch(() => {});
    } finally {
      this.inFlight.delete(peer);
    }
  }
}
