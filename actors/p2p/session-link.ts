/**
 * The p2p actor's consensus sessions (src/net/session.ts, decision 178): a validator's
 * direct bundles go to a validator peer over their session when one is up, and over the
 * libp2p direct stream otherwise (p2p-actor.ts's flush).
 *
 * Where a session listens: on the libp2p listen host, at `p2p.consensusPort` (`--consensus-port`),
 * by default any free port the kernel gives (its ephemeral range: no clash with the ports a
 * local network or a test draws for its nodes, below that range). How a peer learns it: it
 * asks, over the libp2p connection the two already have, on /exchange/<chainId>/session/1 (the answer: u16 port, 0 when this
 * node runs no sessions), and dials the address that connection comes from. Nothing about
 * the port needs trusting: the session's handshake proves the validator behind it.
 */
import type { Libp2pTransport } from '../../src/net/libp2p';
import { SessionNet, type SessionEndpoint } from '../../src/net/session';
import type { Address } from '../../src/util/bytes';
import type { Logger } from '../../src/util/log';
import type { ValidatorPeers } from './validator-peers';

export function sessionProtocol(chainId: number): string {
  return `/exchange/${chainId}/session/1`;
}

/** How long a peer may take to say where its session listens. */
const ASK_TIMEOUT_MS = 3_000;

export function encodeSessionPort(port: number): Uint8Array {
  return Uint8Array.of(port >> 8, port & 0xff);
}

/** The port a peer answered, undefined for none (0) or a malformed answer. */
export function decodeSessionPort(bytes: Uint8Array): number | undefined {
  if (bytes.length !== 2) return undefined;
  const port = (bytes[0] << 8) | bytes[1];
  return port === 0 ? undefined : port;
}

/** Where this validator's session listens, from the p2p configuration; undefined: no sessions. */
export function sessionListen(p2p: { listen: string[]; consensusPort?: number }): SessionEndpoint | undefined {
  if (p2p.consensusPort !== undefined && p2p.consensusPort < 0) return undefined;
  const m = /^\/ip[46]\/([^/]+)\/tcp\//.exec(p2p.listen[0] ?? '');
  if (m === null) return undefined;
  return { host: m[1], port: p2p.consensusPort ?? 0 };
}

export interface SessionLinkDeps {
  chainId: number;
  validatorKey: Uint8Array;
  listen: SessionEndpoint;
  transport: Libp2pTransport;
  validatorPeers: ValidatorPeers;
  isValidator(address: Address): boolean;
  log: Logger;
  onFrame(from: Address, data: Uint8Array): void;
  /** A session opened or closed: what the peer was sent may not have arrived (the sent ledger forgets it). */
  onChange(peer: Address): void;
}

/** Starts this validator's sessions with the validator peers libp2p is connected to, and answers where they listen. */
export async function startSessionLink(deps: SessionLinkDeps): Promise<SessionNet> {
  const t = deps.transport;
  const protocol = sessionProtocol(deps.chainId);
  const sessions = new SessionNet({
    chainId: deps.chainId,
    validatorKey: deps.validatorKey,
    host: deps.listen.host,
    port: deps.listen.port,
    log: deps.log,
    isValidator: deps.isValidator,
    peers: () => {
      const out: Address[] = [];
      for (const peer of t.peers()) {
        const a = deps.validatorPeers.address(peer);
        if (a !== undefined) out.push(a);
      }
      return out;
    },
    resolve: async (address) => {
      const peer = deps.validatorPeers.peer(address);
      const host = peer === undefined ? undefined : t.peerHost(peer);
      if (peer === undefined || host === undefined) return undefined;
      const port = decodeSessionPort(await t.request(peer, protocol, new Uint8Array(0), ASK_TIMEOUT_MS));
      return port === undefined ? undefined : { host, port };
    },
    onFrame: deps.onFrame,
    onUp: deps.onChange,
    onDown: deps.onChange,
  });
  await sessions.start();
  await t.handle(protocol, async () => encodeSessionPort(sessions.port));
  return sessions;
}
