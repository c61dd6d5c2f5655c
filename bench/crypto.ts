/**
 * Crypto throughput, measured in one run so the figures are comparable:
 * secp256k1 public-key recovery (native libsecp256k1 vs pure-JS noble), keccak256 of a
 * 200-byte input, the EIP-712 PlaceOrder digest, and the ECVRF (RFC 9381, src/crypto/vrf.ts)
 * prove and verify beside noble's ed25519 signature verify as a baseline on the same
 * curve (the VRF runs on libsodium since decision 116; `npm run bench -- vrf` compares it
 * with its noble reference).
 *
 * Standalone: `npx tsx bench/crypto.ts`. Also importable: `benchCrypto()` returns the figures.
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { CHAIN_ID_MAINNET, hashTypedMessage, type PlaceOrderMessage } from '../src/signing/eip712';
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak256 } from '../src/crypto/keccak';
import { vrfProve, vrfPublicKey, vrfVerify } from '../src/crypto/vrf';
import {
  privateKeyToAddress,
  recoverPublicKey,
  recoverPublicKeyNoble,
  sign,
  verifySigner,
  type RecoveryId,
} from '../src/crypto/secp256k1';

export interface CryptoBenchOptions {
  nativeRecoveries?: number;
  nobleRecoveries?: number;
  keccakHashes?: number;
  eip712Hashes?: number;
  /** Distinct precomputed signatures (cycled through). */
  signatures?: number;
  vrfProofs?: number;
  vrfVerifies?: number;
  ed25519Verifies?: number;
}

interface Sample {
  digest: Uint8Array;
  rs: Uint8Array;
  recovery: RecoveryId;
  sig65: Uint8Array;
  signer: `0x${string}`;
}

function randomPrivateKey(): Uint8Array {
  // 32 random bytes are a valid key except with probability ~2^-128; sign() checks anyway.
  return Uint8Array.from(randomBytes(32));
}

interface Measurement {
  /** Wall-clock operations per second. */
  opsPerSec: number;
  /** Operations per second of this process's CPU time (user+system): less sensitive to
   *  other processes competing for the cores, which the wall-clock figure is not. */
  opsPerCpuSec: number;
  ms: number;
}

/** Runs fn(i) `count` times after a short warm-up. */
function measure(count: number, fn: (i: number) => unknown): Measurement {
  const warm = Math.min(200, Math.max(10, count >> 5));
  for (let i = 0; i < warm; i++) fn(i);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < count; i++) fn(i);
  const ns = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = Math.max(1, cpu.user + cpu.system);
  return { opsPerSec: Math.round((count * 1e9) / ns), opsPerCpuSec: Math.round((count * 1e6) / cpuUs), ms: Math.round(ns / 1e4) / 100 };
}

export async function benchCrypto(options: CryptoBenchOptions = {}): Promise<Record<string, unknown>> {
  const nNative = options.nativeRecoveries ?? 20_000;
  const nNoble = options.nobleRecoveries ?? 1_000;
  const nKeccak = options.keccakHashes ?? 200_000;
  const nEip712 = options.eip712Hashes ?? 100_000;
  const nSigs = options.signatures ?? 1_000;
  const nVrfProve = options.vrfProofs ?? 500;
  const nVrfVerify = options.vrfVerifies ?? 500;
  const nEdVerify = options.ed25519Verifies ?? 500;

  // Precompute signatures of random digests by random keys (signing is not measured).
  const samples: Sample[] = [];
  for (let i = 0; i < nSigs; i++) {
    const pk = randomPrivateKey();
    const digest = Uint8Array.from(randomBytes(32));
    const sig65 = sign(digest, pk);
    samples.push({ digest, rs: sig65.slice(0, 64), recovery: (sig65[64] - 27) as RecoveryId, sig65, signer: privateKeyToAddress(pk) });
  }

  let failures = 0;
  const native = measure(nNative, (i) => {
    const s = samples[i % nSigs];
    if (recoverPublicKey(s.digest, s.rs, s.recovery) === null) failures++;
  });
  const noble = measure(nNoble, (i) => {
    const s = samples[i % nSigs];
    if (recoverPublicKeyNoble(s.digest, s.rs, s.recovery) === null) failures++;
  });
  // The full request-path check: parse + recover + keccak + compare, 65-byte form.
  const verify = measure(nNative, (i) => {
    const s = samples[i % nSigs];
    if (!verifySigner(s.digest, s.sig65, s.signer)) failures++;
  });
  if (failures !== 0) throw new Error(`bench: ${failures} recoveries failed`);

  const input200 = Uint8Array.from(randomBytes(200));
  const keccak = measure(nKeccak, (i) => {
    input200[0] = i & 0xff; // defeat any caching
    return keccak256(input200);
  });

  const order: PlaceOrderMessage = {
    owner: '0x52908400098527886e0f7030069857d2e4169ee7',
    pairId: 1n,
    side: 0n,
    orderType: 1n,
    price: 2_500_500_000n,
    size: 1_500_000_000_000_000_000n,
    leverage: 5n,
    nonce: 0n,
  };
  const eip712 = measure(nEip712, (i) => hashTypedMessage(CHAIN_ID_MAINNET, 'PlaceOrder', { ...order, nonce: BigInt(1_700_000_000_000 + i) }));

  // ECVRF over a 64-byte alpha (the size of a block seed, the VRF output it chains from).
  const vrfKeys = Array.from({ length: 16 }, () => Uint8Array.from(randomBytes(32)));
  const vrfSamples = Array.from({ length: 64 }, (_, i) => {
    const seed = vrfKeys[i % vrfKeys.length];
    const alpha = Uint8Array.from(randomBytes(64));
    return { seed, publicKey: vrfPublicKey(seed), alpha, proof: vrfProve(seed, alpha) };
  });
  const vrfProveM = measure(nVrfProve, (i) => {
    const v = vrfSamples[i % vrfSamples.length];
    return vrfProve(v.seed, v.alpha);
  });
  const vrfVerifyM = measure(nVrfVerify, (i) => {
    const v = vrfSamples[i % vrfSamples.length];
    if (vrfVerify(v.publicKey, v.alpha, v.proof) === null) failures++;
  });
  const edSamples = vrfSamples.map((v) => ({ publicKey: v.publicKey, msg: v.alpha, sig: ed25519.sign(v.alpha, v.seed) }));
  const edVerifyM = measure(nEdVerify, (i) => {
    const e = edSamples[i % edSamples.length];
    if (!ed25519.verify(e.sig, e.msg, e.publicKey)) failures++;
  });
  if (failures !== 0) throw new Error(`bench: ${failures} VRF or ed25519 verifications failed`);

  const cpus = os.cpus();
  const result = {
    node: process.version,
    cpu: cpus[0]?.model ?? 'unknown',
    cpuCount: cpus.length,
    platform: `${process.platform}-${process.arch}`,
    // Other processes share the machine; a high load average depresses every figure.
    loadAvg1m: Math.round(os.loadavg()[0] * 100) / 100,
    distinctSignatures: nSigs,
    recoverNative: { count: nNative, ...native },
    recoverNoble: { count: nNoble, ...noble },
    nativeSpeedup: Math.round((native.opsPerSec / noble.opsPerSec) * 10) / 10,
    verifySignerNative65: { count: nNative, ...verify },
    keccak256_200B: { count: nKeccak, ...keccak },
    eip712PlaceOrder: { count: nEip712, ...eip712 },
    vrfProve64B: { count: nVrfProve, ...vrfProveM },
    vrfVerify64B: { count: nVrfVerify, ...vrfVerifyM },
    ed25519Verify64B: { count: nEdVerify, ...edVerifyM },
    vrfVerifyPerEd25519Verify: Math.round((edVerifyM.opsPerSec / vrfVerifyM.opsPerSec) * 100) / 100,
  };

  console.log(
    `crypto bench — node ${result.node}, ${result.cpu} ×${result.cpuCount}, ${result.platform}, load avg (1 min) ${result.loadAvg1m}`,
  );
  const row = (count: number, m: Measurement) => ({ count, 'ops/s (wall)': m.opsPerSec, 'ops/s (cpu)': m.opsPerCpuSec, ms: m.ms });
  console.table({
    'recover (native libsecp256k1)': row(nNative, native),
    'recover (noble, pure JS)': row(nNoble, noble),
    'verifySigner 65B (native)': row(nNative, verify),
    'keccak256 200 B': row(nKeccak, keccak),
    'EIP-712 PlaceOrder hash': row(nEip712, eip712),
    'ECVRF prove (64 B alpha)': row(nVrfProve, vrfProveM),
    'ECVRF verify (64 B alpha)': row(nVrfVerify, vrfVerifyM),
    'ed25519 verify (noble, 64 B)': row(nEdVerify, edVerifyM),
  });
  console.log(`one ECVRF verify costs ${result.vrfVerifyPerEd25519Verify} ed25519 verifies (noble, same run)`);
  console.log(`native/noble recovery speed-up: ${result.nativeSpeedup}× (${nSigs} distinct precomputed signatures of random digests)`);
  return result;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchCrypto().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
