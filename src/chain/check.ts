/**
 * The end-to-end check of a stopped node's chain store (`npm run node -- check`; issue 26
 * deliver 5, decision 123). It reads everything the node wrote and checks it against
 * what commits to it, without changing the store:
 *   - LevelDB's own files: CURRENT, the MANIFEST and every .log record with its CRC-32C,
 *     before the store is opened (opening replays a log and would drop a torn tail);
 *   - every key, read once (LevelDB checks each table block it reads);
 *   - every block from the store's base (1 unless pruned, decision 132) to the head: it
 *     decodes, is at its height, its parent hash is the previous block's hash (the genesis
 *     hash for block 1; the base block of a pruned store has no block before it to hash), its hash index points back
 *     to it, its transactions hash to its txRoot and its last commit to its lastCommitHash,
 *     and its parentStateRoot is the state root stored for the height before;
 *   - every commit: it decodes and names its block's height and hash;
 *   - the light anchors (decision 128): one is stored at each height whose header names
 *     another validator set than the height before's, and none elsewhere; each holds the
 *     stored headers h − 1 and h and a set that hashes to header h's validatorsHash;
 *   - every height's receipts and block events decode;
 *   - the state: every record loads, the invariants hold, and the root recomputed equals
 *     the one committed at the head.
 * A store another process holds (a running node) is not read: StoreLockedError.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { blockHash, commitHash, merkleRoot, type BlockHeader } from '../codec/block';
import { decodeTx } from '../codec/tx';
import { keccak256 } from '../crypto/keccak';
import '../state/apply'; // registers every transaction kind's codec (decodeTx)
import { State } from '../state/state';
import { checkStoreFiles, rootMessage, storeLocked } from '../storage/corruption';
import { Bucket, ChainStore } from '../storage/db';
import { bytesToHex, equalBytes } from '../util/bytes';
import type { LightAnchor } from './light';

export class StoreLockedError extends Error {}

export interface StoreCheckResult {
  folder: string;
  sound: boolean;
  /** What was found wrong, first first (at most FINDINGS_MAX). */
  findings: string[];
  /** The head height, when it could be read. */
  height: number | undefined;
  /** The lowest height whose block is kept (1 unless pruned or restored from a snapshot). */
  base: number | undefined;
  /** Keys read, by bucket name; blocks and state records checked. */
  keys: Record<string, number>;
  blocks: number;
  stateRecords: number;
  stateRoot: string | undefined;
}

const FINDINGS_MAX = 20;
/** Transactions are decoded only to hash them: any size a block could hold. */
const TX_BYTES_ANY = 1 << 26;

export async function checkChainStore(folder: string, opts: { genesisHash?: Uint8Array } = {}): Promise<StoreCheckResult> {
  const result: StoreCheckResult = { folder, sound: false, findings: [], height: undefined, base: undefined, keys: {}, blocks: 0, stateRecords: 0, stateRoot: undefined };
  const find = (what: string): boolean => {
    if (result.findings.length < FINDINGS_MAX) result.findings.push(what);
    return result.findings.length < FINDINGS_MAX;
  };
  if (!existsSync(join(folder, 'CURRENT')) && !existsSync(folder)) throw new Error(`no chain store at ${folder}`);
  if (storeLocked(folder) === true) throw new StoreLockedError(`${folder} is in use by a running node (LevelDB's lock is held): stop the node first, then check`);
  const files = checkStoreFiles(folder);
  if (files) {
    find(files);
    return result;
  }
  if (!existsSync(join(folder, 'CURRENT'))) throw new Error(`no chain store at ${folder} (no LevelDB CURRENT file)`);
  const store = new ChainStore(folder, false);
  try {
    await store.open({ createIfMissing: false });
  } catch (err) {
    if ((err as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED') throw new StoreLockedError(`${folder} is in use by a running node: stop the node first, then check`);
    find(`LevelDB does not open it: ${rootMessage(err)}`);
    return result;
  }
  try {
    await checkOpened(store, opts, result, find);
  } finally {
    await store.close();
  }
  result.sound = result.findings.length === 0;
  return result;
}

async function checkOpened(store: ChainStore, opts: { genesisHash?: Uint8Array }, result: StoreCheckResult, find: (what: string) => boolean): Promise<void> {
  try {
    const counts = await store.countKeys();
    for (const [b, n] of [...counts].sort((x, y) => x[0] - y[0])) result.keys[Bucket[b] ?? `unknown-${b}`] = n;
  } catch (err) {
    find(`reading every key: ${rootMessage(err)}`);
    return;
  }
  const genesis = await store.genesisHash();
  if (!genesis) {
    find('no genesis record');
    return;
  }
  if (opts.genesisHash && !equalBytes(genesis, opts.genesisHash)) find(`the store belongs to genesis ${bytesToHex(genesis)}, not ${bytesToHex(opts.genesisHash)}`);
  const head = await store.headHeight();
  if (head === undefined) {
    find('no head record');
    return;
  }
  result.height = head;
  // Blocks, commits, receipts and block events, height by height, from the base on.
  const base = await store.base();
  result.base = base;
  if (base > head + 1) find(`the base ${base} is past the head ${head} + 1`);
  let prevHash: Uint8Array | undefined = genesis;
  if (base > 1) {
    // Pruned below `base`: its block's parent is not kept, so its parent hash is taken as it is.
    prevHash = (await store.getBlock(base))?.header.parentHash;
    if ((await store.getBlock(base - 1)) !== undefined) find(`height ${base - 1}: a block is kept below the base ${base}`);
  }
  let prevRoot = await store.getStateRoot(base - 1);
  if (!prevRoot) find(`no state root at height ${base - 1} (the root block ${base} builds on)`);
  let anchors: Map<number, LightAnchor>;
  try {
    anchors = new Map((await store.lightAnchors(0, head)).map((a) => [a.header.height, a]));
  } catch (err) {
    if (!find(`the light anchors do not read: ${rootMessage(err)}`)) return;
    anchors = new Map();
  }
  let prevHeader: BlockHeader | undefined;
  for (let h = base; h <= head; h++) {
    const why = await checkHeight(store, h, prevHash ?? genesis, prevRoot).catch((err) => ({ problem: `height ${h}: ${rootMessage(err)}`, hash: undefined, root: undefined, header: undefined }));
    if (why.problem && !find(why.problem)) return;
    const anchorProblem = why.header && checkAnchor(h, why.header, prevHeader, anchors.get(h));
    if (anchorProblem && !find(anchorProblem)) return;
    prevHash = why.hash ?? prevHash;
    prevRoot = why.root;
    prevHeader = why.header;
    result.blocks++;
  }
  // The state, rebuilt and compared with the root committed at the head.
  try {
    const state = new State();
    for await (const [k, v] of store.stateRecords()) {
      state.loadRecord(k, v);
      result.stateRecords++;
    }
    state.rebuildIndexes();
    state.checkInvariants();
    const root = state.root();
    result.stateRoot = bytesToHex(root);
    const committed = await store.getStateRoot(head);
    if (!committed) find(`no state root committed at the head ${head}`);
    else if (!equalBytes(root, committed)) find(`the state recomputed at the head ${head} has root ${bytesToHex(root)}; the root committed is ${bytesToHex(committed)}`);
    if (state.head().height !== head) find(`the state says its head is ${state.head().height}; the store's head record says ${head}`);
  } catch (err) {
    find(`the state does not load: ${rootMessage(err)}`);
  }
}

async function checkHeight(
  store: ChainStore,
  h: number,
  prevHash: Uint8Array,
  prevRoot: Uint8Array | undefined,
): Promise<{ problem: string | undefined; hash: Uint8Array | undefined; root: Uint8Array | undefined; header: BlockHeader | undefined }> {
  const root = await store.getStateRoot(h);
  const block = await store.getBlock(h);
  if (!block) return { problem: `height ${h}: the block is missing`, hash: undefined, root, header: undefined };
  const hd: BlockHeader = block.header;
  const hash = blockHash(hd);
  const at = (what: string) => ({ problem: `height ${h}: ${what}`, hash, root, header: undefined });
  if (hd.height !== h) return at(`the block stored there is for height ${hd.height}`);
  if (!equalBytes(hd.parentHash, prevHash)) return at(`the block's parent hash ${bytesToHex(hd.parentHash)} is not the hash of the block before (${bytesToHex(prevHash)})`);
  if ((await store.getHeightByHash(hash)) !== h) return at(`the block does not hash to the hash stored for it (${bytesToHex(hash)})`);
  if (prevRoot && !equalBytes(hd.parentStateRoot, prevRoot)) return at(`the block's parentStateRoot is not the state root stored for height ${h - 1}`);
  if (!root) return at('no state root stored');
  if (!equalBytes(merkleRoot(block.txs.map((t) => decodeTx(t, TX_BYTES_ANY).hash)), hd.txRoot)) return at("the block's transactions do not hash to its txRoot");
  if (!equalBytes(commitHash(block.lastCommit), hd.lastCommitHash)) return at("the block's last commit does not hash to its lastCommitHash");
  const commit = await store.getCommit(h);
  if (!commit) return at('the commit is missing');
  if (commit.height !== h || !equalBytes(commit.blockHash, hash)) return at(`the commit is for height ${commit.height}, block ${bytesToHex(commit.blockHash)}`);
  if (!(await store.getReceipts(h))) return at('the receipts are missing');
  await store.getBlockEvents(h);
  return { problem: undefined, hash, root, header: hd };
}

/** Whether the light anchor of height `h` is there exactly when header h names another set than header h − 1, and holds these headers: null, or what is wrong. */
function checkAnchor(h: number, header: BlockHeader, prev: BlockHeader | undefined, anchor: LightAnchor | undefined): string | null {
  if (prev === undefined) {
    // Height 1 (no header before it), or the base of a pruned store (the header before is not kept): the anchor is checked against this header alone.
    if (!anchor) return null;
    if (h === 1) return `height ${h}: a light anchor is stored where the header before is not checked`;
    if (!equalBytes(blockHash(anchor.header), blockHash(header))) return `height ${h}: the light anchor's header is not the stored block's header`;
    return equalBytes(keccak256(anchor.set), header.validatorsHash) ? null : `height ${h}: the light anchor's set does not hash to the header's validatorsHash`;
  }
  const changed = !equalBytes(header.validatorsHash, prev.validatorsHash);
  if (!anchor) return changed ? `height ${h}: the header names another validator set than height ${h - 1}'s, and no light anchor is stored for it` : null;
  if (!changed) return `height ${h}: a light anchor is stored, but the header names the same validator set as height ${h - 1}'s`;
  if (!equalBytes(blockHash(anchor.header), blockHash(header)) || !equalBytes(blockHash(anchor.prevHeader), blockHash(prev))) return `height ${h}: the light anchor's headers are not the stored blocks' headers`;
  if (!equalBytes(keccak256(anchor.set), header.validatorsHash)) return `height ${h}: the light anchor's set does not hash to the header's validatorsHash`;
  return null;
}
