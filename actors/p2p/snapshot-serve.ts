/**
 * The serving side of state sync (src/chain/state-sync-wire.ts, decision 140): what this
 * node answers on `/exchange/<chainId>/snapshot/1`. It lists the snapshots it keeps
 * (src/storage/snapshot-store.ts), sends a manifest or one chunk as written, and builds
 * light proofs (src/chain/light.ts) from its store: the light anchors after the asker's
 * trusted height up to H + 1, headers H and H + 1 and the commit of H + 1. It serves
 * only what it committed itself; the asker verifies everything anyway.
 *
 * A request for a height it no longer keeps (a deleted snapshot, a pruned block) is
 * answered NOT_FOUND, a proof that would not fit its bound REFUSED: the asker turns to
 * another peer. A request that does not decode gets no answer (the stream is reset).
 */
import { encodeHeader, type Block, type Commit } from '../../src/codec/block';
import { encodeLightProof, type LightAnchor } from '../../src/chain/light';
import { encodeValidatorSet } from '../../src/chain/validator-sets';
import type { Chain } from '../../src/chain/chain';
import { genesisSigningSet } from '../../src/chain/state-sync';
import { bytesToHex } from '../../src/util/bytes';
import {
  decodeSnapshotRequest,
  encodeOffersAnswer,
  encodeTrustedPayload,
  failAnswer,
  okAnswer,
  SNAPSHOT_CHUNK_BYTES_MAX,
  SNAPSHOT_LIGHT_PROOF_BYTES_MAX,
  SNAPSHOT_MANIFEST_BYTES_MAX,
  SnapshotRequestKind,
  SnapshotStatus,
  type SnapshotSource,
} from '../../src/chain/state-sync-wire';

/** Anchors one light proof carries at most (each a few KiB): past it the asker must trust a later height. */
export const LIGHT_PROOF_ANCHORS_MAX = 4_096;


/** What the server reads of the node's chain store (KvChainStore). */
export interface ServedChain {
  head: number;
  base(): Promise<number>;
  getBlock(height: number): Promise<Block | undefined>;
  getCommit(height: number): Promise<Commit | undefined>;
  lightAnchors(fromExclusive: number, toInclusive: number): Promise<LightAnchor[]>;
  /** The set signing height 1 (the genesis set), encoded: the set at a height before any anchor. */
  genesisSet(): Uint8Array;
}

export const SERVE_STATS = () => ({ offers: 0, manifests: 0, chunks: 0, lightProofs: 0, trusted: 0, notFound: 0, refused: 0, malformed: 0 });
export type ServeStats = ReturnType<typeof SERVE_STATS>;

/** One request's answer. Throws on a request that does not decode (the transport resets the stream). */
export async function serveSnapshotRequest(data: Uint8Array, snapshots: SnapshotSource | undefined, chain: ServedChain, stats: ServeStats = SERVE_STATS()): Promise<Uint8Array> {
  let req;
  try {
    req = decodeSnapshotRequest(data);
  } catch (err) {
    stats.malformed++;
    throw err;
  }
  const notFound = (why: string) => {
    stats.notFound++;
    return failAnswer(SnapshotStatus.NotFound, why);
  };
  const refused = (why: string) => {
    stats.refused++;
    return failAnswer(SnapshotStatus.Refused, why);
  };
  switch (req.kind) {
    case SnapshotRequestKind.Offers:
      stats.offers++;
      return encodeOffersAnswer({ base: await chain.base(), head: chain.head, snapshots: snapshots?.list() ?? [] });
    case SnapshotRequestKind.Manifest: {
      const m = await snapshots?.manifest(req.height);
      if (m === undefined) return notFound(`no snapshot at height ${req.height}`);
      if (m.length > SNAPSHOT_MANIFEST_BYTES_MAX) return refused(`the manifest of ${m.length} bytes is over ${SNAPSHOT_MANIFEST_BYTES_MAX}`);
      stats.manifests++;
      return okAnswer(m);
    }
    case SnapshotRequestKind.Chunk: {
      const c = await snapshots?.chunk(req.height, req.index);
      if (c === undefined) return notFound(`no chunk ${req.index} of a snapshot at height ${req.height}`);
      if (c.length > SNAPSHOT_CHUNK_BYTES_MAX) return refused(`chunk of ${c.length} bytes is over ${SNAPSHOT_CHUNK_BYTES_MAX}`);
      stats.chunks++;
      return okAnswer(c);
    }
    case SnapshotRequestKind.LightProof: {
      const { trustedHeight, height } = req;
      if (trustedHeight >= height) return refused(`trusted height ${trustedHeight} is not below ${height}`);
      if (height + 1 > chain.head) return notFound(`height ${height + 1} is above this node's head ${chain.head}`);
      const [header, next, nextCommit] = await Promise.all([chain.getBlock(height), chain.getBlock(height + 1), chain.getCommit(height + 1)]);
      if (header === undefined || next === undefined || nextCommit === undefined) return notFound(`blocks ${height} and ${height + 1} are not kept here (base ${await chain.base()})`);
      const anchors = await chain.lightAnchors(trustedHeight, height + 1);
      if (anchors.length > LIGHT_PROOF_ANCHORS_MAX) return refused(`${anchors.length} validator-set changes since height ${trustedHeight}, over ${LIGHT_PROOF_ANCHORS_MAX}: trust a later height`);
      const proof = encodeLightProof({ anchors, header: header.header, next: next.header, nextCommit });
      if (proof.length > SNAPSHOT_LIGHT_PROOF_BYTES_MAX) return refused(`a light proof of ${proof.length} bytes from height ${trustedHeight}, over ${SNAPSHOT_LIGHT_PROOF_BYTES_MAX}: trust a later height`);
      stats.lightProofs++;
      return okAnswer(proof);
    }
    case SnapshotRequestKind.Trusted: {
      const block = req.height >= 1 && req.height <= chain.head ? await chain.getBlock(req.height) : undefined;
      if (block === undefined) return notFound(`block ${req.height} is not kept here`);
      const anchors = await chain.lightAnchors(0, req.height);
      const set = anchors.length > 0 ? anchors[anchors.length - 1].set : chain.genesisSet();
      stats.trusted++;
      return okAnswer(encodeTrustedPayload(encodeHeader(block.header), set));
    }
  }
}

/** The genesis signing set, encoded, per genesis hash (computing it builds the genesis state). */
const genesisSets = new Map<string, Uint8Array>();

/** What the server reads of a node's chain. */
export function servedChain(chain: Chain): ServedChain {
  const store = chain.store;
  return {
    head: chain.height,
    base: () => store.base(),
    getBlock: (h) => store.getBlock(h),
    getCommit: (h) => store.getCommit(h),
    lightAnchors: (from, to) => store.lightAnchors(from, to),
    genesisSet: () => {
      const key = bytesToHex(chain.genesisHash);
      let set = genesisSets.get(key);
      if (set === undefined) genesisSets.set(key, (set = encodeValidatorSet(genesisSigningSet(chain.genesis, chain.genesisHash))));
      return set;
    },
  };
}
