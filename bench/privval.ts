/**
 * What persisting the privval state costs a validator: it happens before each signature
 * leaves (twice per block: the prevote and the precommit), so it sits on every round's
 * critical path. Two ways, alternated in one run on real encoded states:
 *  - leveldb: a put with sync into the chain's LevelDB (how the state was kept before
 *    decision 58);
 *  - file: the PrivValFile slots (src/storage/privval-file.ts), one blocking O_DSYNC
 *    write.
 * For a small state (a vote) and one holding a locked block of 60 KB. Figures: µs of this
 * process's CPU (user + system, all threads) and of wall time per write, the least of
 * three rounds.
 */
import fs from 'node:fs';
import { join } from 'node:path';
import { ChainStore } from '../src/storage/db';
import { PrivValFile } from '../src/storage/privval-file';
import { encodePrivValState, SignStep, type PrivValState } from '../src/consensus/privval';
import { tempDir } from '../test/helpers/devnet';

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

function stateOf(height: number, lockedBlockBytes: number): PrivValState {
  const hash = new Uint8Array(32).fill(height & 255);
  return {
    lastSigned: { height, round: 0, step: SignStep.Precommit, blockHash: hash, signingHash: hash, signature: new Uint8Array(65).fill(1) },
    roundVotes: [{ step: SignStep.Prevote, blockHash: hash, signature: new Uint8Array(65).fill(2) }],
    lock: lockedBlockBytes > 0 ? { height, round: 0, blockHash: hash, block: new Uint8Array(lockedBlockBytes).fill(3) } : null,
  };
}

export async function benchPrivval(): Promise<Record<string, unknown>> {
  const dir = tempDir('bench-privval-');
  const store = new ChainStore(join(dir.path, 'chain'), true);
  await store.open();
  const file = await PrivValFile.open(join(dir.path, 'privval'));
  const writes = 300;
  const out: Record<string, unknown> = {};
  try {
    for (const [label, lockBytes] of [['vote', 0], ['lockedBlock60KB', 60_000]] as const) {
      const best = { leveldb: { cpu: Infinity, wall: Infinity }, file: { cpu: Infinity, wall: Infinity } };
      for (let round = 0; round < 3; round++) {
        for (const way of ['leveldb', 'file'] as const) {
          const states = Array.from({ length: writes }, (_, i) => encodePrivValState(stateOf(round * writes + i + 1, lockBytes)));
          const c0 = cpuUs();
          const t0 = performance.now();
          for (const s of states) {
            if (way === 'leveldb') await store.putLegacyPrivValState(s);
            else await file.write(s);
          }
          best[way].cpu = Math.min(best[way].cpu, (cpuUs() - c0) / writes);
          best[way].wall = Math.min(best[way].wall, ((performance.now() - t0) * 1000) / writes);
        }
      }
      out[`${label} leveldbPutSync`] = { cpuUsPerWrite: +best.leveldb.cpu.toFixed(1), wallUsPerWrite: +best.leveldb.wall.toFixed(1) };
      out[`${label} privvalFile`] = { cpuUsPerWrite: +best.file.cpu.toFixed(1), wallUsPerWrite: +best.file.wall.toFixed(1) };
    }
    out.conditions = `${writes} writes per way and round, alternated, least of 3 rounds; data folder on ${fs.realpathSync(dir.path)}`;
    return out;
  } finally {
    file.close();
    await store.close();
    dir.remove();
  }
}
