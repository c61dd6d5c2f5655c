/**
 * How often POST /api/validators/apply is taken (issue 37; decision 164). The queue of
 * pending applications is bounded (PENDING_MAX_DEFAULT, 10,000; past it apply is 503
 * APPLICATIONS_FULL), so an unthrottled form let one client fill it and shut everyone
 * else out until the operator cleared it. Two budgets, fixed windows
 * (src/api/rate-limit.ts WeightedWindowStore, the node's own counter):
 *   - per client address (IPv6 by its /64, as the node keys it): every apply request
 *     counts, refused ones too, before anything is checked, so a client that ignores
 *     Retry-After stays refused until its window ends;
 *   - over the whole service: only applications whose signature holds count, so requests
 *     that spend nothing but their sender's budget do not spend everyone's.
 * Over either, 429 RATE_LIMITED with Retry-After. The budgets are this service's, not the
 * network's; `limits: APPLY_LIMITS_OFF` (tests) turns both off.
 */
import { clientKey, rateLimited, WeightedWindowStore } from '../api/rate-limit';

export interface ApplyLimits {
  windowMs: number;
  /** Apply requests one client address may send per window; 0: no limit. */
  perClient: number;
  /** Signed applications the service takes per window from everyone; 0: no limit. */
  overall: number;
}

/**
 * An hour's window: a person applies once, and a few retries after a typo fit in 10; 500
 * an hour lets a busy network's applicants through while filling the 10,000 queue would
 * take a day of requests from hundreds of addresses, each application signed by its own key.
 */
export const APPLY_LIMITS_DEFAULT: ApplyLimits = { windowMs: 60 * 60 * 1000, perClient: 10, overall: 500 };
export const APPLY_LIMITS_OFF: ApplyLimits = { windowMs: 60 * 60 * 1000, perClient: 0, overall: 0 };

const OVERALL_KEY = '*';

export class ApplyThrottle {
  private readonly clients = new WeightedWindowStore();
  private readonly everyone = new WeightedWindowStore();

  constructor(
    readonly limits: ApplyLimits,
    private readonly nowMs: () => number,
  ) {}

  /** Charges the client's budget: 429 once spent. */
  client(ip: string): void {
    const { perClient, windowMs } = this.limits;
    if (perClient === 0) return;
    const { current, ttl } = this.clients.charge(clientKey(ip), 1, windowMs, this.nowMs());
    if (current > perClient) throw rateLimited(`apply: ${perClient} applications per ${windowMs / 60_000} minutes from one address; try again later`, ttl);
  }

  /** Charges the service's budget for one signed application: 429 once spent. */
  overall(): void {
    const { overall, windowMs } = this.limits;
    if (overall === 0) return;
    const { current, ttl } = this.everyone.charge(OVERALL_KEY, 1, windowMs, this.nowMs());
    if (current > overall) throw rateLimited(`apply: the service takes ${overall} applications per ${windowMs / 60_000} minutes; try again later`, ttl);
  }
}
