/**
 * GET /status: the node's live view: head, state root, genesis, and each actor's state and
 * counters; its software version and the software upgrade scheduled, if any (decision 77);
 * the bridge's reserve check and its watcher's and relayer's counters (decision 85); the
 * transaction signatures recovered and reused (issue 25, decision 109); the disk
 * (`storage` "ok" or "full", `disk`: decision 121); what it keeps (`retained`: the
 * chain's block range and the index's, decision 135).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { bytesToHex } from '../../util/bytes';
import { ok } from '../envelope';
import { lowestHeight } from '../pruned';
import { upgradeOf } from '../../state/governance/upgrade';
import { bridgeStatus, bridgeStatusSchema } from './bridge';
import { addr, arr, bool, envelope, errorResponses, EX, hex, int, nullable, num, obj, openObj, str } from '../schemas';

const statusSchema = obj({
  chain: str('The network name.'),
  chainId: int(),
  genesisHash: hex(),
  height: int('Height of the last block applied.'),
  latestBlockHash: hex(),
  latestBlockTimeMs: int(),
  stateRoot: hex('State root after the head block.'),
  syncing: bool('Catching up by block sync.'),
  sync: obj({ height: int(), target: int('The highest head peers have shown.'), blocksPerSecond: num('Of the last sync that applied any; 0 before one.') }),
  validator: nullable(obj({ address: addr(), status: str('Lifecycle state in the validator records; `observer` without a record.') })),
  peers: arr(str(), 'Connected peer ids.'),
  p2p: nullable(openObj('The p2p transport: identity, peers, listen addresses and counters; null without p2p.', { peerId: str(), peers: arr(str()), listen: arr(str()), stats: {} })),
  consensus: nullable(openObj('Consensus\u2019s view (height, round, step, sync and evidence counters); null on a solo or follower node.')),
  validators: arr(obj({ name: str(), address: addr(), votingPower: str('Genesis bond, wei.'), endpoint: str() }), 'The genesis validators.'),
  actors: openObj('Each running part\u2019s lifecycle state and mailbox counters, by name.'),
  version: str('The node\u2019s software version.'),
  upgrade: nullable(obj({ version: str(), height: int(), operationId: hex() })),
  bridge: nullable(bridgeStatusSchema),
  signatures: obj({
    recovered: int('Transaction signatures this node recovered (at the REST door, the mempool or execution).'),
    reused: int('Times a signer this node recovered served again instead of a recovery (a transaction is recovered once per node: issue 25).'),
    byKind: openObj('The same two counters by transaction kind, e.g. `RestBatch: { recovered, reused }`.'),
  }),
  storage: str('"full" while a write failed for lack of space (writes answer 503 STORAGE_UNAVAILABLE); "ok" otherwise.'),
  disk: obj({
    folder: str('The folder whose write failed; the data folder when ok.'),
    freeBytes: nullable(int('Bytes free to the node in that folder\u2019s file system (statfs).')),
    waiting: arr(str(), 'The writers waiting for space: chain, privval, index.'),
  }),
  retained: obj({
    blocks: obj({
      lowestHeight: int('The lowest height whose block, commit and receipts this node keeps (1 unless it prunes; lower heights answer 410 PRUNED).'),
      highestHeight: int('The head.'),
    }),
    index: nullable(
      obj({
        fromHeight: int('The first height the index holds (above 1 when it started past a pruned or restored chain).'),
        toHeight: int('The last height indexed.'),
        lowestTime: obj(
          { trades: nullable(int()), fills: nullable(int()), candles: nullable(int()), orders: nullable(int()) },
          [],
        ),
      }),
    ),
  }),
});

const statusExample = {
  chain: 'devnet', chainId: 713799, genesisHash: EX.hash, height: 1024, latestBlockHash: EX.hash, latestBlockTimeMs: EX.timestampMs, stateRoot: EX.hash,
  syncing: false, sync: { height: 1024, target: 1024, blocksPerSecond: 0 }, validator: { address: EX.address, status: 'active' }, peers: [], p2p: null, consensus: null,
  validators: [{ name: 'v0', address: EX.address, votingPower: '1000000000000000000', endpoint: '127.0.0.1:7000' }], actors: { chain: { state: 'running' } }, version: '0.1.0', upgrade: null, bridge: null,
  signatures: { recovered: 2, reused: 3, byKind: { RestOrder: { recovered: 2, reused: 3 } } },
  storage: 'ok', disk: { folder: '/var/lib/exchain', freeBytes: 52_428_800_000, waiting: [] },
  retained: { blocks: { lowestHeight: 1, highestHeight: 1024 }, index: { fromHeight: 1, toHeight: 1024, lowestTime: { trades: null, fills: null, candles: null, orders: null } } },
};

export const statusRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  app.get('/status', {
    schema: {
      tags: ['node'],
      summary: 'The node\u2019s live view',
      description: 'Head, state root, genesis, sync progress, this node\u2019s validator key and state, p2p, consensus, each actor\u2019s state and counters, the software version and any scheduled upgrade, and the bridge\u2019s reserve check.',
      response: { 200: envelope(statusSchema, statusExample), ...errorResponses },
    },
  }, async () => {
    const chain = node.chain();
    const status = node.status();
    return ok({
      chain: node.genesis.network,
      chainId: chain.chainId,
      genesisHash: bytesToHex(chain.genesisHash),
      height: chain.height,
      latestBlockHash: bytesToHex(chain.lastBlockHash),
      latestBlockTimeMs: chain.lastTimestampMs,
      stateRoot: bytesToHex(chain.stateRoot),
      syncing: status.syncing,
      sync: status.sync,
      validator: status.validator,
      peers: status.p2p?.peers ?? [],
      p2p: status.p2p,
      consensus: status.consensus,
      validators: node.genesis.validators.map((v) => ({ name: v.name, address: v.address, votingPower: String(v.bondWei), endpoint: v.endpoint })),
      actors: status.actors,
      version: node.version,
      upgrade: upgradeOf(chain.state) ?? null,
      bridge: bridgeStatus(node),
      signatures: status.signatures,
      ...storageFields(node),
      retained: await retainedFields(node),
    });
  });
};

/** The kept ranges (decision 135): blocks from the store's base to the head; the index's heights and, per kind, the oldest block time kept (null: none deleted). */
async function retainedFields(node: NodeApi) {
  const chain = node.chain();
  const idx = await node.indexAt(0);
  return {
    blocks: { lowestHeight: await lowestHeight(chain.store), highestHeight: chain.height },
    index: idx ? { fromHeight: idx.indexedFrom?.() ?? 1, toHeight: idx.indexedHeight(), lowestTime: idx.lowestKept?.() ?? { trades: null, fills: null, candles: null, orders: null } } : null,
  };
}

/** The disk as /status shows it (decision 121). */
function storageFields(node: NodeApi) {
  const disk = node.storage();
  return { storage: disk.storage, disk: { folder: disk.folder, freeBytes: disk.freeBytes, waiting: disk.parts } };
}
