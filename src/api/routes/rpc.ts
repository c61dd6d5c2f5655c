/**
 * Ethereum JSON-RPC at POST {base_url}. The body is parsed here (not by fastify) so that
 * invalid JSON answers the JSON-RPC parse error (-32700) rather than the REST envelope.
 * A write refused because the node's disk is full (decision 121) keeps its JSON-RPC
 * error (-32000, `data.code` STORAGE_UNAVAILABLE) and adds Retry-After; a single call so
 * refused answers HTTP 503 (what JSON-RPC clients retry), a batch 200 (its other answers
 * stand).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { handleJsonRpc, parseError, storageRetryAfter, type RpcContext } from '../../rpc/methods';

const rpcId = { type: ['string', 'integer', 'null'] } as const;
const rpcRequest = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  properties: { jsonrpc: { type: 'string', const: '2.0' }, id: rpcId, method: { type: 'string' }, params: { type: ['array', 'object'] } },
} as const;
const rpcResponse = {
  type: 'object',
  required: ['jsonrpc', 'id'],
  properties: { jsonrpc: { type: 'string', const: '2.0' }, id: rpcId, result: {}, error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } } },
} as const;

export const rpcRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const ctx: RpcContext = node;
  // Encapsulated: only this plugin's routes see the raw body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/', {
    schema: {
      tags: ['rpc'],
      summary: 'Ethereum JSON-RPC 2.0',
      description: 'One request or a batch (at most 100). eth_chainId, eth_blockNumber, eth_getBalance, eth_call on the precompiles, eth_sendRawTransaction, eth_getTransactionReceipt, eth_feeHistory and more (docs/api.md). Invalid JSON answers the JSON-RPC parse error (-32700), not the REST envelope; a batch of notifications only answers 204.',
      documentedBody: {
        anyOf: [rpcRequest, { type: 'array', minItems: 1, maxItems: 100, items: rpcRequest }],
        examples: [{ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }],
      },
      response: {
        200: {
          anyOf: [rpcResponse, { type: 'array', items: rpcResponse }],
          examples: [{ jsonrpc: '2.0', id: 1, result: '0x400' }],
        },
        204: { type: 'null', description: 'Only notifications (no id) were sent.' },
        503: { ...rpcResponse, description: 'One eth_sendRawTransaction refused because the node\u2019s disk is full: error -32000 with `data.code` STORAGE_UNAVAILABLE, and Retry-After.' },
      },
    },
  }, async (req, reply) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(req.body ?? ''));
    } catch {
      return reply.send(parseError());
    }
    const out = await handleJsonRpc(ctx, parsed);
    if (out === undefined) return reply.status(204).send();
    const retryAfterSec = storageRetryAfter(out);
    if (retryAfterSec !== undefined) {
      reply.header('retry-after', retryAfterSec);
      if (!Array.isArray(out)) return reply.status(503).send(out);
    }
    return reply.send(out);
  });
};
