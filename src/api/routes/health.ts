/**
 * GET /health: `{status, chain, chainId}` at the top level (contract [C-market-health],
 * [D-envelope-success]), plus the head height and the disk (decision 121): `storage`
 * "ok" or "full" (writes answered 503 STORAGE_UNAVAILABLE), with `disk` the folder and
 * its bytes free. A node whose disk is full is alive and serves reads: 200.
 */
import { routeSchemas, type RoutePlugin } from '../route-plugin';
import { errorSchema } from '../envelope';
import { EX } from '../schemas';

/** The schemas of this file's routes by method and path (src/api/route-table.ts). */
export const healthSchemas = routeSchemas({
  'GET /health': {
    tags: ['node'],
    summary: 'Liveness and the chain served',
    description: 'Answers at the top level (no `data` wrapper): `status` "ok", the network name and chain id, the head height, and the disk: `storage` "ok" or "full" (writes answer 503 STORAGE_UNAVAILABLE) with the folder and its bytes free.',
    response: {
      200: {
        examples: [{ status: 'ok', chain: 'devnet', chainId: 713799, height: 1024, storage: 'ok', disk: { folder: '/var/lib/exchain', freeBytes: 52_428_800_000 }, timestamp: EX.timestampMs }],
        type: 'object',
        required: ['status', 'chain', 'chainId'],
        properties: {
          status: { type: 'string' },
          chain: { type: 'string' },
          chainId: { type: 'integer' },
          height: { type: 'integer' },
          storage: { type: 'string', enum: ['ok', 'full'], description: '"full" while a write failed for lack of space: writes answer 503 STORAGE_UNAVAILABLE until it is retried with success.' },
          disk: {
            type: 'object',
            required: ['folder', 'freeBytes'],
            properties: {
              folder: { type: 'string', description: 'The folder whose write failed; the data folder when ok.' },
              freeBytes: { type: ['integer', 'null'], description: 'Bytes free to the node in that folder\u2019s file system (statfs).' },
            },
          },
          timestamp: { type: 'integer' },
        },
      },
      '5xx': errorSchema,
    },
  },
});

export const healthRoutes: RoutePlugin = async (app, { node }) => {
  app.get('/health', {
    schema: healthSchemas['GET /health'],
    handler: async () => {
      const { genesis } = node;
      const disk = node.storage();
      return { status: 'ok', chain: genesis.network, chainId: genesis.chainId, height: node.chain().height, storage: disk.storage, disk: { folder: disk.folder, freeBytes: disk.freeBytes }, timestamp: Date.now() };
    },
  });
};
