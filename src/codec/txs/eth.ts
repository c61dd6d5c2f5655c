/**
 * Ethereum transactions (eth_sendRawTransaction): the raw signed bytes, kept as sent, so
 * the transaction hash is Ethereum's own (keccak256 of the raw transaction).
 */
import { keccak256 } from '../../crypto/keccak';
import { registerTxKind, TxKind } from '../tx';

const MAX_ETH_TX_BYTES = 4096;

export interface EthTxBody {
  raw: Uint8Array;
}

registerTxKind<EthTxBody>({
  kind: TxKind.EthTx,
  name: 'EthTransfer',
  encodeBody(w, b) {
    w.bytes(b.raw);
  },
  decodeBody(r) {
    return { raw: r.bytes(MAX_ETH_TX_BYTES) };
  },
  hash: (b) => keccak256(b.raw),
});
