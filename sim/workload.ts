/**
 * The simulated clients: a seeded stream of signed transactions, drawn from the one
 * PRNG of the run, so a seed replays the same transactions (secp256k1 signing is
 * deterministic, RFC 6979).
 *
 *  - faucet credits (TxKind.Faucet), signed with the devnet faucet key, to the devnet
 *    accounts and a few fresh addresses; some exceed the per-address limit and fail in
 *    execution;
 *  - native limit and market orders (TxKind.NativePlace, EIP-712) on ETH by six devnet
 *    traders, on a grid of prices around the genesis price so they cross often: trades,
 *    positions, fees, resting orders and their locks;
 *  - cancels (TxKind.NativeCancel) of a recent order id: some cancel a resting order,
 *    most find it filled or another trader's and fail (rolled back, nonce consumed).
 *
 * Each transaction is signed when it is drawn (one native signature, ~0.1 ms); the
 * simulator draws a few per simulated second.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import '../src/codec/txs'; // registers every transaction kind
import { encodeTx, TxKind, type Tx } from '../src/codec/tx';
import { signFaucet } from '../src/codec/txs/faucet';
import { hashTypedMessage } from '../src/signing/eip712';
import { sign } from '../src/crypto/secp256k1';
import type { Genesis, PairParams } from '../src/genesis/types';
import { bytesToHex, hexToBytes, type Address } from '../src/util/bytes';
import { keccak256 } from '../src/crypto/keccak';
import type { Prng } from './prng';

interface Key {
  address: Address;
  privateKey: Uint8Array;
}

let keys: { faucet: Key; traders: Key[] } | undefined;
function devnetKeys(): { faucet: Key; traders: Key[] } {
  if (keys === undefined) {
    const file = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'genesis', 'devnet-keys.json'), 'utf8')) as {
      accounts: { address: Address; privateKey: string }[];
      faucet: { address: Address; privateKey: string };
    };
    const key = (k: { address: Address; privateKey: string }): Key => ({ address: k.address, privateKey: hexToBytes(k.privateKey) });
    keys = { faucet: key(file.faucet), traders: file.accounts.slice(0, 6).map(key) };
  }
  return keys;
}

export type WorkloadKind = 'faucet' | 'order' | 'cancel';

export class Workload {
  readonly #prng: Prng;
  readonly #chainId: number;
  readonly #pair: PairParams;
  readonly #faucet: Key;
  readonly #traders: Key[];
  readonly #recipients: Address[];
  readonly #maxUsdcPerRequest: bigint;
  #faucetNonce = 0n;
  readonly #traderNonces: bigint[];
  #ordersDrawn = 0n;

  constructor(prng: Prng, genesis: Genesis) {
    this.#prng = prng;
    this.#chainId = genesis.chainId;
    const pair = genesis.pairs.find((p) => p.symbol === 'ETH');
    if (pair === undefined || genesis.faucet === undefined) throw new Error('the simulator needs the devnet genesis: an ETH pair and a faucet');
    this.#pair = pair;
    this.#maxUsdcPerRequest = genesis.faucet.maxUsdcPerRequest;
    const k = devnetKeys();
    if (k.faucet.address !== genesis.faucet.address) throw new Error('genesis/devnet-keys.json faucet key does not match the genesis faucet');
    this.#faucet = k.faucet;
    this.#traders = k.traders;
    this.#traderNonces = this.#traders.map(() => 0n);
    // Devnet accounts, and four addresses nobody holds a key to.
    const fresh = [0, 1, 2, 3].map((i) => bytesToHex(keccak256(new TextEncoder().encode(`sim-recipient-${i}`)).subarray(12)) as Address);
    this.#recipients = [...genesis.accounts.slice(0, 8).map((a) => a.address), ...fresh];
  }

  /** The next transaction of the stream. */
  next(): { tx: Tx; kind: WorkloadKind } {
    const roll = this.#prng.float();
    if (roll < 0.25) return { tx: this.#faucetTx(), kind: 'faucet' };
    if (roll < 0.9) return { tx: this.#orderTx(), kind: 'order' };
    return { tx: this.#cancelTx(), kind: 'cancel' };
  }

  #faucetTx(): Tx {
    const p = this.#prng;
    // Up to the per-request cap, so an address crosses its per-address cap after ~10 credits (then: FAUCET_LIMIT).
    const usdc = BigInt(p.range(1, 100)) * (this.#maxUsdcPerRequest / 100n);
    const nativeWei = p.chance(0.5) ? 10n ** 18n : 0n;
    const body = signFaucet(this.#chainId, { to: p.pick(this.#recipients), usdc, nativeWei, nonce: ++this.#faucetNonce }, this.#faucet.privateKey);
    return encodeTx(this.#chainId, TxKind.Faucet, body);
  }

  #orderTx(): Tx {
    const p = this.#prng;
    const i = p.int(this.#traders.length);
    const trader = this.#traders[i];
    const pair = this.#pair;
    const side = p.int(2);
    const orderType = p.chance(0.85) ? 1 : 0;
    // Limit prices on a grid of ±5 USDC around the genesis price: buys and sells cross often.
    const price = orderType === 1 ? pair.initialPrice + BigInt(p.range(-5, 5)) * 1_000_000n : 0n;
    const size = pair.minSize + BigInt(p.range(0, 100)) * pair.lotSize;
    const leverage = p.pick([1, 2, 5, 10]);
    const nonce = ++this.#traderNonces[i];
    const message = {
      owner: trader.address,
      pairId: BigInt(pair.id),
      side: BigInt(side),
      orderType: BigInt(orderType),
      price,
      size,
      leverage: BigInt(leverage),
      nonce,
    };
    const signature = sign(hashTypedMessage(this.#chainId, 'PlaceOrder', message), trader.privateKey);
    this.#ordersDrawn++;
    return encodeTx(this.#chainId, TxKind.NativePlace, {
      owner: trader.address,
      signer: trader.address,
      pairId: pair.id,
      side,
      orderType,
      price,
      size,
      leverage,
      nonce,
      signature,
    });
  }

  #cancelTx(): Tx {
    const p = this.#prng;
    const i = p.int(this.#traders.length);
    const trader = this.#traders[i];
    // A recent order id (ids are global, given at execution): resting, filled, not yet placed, or another trader's.
    const drawn = Number(this.#ordersDrawn);
    const orderId = BigInt(p.range(Math.max(1, drawn - 20), Math.max(1, drawn)));
    const nonce = ++this.#traderNonces[i];
    const signature = sign(hashTypedMessage(this.#chainId, 'CancelOrder', { owner: trader.address, orderId, nonce }), trader.privateKey);
    return encodeTx(this.#chainId, TxKind.NativeCancel, { owner: trader.address, signer: trader.address, orderId, nonce, signature });
  }
}
