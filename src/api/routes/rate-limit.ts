/**
 * GET /v1/rate-limit: the caller's budgets as the limiter counts them (decision 98,
 * docs/api.md "Rate limits"): its IP's, and a signer address's when `address` is given.
 * The answers that are not refused carry no `x-ratelimit-*` headers (they cost every
 * request; docs/performance.md), so this is where a client reads what it has left.
 */
import { routeSchemas, type RoutePlugin } from '../route-plugin';
import { ok } from '../envelope';
import type { BudgetView } from '../rate-limit';
import { addr, envelope, errorResponses, int, nullable, obj } from '../schemas';

/** What the route needs of the limiter. */
export interface RateLimitReader {
  budgets(ip: string, address?: string): { ip: BudgetView | null; address?: BudgetView | null };
}

const budgetSchema = obj({
  limit: int('Weight the window allows.'),
  used: int('Weight spent in the open window, this request included.'),
  remaining: int(),
  resetSec: int('Whole seconds until the window ends; 0 when no window is open.'),
  windowMs: int('Length of a window.'),
});

const example = {
  ip: { limit: 1200, used: 7, remaining: 1193, resetSec: 42, windowMs: 60000 },
  address: { limit: 1200, used: 12, remaining: 1188, resetSec: 31, windowMs: 60000 },
};

/** The schemas of this file's routes by method and path (src/api/route-table.ts). */
export const rateLimitSchemas = routeSchemas({
  'GET /v1/rate-limit': {
    tags: ['node'],
    summary: 'The caller\u2019s rate-limit budgets',
    description: 'The per-IP budget of the calling address (null when this port has no per-IP limit) and, with `address`, that signer\u2019s budget of signed actions (null when unlimited). Reading it costs weight 1 of the IP budget.',
    querystring: { type: 'object', additionalProperties: false, properties: { address: addr('A signer address whose budget to show.') } },
    response: { 200: envelope(obj({ ip: nullable(budgetSchema), address: nullable(budgetSchema) }, ['address']), example), ...errorResponses },
  },
});

export const rateLimitRoutes: RoutePlugin<{ limiter: RateLimitReader }> = async (app, { limiter }) => {
  app.get('/v1/rate-limit', {
    schema: rateLimitSchemas['GET /v1/rate-limit'],
  }, async (req) => ok(limiter.budgets(req.ip, req.query.address)));
};
