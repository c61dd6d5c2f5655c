/**
 * Observer sync speed (issue 20): blocks per second at which a fresh node takes a
 * 10,000-block chain of the 6-validator devnet, checking every block as a node does, and
 * where the time goes. Baseline in the same run: the same blocks applied and committed
 * with no checks at all, so the cost of verification is a ratio.
 *
 * The chain (test/helpers/signed-chain.ts, built here in a temp folder removed at the
 * end): every block proposed by the validator drawn for it, with its VRF proof, 10
 * faucet credits each (100,000 signed transactions), committed by 5 of the 6 validators
 * (real secp256k1 precommits); block 10,000 is the devnet's first epoch boundary.
 *
 * Sync as the node does it (actors/consensus/bft.ts syncToHead, actors/p2p/p2p-actor.ts):
 * the serving side answers requests of SYNC_MAX_BLOCKS from its store (serveSync); the
 * observer decodes the answer, checks each block's commit against its height's set
 * (applySyncResponse), its VRF proof and drawn proposer (checkSyncedProposer), and
 * commits it through Chain.commit with fsync, asking again once the answer is applied.
 * Two variants: in process (serve → decode → check → apply), and over libp2p between two
 * Libp2pTransport instances in this process (TCP loopback, noise, yamux) on the sync
 * protocol. Not included: the node's actors around the commit (the chain actor's
 * mailbox; the indexer, mempool and API hearing of each block).
 *
 * Shares: serve (the server's store reads and encoding), transfer (libp2p: the request's
 * time less serve), decode, commit check (block hash and the precommit signatures,
 * against the validators' known keys), VRF + proposer check, apply (execution and the
 * state root, in memory), store write (the block's batch, fsync'd).
 */
import { decodeBlock, decodeCommit, type Block, type Commit } from '../src/codec/block';
import { Chain } from '../src/chain/chain';
import {
  applySyncResponse,
  checkSyncedProposer,
  decodeSyncRequest,
  decodeSyncResponse,
  encodeSyncRequest,
  serveSync,
  SYNC_MAX_BLOCKS,
  SYNC_REQUEST_TIMEOUT_MS,
  syncProtocol,
  type SyncedBlock,
} from '../src/chain/sync';
import { knownKeyVerifier } from '../src/consensus/signer';
import { Libp2pTransport, peerIdOfKey } from '../src/net/libp2p';
import { TOPICS, type GossipHandlers } from '../src/net/transport';
import { validatorRecord } from '../src/state/validators/records';
import { bytesToHex, equalBytes, hexToBytes } from '../src/util/bytes';
import { createLogger } from '../src/util/log';
import { DEVNET_KEYS, tempDir } from '../test/helpers/devnet';
import { buildSignedChain, type SignedChain } from '../test/helpers/signed-chain';

/** BENCH_SYNC_BLOCKS shortens the chain for a quick look; the figure is over 10,000. */
const BLOCKS = Number(process.env.BENCH_SYNC_BLOCKS ?? 10_000);
const TXS_PER_BLOCK = 10;
const VALIDATORS = 6;

type Phase = 'serve' | 'transfer' | 'decode' | 'commitCheck' | 'vrfAndProposerCheck' | 'apply' | 'storeWrite';

interface Run {
  blocksPerSec: number;
  seconds: number;
  cpuSeconds: number;
  /** Share of the run's wall time per phase (%); `other` is the loop around them. */
  sharesPct: Record<string, number>;
}

function summary(blocks: number, wallMs: number, cpu: NodeJS.CpuUsage, phases: Partial<Record<Phase, number>>): Run {
  const sharesPct: Record<string, number> = {};
  let covered = 0;
  for (const [k, v] of Object.entries(phases)) {
    sharesPct[k] = +((100 * v) / wallMs).toFixed(1);
    covered += v;
  }
  sharesPct.other = +((100 * (wallMs - covered)) / wallMs).toFixed(1);
  return { blocksPerSec: Math.round(blocks / (wallMs / 1000)), seconds: +(wallMs / 1000).toFixed(1), cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1), sharesPct };
}

/** A fresh observer's chain, fsync'd as a node's. */
function openObserver(built: SignedChain, dir: string): Promise<Chain> {
  return Chain.open({ dataDir: dir, genesis: built.genesis, genesisHash: built.genesisHash, syncWrites: true });
}

function sameHead(observer: Chain, server: Chain): void {
  if (observer.height !== server.height || !equalBytes(observer.stateRoot, server.stateRoot)) {
    throw new Error(`observer at ${observer.height} root ${bytesToHex(observer.stateRoot)}; server at ${server.height} root ${bytesToHex(server.stateRoot)}`);
  }
}

/** Baseline: the same blocks, decoded beforehand, applied and committed with no check. */
async function applyOnly(built: SignedChain, dir: string): Promise<Run> {
  const server = built.chain;
  const blocks: { block: Block; commit: Commit }[] = [];
  for (let h = 1; h <= server.height; h++) {
    const stored = (await server.store.getEncodedBlockAndCommit(h))!;
    blocks.push({ block: decodeBlock(stored.block, built.genesis.consensus.maxBlockBytes), commit: decodeCommit(stored.commit) });
  }
  const observer = await openObserver(built, dir);
  try {
    globalThis.gc?.();
    let apply = 0;
    let storeWrite = 0;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const b of blocks) {
      const s = performance.now();
      let appliedAt = s;
      await observer.commit(b.block, b.commit, undefined, undefined, () => (appliedAt = performance.now()));
      const e = performance.now();
      apply += appliedAt - s;
      storeWrite += e - appliedAt;
    }
    const run = summary(blocks.length, performance.now() - t0, process.cpuUsage(cpu0), { apply, storeWrite });
    sameHead(observer, server);
    return run;
  } finally {
    await observer.close();
  }
}

/**
 * A fresh observer syncs to `built`'s head, asking `request` for the blocks from a
 * height (it answers the encoded sync response and how long the server took to build it).
 */
async function syncObserver(built: SignedChain, dir: string, overNetwork: boolean, request: (fromHeight: number) => Promise<{ bytes: Uint8Array; serveMs: number }>): Promise<Run> {
  const server = built.chain;
  const { chainId } = built.genesis;
  const maxBlockBytes = built.genesis.consensus.maxBlockBytes;
  const observer = await openObserver(built, dir);
  try {
    // The consensus actor's verifier: the validators' keys from their records.
    const verifier = knownKeyVerifier((address) => validatorRecord(observer.state, address)?.ecdsaPubkey);
    const t: Record<Phase, number> = { serve: 0, transfer: 0, decode: 0, commitCheck: 0, vrfAndProposerCheck: 0, apply: 0, storeWrite: 0 };
    const check = (b: SyncedBlock): string | null => {
      const s = performance.now();
      const why = checkSyncedProposer(observer, observer.vrfKeyOf, observer.validatorsAt(b.block.header.height), b);
      t.vrfAndProposerCheck += performance.now() - s;
      return why;
    };
    const apply = async (b: SyncedBlock): Promise<void> => {
      const s = performance.now();
      let appliedAt = s;
      await observer.commit(b.block, b.commit, undefined, undefined, () => (appliedAt = performance.now()));
      const e = performance.now();
      t.apply += appliedAt - s;
      t.storeWrite += e - appliedAt;
    };
    globalThis.gc?.();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    while (observer.height < server.height) {
      const from = observer.height + 1;
      let s = performance.now();
      const { bytes, serveMs } = await request(from);
      const requestMs = performance.now() - s;
      t.serve += serveMs;
      t.transfer += requestMs - serveMs;
      s = performance.now();
      const response = decodeSyncResponse(bytes, maxBlockBytes);
      t.decode += performance.now() - s;
      const before = { check: t.vrfAndProposerCheck, apply: t.apply, write: t.storeWrite };
      s = performance.now();
      const { refused } = await applySyncResponse(chainId, (h) => observer.validatorsAt(h), verifier, from, response, apply, check);
      const inside = performance.now() - s;
      // What applySyncResponse spent besides the two callbacks: checkSyncedBlock (hash and commit).
      t.commitCheck += inside - (t.vrfAndProposerCheck - before.check) - (t.apply - before.apply) - (t.storeWrite - before.write);
      if (refused !== null) throw new Error(`the observer refused the bench's chain: ${refused}`);
    }
    const wallMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    sameHead(observer, server);
    const phases: Partial<Record<Phase, number>> = { ...t };
    // In process, the request's time is the serve (the rest is the call around it).
    if (!overNetwork) delete phases.transfer;
    return summary(server.height, wallMs, cpu, phases);
  } finally {
    await observer.close();
  }
}

const inProcess = (server: Chain) => async (fromHeight: number) => {
  const s = performance.now();
  const bytes = await serveSync(server.store, server.height, { fromHeight, maxBlocks: SYNC_MAX_BLOCKS });
  return { bytes, serveMs: performance.now() - s };
};

/** Two transports in this process; the server answers the sync protocol as the p2p actor does. */
async function overLibp2p<T>(built: SignedChain, run: (request: (fromHeight: number) => Promise<{ bytes: Uint8Array; serveMs: number }>) => Promise<T>): Promise<T> {
  const server = built.chain;
  const { chainId } = built.genesis;
  const protocol = syncProtocol(chainId);
  const log = createLogger({ destination: 'silent' });
  const handlers = Object.fromEntries(TOPICS.map((topic) => [topic, () => undefined])) as unknown as GossipHandlers;
  const keyServer = hexToBytes(DEVNET_KEYS.validators[1].ecdsaPrivateKey);
  const keyObserver = hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey);
  const serving = new Libp2pTransport({ chainId, privateKey: keyServer, listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log });
  await serving.start(handlers);
  let lastServeMs = 0;
  await serving.handle(protocol, async (data) => {
    const s = performance.now();
    const bytes = await serveSync(server.store, server.height, decodeSyncRequest(data));
    lastServeMs = performance.now() - s;
    return bytes;
  });
  const serverId = await peerIdOfKey(keyServer);
  const observing = new Libp2pTransport({ chainId, privateKey: keyObserver, listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [`${serving.listenAddresses()[0].split('/p2p/')[0]}/p2p/${serverId}`], log, redialMs: 200 });
  try {
    await observing.start(handlers);
    while (!observing.peers().includes(serverId)) await new Promise((r) => setTimeout(r, 20));
    return await run(async (fromHeight) => {
      const bytes = await observing.request(serverId, protocol, encodeSyncRequest({ fromHeight, maxBlocks: SYNC_MAX_BLOCKS }), SYNC_REQUEST_TIMEOUT_MS);
      return { bytes, serveMs: lastServeMs };
    });
  } finally {
    await observing.stop();
    await serving.stop();
  }
}

/** Time of a run over the baseline's: wall, and CPU (steadier on a loaded machine; fsync waits are not CPU). */
const ratio = (a: Run, base: Run) => ({ wall: +(a.seconds / base.seconds).toFixed(2), cpu: +(a.cpuSeconds / base.cpuSeconds).toFixed(2) });

export async function benchSync(): Promise<Record<string, unknown>> {
  const dirs = { server: tempDir('bench-sync-'), baseline: tempDir('bench-sync-'), local: tempDir('bench-sync-'), p2p: tempDir('bench-sync-') };
  let built: SignedChain | undefined;
  try {
    const b0 = performance.now();
    built = await buildSignedChain({ dataDir: dirs.server.path, blocks: BLOCKS, validators: VALIDATORS, faucetTxsPerBlock: TXS_PER_BLOCK });
    const buildSeconds = +((performance.now() - b0) / 1000).toFixed(1);
    const b = built;
    const baseline = await applyOnly(b, dirs.baseline.path);
    const local = await syncObserver(b, dirs.local.path, false, inProcess(b.chain));
    const p2p = await overLibp2p(b, (request) => syncObserver(b, dirs.p2p.path, true, request));
    return {
      conditions: `a chain of ${BLOCKS} blocks of the ${VALIDATORS}-validator devnet (built in ${buildSeconds} s, not measured), ${TXS_PER_BLOCK} faucet credits per block (${b.txs} signed txs), each commit signed by ${VALIDATORS - 1} of ${VALIDATORS}; observer fsyncs each block; requests of ${SYNC_MAX_BLOCKS} blocks, one at a time; libp2p: two transports in this process over TCP loopback`,
      baselineApplyCommitOnly: baseline,
      syncInProcess: local,
      syncLibp2p: p2p,
      inProcessOverBaseline: ratio(local, baseline),
      libp2pOverBaseline: ratio(p2p, baseline),
    };
  } finally {
    await built?.chain.close();
    for (const d of Object.values(dirs)) d.remove();
  }
}
