/**
 * `npm run bench -- discovery` (issue 39's figures): four validator processes whose
 * genesis endpoints are their real p2p ports, then full nodes made with `init` and
 * `start --home`:
 *   A  bootstrapped from validator 1;
 *   B  given only A's address: the time from its spawn to READY, to its first
 *      reading within 2 blocks of the head (following), the peers it knows and is
 *      connected to 30 s after its spawn, and its lag behind the head over a window;
 *   C  given only A's address with --no-discovery (connected to full nodes only): its
 *      lag over the same window (following through the mesh and catch-up).
 * Lag is read every 250 ms: validator 1's height and block time minus the node's.
 * `BENCH_DISCOVERY_WINDOW_S` (20) sets the window. The price sources' read cost per
 * block is `npm run bench -- price-sources`.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { freePort } from '../src/cli/launcher';
import { genesisToJson, renderJson } from '../src/genesis/build';
import { devnetGenesis, tempDir, waitFor } from '../test/helpers/devnet';
import { LocalNetwork } from '../test/helpers/network';
import { getData, lagBehind, percentile, sampleLag, startObserver, stopObserver, type Observer } from '../test/helpers/observers';

const N = 4;

export async function benchDiscovery(): Promise<Record<string, unknown>> {
  const windowS = Number(process.env.BENCH_DISCOVERY_WINDOW_S ?? 20);
  const dir = tempDir('exchain-bench-discovery-');
  const observers: Observer[] = [];
  let net: LocalNetwork | undefined;
  const loadBefore = os.loadavg()[0];
  try {
    const ports = await Promise.all(Array.from({ length: N }, () => freePort()));
    const { genesis } = devnetGenesis(N);
    const genesisFile = join(dir.path, 'devnet-4v.json');
    writeFileSync(genesisFile, renderJson(genesisToJson({ ...genesis, validators: genesis.validators.map((v, i) => ({ ...v, endpoint: `127.0.0.1:${ports[i]}` })) })));
    net = await LocalNetwork.start(N, () => [], { genesisFile, p2pPorts: ports });
    const head = net.nodes[0].url;
    const A = await startObserver(dir.path, observers, 'A', genesisFile, [net.p2pAddrs[0]]);
    const B = await startObserver(dir.path, observers, 'B', genesisFile, [A.p2p]);
    const readyMs = Date.now() - B.spawnedAt;
    await waitFor(async () => ((await lagBehind(head, B)).blocks <= 2 ? true : undefined), 120_000, 'B within 2 blocks of the head');
    const followingMs = Date.now() - B.spawnedAt;
    const C = await startObserver(dir.path, observers, 'C', genesisFile, [A.p2p], ['--no-discovery']);
    const until30 = B.spawnedAt + 30_000 - Date.now();
    if (until30 > 0) await new Promise((r) => setTimeout(r, until30));
    const { table } = await getData(B.url, '/v1/network/peers');
    const at30 = { known: table.known as number, connected: table.connected as number };
    const [b, c] = await Promise.all([sampleLag(head, B, windowS * 1_000), sampleLag(head, C, windowS * 1_000)]);
    const lag = (s: { blocks: number[]; ms: number[] }) => ({ blocksP50: percentile(s.blocks, 50), blocksP99: percentile(s.blocks, 99), msP50: percentile(s.ms, 50), msP99: percentile(s.ms, 99), samples: s.blocks.length });
    const result = {
      conditions: { validators: N, cores: os.cpus().length, node: process.version, loadBefore: Number(loadBefore.toFixed(2)), loadAfter: Number(os.loadavg()[0].toFixed(2)), windowS },
      'B (one bootstrap address): spawn to READY, ms': readyMs,
      'B: spawn to following (within 2 blocks), ms': followingMs,
      'B: peers known / connected 30 s after spawn': `${at30.known} / ${at30.connected}`,
      'B lag': lag(b),
      'C (full nodes only) lag': lag(c),
    };
    return result;
  } finally {
    for (const o of observers) await stopObserver(o);
    await net?.stop();
    dir.remove();
  }
}
