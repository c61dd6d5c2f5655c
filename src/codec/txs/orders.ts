/**
 * Order transactions. REST kinds carry the fields exactly as the trader sent and signed
 * them (strings), so every validator re-derives the digest itself; native kinds carry
 * the EIP-712 PlaceOrder / CancelOrder members.
 */
import type { Address } from '../../util/bytes';
import { CodecError, type Reader, type Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';

export const MAX_BATCH_ORDERS = 10;
const MAX_FIELD = 80;

export interface RestOrderBody {
  trader: Address;
  symbol: string;
  side: string;
  type: string;
  /** "" when absent (market order without a worst price). */
  price: string;
  amount: string;
  nonce: bigint;
  /** 64 (r‖s) or 65 (r‖s‖v) bytes. */
  signature: Uint8Array;
}

export interface BatchItem {
  symbol: string;
  side: string;
  price: string;
  amount: string;
}

export interface RestBatchBody {
  trader: Address;
  orders: BatchItem[];
  nonce: bigint;
  signature: Uint8Array;
}

export interface RestCancelBody {
  trader: Address;
  orderId: string;
  nonce: bigint;
  signature: Uint8Array;
}

export interface RestCancelAllBody {
  trader: Address;
  nonce: bigint;
  signature: Uint8Array;
}

/** EIP-712 PlaceOrder, signed by `signer` (the owner, or its session key). */
export interface NativePlaceBody {
  owner: Address;
  signer: Address;
  pairId: number;
  side: number;
  orderType: number;
  price: bigint;
  size: bigint;
  leverage: number;
  nonce: bigint;
  signature: Uint8Array;
}

export interface NativeCancelBody {
  owner: Address;
  signer: Address;
  orderId: bigint;
  nonce: bigint;
  signature: Uint8Array;
}

const str = (r: Reader) => r.string(MAX_FIELD);

registerTxKind<RestOrderBody>({
  kind: TxKind.RestOrder,
  name: 'RestOrder',
  encodeBody(w, b) {
    w.address(b.trader).string(b.symbol).string(b.side).string(b.type).string(b.price).string(b.amount).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { trader: r.address(), symbol: str(r), side: str(r), type: str(r), price: str(r), amount: str(r), nonce: r.big(), signature: r.signature() };
  },
});

registerTxKind<RestBatchBody>({
  kind: TxKind.RestBatch,
  name: 'RestBatch',
  encodeBody(w: Writer, b) {
    w.address(b.trader).u8(b.orders.length);
    for (const o of b.orders) w.string(o.symbol).string(o.side).string(o.price).string(o.amount);
    w.big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    const trader = r.address();
    const n = r.u8();
    if (n > MAX_BATCH_ORDERS) throw new CodecError('TOO_LARGE', `a batch holds at most ${MAX_BATCH_ORDERS} orders`);
    const orders: BatchItem[] = [];
    for (let i = 0; i < n; i++) orders.push({ symbol: str(r), side: str(r), price: str(r), amount: str(r) });
    return { trader, orders, nonce: r.big(), signature: r.signature() };
  },
});

registerTxKind<RestCancelBody>({
  kind: TxKind.RestCancel,
  name: 'RestCancel',
  encodeBody(w, b) {
    w.address(b.trader).string(b.orderId).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { trader: r.address(), orderId: str(r), nonce: r.big(), signature: r.signature() };
  },
});

registerTxKind<RestCancelAllBody>({
  kind: TxKind.RestCancelAll,
  name: 'RestCancelAll',
  encodeBody(w, b) {
    w.address(b.trader).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { trader: r.address(), nonce: r.big(), signature: r.signature() };
  },
});

registerTxKind<NativePlaceBody>({
  kind: TxKind.NativePlace,
  name: 'PlaceOrder',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).u32(b.pairId).u8(b.side).u8(b.orderType).big(b.price).big(b.size).u32(b.leverage).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return {
      owner: r.address(), signer: r.address(), pairId: r.u32(), side: r.u8(), orderType: r.u8(), price: r.big(), size: r.big(),
      leverage: r.u32(), nonce: r.big(), signature: r.signature(),
    };
  },
});

registerTxKind<NativeCancelBody>({
  kind: TxKind.NativeCancel,
  name: 'CancelOrder',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.orderId).big(b.nonce).bytes(b.signature);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), orderId: r.big(), nonce: r.big(), signature: r.signature() };
  },
});
