/**
 * The price sources template the boot bundle carries (decision 170): for each market of
 * the network, its Binance USDT ticker and its Coinbase USD product, under the default
 * rules (two sources must agree within 1 %). The operator copies it to
 * `home/price-sources.json` (which `start --home` reads), checks that each exchange lists
 * each market, and adds or removes sources: with one source left for a market, that
 * market's `minSources` must be 1. Pure: text only.
 */
import { PRICE_SOURCE_MAX_AGE_MS_DEFAULT, PRICE_SOURCE_MAX_DEVIATION_BPS_DEFAULT, PRICE_SOURCE_MIN_DEFAULT, PRICE_SOURCE_TIMEOUT_MS_DEFAULT } from './aggregate';

export const PRICE_SOURCES_TEMPLATE_NAME = 'price-sources.template.json';

export function priceSourcesTemplate(symbols: readonly string[]): string {
  const markets: Record<string, unknown> = {};
  for (const s of symbols) {
    markets[s] = [
      { kind: 'binance', symbol: `${s}USDT` },
      { kind: 'coinbase', product: `${s}-USD` },
    ];
  }
  return `${JSON.stringify(
    {
      _readme: 'Copy to home/price-sources.json (start.sh passes it to the node). Per market symbol, the sources your oracle reads; docs/operations.md "Price sources".',
      timeoutMs: PRICE_SOURCE_TIMEOUT_MS_DEFAULT,
      maxAgeMs: PRICE_SOURCE_MAX_AGE_MS_DEFAULT,
      maxDeviationBps: PRICE_SOURCE_MAX_DEVIATION_BPS_DEFAULT,
      minSources: PRICE_SOURCE_MIN_DEFAULT,
      markets,
    },
    null,
    2,
  )}\n`;
}
