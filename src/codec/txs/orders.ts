/**
 * Order transactions. REST kinds carry the fields exactly as the trader sent and signed
 * them (strings), so every validator re-derives the digest itself; native kinds carry
 * the EIP-712 PlaceOrder / CancelOrder / ModifyOrder / CancelByCloid members.
 *
 * Action options (src/codec/txs/options.ts) travel as the optional trailer after each
 * kind's fields, so a transaction without options keeps its bytes. A batch's items may
 * carry their own options (cloid, tif, reduceOnly): then the trailer starts with the
 * tag ITEM_OPTIONS_TAG (never a valid options flags byte), one presence byte per item
 * followed by that item's options, and then the batch's own options trailer.
 */
import { bytesToHex, hexToBytes, type Address, type Hex } from '../../util/bytes';
import { CodecError, type Reader, type Writer } from '../binary';
import { registerTxKind, TxKind } from '../tx';
import { hasOptions, readOptions, writeOptions, type ActionOptions } from './options';

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
  options?: ActionOptions;
}

export interface BatchItem {
  symbol: string;
  side: string;
  price: string;
  amount: string;
  /** The item's own options: cloid, tif, reduceOnly. */
  options?: ActionOptions;
}

export interface RestBatchBody {
  trader: Address;
  orders: BatchItem[];
  nonce: bigint;
  signature: Uint8Array;
  /** The batch's own options: expiresAfter. */
  options?: ActionOptions;
}

export interface RestCancelBody {
  trader: Address;
  orderId: string;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

export interface RestCancelAllBody {
  trader: Address;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

/** DELETE /v1/order/by-cloid/{cloid}: the cloid as sent (checked by the kind's shape rule). */
export interface RestCancelByCloidBody {
  trader: Address;
  cloid: string;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

export interface ModifyItem {
  orderId: string;
  price: string;
  amount: string;
}

/** POST /v1/order/modify: 1 to MAX_BATCH_ORDERS modifies, strings as sent. */
export interface RestModifyBody {
  trader: Address;
  orders: ModifyItem[];
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

/** EIP-712 ModifyOrder, signed by `signer` (the owner, or its session key). */
export interface NativeModifyBody {
  owner: Address;
  signer: Address;
  orderId: bigint;
  price: bigint;
  size: bigint;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

/** EIP-712 CancelByCloid. */
export interface NativeCancelByCloidBody {
  owner: Address;
  signer: Address;
  cloid: Hex;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

/** First byte of a batch trailer holding per-item options (options flags never reach it). */
const ITEM_OPTIONS_TAG = 0xff;

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
  options?: ActionOptions;
}

export interface NativeCancelBody {
  owner: Address;
  signer: Address;
  orderId: bigint;
  nonce: bigint;
  signature: Uint8Array;
  options?: ActionOptions;
}

const str = (r: Reader) => r.string(MAX_FIELD);
/** The options trailer as a body member: absent when there are none. */
const opts = (r: Reader): { options?: ActionOptions } => {
  const o = readOptions(r);
  return hasOptions(o) ? { options: o } : {};
};

registerTxKind<RestOrderBody>({
  kind: TxKind.RestOrder,
  name: 'RestOrder',
  encodeBody(w, b) {
    w.address(b.trader).string(b.symbol).string(b.side).string(b.type).string(b.price).string(b.amount).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { trader: r.address(), symbol: str(r), side: str(r), type: str(r), price: str(r), amount: str(r), nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});

registerTxKind<RestBatchBody>({
  kind: TxKind.RestBatch,
  name: 'RestBatch',
  encodeBody(w: Writer, b) {
    w.address(b.trader).u8(b.orders.length);
    for (const o of b.orders) w.string(o.symbol).string(o.side).string(o.price).string(o.amount);
    w.big(b.nonce).bytes(b.signature);
    if (b.orders.some((o) => hasOptions(o.options))) {
      w.u8(ITEM_OPTIONS_TAG);
      for (const o of b.orders) {
        w.bool(hasOptions(o.options));
        writeOptions(w, o.options);
      }
    }
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    const trader = r.address();
    const n = r.u8();
    if (n > MAX_BATCH_ORDERS) throw new CodecError('TOO_LARGE', `a batch holds at most ${MAX_BATCH_ORDERS} orders`);
    const orders: BatchItem[] = [];
    for (let i = 0; i < n; i++) orders.push({ symbol: str(r), side: str(r), price: str(r), amount: str(r) });
    const nonce = r.big();
    const signature = r.signature();
    if (r.remaining > 0 && r.peekU8() === ITEM_OPTIONS_TAG) {
      r.u8();
      let any = false;
      for (const o of orders) {
        if (!r.bool()) continue;
        const item = readOptions(r);
        if (!hasOptions(item)) throw new CodecError('MALFORMED', 'a batch item marked with options has none');
        o.options = item;
        any = true;
      }
      if (!any) throw new CodecError('MALFORMED', 'a batch item-options trailer with no item options');
    }
    return { trader, orders, nonce, signature, ...opts(r) };
  },
});

registerTxKind<RestCancelBody>({
  kind: TxKind.RestCancel,
  name: 'RestCancel',
  encodeBody(w, b) {
    w.address(b.trader).string(b.orderId).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { trader: r.address(), orderId: str(r), nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});

registerTxKind<RestCancelAllBody>({
  kind: TxKind.RestCancelAll,
  name: 'RestCancelAll',
  encodeBody(w, b) {
    w.address(b.trader).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { trader: r.address(), nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});

registerTxKind<NativePlaceBody>({
  kind: TxKind.NativePlace,
  name: 'PlaceOrder',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).u32(b.pairId).u8(b.side).u8(b.orderType).big(b.price).big(b.size).u32(b.leverage).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return {
      owner: r.address(), signer: r.address(), pairId: r.u32(), side: r.u8(), orderType: r.u8(), price: r.big(), size: r.big(),
      leverage: r.u32(), nonce: r.big(), signature: r.signature(), ...opts(r),
    };
  },
});

registerTxKind<NativeCancelBody>({
  kind: TxKind.NativeCancel,
  name: 'CancelOrder',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.orderId).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), orderId: r.big(), nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});

registerTxKind<RestCancelByCloidBody>({
  kind: TxKind.RestCancelByCloid,
  name: 'RestCancelByCloid',
  encodeBody(w, b) {
    w.address(b.trader).string(b.cloid).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { trader: r.address(), cloid: str(r), nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});

registerTxKind<RestModifyBody>({
  kind: TxKind.RestModify,
  name: 'RestModify',
  encodeBody(w, b) {
    w.address(b.trader).u8(b.orders.length);
    for (const o of b.orders) w.string(o.orderId).string(o.price).string(o.amount);
    w.big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    const trader = r.address();
    const n = r.u8();
    if (n > MAX_BATCH_ORDERS) throw new CodecError('TOO_LARGE', `a modify holds at most ${MAX_BATCH_ORDERS} orders`);
    const orders: ModifyItem[] = [];
    for (let i = 0; i < n; i++) orders.push({ orderId: str(r), price: str(r), amount: str(r) });
    return { trader, orders, nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});

registerTxKind<NativeModifyBody>({
  kind: TxKind.NativeModify,
  name: 'ModifyOrder',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).big(b.orderId).big(b.price).big(b.size).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), orderId: r.big(), price: r.big(), size: r.big(), nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});

registerTxKind<NativeCancelByCloidBody>({
  kind: TxKind.NativeCancelByCloid,
  name: 'CancelByCloid',
  encodeBody(w, b) {
    w.address(b.owner).address(b.signer).fixed(hexToBytes(b.cloid), 16).big(b.nonce).bytes(b.signature);
    writeOptions(w, b.options);
  },
  decodeBody(r) {
    return { owner: r.address(), signer: r.address(), cloid: bytesToHex(r.fixed(16)), nonce: r.big(), signature: r.signature(), ...opts(r) };
  },
});
