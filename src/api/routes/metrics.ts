/**
 * GET /metrics: this node's metrics in Prometheus text exposition format (issue 23 item
 * 4; the names and meanings in docs/operations.md "Metrics"). Plain text, not the JSON
 * envelope: it is for a Prometheus server to scrape.
 */
import type { RoutePlugin } from '../route-plugin';

export const metricsRoutes: RoutePlugin = async (app, { node }) => {
  app.get('/metrics', {
    schema: {
      summary: "This node's metrics for Prometheus",
      description:
        'Prometheus text exposition format 0.0.4 (`text/plain; version=0.0.4; charset=utf-8`): height, block interval, rounds per height, ' +
        'mempool, peers, transactions, orders and trades, actor restarts and mailbox drops, API latency per route, sync progress, and the bridge actor on a node that runs one.',
      tags: ['node'],
      response: {
        200: {
          description: 'text/plain; version=0.0.4; charset=utf-8',
          type: 'string',
          examples: ['# HELP exchange_chain_height Height of the last block this node applied.\n# TYPE exchange_chain_height gauge\nexchange_chain_height 415\n'],
        },
      },
    },
    handler: async (_request, reply) => {
      const { contentType, text } = await node.metrics();
      return reply.type(contentType).send(text);
    },
  });
};
