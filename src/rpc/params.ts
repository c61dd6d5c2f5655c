/**
 * The parameters of every JSON-RPC method this node serves, by position, as the Ethereum
 * execution API gives them (ethereum/execution-apis, src/eth/*.yaml): what each one must
 * be, and which are optional. `one()` (methods.ts) checks a request's params against its
 * method's list before the handler runs, so malformed parameters answer -32602 (invalid
 * params) naming the position, whatever the method: never an exception, never a 5xx.
 */
import { isAddress, isHex } from '../util/bytes';

export type ParamKind = 'address' | 'block' | 'hash' | 'bool' | 'call' | 'data' | 'blockCount' | 'percentiles';

export interface ParamSpec {
  kind: ParamKind;
  /** What the position holds, for the error message. */
  name: string;
  optional?: true;
}

const BLOCK_TAGS = new Set(['latest', 'pending', 'safe', 'finalized', 'earliest']);
/** An Ethereum quantity: hex, no leading zeros, at most 64 bits here. */
const QUANTITY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,15})$/;
/** A call object's quantities are uint256 (a value in wei passes 2^64 at 18.4 tokens). */
const U256_QUANTITY_RE = /^0x(0|[1-9a-fA-F][0-9a-fA-F]{0,63})$/;
/** A block number as the handlers read it (leading zeros tolerated, as clients send them). */
const BLOCK_NUMBER_RE = /^0x[0-9a-fA-F]{1,16}$/;
/** The most reward percentiles eth_feeHistory takes (geth's limit). */
const MAX_PERCENTILES = 100;
/** Call object fields that are quantities, and those that are data. */
const CALL_QUANTITIES = ['gas', 'gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas', 'value', 'nonce', 'chainId', 'type'] as const;
const CALL_DATA = ['data', 'input'] as const;

const address = (name: string, optional?: true): ParamSpec => ({ kind: 'address', name, optional });
const block = (name = 'block number or tag', optional?: true): ParamSpec => ({ kind: 'block', name, optional });
const hash = (name: string): ParamSpec => ({ kind: 'hash', name });
const bool = (name: string): ParamSpec => ({ kind: 'bool', name });

/** Every served method's parameters (methods.ts METHODS must have an entry here: checked at load). */
export const METHOD_PARAMS: Readonly<Record<string, readonly ParamSpec[]>> = {
  eth_chainId: [],
  net_version: [],
  web3_clientVersion: [],
  eth_blockNumber: [],
  eth_gasPrice: [],
  eth_maxPriorityFeePerGas: [],
  eth_syncing: [],
  eth_accounts: [],
  eth_getBalance: [address('an address'), block(undefined, true)],
  eth_getTransactionCount: [address('an address'), block(undefined, true)],
  eth_getCode: [address('an address'), block(undefined, true)],
  eth_estimateGas: [{ kind: 'call', name: 'a call object' }, block(undefined, true)],
  eth_call: [{ kind: 'call', name: 'a call object' }, block(undefined, true)],
  eth_sendRawTransaction: [{ kind: 'data', name: 'signed transaction bytes (hex)' }],
  eth_getTransactionByHash: [hash('a 32-byte transaction hash')],
  eth_getTransactionReceipt: [hash('a 32-byte transaction hash')],
  eth_getBlockByNumber: [block(), bool('a boolean (full transactions)')],
  eth_getBlockByHash: [hash('a 32-byte block hash'), bool('a boolean (full transactions)')],
  eth_feeHistory: [{ kind: 'blockCount', name: 'a block count (hex quantity or integer)' }, block('the newest block (number or tag)'), { kind: 'percentiles', name: 'reward percentiles', optional: true }],
};

const isQuantity = (v: unknown): boolean => typeof v === 'string' && QUANTITY_RE.test(v);
const isData = (v: unknown): boolean => typeof v === 'string' && isHex(v) && v.length % 2 === 0;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function valid(kind: ParamKind, v: unknown): boolean {
  switch (kind) {
    case 'address':
      return isAddress(v);
    case 'hash':
      return isHex(v, 32);
    case 'bool':
      return typeof v === 'boolean';
    case 'data':
      return isData(v) && (v as string).length > 2;
    case 'block':
      if (typeof v === 'string') return BLOCK_TAGS.has(v) || BLOCK_NUMBER_RE.test(v);
      // EIP-1898 by number; by hash is not served (the head's state only).
      return isObject(v) && Object.keys(v).every((k) => k === 'blockNumber') && typeof v.blockNumber === 'string' && BLOCK_NUMBER_RE.test(v.blockNumber);
    case 'blockCount':
      return isQuantity(v) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
    case 'percentiles':
      return (
        Array.isArray(v) &&
        v.length <= MAX_PERCENTILES &&
        v.every((p, i) => typeof p === 'number' && Number.isFinite(p) && p >= 0 && p <= 100 && (i === 0 || p >= (v[i - 1] as number)))
      );
    case 'call':
      return (
        isObject(v) &&
        (v.to === undefined || v.to === null || isAddress(v.to)) &&
        (v.from === undefined || isAddress(v.from)) &&
        CALL_QUANTITIES.every((k) => v[k] === undefined || (typeof v[k] === 'string' && U256_QUANTITY_RE.test(v[k] as string))) &&
        CALL_DATA.every((k) => v[k] === undefined || isData(v[k]))
      );
  }
}

/** Why `params` do not fit `method`'s list (the message of a -32602), or null when they do. */
export function paramsRefusal(method: string, params: readonly unknown[]): string | null {
  const specs = METHOD_PARAMS[method];
  if (specs === undefined) return null;
  if (params.length > specs.length) return `too many params: ${method} takes at most ${specs.length}, got ${params.length}`;
  for (let i = 0; i < specs.length; i++) {
    const s = specs[i];
    const v = params[i];
    if (v === undefined || (v === null && s.optional)) {
      if (!s.optional) return `params[${i}]: missing, ${method} needs ${s.name}`;
      continue;
    }
    if (!valid(s.kind, v)) return `params[${i}]: ${s.name}`;
  }
  return null;
}
