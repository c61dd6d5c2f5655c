/**
 * Ethereum JSON-RPC at POST {base_url}. The body is parsed here (not by fastify) so that
 * invalid JSON answers the JSON-RPC parse error (-32700) rather than the REST envelope.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { NodeApi } from '../node-api';
import { handleJsonRpc, parseError, type RpcContext } from '../../rpc/methods';

export const rpcRoutes: FastifyPluginAsync<{ node: NodeApi }> = async (app, { node }) => {
  const ctx: RpcContext = node;
  // Encapsulated: only this plugin's routes see the raw body.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/', async (req, reply) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(String(req.body ?? ''));
    } catch {
      return reply.send(parseError());
    }
    const out = await handleJsonRpc(ctx, parsed);
    if (out === undefined) return reply.status(204).send();
    return reply.send(out);
  });
};
