/**
 * The checker of a simulation run (sim/cluster.ts): it watches every decision, commit,
 * signed message, evidence and transaction of the honest nodes and records each broken
 * property as a Violation, with the run's trace.
 *  - SAFETY: no two honest nodes decide (or sync) different blocks at one height; every
 *    honest node's state root is the same at every height it committed; every decision
 *    carries a commit with 2/3 of the power or more in valid signatures; no honest
 *    validator sends two different signed messages for one (height, round, step)
 *    (across its restarts too); every evidence an honest node reports is valid and names
 *    the Byzantine validator; no honest node starts a block sync on the faulty
 *    validator's word alone.
 *  - LIVENESS: after the heal, every honest node commits new heights within the bound,
 *    and every transaction an honest node admitted after the heal is committed.
 *  - Evidence: when the Byzantine node equivocated often, honest nodes reported it.
 *  - The validator set of each height is the one the honest chain executed (recorded
 *    from the first honest node to commit the height before): commits are counted
 *    against it, and (sim/lifecycle-checks.ts) every signature a decision's commit
 *    carries is a member's, the set holds no jailed or tombstoned validator and never
 *    falls below activeSetMin (but by tombstones, which do not wait for the floor), and
 *    every validator seated (a joiner at its boundary, an unjailed one again) signs
 *    commits after its seating. The lifecycle events are counted there too.
 * It also keeps the run's digest: the first honest decision at each height, then the
 * honest nodes' final state roots.
 */
import { encodeCommit, type Commit } from '../src/codec/block';
import { checkEvidence, evidenceHash, evidenceHeight, evidenceOffender, type Evidence } from '../src/consensus/evidence';
import { proposalSigningHash, voteSigningHash, type ConsensusMessage } from '../src/consensus/messages';
import type { SignatureVerifier } from '../src/consensus/signer';
import type { ValidatorSet } from '../src/consensus/validator-set';
import type { Genesis } from '../src/genesis/types';
import { keccak256 } from '../src/crypto/keccak';
import type { BlockResult } from '../src/state/apply';
import type { State } from '../src/state/state';
import { bytesToHex, concatBytes, hexToBytes, utf8, type Address } from '../src/util/bytes';
import type { SimNode } from './model';
import { US, type SimNetwork } from './network';
import { peerDoubtMs } from '../src/consensus/driver-sync';
import { LifecycleChecks } from './lifecycle-checks';
import type { FaultCounts, LifecycleCounts, SimOptions, TxCounts, Violation, ViolationKind } from './options';

/** Sets kept per height (decisions and evidence arrive within a few heights of the honest head). */
const SETS_KEPT = 4_096;

/** A transaction an honest node admitted after the heal: it must be committed. */
interface Submitted {
  hash: string;
  atUs: number;
  node: number;
}

export class Checker {
  readonly violations: Violation[] = [];
  /** Height -> hash decided by the first honest node. */
  readonly #decided = new Map<number, string>();
  /** Height -> state root after it, from the first honest node that committed it. */
  readonly #roots = new Map<number, string>();
  /** Honest signer -> "h/r/step" -> signing hash of what it sent. */
  readonly #signed = new Map<Address, Map<string, string>>();
  #evidenceReported = 0;
  readonly #offences = new Set<string>();
  /** Hashes of the transactions in committed blocks. */
  readonly #committedTxs = new Set<string>();
  /** Admitted by an honest node after the heal: must be committed (checked at the end). */
  readonly #mustCommit: Submitted[] = [];
  #digest = keccak256(utf8.encode('sim-digest'));
  #healHeight = -1;
  /** When each (node, peer) pair last started a sync on a false probed head, and how many times (checkPeerClaim). */
  readonly #peerLies = new Map<string, { atMs: number; count: number }>();
  /** Syncs started on a false probed head (once per peer and cooldown). */
  peerLiesBelieved = 0;
  /** Per node: when it reached the heal height + livenessHeights (-1: not yet). */
  readonly #reachedAtUs: number[] = [];
  readonly #trace: string[] = [];
  /** Height -> the set that signs it, from the first honest node to commit the height before. */
  readonly #sets = new Map<number, ValidatorSet>();
  readonly #chainId: number;
  readonly #lifecycle: LifecycleChecks;
  /** The governance scenario's per-commit check (sim/governance.ts), when the run has it. */
  governance: { committed(node: SimNode, height: number, result: BlockResult, state: State): string | undefined } | null = null;

  constructor(
    private readonly opts: SimOptions,
    private readonly clock: SimNetwork,
    private readonly nodes: readonly SimNode[],
    private readonly byAddress: ReadonlyMap<Address, number>,
    genesis: Genesis,
    genesisSet: ValidatorSet,
    private readonly verifier: SignatureVerifier,
    /** Counted here as blocks commit (each height once); the workload counts the rest. */
    private readonly txs: TxCounts,
  ) {
    for (let i = 0; i < nodes.length; i++) this.#reachedAtUs.push(-1);
    this.#chainId = genesis.chainId;
    this.#sets.set(1, genesisSet);
    this.#lifecycle = new LifecycleChecks(genesis, genesisSet, (kind, message) => this.violation(kind, message), opts.lifecycle === true);
  }

  /** The set that signs `height` on the honest chain (undefined before an honest node committed height − 1). */
  setAt(height: number): ValidatorSet | undefined {
    return this.#sets.get(height);
  }

  /** The honest chain's set of `height`, else the one `node`'s chain knows (its head's or the next height's). */
  #setOf(node: SimNode, height: number): ValidatorSet | undefined {
    const set = this.#sets.get(height);
    if (set !== undefined || node.live === null) return set;
    try {
      return node.live.chain.validatorsAt(height);
    } catch {
      return undefined;
    }
  }

  lifecycleCounts(): LifecycleCounts {
    return { ...this.#lifecycle.counts };
  }

  /** At the end of a lifecycle run: every validator seated long enough signed after its seating. */
  checkLifecycle(): void {
    this.#lifecycle.atEnd(Math.max(...this.honest().map((x) => x.storage.height)));
  }

  get evidenceReported(): number {
    return this.#evidenceReported;
  }

  get offences(): number {
    return this.#offences.size;
  }

  get trace(): string[] {
    return [...this.#trace];
  }

  /** The height of the heal (the honest nodes' highest then), -1 before it. */
  get healHeight(): number {
    return this.#healHeight;
  }

  honest(): SimNode[] {
    return this.nodes.filter((x) => !x.byzantine);
  }

  violation(kind: ViolationKind, message: string): void {
    this.violations.push({ kind, atMs: this.clock.nowMs, message });
    this.traceLine(`VIOLATION ${kind}: ${message}`);
  }

  traceLine(line: string): void {
    if (this.opts.traceLines <= 0) return;
    this.#trace.push(`${this.clock.nowMs.toFixed(3)}ms ${line}`);
    if (this.#trace.length > this.opts.traceLines) this.#trace.shift();
  }

  // ------------------------------------------------------------------ safety

  /**
   * Safety: the first honest block at a height is the decision (and goes into the digest);
   * any other an honest node decides or syncs there is a violation. False on a violation.
   */
  holdToDecisions(node: SimNode, height: number, hash: Uint8Array, how: 'decided' | 'synced'): boolean {
    const hex = bytesToHex(hash);
    const prev = this.#decided.get(height);
    if (prev === undefined) {
      this.#decided.set(height, hex);
      this.#digest = keccak256(concatBytes(this.#digest, hash));
      return true;
    }
    if (prev === hex) return true;
    this.violation('safety', `height ${height}: node ${node.index} ${how} ${hex}, ${how === 'decided' ? 'another' : 'an'} honest node decided ${prev}`);
    return false;
  }

  /** An independent check of the commit a decision carries: a quorum (≥ 2/3) of valid precommits for the block. */
  checkCommit(node: SimNode, height: number, hash: Uint8Array, commit: Commit): void {
    let power = 0n;
    const seen = new Set<string>();
    const validators = this.#setOf(node, height);
    if (validators === undefined) return;
    const digest = voteSigningHash(this.#chainId, { type: 'precommit', height, round: commit.round, blockHash: hash });
    for (const s of commit.signatures) {
      if (seen.has(s.validator)) continue;
      seen.add(s.validator);
      if (!this.verifier.verify(digest, s.signature, s.validator)) continue;
      power += validators.powerOf(s.validator);
      this.#lifecycle.signed(node.index, height, s.validator, validators);
    }
    encodeCommit(commit); // must be canonical (sorted, no duplicates) to be carried in a block
    if (commit.height !== height || !validators.hasQuorum(power)) {
      this.violation('commit', `node ${node.index} decided ${height} with a commit of ${power} power of ${validators.totalPower}`);
    }
  }

  /** A node committed `height` (decided or synced): an honest one's state root agrees, its transactions count, its liveness progress. */
  committed(node: SimNode, height: number, result: BlockResult): void {
    if (node.byzantine) return;
    const state = node.live?.chain.height === height ? node.live.chain.state : undefined;
    const wrong = state && this.governance?.committed(node, height, result, state);
    if (wrong) this.violation('governance', wrong);
    const root = bytesToHex(result.stateRoot);
    const prev = this.#roots.get(height);
    if (prev === undefined) {
      this.#roots.set(height, root);
      this.#countCommitted(result);
      // The honest chain's set of the next height (the state roots agree, so every honest node's).
      const chain = node.live?.chain;
      if (chain !== undefined && chain.height === height) {
        const next = chain.validatorsAt(height + 1);
        this.#sets.set(height + 1, next);
        this.#sets.delete(height - SETS_KEPT);
        this.#lifecycle.onHonestBlock(height, result, chain.state, next);
      }
    } else if (prev !== root) {
      this.violation('state', `height ${height}: node ${node.index} has state root ${root}, another honest node ${prev}`);
    }
    this.#pruneSigned(node.address, height);
    if (this.#healHeight >= 0 && this.#reachedAtUs[node.index] < 0 && height >= this.#healHeight + this.opts.livenessHeights) {
      this.#reachedAtUs[node.index] = this.clock.nowUs;
    }
  }

  #countCommitted(result: BlockResult): void {
    for (const r of result.receipts) {
      this.txs.committed++;
      if (r.status === 'ok') this.txs.ok++;
      else this.txs.failed++;
      this.#committedTxs.add(r.txHash);
    }
  }

  /** Every signed message an honest node sends as its own must agree with all it sent before. */
  observeSigned(node: SimNode, m: ConsensusMessage): void {
    if (node.byzantine) return;
    // A collector's certificate (linear votes) carries its own vote among the others'.
    if (m.kind === 'votes') {
      for (const vote of m.votes) if (vote.validator === node.address) this.observeSigned(node, { kind: 'vote', vote });
      return;
    }
    let key: string;
    let digest: Uint8Array;
    if (m.kind === 'vote' && m.vote.validator === node.address) {
      key = `${m.vote.height}/${m.vote.round}/${m.vote.type}`;
      digest = voteSigningHash(this.#chainId, m.vote);
    } else if (m.kind === 'proposal' && m.proposal.proposer === node.address) {
      key = `${m.proposal.height}/${m.proposal.round}/proposal`;
      digest = proposalSigningHash(this.#chainId, m.proposal);
    } else {
      return;
    }
    let mine = this.#signed.get(node.address);
    if (mine === undefined) {
      mine = new Map();
      this.#signed.set(node.address, mine);
    }
    const hex = bytesToHex(digest);
    const prev = mine.get(key);
    if (prev === undefined) mine.set(key, hex);
    else if (prev !== hex) this.violation('double-sign', `honest node ${node.index} signed two different messages at ${key}`);
  }

  #pruneSigned(address: Address, committedHeight: number): void {
    const mine = this.#signed.get(address);
    if (mine === undefined || committedHeight % 64 !== 0) return;
    for (const key of mine.keys()) if (Number(key.slice(0, key.indexOf('/'))) < committedHeight - 64) mine.delete(key);
  }

  onEvidence(node: SimNode, e: Evidence): void {
    if (node.byzantine) return;
    this.#evidenceReported++;
    // Against the set of the offence's height (a tombstoned offender has left today's).
    const set = this.#setOf(node, evidenceHeight(e));
    if (set === undefined) return;
    const reason = checkEvidence(this.#chainId, set, this.verifier, e);
    if (reason !== null) {
      this.violation('evidence', `node ${node.index} reported invalid evidence: ${reason}`);
      return;
    }
    this.#offences.add(bytesToHex(evidenceHash(e)));
    const offender = this.byAddress.get(evidenceOffender(e));
    if (offender === undefined || !this.nodes[offender].byzantine) {
      this.violation('double-sign', `node ${node.index} holds valid evidence against honest validator ${offender}`);
    }
  }

  /**
   * A sync started by messages: more than a third of the power showed `shown`, so an
   * honest node must have been there (its chain at `shown` - 1 or beyond: a message is
   * at most one height past its sender's chain; the highest head its store ever held counts, since a crash
   * may lose a store's unsynced tail). Otherwise
   * the node synced on the word of the faulty validator.
   */
  checkBehind(node: SimNode, height: number, shown: number): void {
    const honestTop = this.#honestTop(node);
    if (honestTop + 1 < shown) {
      this.violation('sync', `node ${node.index} at height ${height} started a block sync for height ${shown}, which no honest node has reached (highest ${honestTop})`);
    }
  }

  #honestTop(node: SimNode): number {
    return Math.max(...this.nodes.filter((x) => !x.byzantine && x.index !== node.index).map((x) => x.storage.highest));
  }

  /**
   * A node starts a block sync on one peer's probed head (issue 39: never stuck behind an
   * honest peer). A head no honest node has reached is a lie: the node may believe it,
   * but each time it does, it must have waited at least peerDoubtMs (for as many misses,
   * as if the liar never answered: the shortest wait) since the last time: what a lying
   * peer may cost it.
   */
  checkPeerClaim(node: SimNode, height: number, peer: number, shown: number): void {
    if (this.#honestTop(node) >= shown) return;
    // Per incarnation: a restarted node, like a restarted process, has forgotten whom it doubted.
    const key = `${node.index}/${node.incarnation} ${peer}`;
    const last = this.#peerLies.get(key);
    const nowMs = this.clock.nowUs / US;
    if (last !== undefined && nowMs - last.atMs < peerDoubtMs(last.count, false)) {
      this.violation(
        'sync',
        `node ${node.index} at height ${height} synced on node ${peer}'s false probed head ${shown} ${Math.round(nowMs - last.atMs)} ms after the last time (the ${last.count}th), sooner than ${peerDoubtMs(last.count, false)} ms`,
      );
    }
    this.#peerLies.set(key, { atMs: nowMs, count: (last?.count ?? 0) + 1 });
    this.peerLiesBelieved++;
  }

  // ------------------------------------------------------------------ liveness

  /** The network healed with the honest nodes at most at this height. */
  healed(): void {
    this.#healHeight = Math.max(...this.honest().map((x) => x.storage.height));
    this.traceLine(`heal at height ${this.#healHeight}`);
  }

  /** A node admitted a transaction from a client: after the heal, an honest node's must be committed. */
  admitted(node: SimNode, hash: string): void {
    if (!node.byzantine && this.#healHeight >= 0) this.#mustCommit.push({ hash, atUs: this.clock.nowUs, node: node.index });
  }

  checkLiveness(): void {
    const target = this.#healHeight + this.opts.livenessHeights;
    for (const node of this.honest()) {
      if (node.storage.height < target) {
        this.violation(
          'liveness',
          `node ${node.index} at height ${node.storage.height} (round ${node.live?.driver.info().round}, step ${node.live?.driver.info().step ?? 'down'}), ` +
            `${this.opts.livenessBoundMs} ms after the heal at height ${this.#healHeight}; target ${target}`,
        );
      }
    }
  }

  /** Every transaction an honest node admitted after the heal, early enough, is in a committed block. */
  checkTxLiveness(): void {
    const deadlineUs = this.clock.nowUs - this.opts.txLivenessMs * US;
    for (const t of this.#mustCommit) {
      if (t.atUs > deadlineUs || this.#committedTxs.has(t.hash)) continue;
      this.violation('liveness', `transaction ${t.hash.slice(0, 12)} admitted by node ${t.node} at ${(t.atUs / US).toFixed(1)} ms (after the heal) was never committed`);
      return;
    }
  }

  // ------------------------------------------------------------------ at the end

  /** The Byzantine node equivocated often: some honest node must have reported it. */
  checkEvidenceSeen(byzantine: number | null, faults: FaultCounts): void {
    const equivocations = faults.doubleVote + faults.equivocatingProposal;
    if (byzantine !== null && equivocations >= 30 && this.#evidenceReported === 0 && this.violations.length === 0) {
      this.violation('evidence-missed', `the Byzantine node equivocated ${equivocations} times and no honest node reported evidence`);
    }
  }

  /** Simulated ms after the heal until every honest node had committed the new heights; -1 if never. */
  recoveryMs(): number {
    const honest = this.honest();
    if (this.#healHeight < 0 || !honest.every((x) => this.#reachedAtUs[x.index] >= 0)) return -1;
    return (Math.max(...honest.map((x) => this.#reachedAtUs[x.index])) - this.opts.faultPhaseMs * US) / US;
  }

  /**
   * With storage faults (sim/storage.ts): every corruption injected was found by a read of
   * its node and that store moved aside, and every honest node's store holds, at each
   * height up to its head, the block decided there: nothing acknowledged lost or replaced.
   */
  checkStores(faults: FaultCounts): void {
    if (faults.corruptionFound !== faults.storeCorrupted || faults.storeHealed !== faults.storeCorrupted) {
      this.violation('state', `${faults.storeCorrupted} store corruptions injected, ${faults.corruptionFound} found, ${faults.storeHealed} stores moved aside and synced again`);
    }
    for (const node of this.honest()) {
      const top = node.storage.height;
      for (let h = 1; h <= top; h++) {
        const hex = this.#decided.get(h);
        if (hex === undefined || node.storage.heightOf(hexToBytes(hex)) !== h) {
          this.violation('state', `node ${node.index}'s store at height ${h} (head ${top}) does not hold the block decided there (${hex ?? 'none'})`);
          return;
        }
      }
    }
  }

  /** The digest of the run: the decisions, then each honest node's final state root (call once, at the end). */
  finalDigest(): string {
    for (const x of this.honest()) this.#digest = keccak256(concatBytes(this.#digest, x.storage.stateRoot));
    return bytesToHex(this.#digest);
  }
}
