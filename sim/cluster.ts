/**
 * Deterministic simulation of a whole validator set in one process: every validator's
 * ConsensusCore, block validation (ChainConsensusApp), mempool (TxPool) and execution
 * (applyBlock over a State from the run's genesis), the real code, over a simulated
 * transport and a simulated clock, all driven by ONE seeded PRNG and one event queue
 * ordered by (time, insertion order). The same seed replays the same run exactly.
 *
 * This file is the driver: it builds the run from its seed (validators, their signing
 * and VRF keys, links, clock skews, the Byzantine one, the workload), plans the faults,
 * runs the queue to the end, heals the network at the end of the fault phase, and reports. Its parts:
 *  - sim/options.ts: what a run is asked and answers;
 *  - sim/network.ts: the clock, the event queue, the links and per-message faults;
 *  - sim/faults.ts: the fault plan (partitions, crashes; scripted ones for the tests);
 *  - sim/model.ts, sim/node.ts: what a node is and does: the node's own consensus
 *    driver (src/consensus/driver.ts) over the run's clock, network and disk, crash,
 *    boot; sim/mailbox.ts: what the driver handles, in order; sim/sync.ts: block sync
 *    over the network; sim/byzantine.ts: the faulty validator's harness;
 *  - sim/checks.ts: safety, liveness and evidence, checked as the run goes;
 *  - sim/workload.ts, sim/chain.ts, sim/storage.ts: the transactions clients send, the
 *    run's genesis and validator sets, a node's storage (the real Chain over an
 *    in-memory store with a disk's faults: lost writes, corruption, a full disk);
 *  - sim/lifecycle.ts, sim/lifecycle-checks.ts: the validator lifecycle scenario
 *    (joiners, jails, unjails, an unbond, a tombstone) and its checks;
 *  - sim/governance.ts: the owner governance scenario (a parameter change) and its check.
 *
 * A seeded workload (faucet credits, signed orders, cancels) submits transactions to
 * random nodes' pools; a pool that admits one gossips its bytes to the other nodes'
 * pools over the same faulty network, as the node's mempool does.
 */
import { performance } from 'node:perf_hooks';
import { Secp256k1Signer, secp256k1Verifier, type SignatureVerifier, type Signer } from '../src/consensus/signer';
import { DEVNET_TIMEOUTS, timeoutConfig, type TimeoutConfig } from '../src/consensus/params';
import type { VrfScheme } from '../src/consensus/proposer-vrf';
import { ValidatorSet } from '../src/consensus/validator-set';
import type { Tx } from '../src/codec/tx';
import { keccak256 } from '../src/crypto/keccak';
import { privateKeyToAddress } from '../src/crypto/secp256k1';
import { secp256k1CompressedPublicKey } from '../src/genesis/keys';
import type { Genesis, GenesisValidator } from '../src/genesis/types';
import { TxError } from '../src/state/errors';
import type { Address } from '../src/util/bytes';
import { bytesToHex, utf8 } from '../src/util/bytes';
import { SetsOf, worldGenesis } from './chain';
import { SimStorage } from './storage';
import { Checker } from './checks';
import { LIFECYCLE_CONSENSUS, LIFECYCLE_JOINERS, LifecycleScenario, lifecycleAccounts } from './lifecycle';
import { GOVERNANCE_CONSENSUS, GovernanceScenario } from './governance';
import { FastSigner, FastVerifier } from './fast-signer';
import { FastVrf, SharedVrf } from './fast-vrf';
import { planFaults } from './faults';
import type { SimNode } from './model';
import { SimNetwork, US, type SimEvent } from './network';
import { NodeModel } from './node';
import { DEFAULT_SIM_OPTIONS, FAULT_KINDS, type FaultCounts, type SimOptions, type SimResult, type SyncCounts, type TxCounts, type Violation } from './options';
import { Prng } from './prng';
import { Workload } from './workload';
import type { SimWorld } from './world';

export {
  DEFAULT_SIM_OPTIONS,
  FAULT_KINDS,
  type FaultCounts,
  type FaultKind,
  type LifecycleCounts,
  type SimOptions,
  type SimResult,
  type SyncCounts,
  type TxCounts,
  type Violation,
  type ViolationKind,
} from './options';

/** A genesis validator's bond per unit of SimOptions.powers, wei. */
const BOND_PER_POWER_WEI = 10n ** 24n;

class Simulation implements SimWorld {
  readonly opts: SimOptions;
  readonly prng: Prng;
  readonly storagePrng: Prng;
  readonly nodes: SimNode[] = [];
  readonly byAddress = new Map<Address, number>();
  readonly sets: SetsOf;
  readonly genesisSet: ValidatorSet;
  readonly verifier: SignatureVerifier;
  readonly vrf: VrfScheme;
  readonly genesis: Genesis;
  readonly genesisHash: Uint8Array;
  readonly timeouts: TimeoutConfig;
  readonly net: SimNetwork;
  readonly check: Checker;
  readonly faults: FaultCounts = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as FaultCounts;
  readonly txs: TxCounts = { submitted: 0, admitted: 0, refused: 0, gossipAdmitted: 0, committed: 0, ok: 0, failed: 0 };
  readonly sync: SyncCounts = { requests: 0, answers: 0, blocksApplied: 0, refused: 0, timeouts: 0, aheadIgnored: 0, peerSyncs: 0 };
  readonly tally = { messagesDelivered: 0, proposalsUntimely: 0, fromNonValidators: 0 };
  readonly #model: NodeModel;
  readonly #workload: Workload;
  #txPerSecond = 0;
  #byzantine: number | null = null;
  #observer: { node: SimNode; linkedTo: number } | null = null;
  readonly #lifecycle: LifecycleScenario | null;
  readonly #governance: GovernanceScenario | null;

  constructor(opts: SimOptions) {
    this.opts = opts;
    this.prng = new Prng(opts.seed);
    // A stream of its own (the seed's high half): the storage faults draw nothing from the run's.
    this.storagePrng = new Prng(opts.seed + 2 ** 32);
    const n = opts.validators;
    if (!Number.isInteger(n) || n < 1) throw new RangeError('validators must be >= 1');
    if (opts.faultPhaseMs > opts.durationMs) throw new RangeError('faultPhaseMs must not exceed durationMs');
    this.timeouts = timeoutConfig(DEVNET_TIMEOUTS, opts.timeouts);
    // The genesis validators, then (lifecycle scenario) the joiners, observers at the start.
    // Every key is a secp256k1 key whose address is the validator's, so that its
    // transactions (RegisterValidator, Unbond, Unjail) are signed for real; with --crypto
    // fast its consensus messages are signed by the sim-only MAC (sim/fast-signer.ts).
    const joiners = opts.lifecycle ? LIFECYCLE_JOINERS : 0;
    const secrets: Uint8Array[] = [];
    for (let i = 0; i < n; i++) secrets.push(keccak256(utf8.encode(`sim-validator-${opts.seed}-${i}`)));
    for (let j = 0; j < joiners; j++) secrets.push(keccak256(utf8.encode(`sim-joiner-${opts.seed}-${j}`)));
    if (opts.oneLinkObserver && opts.lifecycle) throw new RangeError('oneLinkObserver is not for the lifecycle scenario');
    if (opts.oneLinkObserver) secrets.push(keccak256(utf8.encode(`sim-observer-${opts.seed}`)));
    const signers: Signer[] = [];
    const fast: FastSigner[] = [];
    for (const secret of secrets) {
      if (opts.crypto === 'real') {
        signers.push(new Secp256k1Signer(secret));
      } else {
        const s = new FastSigner(secret, privateKeyToAddress(secret));
        fast.push(s);
        signers.push(s);
      }
    }
    this.verifier = opts.crypto === 'real' ? secp256k1Verifier : new FastVerifier(fast);
    // Each validator's VRF key: the real ECVRF with --crypto real (verified once per world), a stand-in otherwise (sim/fast-vrf.ts).
    const vrf = opts.crypto === 'real' ? new SharedVrf() : new FastVrf();
    const vrfSecrets = signers.map((_, i) => keccak256(utf8.encode(i < n ? `sim-validator-vrf-${opts.seed}-${i}` : `sim-joiner-vrf-${opts.seed}-${i - n}`)));
    const vrfKeys = signers.map((_, i) => vrf.publicKey(vrfSecrets[i]));
    this.vrf = vrf;
    const powers = opts.powers ?? signers.slice(0, n).map(() => 10n);
    if (powers.length !== n) throw new RangeError('one power per validator');
    // The genesis of the run: its validators' keys, bonds of power × 10^24 wei (devnet's
    // 10^25 for the default power 10), and the lifecycle scenario's parameters and accounts.
    const genesisValidators: GenesisValidator[] = signers.slice(0, n).map((s, i) => ({
      name: `sim-${i}`,
      address: s.address,
      ecdsaPubkey: secp256k1CompressedPublicKey(bytesToHex(secrets[i])),
      vrfPubkey: bytesToHex(vrfKeys[i]),
      bondWei: powers[i] * BOND_PER_POWER_WEI,
      endpoint: `sim-${i}:26656`,
    }));
    const consensus = { ...(opts.lifecycle ? LIFECYCLE_CONSENSUS : {}), ...(opts.governance ? GOVERNANCE_CONSENSUS : {}) };
    const world = opts.lifecycle
      ? worldGenesis(genesisValidators, consensus, lifecycleAccounts(signers.slice(n).map((s) => s.address)))
      : worldGenesis(genesisValidators, consensus);
    this.genesis = world.genesis;
    this.genesisHash = world.hash;
    this.sets = new SetsOf(opts.unsafeQuorum);
    this.genesisSet = this.sets.make(genesisValidators.map((v) => ({ address: v.address, power: v.bondWei })));
    for (const [i, s] of signers.entries()) {
      this.byAddress.set(s.address, i);
      this.nodes.push({
        index: i,
        signer: s,
        txKey: secrets[i],
        vrfSecret: vrfSecrets[i],
        vrfPubkey: vrfKeys[i],
        address: s.address,
        byzantine: false,
        joiner: i >= n,
        held: false,
        storage: new SimStorage(`sim/node-${i}/chain`),
        live: null,
        incarnation: 0,
        clockSkewMs: 0,
      });
    }
    // The PRNG's draws, in this order: link delays, clock skews, the workload's rate, the Byzantine validator.
    this.net = new SimNetwork(this.nodes.length, this.prng, this.faults);
    this.check = new Checker(opts, this.net, this.nodes, this.byAddress, this.genesis, this.genesisSet, this.verifier, this.txs);
    if (opts.faults) for (const node of this.nodes) node.clockSkewMs = this.prng.uniform(-opts.clockSkewMs, opts.clockSkewMs);
    this.#workload = new Workload(this.prng, this.genesis);
    this.#txPerSecond = opts.txPerSecond ?? this.prng.uniform(2, 10);
    if (opts.byzantine && n > 1) {
      this.#byzantine = this.prng.int(n);
      const byz = this.nodes[this.#byzantine];
      byz.byzantine = true;
      // Lifecycle: its double votes must convict it in execution, which recovers secp256k1 signatures.
      if (opts.lifecycle && this.verifier instanceof FastVerifier) {
        byz.signer = new Secp256k1Signer(byz.txKey);
        this.verifier.signsForReal(byz.address);
      }
    }
    if (opts.oneLinkObserver) {
      // The follower with one peer: every link but the two to the first honest genesis validator severed for the run.
      const observer = this.nodes[this.nodes.length - 1];
      const linkedTo = this.nodes.findIndex((x) => !x.byzantine);
      const links: [number, number][] = [];
      for (const x of this.nodes) if (x.index !== observer.index && x.index !== linkedTo) links.push([x.index, observer.index], [observer.index, x.index]);
      this.net.sever(links);
      this.#observer = { node: observer, linkedTo };
    }
    this.#model = new NodeModel(this);
    this.#lifecycle = opts.lifecycle ? new LifecycleScenario(this, this.#model, n) : null;
    this.#governance = opts.governance ? new GovernanceScenario(this) : null;
    this.check.governance = this.#governance;
  }

  get nowMs(): number {
    return this.net.nowMs;
  }

  get violations(): readonly Violation[] {
    return this.check.violations;
  }

  async run(): Promise<SimResult> {
    const wallStart = performance.now();
    planFaults(this, this.#model);
    for (const node of this.nodes) await this.#model.boot(node);
    const observer = this.#observer;
    if (observer !== null) {
      const { cutFromMs, cutToMs } = this.opts.oneLinkObserver as { cutFromMs: number; cutToMs: number };
      const link: [number, number][] = [
        [observer.node.index, observer.linkedTo],
        [observer.linkedTo, observer.node.index],
      ];
      this.net.at(cutFromMs * US, () => {
        this.check.traceLine(`the observer (node ${observer.node.index}) loses its one peer, node ${observer.linkedTo}`);
        this.net.cutLinks(link, 1);
      });
      this.net.at(cutToMs * US, () => {
        this.check.traceLine(`the observer (node ${observer.node.index}) has its one peer again`);
        this.net.cutLinks(link, -1);
      });
    }
    const endUs = this.opts.durationMs * US;
    const healUs = this.opts.faultPhaseMs * US;
    this.net.at(healUs, () => this.#heal());
    this.net.at(healUs + this.opts.livenessBoundMs * US, () => this.check.checkLiveness());
    this.net.at(endUs, () => this.check.checkTxLiveness());
    this.#scheduleSubmit();
    this.#lifecycle?.start();
    this.#governance?.start();
    await this.#settle();
    for (let ev = this.net.next(endUs); ev !== undefined; ev = this.net.next(endUs)) {
      await this.#process(ev);
      await this.#settle();
      if (this.opts.stopOnViolation && this.check.violations.length > 0) break;
    }
    return this.#result(performance.now() - wallStart);
  }

  async #process(ev: SimEvent): Promise<void> {
    switch (ev.kind) {
      case 'deliver':
        return this.#model.deliver(ev);
      case 'action':
        await ev.run();
        return;
    }
  }

  /** Until every node is idle or waits on a later event (sim/mailbox.ts): what an event started has run. */
  async #settle(): Promise<void> {
    for (let again = true; again; ) {
      again = false;
      for (const node of this.nodes) {
        const busy = node.live?.mailbox.busy();
        if (busy) {
          again = true;
          await busy;
        }
      }
    }
  }

  /** The end of the fault phase: every link up, no more message faults, every crashed node restarted. */
  async #heal(): Promise<void> {
    this.net.heal();
    for (const node of this.nodes) if (node.live === null && !node.held) await this.#model.restart(node);
    this.check.healed();
  }

  // ------------------------------------------------------------------ transactions

  /** The workload: the next transaction after an exponential gap (a Poisson stream of txPerSecond). */
  #scheduleSubmit(): void {
    if (this.#txPerSecond <= 0) return;
    const gapUs = Math.max(1, Math.round((-Math.log(1 - this.prng.float()) / this.#txPerSecond) * 1e6));
    const atUs = this.net.nowUs + gapUs;
    if (atUs > this.opts.durationMs * US) return;
    this.net.at(atUs, () => {
      this.#submit();
      this.#scheduleSubmit();
    });
  }

  /** A client sends a transaction to one node: its pool checks it, and gossips it when admitted. */
  #submit(): void {
    const { tx } = this.#workload.next();
    this.submitTx(this.nodes[this.prng.int(this.nodes.length)], tx);
  }

  /** A transaction sent to `node`: its pool checks it, and gossips it when admitted; false when refused. */
  submitTx(node: SimNode, tx: Tx): boolean {
    this.txs.submitted++;
    const live = node.live;
    if (live === null) {
      this.txs.refused++;
      return false;
    }
    try {
      live.pool.add(tx);
    } catch (err) {
      if (!(err instanceof TxError)) {
        this.check.violation('exception', `node ${node.index}'s pool threw on a submitted transaction: ${(err as Error).stack ?? String(err)}`);
      }
      this.txs.refused++;
      return false;
    }
    this.txs.admitted++;
    this.check.admitted(node, bytesToHex(tx.hash));
    this.net.broadcast(node.index, 'tx', tx.bytes);
    return true;
  }

  // ------------------------------------------------------------------ the result

  #result(wallMs: number): SimResult {
    this.check.checkEvidenceSeen(this.#byzantine, this.faults);
    if (this.opts.storageFaults) {
      for (const node of this.nodes) this.faults.corruptionFound += node.storage.corruptions.detected;
      this.check.checkStores(this.faults);
    }
    if (this.opts.lifecycle) this.check.checkLifecycle();
    const recoveryMs = this.check.recoveryMs();
    const heights = this.check.honest().map((x) => x.storage.height);
    return {
      seed: this.opts.seed,
      simulatedMs: this.nowMs,
      wallMs,
      heights: Math.max(...heights),
      minHonestHeight: Math.min(...heights),
      byzantine: this.#byzantine,
      faults: { ...this.faults },
      messagesDelivered: this.tally.messagesDelivered,
      evidenceReported: this.check.evidenceReported,
      evidenceOffences: this.check.offences,
      txs: { ...this.txs },
      lifecycle: this.check.lifecycleCounts(),
      ...(this.#governance ? { governance: this.#governance.counts() } : {}),
      sync: { ...this.sync },
      proposalsUntimely: this.tally.proposalsUntimely,
      recoveryMs,
      ...(this.#observer ? { observer: { linkedTo: this.#observer.linkedTo, height: this.#observer.node.storage.height } } : {}),
      violations: [...this.check.violations],
      digest: this.check.finalDigest(),
      trace: this.check.trace,
    };
  }
}

export async function runSeed(seed: number, overrides: Partial<Omit<SimOptions, 'seed'>> = {}): Promise<SimResult> {
  return new Simulation({ ...DEFAULT_SIM_OPTIONS, ...overrides, seed }).run();
}
