/**
 * Parsing Ethereum transactions (viem does the RLP and the typed envelopes) into the
 * one thing this chain executes from them: a native-token transfer. Legacy (EIP-155
 * protected), EIP-2930 and EIP-1559 transactions of this chain id are accepted;
 * contract creation or calldata is refused: EVM execution is disabled.
 */
import { parseTransaction, serializeTransaction, type Hex as ViemHex, type TransactionSerializable } from 'viem';
import { keccak256 } from '../crypto/keccak';
import { recoverAddress } from '../crypto/secp256k1';
import { bytesToHex, hexToBytes, type Address } from '../util/bytes';
import { badRequest, unauthorized } from './errors';

export const TRANSFER_GAS = 21_000n;

export interface EthTransfer {
  type: 'legacy' | 'eip2930' | 'eip1559';
  chainId: number;
  nonce: number;
  to: Address;
  value: bigint;
  gas: bigint;
  /** Legacy and EIP-2930: the gas price; EIP-1559: maxFeePerGas. */
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** keccak256 of the unsigned serialization: what the sender signed. */
  signingHash: Uint8Array;
  r: bigint;
  s: bigint;
  yParity: 0 | 1;
}

const cache = new WeakMap<Uint8Array, EthTransfer>();

export function parseEthTransfer(raw: Uint8Array, chainId: number): EthTransfer {
  const hit = cache.get(raw);
  if (hit) return hit;
  let tx: ReturnType<typeof parseTransaction>;
  try {
    tx = parseTransaction(bytesToHex(raw) as ViemHex);
  } catch (err) {
    throw badRequest('MALFORMED_TX', `raw transaction: ${(err as Error).message.split('\n')[0]}`);
  }
  const type = tx.type;
  if (type !== 'legacy' && type !== 'eip2930' && type !== 'eip1559') {
    throw badRequest('UNSUPPORTED_TX_TYPE', `transaction type ${type} is not supported (legacy, EIP-2930 and EIP-1559 are)`);
  }
  if (tx.r === undefined || tx.s === undefined) throw unauthorized('the transaction is not signed');
  if (tx.chainId === undefined) throw badRequest('WRONG_CHAIN', 'legacy transactions must be EIP-155 protected (carry the chain id)');
  if (tx.chainId !== chainId) throw badRequest('WRONG_CHAIN', `transaction chain id ${tx.chainId}, this chain is ${chainId}`);
  if (!tx.to) throw badRequest('EVM_DISABLED', 'contract creation is not possible: EVM execution is disabled on this chain');
  const data = (tx as { data?: ViemHex }).data;
  if (data && data !== '0x') throw badRequest('EVM_DISABLED', 'calldata is not accepted: EVM execution is disabled on this chain (native-token transfers only)');
  const yParity = tx.yParity ?? (tx.v !== undefined ? Number((tx.v - 35n - 2n * BigInt(chainId)) % 2n) : -1);
  if (yParity !== 0 && yParity !== 1) throw unauthorized('invalid signature recovery value');
  const { r: _r, s: _s, v: _v, yParity: _y, ...unsigned } = tx as TransactionSerializable & { r: ViemHex; s: ViemHex; v?: bigint; yParity?: number };
  const signingHash = keccak256(hexToBytes(serializeTransaction(unsigned as TransactionSerializable)));
  const maxFee = type === 'eip1559' ? (tx.maxFeePerGas ?? 0n) : (tx.gasPrice ?? 0n);
  const parsed: EthTransfer = {
    type,
    chainId,
    nonce: tx.nonce ?? 0,
    to: tx.to.toLowerCase() as Address,
    value: tx.value ?? 0n,
    gas: tx.gas ?? 0n,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: type === 'eip1559' ? (tx.maxPriorityFeePerGas ?? 0n) : 0n,
    signingHash,
    r: BigInt(tx.r),
    s: BigInt(tx.s),
    yParity: yParity as 0 | 1,
  };
  cache.set(raw, parsed);
  return parsed;
}

/** The sender: recovered with native libsecp256k1 (low-s enforced). */
export function ethSender(t: EthTransfer): Address {
  const sig = new Uint8Array(65);
  sig.set(hexToBytes(`0x${t.r.toString(16).padStart(64, '0')}`), 0);
  sig.set(hexToBytes(`0x${t.s.toString(16).padStart(64, '0')}`), 32);
  sig[64] = t.yParity;
  let sender: Address | null;
  try {
    sender = recoverAddress(t.signingHash, sig);
  } catch (err) {
    throw unauthorized(`signature: ${(err as Error).message}`);
  }
  if (!sender) throw unauthorized('the signature recovers no sender');
  return sender;
}
