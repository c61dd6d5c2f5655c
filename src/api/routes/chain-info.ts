/**
 * Chain information: GET /chain-config and GET /v1/network (contract [C-rpc-status], [C-account-network]).
 * /v1/network also gives the node's libp2p addresses (`p2p.multiaddrs`, each ending in
 * /p2p/<peer id>): what another node passes to `start --bootstrap` (issue 20).
 * GET /v1/network/peers (decision 79): the connected peers, each with the listen addresses
 * it announced (libp2p identify) and its head as last probed (actors/p2p/peer-heights.ts),
 * beside this node's own height; what the onboarding service checks a candidate's node
 * against before it registers it.
 * /v1/network's `bridge` (issue 22): the external chain id, this node's external RPC
 * (its --bridge deployment file's; null without one) and the bridge and USDC contracts;
 * null on a network without a bridge.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { AGENT_CAPS_PRECOMPILE, EXCHANGE_ADDRESS, ORDERBOOK_PRECOMPILE } from '../../rpc/constants';
import { bytesToHex } from '../../util/bytes';
import { ok } from '../envelope';
import { usdc } from '../common';
import { bridgeNetwork } from './bridge';

export const chainInfoRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const g = node.genesis;
  const contracts = {
    exchange: EXCHANGE_ADDRESS,
    orderbookPrecompile: ORDERBOOK_PRECOMPILE,
    agentCapsPrecompile: AGENT_CAPS_PRECOMPILE,
    eip712VerifyingContract: EXCHANGE_ADDRESS,
  };

  app.get('/chain-config', async () => {
    // Fees and limits as executed now: owner governance may have changed them since
    // genesis (decisions 74 and 76).
    const params = node.chain().state.params();
    const fees = params.fees;
    return ok({
      chainId: g.chainId,
      network: g.network,
      genesisHash: bytesToHex(node.genesisHash),
      blockTimeMs: node.blockTimeMs,
      finality: 'single-block',
      nativeToken: g.nativeToken,
      eip712Domain: { name: 'ExchangeSession', version: '1', chainId: g.chainId, verifyingContract: EXCHANGE_ADDRESS },
      precompiles: { orderbook: ORDERBOOK_PRECOMPILE, agentCaps: AGENT_CAPS_PRECOMPILE },
      contracts,
      fees: {
        makerFeeBps: fees.makerFeeBps,
        takerFeeBps: fees.takerFeeBps,
        withdrawalFee: usdc(fees.withdrawalFeeUsdc),
        minWithdrawal: usdc(fees.minWithdrawalUsdc),
        gasPriceWei: String(fees.gasPriceWei),
      },
      limits: {
        ...params.limits,
        maxBlockTxs: g.consensus.maxBlockTxs,
        maxTxBytes: g.consensus.maxTxBytes,
        epochLengthBlocks: g.consensus.epochLengthBlocks,
      },
    });
  });

  app.get('/v1/network', async () => {
    const chain = node.chain();
    return ok({
      chainId: g.chainId,
      network: g.network,
      blockHeight: chain.height,
      latestBlockTimeMs: chain.lastTimestampMs,
      blockTimeMs: node.blockTimeMs,
      rpc: '/',
      ws: '/ws',
      contracts,
      validators: g.validators.length,
      p2p: p2pMultiaddrs(node.p2pAddresses()),
      bridge: bridgeNetwork(node),
    });
  });

  app.get('/v1/network/peers', async () => {
    const peers = await node.p2pPeers();
    return ok({ blockHeight: node.chain().height, peers });
  });
};

/** Listen addresses each with its `/p2p/<peer id>` (libp2p usually reports them so already). */
export function p2pMultiaddrs(p2p: { peerId: string; listen: string[] } | null): { peerId: string | null; multiaddrs: string[] } {
  if (p2p === null) return { peerId: null, multiaddrs: [] };
  const suffix = `/p2p/${p2p.peerId}`;
  return { peerId: p2p.peerId, multiaddrs: p2p.listen.map((a) => (a.endsWith(suffix) ? a : `${a}${suffix}`)) };
}
