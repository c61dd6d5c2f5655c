/**
 * GET /status: the node's live view: head, state root, genesis, and each actor's state and
 * counters; its software version and the software upgrade scheduled, if any (decision 77);
 * the bridge's reserve check and its watcher's and relayer's counters (decision 85).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { bytesToHex } from '../../util/bytes';
import { ok } from '../envelope';
import { upgradeOf } from '../../state/upgrade';
import { bridgeStatus } from './bridge';

export const statusRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  app.get('/status', async () => {
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
    });
  });
};
