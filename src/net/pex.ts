/**
 * The peer-exchange protocol (decision 184), CometBFT's PEX reduced to one request and
 * its answer over a libp2p stream:
 *
 *   request  u8 version | u16 peers wanted (at most PEX_ANSWER_PEERS_MAX)
 *   answer   u8 version | u16 n | n × (string peer id | u8 k | k × string multiaddr)
 *
 * The protocol id names the chain (`/exchange/<chainId>/pex/1`): a node of another chain
 * does not speak it. An answer is judged whole: any peer id that does not parse, any
 * address that is not /ip4|ip6|dns|dns4|dns6/…/tcp/<port> (optionally ending in the same
 * peer's /p2p/<id>), more peers or addresses than the bounds: the answer is malformed and
 * its sender penalised (src/net/peer-table.ts). Addresses are stored and shared without
 * the /p2p/ suffix.
 */
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { Reader, Writer } from '../codec/binary';

export const PEX_VERSION = 1;
/** Peers in one answer (CometBFT: 32 to 250; a small network needs far fewer). */
export const PEX_ANSWER_PEERS_MAX = 32;
/** Addresses per peer in an answer. */
export const PEX_ADDRS_PER_PEER_MAX = 4;
/** A peer id's characters at most (base58 multihash: a few dozen). */
const PEER_ID_CHARS_MAX = 128;
/** A multiaddr's characters at most (CometBFT's maxAddressSize: 256 bytes). */
const ADDR_CHARS_MAX = 256;
export const PEX_ANSWER_BYTES_MAX = 3 + PEX_ANSWER_PEERS_MAX * (4 + PEER_ID_CHARS_MAX + 1 + PEX_ADDRS_PER_PEER_MAX * (4 + ADDR_CHARS_MAX));

export function pexProtocol(chainId: number): string {
  return `/exchange/${chainId}/pex/1`;
}

export interface PexPeer {
  peerId: string;
  addrs: string[];
}

export function encodePexRequest(want: number): Uint8Array {
  return new Writer(8).u8(PEX_VERSION).u16(Math.min(want, PEX_ANSWER_PEERS_MAX)).finish();
}

/** @throws on anything but one well-formed request. */
export function decodePexRequest(bytes: Uint8Array): { want: number } {
  const r = new Reader(bytes);
  const version = r.u8();
  if (version !== PEX_VERSION) throw new Error(`peer exchange version ${version}, this node speaks ${PEX_VERSION}`);
  const want = r.u16();
  r.end();
  return { want: Math.min(want, PEX_ANSWER_PEERS_MAX) };
}

export function encodePexAnswer(peers: readonly PexPeer[]): Uint8Array {
  const list = peers.slice(0, PEX_ANSWER_PEERS_MAX);
  const w = new Writer(PEX_ANSWER_BYTES_MAX).u8(PEX_VERSION).u16(list.length);
  for (const p of list) {
    const addrs = p.addrs.slice(0, PEX_ADDRS_PER_PEER_MAX);
    w.string(p.peerId).u8(addrs.length);
    for (const a of addrs) w.string(a);
  }
  return w.finish();
}

/**
 * A dialable TCP multiaddr of `peerId` without its /p2p/ suffix; throws on anything else.
 * (Circuit relays, websockets and the like are not what this network's nodes listen on.)
 */
export function checkPeerAddress(addr: string, peerId: string): string {
  if (addr.length > ADDR_CHARS_MAX) throw new Error(`address of ${addr.length} characters`);
  const parts = multiaddr(addr).getComponents();
  const [host, port, p2p, ...rest] = parts;
  if (host === undefined || !['ip4', 'ip6', 'dns', 'dns4', 'dns6'].includes(host.name)) throw new Error(`address ${addr} does not start with an IP or DNS host`);
  if (port === undefined || port.name !== 'tcp') throw new Error(`address ${addr} has no TCP port`);
  const n = Number(port.value);
  if (!Number.isInteger(n) || n < 1 || n > 65_535) throw new Error(`address ${addr} has port ${port.value}`);
  if (p2p !== undefined && (p2p.name !== 'p2p' || p2p.value !== peerId)) throw new Error(`address ${addr} names another peer than ${peerId}`);
  if (rest.length > 0) throw new Error(`address ${addr} goes on after its peer id`);
  return `/${host.name}/${host.value}/tcp/${n}`;
}

/** @throws on anything but one well-formed answer within the bounds. */
export function decodePexAnswer(bytes: Uint8Array): PexPeer[] {
  if (bytes.length > PEX_ANSWER_BYTES_MAX) throw new Error(`peer exchange answer of ${bytes.length} bytes, over ${PEX_ANSWER_BYTES_MAX}`);
  const r = new Reader(bytes, ADDR_CHARS_MAX);
  const version = r.u8();
  if (version !== PEX_VERSION) throw new Error(`peer exchange version ${version}, this node speaks ${PEX_VERSION}`);
  const n = r.u16();
  if (n > PEX_ANSWER_PEERS_MAX) throw new Error(`peer exchange answer of ${n} peers, over ${PEX_ANSWER_PEERS_MAX}`);
  const peers: PexPeer[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const peerId = r.string(PEER_ID_CHARS_MAX);
    // Throws on what is not a peer id (a multihash of a public key).
    peerIdFromString(peerId);
    if (seen.has(peerId)) throw new Error(`peer ${peerId} twice in one answer`);
    seen.add(peerId);
    const k = r.u8();
    if (k > PEX_ADDRS_PER_PEER_MAX) throw new Error(`peer ${peerId} with ${k} addresses, over ${PEX_ADDRS_PER_PEER_MAX}`);
    const addrs: string[] = [];
    for (let j = 0; j < k; j++) addrs.push(checkPeerAddress(r.string(ADDR_CHARS_MAX), peerId));
    peers.push({ peerId, addrs: [...new Set(addrs)] });
  }
  r.end();
  return peers;
}
