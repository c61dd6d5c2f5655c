/**
 * The fault plan of a simulation run (sim/cluster.ts), drawn from the seed before the
 * run starts and injected during the fault phase only (then everything heals):
 *  - per-message drops, duplicates and delay spikes at rates drawn for the seed
 *    (applied by sim/network.ts);
 *  - symmetric partitions (a group of one to half the nodes cut off from the rest) and
 *    asymmetric ones (a set of one-way links down), overlapping, each healing after its
 *    duration;
 *  - crashes of honest nodes: all memory lost, the disk kept (committed blocks and
 *    commits, state records, privval state); each restarts at the end of its fault, at
 *    the latest at the heal.
 * With SimOptions.storageFaults, the disk's faults too (sim/storage.ts, decision 126),
 * drawn from the run's storage stream (so a run without them draws exactly as before):
 * a crash may lose its store's unsynced tail and leave a value corrupted (sim/node.ts
 * crash), and disks fill up for a while (planDiskFull: one honest node at a time each,
 * cleared before the heal, then the node resumes).
 * Besides the random plan, scripted faults the tests ask for: a forced partition, and a
 * stray write into one node's state (the checker must catch the divergence). Clock skew
 * is drawn with the nodes; the Byzantine validator's behaviour is sim/byzantine.ts.
 */
import { bytesToHex } from '../src/util/bytes';
import type { SimNode } from './model';
import { partitionLinks, US } from './network';
import type { SimWorld } from './world';

/** Schedules every fault of the run on `w`'s queue; `nodes` crashes, restarts and resumes a node. */
export function planFaults(w: SimWorld, nodes: { crash(node: SimNode): void; restart(node: SimNode): Promise<void>; resume(node: SimNode): Promise<void> }): void {
  const o = w.opts;
  planDiskFull(w, nodes);
  const n = w.nodes.length;
  const faultEndUs = o.faultPhaseMs * US;
  if (o.forcedPartition) {
    const { groups, fromMs, toMs } = o.forcedPartition;
    const links = partitionLinks(groups);
    w.net.at(fromMs * US, () => {
      w.faults.partitionSymmetric++;
      w.check.traceLine(`forced partition ${JSON.stringify(groups)}`);
      w.net.cutLinks(links, 1);
    });
    w.net.at(toMs * US, () => w.net.cutLinks(links, -1));
  }
  if (o.divergeState) {
    const { node, atMs } = o.divergeState;
    w.net.at(atMs * US, () => {
      w.check.traceLine(`stray write into node ${node}'s state`);
      w.nodes[node].live?.chain.state.faucetClaims.set(bytesToHex(new Uint8Array(20)), 1n);
    });
  }
  if (!o.faults) return;
  // Per-seed intensity of the per-message faults.
  w.net.startMessageFaults();
  let tUs = w.prng.uniform(200, 1500) * US;
  while (tUs < faultEndUs) {
    const endUs = Math.min(tUs + w.prng.uniform(200, 5000) * US, faultEndUs);
    const roll = w.prng.float();
    if (roll < 0.3) {
      // Symmetric: a random group of 1-3 cut off from the rest.
      const order = w.prng.shuffle([...Array(n).keys()]);
      const k = w.prng.range(1, Math.max(1, Math.floor(n / 2)));
      const links = partitionLinks([order.slice(0, k), order.slice(k)]);
      w.net.at(tUs, () => {
        w.faults.partitionSymmetric++;
        w.check.traceLine(`partition ${JSON.stringify([order.slice(0, k), order.slice(k)])}`);
        w.net.cutLinks(links, 1);
      });
      w.net.at(endUs, () => w.net.cutLinks(links, -1));
    } else if (roll < 0.5) {
      // Asymmetric: one-way links down (a node that cannot hear, or cannot be heard, or random links).
      const links: [number, number][] = [];
      const x = w.prng.int(n);
      const mode = w.prng.int(3);
      for (let y = 0; y < n; y++) {
        if (y === x) continue;
        if (mode === 0) links.push([y, x]);
        else if (mode === 1) links.push([x, y]);
      }
      if (mode === 2) for (let i = 0; i < n; i++) links.push([w.prng.int(n), w.prng.int(n)]);
      const real = links.filter(([a, b]) => a !== b);
      w.net.at(tUs, () => {
        w.faults.partitionAsymmetric++;
        w.check.traceLine(`one-way links down ${JSON.stringify(real)}`);
        w.net.cutLinks(real, 1);
      });
      w.net.at(endUs, () => w.net.cutLinks(real, -1));
    } else {
      // Crash an honest node; it restarts at the end of the fault (at the latest at the heal).
      const victimRoll = w.prng.u32();
      w.net.at(tUs, () => {
        const up = w.nodes.filter((x) => !x.byzantine && x.live !== null);
        if (up.length === 0) return;
        const victim = up[victimRoll % up.length];
        nodes.crash(victim);
        w.net.at(endUs, () => nodes.restart(victim));
      });
    }
    tUs += w.prng.uniform(300, 3000) * US;
  }
}


/**
 * Disk-full episodes at `diskFullPerSecond` (a Poisson stream over the fault phase), each
 * on one honest node whose disk is not full yet, for 0.2–2 s, over before the heal; when
 * one clears, the node resumes (sim/node.ts resume: the block kept in memory written, a
 * catch-up, a new core).
 */
function planDiskFull(w: SimWorld, nodes: { resume(node: SimNode): Promise<void> }): void {
  const rate = w.opts.storageFaults?.diskFullPerSecond ?? 0;
  if (rate <= 0) return;
  const sp = w.storagePrng;
  const lastUs = w.opts.faultPhaseMs * US - 1;
  const gapUs = () => Math.max(1, Math.round((-Math.log(1 - sp.float()) / rate) * 1e6));
  for (let tUs = gapUs(); tUs < lastUs; tUs += gapUs()) {
    const untilUs = Math.min(tUs + sp.uniform(200, 2000) * US, lastUs);
    const victimRoll = sp.u32();
    w.net.at(tUs, () => {
      const candidates = w.nodes.filter((x) => !x.byzantine && !x.storage.full);
      if (candidates.length === 0) return;
      const victim = candidates[victimRoll % candidates.length];
      victim.storage.full = true;
      w.faults.diskFull++;
      w.check.traceLine(`disk full on node ${victim.index}`);
      w.net.at(untilUs, async () => {
        victim.storage.full = false;
        w.check.traceLine(`disk of node ${victim.index} takes writes again`);
        await nodes.resume(victim);
      });
    });
  }
}
