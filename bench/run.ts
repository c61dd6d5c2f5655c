/**
 * `npm run bench [-- <suite>...]`: prints each figure with the conditions it was
 * measured under. Suites: crypto, chain, orderbook, rest, rate-limit, rpc, caps, network, claim-ahead, p2p, perp, replica, privval, actors, epoch, sync, bridge, timers, startup, idle, vrf, disk, snapshot, join, node-start, discovery (default: all).
 */
import os from 'node:os';
import { benchCaps } from './caps';
import { benchChain } from './chain';
import { benchCrypto } from './crypto';
import { benchOrderbook } from './orderbook';
import { benchPerps } from './perps';
import { benchRestOrders } from './rest-orders';
import { benchRateLimit } from './rate-limit';
import { benchRpc } from './rpc';
import { benchNetwork } from './network';
import { benchNetworkBuilds } from './network-builds';
import { benchClaimAhead } from './claim-ahead';
import { benchActors } from './actors';
import { benchP2p } from './p2p';
import { benchReplica } from './replica';
import { benchPrivval } from './privval';
import { benchEpoch } from './epoch';
import { benchSync } from './sync';
import { benchBridge } from './bridge';
import { benchBridgeSets } from './bridge-sets';
import { benchTimers } from './timers';
import { benchStartup } from './startup';
import { benchIdle } from './idle';
import { benchVrf } from './vrf';
import { benchDisk } from './disk';
import { benchSnapshot } from './snapshot';
import { benchJoin } from './join';
import { benchNodeStart } from './node-start';
import { benchPriceSources } from './price-sources';
import { benchDiscovery } from './discovery';

const SUITES: Record<string, () => Promise<Record<string, unknown>>> = {
  crypto: () => benchCrypto(),
  chain: () => benchChain(),
  orderbook: () => benchOrderbook(),
  rest: () => benchRestOrders(),
  'rate-limit': () => benchRateLimit(),
  caps: () => benchCaps(),
  rpc: () => benchRpc(),
  network: () => (process.env.BENCH_BASE ? benchNetworkBuilds(process.env.BENCH_BASE) : benchNetwork()),
  'claim-ahead': () => benchClaimAhead(),
  p2p: () => benchP2p(),
  perp: () => benchPerps(),
  replica: () => benchReplica(),
  privval: () => benchPrivval(),
  actors: () => benchActors(),
  epoch: () => benchEpoch(),
  sync: () => benchSync(),
  bridge: () => benchBridge(),
  'bridge-sets': () => benchBridgeSets(),
  timers: () => benchTimers(),
  startup: () => benchStartup(),
  idle: () => benchIdle(),
  vrf: () => benchVrf(),
  disk: () => benchDisk(),
  snapshot: () => benchSnapshot(),
  join: () => benchJoin(),
  discovery: () => benchDiscovery(),
  'node-start': () => benchNodeStart(),
  'price-sources': () => benchPriceSources(),
};

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length ? wanted : Object.keys(SUITES);
  for (const n of names) if (!SUITES[n]) throw new Error(`unknown suite ${n}; known: ${Object.keys(SUITES).join(', ')}`);
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  console.log(`conditions: node ${process.version}, ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const n of names) {
    console.log(`\n== ${n} ==`);
    const figures = await SUITES[n]();
    for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  }
  const rssPeakMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(`\npeak RSS of the bench process: ${rssPeakMiB} MiB`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
