/** GET /health: `{status, chain, chainId}` at the top level (contract [C-market-health], [D-envelope-success]), plus the head height. */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { errorSchema } from '../envelope';
import { EX } from '../schemas';

export const healthRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  app.get('/health', {
    schema: {
      tags: ['node'],
      summary: 'Liveness and the chain served',
      description: 'Answers at the top level (no `data` wrapper): `status` "ok", the network name and chain id, and the head height.',
      response: {
        200: {
          examples: [{ status: 'ok', chain: 'devnet', chainId: 713799, height: 1024, timestamp: EX.timestampMs }],
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
        '5xx': errorSchema,
      },
    },
    handler: async () => {
      const { genesis } = node;
      return { status: 'ok', chain: genesis.network, chainId: genesis.chainId, height: node.chain().height, timestamp: Date.now() };
    },
  });
};
