/**
 * The owner governance scenario of a simulation run (SimOptions.governance, decision 76):
 * a parameter change made by the devnet owners (their public keys, genesis/devnet-keys.json)
 * while the run's faults go on, to show that every node takes it at the same height.
 *
 * The run's genesis has a short routine timelock (GOVERNANCE_CONSENSUS). The scenario
 * looks at the highest live honest node's chain every POLL_MS and sends, to a live honest
 * node (its pool gossips them): owner 0's proposal of SetParam(takerFeeBps =
 * GOVERNANCE_TAKER_FEE_BPS) until its record exists (always the same bytes, nonce 1, so
 * its operation id is known), owner 1's approval while it is proposed, owner 2's execution
 * once the head's block time reaches its ready time, each sent again after RETRY_MS while
 * its step has not happened.
 *
 * The check (`committed`, called by sim/checks.ts for every honest node's every committed
 * height): the first honest node to commit the executing block fixes the execution height
 * E; every honest node's state after a height h < E holds the genesis fee and after
 * h ≥ E the new one (blocks from E + 1 execute with it). Anything else is a 'governance'
 * violation. The state-root check (sim/checks.ts) covers the rest of the state.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeTx, TxKind, type Tx } from '../src/codec/tx';
import { actionDigest, GovOpKind, GovParam, operationIdOf, proposeDigest, type GovActionType, type GovOperation } from '../src/codec/txs/governance';
import { privateKeyToAddress, signCompact64 } from '../src/crypto/secp256k1';
import type { ConsensusParams } from '../src/genesis/types';
import type { BlockResult } from '../src/state/apply';
import type { State } from '../src/state/state';
import { hexToBytes, type Address, type Hex } from '../src/util/bytes';
import type { Chain } from '../src/chain/chain';
import type { SimNode } from './model';
import { US } from './network';
import type { GovernanceCounts } from './options';
import { highestHonestChain, type SimWorld } from './world';

/** The governance genesis's consensus parameters: a routine timelock of two seconds. */
export const GOVERNANCE_CONSENSUS: Partial<ConsensusParams> = { timelockRoutineMs: 2_000 };
export const GOVERNANCE_TAKER_FEE_BPS = 7;

const POLL_MS = 100;
const RETRY_MS = 1_500;

interface Owner {
  priv: Uint8Array;
  address: Address;
}

function devnetOwners(): Owner[] {
  const file = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'genesis', 'devnet-keys.json'), 'utf8')) as { owners: { privateKey: Hex }[] };
  return file.owners.map((o) => {
    const priv = hexToBytes(o.privateKey);
    return { priv, address: privateKeyToAddress(priv) };
  });
}

export class GovernanceScenario {
  readonly #owners: Owner[];
  readonly #operation: GovOperation = { kind: GovOpKind.SetParam, param: GovParam.TakerFeeBps, value: BigInt(GOVERNANCE_TAKER_FEE_BPS) };
  readonly #proposal: Tx;
  readonly #id: Hex;
  readonly #nonces = new Map<Address, bigint>();
  readonly #retryAtUs = new Map<string, number>();
  #genesisFeeBps = -1;
  /** The execution height on the honest chain; 0 until known. */
  #executedHeight = 0;
  /** Honest nodes that committed a height ≥ the execution height, with the new value. */
  readonly #applied = new Set<number>();

  constructor(private readonly w: SimWorld) {
    this.#owners = devnetOwners();
    const genesisOwners = w.genesis.owners.addresses.map((a) => a.toLowerCase());
    if (this.#owners.some((o, i) => o.address.toLowerCase() !== genesisOwners[i])) throw new Error('genesis/devnet-keys.json owners do not match the genesis owners');
    const chainId = w.genesis.chainId;
    const proposer = this.#owners[0];
    const unsigned = { proposer: proposer.address, operation: this.#operation, nonce: 1n };
    this.#nonces.set(proposer.address, 1n);
    this.#proposal = encodeTx(chainId, TxKind.GovernancePropose, { ...unsigned, signature: signCompact64(proposeDigest(chainId, unsigned), proposer.priv) });
    this.#id = operationIdOf(chainId, unsigned);
    this.#genesisFeeBps = w.genesis.fees.takerFeeBps;
  }

  start(): void {
    this.w.net.at(POLL_MS * US, () => this.#poll());
  }

  counts(): GovernanceCounts {
    return { executedHeight: this.#executedHeight, nodesApplied: this.#applied.size };
  }

  #poll(): void {
    const chain = highestHonestChain(this.w);
    if (chain !== null) this.#act(chain);
    const nextUs = this.w.net.nowUs + POLL_MS * US;
    if (nextUs < this.w.opts.durationMs * US) this.w.net.at(nextUs, () => this.#poll());
  }


  #act(chain: Chain): void {
    const rec = chain.state.governance.get(this.#id);
    if (rec === undefined) return this.#send('propose', () => this.#proposal);
    if (rec.state === 'proposed') return this.#send('approve', () => this.#action('GovernanceApprove', this.#owners[1]));
    if ((rec.state === 'approved' || rec.state === 'ready') && chain.state.head().timestampMs >= rec.context.readyAtMs) {
      this.#send('execute', () => this.#action('GovernanceExecute', this.#owners[2]));
    }
  }

  #send(action: string, make: () => Tx): void {
    const nowUs = this.w.net.nowUs;
    if ((this.#retryAtUs.get(action) ?? 0) > nowUs) return;
    const up = this.w.nodes.filter((x) => !x.byzantine && x.live !== null);
    if (up.length === 0) return;
    this.#retryAtUs.set(action, nowUs + RETRY_MS * US);
    const to = up[this.w.prng.int(up.length)];
    this.w.check.traceLine(`governance: ${action} to node ${to.index}`);
    this.w.submitTx(to, make());
  }

  #action(type: GovActionType, by: Owner): Tx {
    const chainId = this.w.genesis.chainId;
    const nonce = (this.#nonces.get(by.address) ?? 0n) + 1n;
    this.#nonces.set(by.address, nonce);
    const unsigned = { owner: by.address, operationId: this.#id, nonce };
    const kind = type === 'GovernanceApprove' ? TxKind.GovernanceApprove : TxKind.GovernanceExecute;
    return encodeTx(chainId, kind, { ...unsigned, signature: signCompact64(actionDigest(chainId, type, unsigned), by.priv) });
  }

  /** An honest node committed `height`, leaving `state`: the fee it holds is the one the execution height says. Returns a violation message, or undefined. */
  committed(node: SimNode, height: number, result: BlockResult, state: State): string | undefined {
    if (this.#executedHeight === 0 && result.receipts.some((r) => r.events.some((e) => e.type === 'GovernanceOperation' && e.operationId === this.#id && e.state === 'executed'))) {
      this.#executedHeight = height;
    }
    const fee = state.params().fees.takerFeeBps;
    const expected = this.#executedHeight > 0 && height >= this.#executedHeight ? GOVERNANCE_TAKER_FEE_BPS : this.#genesisFeeBps;
    if (fee !== expected) return `node ${node.index} holds takerFeeBps ${fee} after height ${height}, expected ${expected} (executed at ${this.#executedHeight || 'not yet'})`;
    if (expected === GOVERNANCE_TAKER_FEE_BPS) this.#applied.add(node.index);
    return undefined;
  }
}
