/** GET /status: the node's live view: head, state root, genesis, and each actor's state and counters. */
import type { FastifyPluginAsync } from 'fastify';
import type { ApiDeps } from '../../../actors/api/api-actor';
import { bytesToHex } from '../../util/bytes';
import { ok } from '../envelope';

export const statusRoutes: FastifyPluginAsync<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.get('/status', async () => {
    const node = deps.node;
    const chain = node.chain();
    return ok({
      chain: node.config.genesis.network,
      chainId: chain.chainId,
      genesisHash: bytesToHex(chain.genesisHash),
      height: chain.height,
      latestBlockHash: bytesToHex(chain.lastBlockHash),
      latestBlockTimeMs: chain.lastTimestampMs,
      stateRoot: bytesToHex(chain.stateRoot),
      syncing: node.consensusInfo?.()?.syncing ?? false,
      peers: node.p2pInfo?.()?.peers ?? [],
      p2p: node.p2pInfo?.() ?? null,
      consensus: node.consensusInfo?.() ?? null,
      validators: node.config.genesis.validators.map((v) => ({ name: v.name, address: v.address, votingPower: String(v.bondWei), endpoint: v.endpoint })),
      actors: node.actorStats(),
    });
  });
};
