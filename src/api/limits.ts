/**
 * Every bound the API layer puts on what a client may send or hold, in one place: each
 * a named constant with its unit last and what it bounds (TigerBeetle's habit). Bounds
 * that belong to the chain (transaction size, batch orders, depth) are genesis
 * parameters or codec constants; the mailbox capacities are the node's (src/node).
 */

/** Largest HTTP request body the server reads; fastify answers 413 PAYLOAD_TOO_LARGE beyond it. A signed batch of ten orders is under 4 KiB. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/** Largest hex transaction a POST /tx body carries (the schema's maxLength is 2 + 2 × this); the chain's own bound (genesis consensus.maxTxBytes, 16 KiB on the devnet) refuses earlier. */
export const TX_BODY_MAX_BYTES = 64 * 1024;

/** Largest WebSocket frame a client may send (one JSON-RPC request or subscription); larger closes the socket. */
export const WS_MAX_PAYLOAD_BYTES = 64 * 1024;

/** Subscriptions one WebSocket connection may hold at once; the next is refused with an error answer. */
export const WS_MAX_SUBSCRIPTIONS = 32;

/** Unsent data a WebSocket client may leave in its send buffer; beyond it the slow consumer is closed (1008). */
export const WS_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/** Interval between pings on a WebSocket (Hyperliquid's 30 s); a client that has not answered the last one by the next is closed. */
export const WS_PING_MS = 30_000;

/** Resting orders per side in a WebSocket orderbook snapshot. */
export const WS_BOOK_DEPTH_ORDERS = 50;

/** How long GET /reserves waits for the external chain's answer (the bridge's USDC balance) before it answers with balance null. */
export const BRIDGE_BALANCE_WAIT_MS = 2_000;

/** How long a read of indexed data waits for the index to hold every block final before the read arrived. */
export const INDEX_WAIT_MS = 1_000;

/** About a second of blocks: an index further behind the chain is rebuilding, not just busy; its reads answer 503 NOT_SYNCED. */
export const INDEX_MAX_LAG_BLOCKS = 45;

/**
 * About a second of blocks: a node whose head is further behind the head its peers show
 * is catching up, and its reads that depend on the head answer 503 NOT_SYNCED
 * (src/api/catching-up.ts) rather than a stale 200.
 */
export const CATCHING_UP_LAG_BLOCKS = 45;

/** Requests in one JSON-RPC batch; a larger batch is refused whole (-32600). */
export const RPC_MAX_BATCH_REQUESTS = 100;

/** Blocks one eth_feeHistory answer covers at most (a larger count is clamped, as Ethereum clients do). */
export const RPC_FEE_HISTORY_MAX_BLOCKS = 1024;

/** Instances one GET /v1/audit/instances page holds at most (the rest by offset). */
export const AUDIT_INSTANCES_LIMIT_MAX = 500;

/** Transitions one GET /v1/audit/transitions answer (and the `audit` topic's snapshot) holds at most. */
export const AUDIT_TRANSITIONS_LIMIT_MAX = 500;

/** Recent transitions in the WebSocket `audit` topic's snapshot. */
export const WS_AUDIT_SNAPSHOT_TRANSITIONS = 50;
