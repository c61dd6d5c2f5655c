/**
 * The validator lifecycle scenario of a simulation run (SimOptions.lifecycle, `npm run
 * sim -- --lifecycle`): the set changes while the run's faults go on, and every node
 * takes each height's set from its own executed chain.
 *
 * The run's genesis (sim/chain.ts worldGenesis) has short epochs (10 blocks), a short
 * downtime window (more than 10 of 20 missed heights jail), a jail and an unbonding of
 * two epochs, and two joiners' accounts funded: extra nodes whose keys are not in the
 * genesis set (drawn from the seed), observers until an epoch boundary seats them.
 * Operators' transactions, signed with the validators' secp256k1 keys and sent to a live
 * honest node (its pool gossips them), at times fixed by the run's own progress: the
 * scenario looks at the highest live honest node's chain every POLL_MS.
 *  1. ApproveValidator for each joiner, signed by the network's operator (devnet owner-1,
 *     genesis owners.operator; decision 159), until its approval is recorded; then
 *     RegisterValidator until its record exists: seated at the next boundary. The first
 *     joiner is a whale: it bonds 200,000,000 tokens, 20 times a genesis validator, and
 *     the power cap's water-filling (decision 158) seats it at no more than 15 % of the
 *     set's power, so the honest majority and the commits' 2/3 are what they were.
 *  2. Once both joiners are in the set: one honest genesis validator crashes and is kept
 *     down (SimNode.held: no fault's end nor the heal restarts it) until execution jails
 *     it for downtime; then it restarts and follows.
 *  3. Unjail for every jailed validator once its jail is served (an operator's habit:
 *     random crashes and partitions jail others too): seated again at the next boundary.
 *  4. After the crash of step 2, Unbond of the second joiner: it leaves the set, and its
 *     bond comes back to its balance when the unbonding window ends.
 * Besides, honest nodes submit the duplicate-vote evidence their cores find as
 * DoubleSignEvidence transactions, as the node does (sim/node.ts), and the Byzantine
 * validator is tombstoned. A transaction not yet executed is sent again after RETRY_MS.
 * The checks are sim/lifecycle-checks.ts.
 */
import { encodeTx, TxKind, type Tx } from '../src/codec/tx';
import { approvalDigest, registrationDigest, unbondDigest, unjailDigest } from '../src/codec/txs/validators';
import { signCompact64 } from '../src/crypto/secp256k1';
import { secp256k1CompressedPublicKey } from '../src/genesis/keys';
import type { ConsensusParams, GenesisAccount } from '../src/genesis/types';
import { validatorAddresses, validatorRecord } from '../src/state/validators/records';
import { approvalOf } from '../src/state/validators/approvals';
import { privateKeyToAddress } from '../src/crypto/secp256k1';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { epochOf } from '../src/state/validators/epoch';
import { bytesToHex, hexToBytes, type Address, type Hex } from '../src/util/bytes';
import type { Chain } from '../src/chain/chain';
import type { SimNode } from './model';
import { US } from './network';
import { highestHonestChain, type SimWorld } from './world';

export const LIFECYCLE_JOINERS = 2;

const TOKEN_WEI = 10n ** 18n;
/** A joiner's bond: a genesis validator's (power 10 × 10^24 wei). */
const JOIN_BOND_WEI = 10_000_000n * TOKEN_WEI;
/** The first joiner's: a whale of 20 genesis bonds (devnet's maxBondWei), capped at 15 % of the set's power once seated. */
export const WHALE_BOND_WEI = 200_000_000n * TOKEN_WEI;
const bondOf = (joiner: number) => (joiner === 0 ? WHALE_BOND_WEI : JOIN_BOND_WEI);

/** The network's operator of the run's genesis (devnet's owner-1: its key is public, genesis/devnet-keys.json). */
function devnetOperatorKey(): Uint8Array {
  const file = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'genesis', 'devnet-keys.json'), 'utf8')) as { owners: { privateKey: Hex }[] };
  return hexToBytes(file.owners[0].privateKey);
}

/** The lifecycle genesis's consensus parameters (the rest is devnet's). */
export const LIFECYCLE_CONSENSUS: Partial<ConsensusParams> = {
  epochLengthBlocks: 10,
  unbondingEpochs: 2,
  downtimeWindowBlocks: 20,
  downtimeMaxMissedBps: 5_000,
  activeSetMin: 4,
  activeSetMax: 21,
  minBondWei: 1_000n * TOKEN_WEI,
};

/** The joiners' accounts at genesis: twice the bond. */
export function lifecycleAccounts(joiners: readonly Address[]): GenesisAccount[] {
  return joiners.map((address, i) => ({ address, usdc: 0n, nativeWei: 2n * bondOf(i), label: `sim-joiner-${i}` }));
}

const POLL_MS = 100;
const RETRY_MS = 1_500;

export class LifecycleScenario {
  readonly #joiners: SimNode[];
  readonly #operatorKey = devnetOperatorKey();
  readonly #operator = privateKeyToAddress(this.#operatorKey);
  readonly #victim: SimNode;
  readonly #unbonder: SimNode;
  #victimCrashed = false;
  /** Next nonce per signer (a nonce is consumed once its transaction is in a block, executed or refused). */
  readonly #nonces = new Map<Address, bigint>();
  /** Action -> when it may be sent again (µs). */
  readonly #retryAtUs = new Map<string, number>();

  constructor(
    private readonly w: SimWorld,
    private readonly nodes: { crash(node: SimNode): void; restart(node: SimNode): Promise<void> },
    genesisValidators: number,
  ) {
    this.#joiners = w.nodes.slice(genesisValidators);
    const victim = w.nodes.find((x) => !x.joiner && !x.byzantine);
    if (victim === undefined || this.#joiners.length === 0) throw new RangeError('the lifecycle scenario needs an honest genesis validator and joiners');
    if (this.#operator !== w.genesis.owners.operator.toLowerCase()) throw new Error("genesis/devnet-keys.json owner-1 is not the run's genesis operator");
    this.#victim = victim;
    this.#unbonder = this.#joiners[this.#joiners.length - 1];
  }

  start(): void {
    this.w.net.at(POLL_MS * US, () => this.#poll());
  }

  async #poll(): Promise<void> {
    const chain = highestHonestChain(this.w);
    if (chain !== null) await this.#act(chain);
    const nextUs = this.w.net.nowUs + POLL_MS * US;
    if (nextUs < this.w.opts.durationMs * US) this.w.net.at(nextUs, () => this.#poll());
  }


  async #act(chain: Chain): Promise<void> {
    const state = chain.state;
    const status = (x: SimNode) => validatorRecord(state, x.address)?.status;
    const next = chain.validatorsAt(chain.height + 1);
    // 1. The operator's approvals, then the registrations.
    for (const [i, j] of this.#joiners.entries()) {
      if (status(j) !== undefined) continue;
      if (approvalOf(state, j.address) === undefined) this.#send(`approve-${i}`, this.#operator, (nonce) => this.#approve(j, nonce, state.head().timestampMs));
      else this.#send(`register-${i}`, j.address, (nonce) => this.#register(j, i, nonce));
    }
    // 2. The long crash, once both joiners are seated; the restart once jailed.
    if (!this.#victimCrashed && this.#joiners.every((j) => next.has(j.address))) {
      this.#victimCrashed = true;
      this.#victim.held = true;
      this.w.check.traceLine(`lifecycle: node ${this.#victim.index} goes down until jailed`);
      this.nodes.crash(this.#victim);
    }
    if (this.#victim.held && status(this.#victim) === 'jailed') {
      this.#victim.held = false;
      this.w.check.traceLine(`lifecycle: node ${this.#victim.index} jailed, restarts`);
      await this.nodes.restart(this.#victim);
    }
    // 3. Unjails, once served.
    const epoch = epochOf(chain.height + 1, this.w.genesis.consensus.epochLengthBlocks);
    for (const address of validatorAddresses(state)) {
      const rec = validatorRecord(state, address);
      const index = this.w.byAddress.get(address);
      if (rec?.status !== 'jailed' || index === undefined || epoch < rec.context.jailedUntilEpoch) continue;
      const x = this.w.nodes[index];
      this.#send(`unjail-${address}-${rec.context.jailedUntilEpoch}`, x.address, (nonce) => this.#signed(TxKind.Unjail, x, nonce, unjailDigest));
    }
    // 4. The unbond, after the crash.
    if (this.#victimCrashed && status(this.#unbonder) === 'active') {
      this.#send('unbond', this.#unbonder.address, (nonce) => this.#signed(TxKind.Unbond, this.#unbonder, nonce, unbondDigest));
    }
  }

  /** Sends the transaction `make` builds to a live honest node, at most once per RETRY_MS per action. */
  #send(action: string, signer: Address, make: (nonce: bigint) => Tx): void {
    const nowUs = this.w.net.nowUs;
    if ((this.#retryAtUs.get(action) ?? 0) > nowUs) return;
    const up = this.w.nodes.filter((x) => !x.byzantine && x.live !== null);
    if (up.length === 0) return;
    this.#retryAtUs.set(action, nowUs + RETRY_MS * US);
    const nonce = (this.#nonces.get(signer) ?? 0n) + 1n;
    this.#nonces.set(signer, nonce);
    const to = up[this.w.prng.int(up.length)];
    this.w.check.traceLine(`lifecycle: ${action} (nonce ${nonce}) to node ${to.index}`);
    this.w.submitTx(to, make(nonce));
  }

  #register(j: SimNode, i: number, nonce: bigint): Tx {
    const chainId = this.w.genesis.chainId;
    const unsigned = {
      candidate: j.address,
      vrfPubkey: bytesToHex(j.vrfPubkey),
      ecdsaPubkey: secp256k1CompressedPublicKey(bytesToHex(j.txKey)),
      name: `sim-joiner-${i}`,
      endpoint: `sim-joiner-${i}:26656`,
      bond: bondOf(i),
      nonce,
    };
    return encodeTx(chainId, TxKind.RegisterValidator, { ...unsigned, signature: signCompact64(registrationDigest(chainId, unsigned), j.txKey) });
  }

  /** The operator's approval of joiner `j`, valid for a day of block time from the head's. */
  #approve(j: SimNode, nonce: bigint, headMs: number): Tx {
    const chainId = this.w.genesis.chainId;
    const unsigned = { operator: this.#operator, candidate: j.address, expiresAtMs: headMs + 86_400_000, nonce };
    return encodeTx(chainId, TxKind.ApproveValidator, { ...unsigned, signature: signCompact64(approvalDigest(chainId, unsigned), this.#operatorKey) });
  }

  #signed(kind: TxKind.Unjail | TxKind.Unbond, x: SimNode, nonce: bigint, digest: (chainId: number, b: { validator: Address; nonce: bigint }) => Uint8Array): Tx {
    const chainId = this.w.genesis.chainId;
    const unsigned = { validator: x.address, nonce };
    return encodeTx(chainId, kind, { ...unsigned, signature: signCompact64(digest(chainId, unsigned), x.txKey) });
  }
}
