/** Chain information: GET /chain-config and GET /v1/network (spec "Other read addresses"). */
import type { FastifyPluginAsync } from 'fastify';
import type { ApiDeps } from '../../../actors/api/api-actor';
import { AGENT_CAPS_PRECOMPILE, EXCHANGE_ADDRESS, ORDERBOOK_PRECOMPILE } from '../../rpc/constants';
import { bytesToHex } from '../../util/bytes';
import { ok } from '../envelope';
import { usdc } from '../common';

export const chainInfoRoutes: FastifyPluginAsync<{ deps: ApiDeps }> = async (app, { deps }) => {
  const g = deps.node.config.genesis;
  const contracts = {
    exchange: EXCHANGE_ADDRESS,
    orderbookPrecompile: ORDERBOOK_PRECOMPILE,
    agentCapsPrecompile: AGENT_CAPS_PRECOMPILE,
    eip712VerifyingContract: EXCHANGE_ADDRESS,
  };

  app.get('/chain-config', async () =>
    ok({
      chainId: g.chainId,
      network: g.network,
      genesisHash: bytesToHex(deps.node.config.genesisHash),
      blockTimeMs: deps.node.config.blockTimeMs,
      finality: 'single-block',
      nativeToken: g.nativeToken,
      eip712Domain: { name: 'ExchangeSession', version: '1', chainId: g.chainId, verifyingContract: EXCHANGE_ADDRESS },
      precompiles: { orderbook: ORDERBOOK_PRECOMPILE, agentCaps: AGENT_CAPS_PRECOMPILE },
      contracts,
      fees: {
        makerFeeBps: g.fees.makerFeeBps,
        takerFeeBps: g.fees.takerFeeBps,
        withdrawalFee: usdc(g.fees.withdrawalFeeUsdc),
        minWithdrawal: usdc(g.fees.minWithdrawalUsdc),
        gasPriceWei: String(g.fees.gasPriceWei),
      },
      limits: {
        ...g.limits,
        maxBlockTxs: g.consensus.maxBlockTxs,
        maxTxBytes: g.consensus.maxTxBytes,
        epochLengthBlocks: g.consensus.epochLengthBlocks,
      },
    }),
  );

  app.get('/v1/network', async () => {
    const chain = deps.node.chain();
    return ok({
      chainId: g.chainId,
      network: g.network,
      blockHeight: chain.height,
      latestBlockTimeMs: chain.lastTimestampMs,
      blockTimeMs: deps.node.config.blockTimeMs,
      rpc: '/',
      ws: '/ws',
      contracts,
      validators: g.validators.length,
    });
  });
};
