/**
 * The ECVRF on libsodium (src/crypto/vrf.ts) against the reference on @noble/curves
 * (src/crypto/vrf-reference.ts), decision 116, as an A/B in one process: the same
 * proofs under six keys (a validator set's few), rounds alternating the two sides so
 * that the machine's load falls on both alike. Per operation, CPU time of this process
 * (user + system, process.cpuUsage): verify, prove, proof to hash of a proof not just
 * verified (the beta cache of decision 106 misses), and the public key; the ratio is
 * new ÷ old. Every round also checks that the two sides' outputs are byte for byte equal.
 *
 * `npm run bench -- vrf`; BENCH_VRF_PROOFS (default 60) and BENCH_VRF_ROUNDS (4).
 */
import { pathToFileURL } from 'node:url';
import { bytesToHex } from '../src/util/bytes';
import {
  vrfProofToHash,
  vrfProofToHashReference,
  vrfProve,
  vrfProveStepsReference,
  vrfPublicKey,
  vrfPublicKeyReference,
  vrfVerify,
  vrfVerifyReference,
} from '../src/crypto/vrf';

const KEYS = 6;

/** CPU µs per call of `fn` over `count` calls. */
function cpuMicros(count: number, fn: (i: number) => unknown): number {
  const start = process.cpuUsage();
  for (let i = 0; i < count; i++) fn(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

const fmt = (us: number): string => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`);
const range = (xs: number[]): string => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchVrf(): Promise<Record<string, unknown>> {
  const proofs = Number(process.env.BENCH_VRF_PROOFS ?? 60);
  const rounds = Number(process.env.BENCH_VRF_ROUNDS ?? 4);
  const seeds = Array.from({ length: KEYS }, (_, k) => Uint8Array.from({ length: 32 }, (_, i) => (k * 31 + i * 7 + 1) & 0xff));
  const keys = seeds.map((s) => vrfPublicKeyReference(s));
  const alphas = Array.from({ length: proofs }, (_, i) => Uint8Array.of(i & 0xff, i >> 8, 0x42));
  const pis = alphas.map((a, i) => vrfProveStepsReference(seeds[i % KEYS], a).pi);
  // Proofs no verify has seen, for proof to hash without the beta cache.
  const unseen = alphas.map((a, i) => vrfProveStepsReference(seeds[i % KEYS], Uint8Array.of(...a, 0x99)).pi);

  const sides = {
    old: {
      verify: (i: number) => vrfVerifyReference(keys[i % KEYS], alphas[i], pis[i]),
      prove: (i: number) => vrfProveStepsReference(seeds[i % KEYS], alphas[i]).pi,
      hash: (i: number) => vrfProofToHashReference(unseen[i]),
      publicKey: (i: number) => vrfPublicKeyReference(seeds[i % KEYS]),
    },
    new: {
      verify: (i: number) => vrfVerify(keys[i % KEYS], alphas[i], pis[i]),
      prove: (i: number) => vrfProve(seeds[i % KEYS], alphas[i]),
      hash: (i: number) => vrfProofToHash(unseen[i]),
      publicKey: (i: number) => vrfPublicKey(seeds[i % KEYS]),
    },
  };
  type Op = keyof typeof sides.old;
  const ops: Op[] = ['verify', 'prove', 'hash', 'publicKey'];

  // Same bytes on both sides (and a warm-up of each).
  for (const op of ops) {
    for (let i = 0; i < proofs; i++) {
      const a = sides.old[op](i);
      const b = sides.new[op](i);
      if (a === null || b === null || bytesToHex(a) !== bytesToHex(b)) throw new Error(`vrf bench: ${op} of proof ${i} differs between the two sides`);
    }
  }

  const times: Record<'old' | 'new', Record<Op, number[]>> = {
    old: { verify: [], prove: [], hash: [], publicKey: [] },
    new: { verify: [], prove: [], hash: [], publicKey: [] },
  };
  for (let r = 0; r < rounds; r++) {
    const order: ('old' | 'new')[] = r % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
    for (const op of ops) for (const side of order) times[side][op].push(cpuMicros(proofs, sides[side][op]));
  }

  const out: Record<string, unknown> = {
    setup: `${proofs} proofs under ${KEYS} keys, ${rounds} rounds alternating old (noble, vrf-reference.ts) and new (libsodium, vrf.ts); CPU time per operation (range over rounds), ratio new ÷ old of the medians; outputs byte for byte equal`,
  };
  const names: Record<Op, string> = { verify: 'verify', prove: 'prove', hash: 'proof to hash (not cached)', publicKey: 'public key' };
  for (const op of ops) {
    const ratio = median(times.new[op]) / median(times.old[op]);
    out[names[op]] = `old ${range(times.old[op])}, new ${range(times.new[op])}, ratio ${ratio.toFixed(3)}`;
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const [k, v] of Object.entries(await benchVrf())) console.log(`${k}: ${v}`);
}
