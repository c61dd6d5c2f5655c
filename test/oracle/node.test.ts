/**
 * End to end: a started single-validator devnet node's oracle actor signs an
 * observation every second, the chain accepts it, and every pair gets a fresh median
 * equal to the devnet source's price for that second.
 */
import { describe, expect, it } from 'vitest';
import { DevnetPriceSource } from '../../src/oracle/devnet-source';
import { oraclePrice } from '../../src/state/oracle';
import { useDevnetNode, waitFor } from '../helpers/devnet';

const ctx = useDevnetNode();

describe('oracle on a running devnet node', () => {
  it('has a fresh oracle price for every pair within a few seconds, equal to the devnet source at its timestamp', async () => {
    const state = () => ctx.node.chain().state;
    const pairIds = [...ctx.node.config.genesis.pairs].map((p) => p.id).sort((a, b) => a - b);
    expect(pairIds.length).toBeGreaterThan(0);
    await waitFor(
      () => {
        const now = state().head().timestampMs;
        return pairIds.every((id) => oraclePrice(state(), id, now)?.fresh === true) || undefined;
      },
      6_000,
      'a fresh oracle price for every pair',
    );
    const source = DevnetPriceSource.fromGenesis(ctx.node.config.genesis);
    const now = state().head().timestampMs;
    for (const pair of ctx.node.config.genesis.pairs) {
      const p = oraclePrice(state(), pair.id, now)!;
      expect(p.fresh).toBe(true);
      expect(p.timestampMs % 1000).toBe(0);
      expect(p.price).toBe(source.price(pair, p.timestampMs / 1000));
    }
  });

  it('keeps it fresh: a second later the median has moved on to a newer observation', async () => {
    const state = () => ctx.node.chain().state;
    const first = oraclePrice(state(), 1, state().head().timestampMs)!;
    const next = await waitFor(() => {
      const p = oraclePrice(state(), 1, state().head().timestampMs);
      return p && p.timestampMs > first.timestampMs ? p : undefined;
    }, 4_000, 'a newer median');
    expect(next.fresh).toBe(true);
    expect(next.timestampMs - first.timestampMs).toBeGreaterThanOrEqual(1000);
  });
});
