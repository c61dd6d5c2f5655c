/**
 * The transport's bounds in one place (src/net): what each one bounds, its unit, and
 * what it costs at most. The block-sync limits are beside the sync protocol
 * (src/chain/sync.ts) and the consensus message limits in src/consensus/limits.ts; how
 * they relate to these is checked when a node is built (actors/limits.ts).
 */

/**
 * Bytes of one frame a peer may send: a request or answer (block sync) and one message
 * of a long-lived direct stream (a bundle of consensus messages and transactions). A
 * frame is held whole before it is decoded, so this is the memory one stream can make
 * the node hold at once (64 MiB), per open stream.
 */
export const NET_FRAME_BYTES_MAX = 64 * 1024 * 1024;

/**
 * Bytes of direct messages waiting for one peer's stream before the queue is dropped (a
 * peer that stopped reading): 32 MiB per peer, at most, of outbound memory.
 */
export const DIRECT_QUEUE_BYTES_MAX = 32 * 1024 * 1024;

/** Bytes of one gossipsub message when the node gives no limit (it gives maxBlockBytes + the consensus overhead). */
export const GOSSIP_MESSAGE_BYTES_DEFAULT = 8 * 1024 * 1024;

/** Bytes a frame's varint length header may take: lengths of 2^63 and up are refused long before. */
export const FRAME_HEADER_BYTES_MAX = 9;
