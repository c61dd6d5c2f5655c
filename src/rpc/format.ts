/**
 * Ethereum shapes of this chain's blocks, transactions and receipts, as viem's and
 * ethers' formatters parse them. Every transaction of the chain has one: an Ethereum
 * transfer as itself; an exchange operation as a zero-value, zero-gas call to the
 * exchange address whose input is the operation's canonical envelope.
 */
import { blockHash as hashHeader, type Block } from '../codec/block';
import { decodeTx, TxKind, type Tx } from '../codec/tx';
import type { EthTxBody } from '../codec/txs/eth';
import type { Receipt } from '../state/context';
import { parseEthTransfer, TRANSFER_GAS } from '../state/eth-tx';
import { bytesToHex } from '../util/bytes';
import { EXCHANGE_ADDRESS } from './constants';

export const q = (v: bigint | number): string => `0x${v.toString(16)}`;
const ZERO32 = `0x${'00'.repeat(32)}`;
const ZERO_BLOOM = `0x${'00'.repeat(256)}`;
/** keccak256(rlp([])): the uncles hash of a block without uncles. */
const EMPTY_UNCLES = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';

/** Ethereum timestamps are seconds; several ~22 ms blocks share one. */
const blockSeconds = (timestampMs: number): string => q(Math.floor(timestampMs / 1000));

export interface TxContext {
  block: Block;
  blockHash: string;
  index: number;
  receipt: Receipt;
  chainId: number;
  gasPriceWei: bigint;
}

export function formatTransaction(tx: Tx, c: TxContext): Record<string, unknown> {
  const base = {
    hash: bytesToHex(tx.hash),
    blockHash: c.blockHash,
    blockNumber: q(c.block.header.height),
    // The execution API's TransactionInfo requires it: the block's timestamp, in seconds as the block's own.
    blockTimestamp: blockSeconds(c.block.header.timestampMs),
    transactionIndex: q(c.index),
    chainId: q(c.chainId),
  };
  if (tx.kind === TxKind.EthTx) {
    const t = parseEthTransfer((tx.body as EthTxBody).raw, c.chainId);
    const typeCode = t.type === 'legacy' ? '0x0' : t.type === 'eip2930' ? '0x1' : '0x2';
    const v = t.type === 'legacy' ? BigInt(t.yParity) + 35n + 2n * BigInt(c.chainId) : BigInt(t.yParity);
    return {
      ...base,
      type: typeCode,
      from: c.receipt.signer,
      to: t.to,
      value: q(t.value),
      gas: q(t.gas),
      nonce: q(t.nonce),
      input: '0x',
      ...(t.type === 'eip1559'
        ? { maxFeePerGas: q(t.maxFeePerGas), maxPriorityFeePerGas: q(t.maxPriorityFeePerGas), gasPrice: q(c.gasPriceWei) }
        : { gasPrice: q(t.maxFeePerGas) }),
      ...(t.type !== 'legacy' ? { accessList: [], yParity: q(t.yParity) } : {}),
      v: q(v),
      r: q(t.r),
      s: q(t.s),
    };
  }
  return {
    ...base,
    type: '0x0',
    from: c.receipt.signer ?? '0x0000000000000000000000000000000000000000',
    to: EXCHANGE_ADDRESS,
    value: '0x0',
    gas: '0x0',
    gasPrice: '0x0',
    nonce: '0x0',
    input: bytesToHex(tx.bytes),
    v: '0x1b',
    r: '0x0',
    s: '0x0',
  };
}

export function formatReceipt(tx: Tx, c: TxContext, cumulativeGas: bigint): Record<string, unknown> {
  const isEth = tx.kind === TxKind.EthTx;
  const gasUsed = isEth && c.receipt.status === 'ok' ? TRANSFER_GAS : 0n;
  const t = isEth ? parseEthTransfer((tx.body as EthTxBody).raw, c.chainId) : undefined;
  return {
    transactionHash: bytesToHex(tx.hash),
    transactionIndex: q(c.index),
    blockHash: c.blockHash,
    blockNumber: q(c.block.header.height),
    from: c.receipt.signer ?? '0x0000000000000000000000000000000000000000',
    to: t ? t.to : EXCHANGE_ADDRESS,
    cumulativeGasUsed: q(cumulativeGas),
    gasUsed: q(gasUsed),
    effectiveGasPrice: q(isEth ? c.gasPriceWei : 0n),
    contractAddress: null,
    logs: [],
    logsBloom: ZERO_BLOOM,
    status: c.receipt.status === 'ok' ? '0x1' : '0x0',
    type: t ? (t.type === 'legacy' ? '0x0' : t.type === 'eip2930' ? '0x1' : '0x2') : '0x0',
  };
}

export function gasOf(tx: Tx, receipt: Receipt): bigint {
  return tx.kind === TxKind.EthTx && receipt.status === 'ok' ? TRANSFER_GAS : 0n;
}

export interface BlockShapeInput {
  block: Block;
  stateRoot: Uint8Array;
  receipts: Receipt[];
  chainId: number;
  gasPriceWei: bigint;
  maxTxBytes: number;
  full: boolean;
  blockGasLimit: bigint;
}

export function formatBlock(i: BlockShapeInput): Record<string, unknown> {
  const h = i.block.header;
  const hash = bytesToHex(hashHeader(h));
  const txs = i.block.txs.map((b) => decodeTx(b, i.maxTxBytes));
  let gasUsed = 0n;
  txs.forEach((t, idx) => (gasUsed += gasOf(t, i.receipts[idx])));
  const size = i.block.txs.reduce((n, b) => n + b.length, 200);
  return {
    number: q(h.height),
    hash,
    parentHash: bytesToHex(h.parentHash),
    nonce: '0x0000000000000000',
    sha3Uncles: EMPTY_UNCLES,
    logsBloom: ZERO_BLOOM,
    transactionsRoot: bytesToHex(h.txRoot),
    stateRoot: bytesToHex(i.stateRoot),
    receiptsRoot: ZERO32,
    miner: h.proposer,
    difficulty: '0x0',
    totalDifficulty: '0x0',
    extraData: '0x',
    size: q(size),
    gasLimit: q(i.blockGasLimit),
    gasUsed: q(gasUsed),
    timestamp: blockSeconds(h.timestampMs),
    transactions: i.full
      ? txs.map((t, idx) => formatTransaction(t, { block: i.block, blockHash: hash, index: idx, receipt: i.receipts[idx], chainId: i.chainId, gasPriceWei: i.gasPriceWei }))
      : txs.map((t) => bytesToHex(t.hash)),
    uncles: [],
    baseFeePerGas: q(i.gasPriceWei),
    mixHash: ZERO32,
  };
}

/** Block 0 is the genesis: no transactions, the genesis hash, the genesis time. */
export function formatGenesisBlock(genesisHash: string, timestampMs: number, stateRoot: Uint8Array, gasPriceWei: bigint, blockGasLimit: bigint) {
  return {
    number: '0x0', hash: genesisHash, parentHash: ZERO32, nonce: '0x0000000000000000', sha3Uncles: EMPTY_UNCLES, logsBloom: ZERO_BLOOM,
    transactionsRoot: ZERO32, stateRoot: bytesToHex(stateRoot), receiptsRoot: ZERO32, miner: '0x0000000000000000000000000000000000000000',
    difficulty: '0x0', totalDifficulty: '0x0', extraData: '0x', size: '0x0', gasLimit: q(blockGasLimit), gasUsed: '0x0',
    timestamp: blockSeconds(timestampMs), transactions: [], uncles: [], baseFeePerGas: q(gasPriceWei), mixHash: ZERO32,
  };
}
