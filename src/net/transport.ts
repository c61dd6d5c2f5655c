/**
 * The transport between nodes, as consensus, mempool and sync see it. Implemented over
 * libp2p (src/net/libp2p.ts) for real networks; a simulated implementation drives the
 * deterministic simulator (sim/).
 *
 * Gossip is typed end to end (Lodestar's habit): an enum of topics and a mapped handler
 * type, so a handler per topic is demanded by the compiler. A handler validates and
 * handles in one go; it throws GossipError with IGNORE (not useful: duplicate, stale)
 * or REJECT (invalid: the sender is penalized), and one adapter turns that into the
 * gossipsub verdict.
 */
export enum Topic {
  Txs = 'txs',
  Proposals = 'proposals',
  Votes = 'votes',
  Oracle = 'oracle',
  Evidence = 'evidence',
}

export const TOPICS: readonly Topic[] = [Topic.Txs, Topic.Proposals, Topic.Votes, Topic.Oracle, Topic.Evidence];

export type GossipAction = 'ignore' | 'reject';

export class GossipError extends Error {
  constructor(
    readonly action: GossipAction,
    readonly code: string,
    message = code,
  ) {
    super(message);
    this.name = 'GossipError';
  }
}

/** One handler per topic: resolve to accept, throw GossipError to ignore or reject. */
export type GossipHandlers = { [T in Topic]: (data: Uint8Array, from: string) => void | Promise<void> };

/** Request-response (block sync): a request's bytes in, the answer's bytes out. */
export type RequestHandler = (data: Uint8Array, from: string) => Promise<Uint8Array>;

export interface TransportStats {
  published: number;
  received: Record<Topic, number>;
  ignored: number;
  rejected: number;
  requestsServed: number;
  peers: number;
  /** Transport-specific counters (direct streams, consensus bundles). */
  [more: string]: unknown;
}

export interface Transport {
  /** This node's identity on the network (a libp2p peer id for the libp2p transport). */
  readonly id: string;
  start(handlers: GossipHandlers): Promise<void>;
  stop(): Promise<void>;
  publish(topic: Topic, data: Uint8Array): Promise<void>;
  /** Serves a request-response protocol. */
  handle(protocol: string, handler: RequestHandler): Promise<void>;
  request(peer: string, protocol: string, data: Uint8Array, timeoutMs?: number): Promise<Uint8Array>;
  peers(): string[];
  stats(): TransportStats;
}
