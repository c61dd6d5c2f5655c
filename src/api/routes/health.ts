/** GET /health: `{status, chain, chainId}` at the top level (contract [C-market-health], [D-envelope-success]), plus the head height. */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';

export const healthRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
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
      const { genesis } = node;
      return { status: 'ok', chain: genesis.network, chainId: genesis.chainId, height: node.chain().height, timestamp: Date.now() };
    },
  });
};
