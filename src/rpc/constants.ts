/** Addresses and constants of the Ethereum-facing surface (listed by /chain-config). */
import type { Address } from '../util/bytes';

/** The exchange itself: EIP-712 verifying contract, and `to` of exchange operations seen as Ethereum transactions. */
export const EXCHANGE_ADDRESS: Address = '0x0000000000000000000000000000000000001002';
/** Read precompile of the orderbook: getAvailableLiquidity, getPairBids, getPairAsks. */
export const ORDERBOOK_PRECOMPILE: Address = '0x0000000000000000000000000000000000000801';
/** Read precompile of agent caps: agentCaps(owner). */
export const AGENT_CAPS_PRECOMPILE: Address = '0x000000000000000000000000000000000000080b';

export const ORDERBOOK_ABI = [
  'function getAvailableLiquidity(uint256 pairId, uint8 side, uint256 worstPrice) view returns (uint256)',
  'function getPairBids(uint256 pairId) view returns ((uint256 orderId, address owner, uint256 price, uint256 size, bool isAgent)[])',
  'function getPairAsks(uint256 pairId) view returns ((uint256 orderId, address owner, uint256 price, uint256 size, bool isAgent)[])',
] as const;

export const AGENT_CAPS_ABI = [
  'function agentCaps(address owner) view returns (uint8 mode, bool caps_set, uint64 max_leverage_bps, uint32 allowed_order_types, uint128 max_input, uint128 max_total)',
] as const;

/** At most this many orders per side from getPairBids / getPairAsks (bounded like everything else). */
export const PRECOMPILE_MAX_ORDERS = 1000;

export const CLIENT_VERSION = 'exchange-chain/0.1.0';

export const JSONRPC_ERRORS = {
  PARSE: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,
  SERVER: -32000,
} as const;
