/** GET /health: `{status, chain, chainId}` at the top level (spec), plus the head height. */
import type { FastifyPluginAsync } from 'fastify';
import type { ApiDeps } from '../../../actors/api/api-actor';

export const healthRoutes: FastifyPluginAsync<{ deps: ApiDeps }> = async (app, { deps }) => {
  app.get('/health', {
    schema: {
      response: {
        200: {
          type: 'object',
          required: ['status', 'chain', 'chainId'],
          properties: {
            status: { type: 'string' },
            chain: { type: 'string' },
            chainId: { type: 'integer' },
            height: { type: 'integer' },
            timestamp: { type: 'integer' },
          },
        },
      },
    },
    handler: async () => {
      const { genesis } = deps.node.config;
      return { status: 'ok', chain: genesis.network, chainId: genesis.chainId, height: deps.node.chain().height, timestamp: Date.now() };
    },
  });
};
