import { bls12_381 as curve } from '@noble/curves/bls12-381.js';
import { performance } from 'node:perf_hooks';
import { Secp256k1Signer, secp256k1Verifier } from '../src/consensus/signer';
import { keccak256 } from '../src/crypto/keccak';
import { utf8 } from '../src/util/bytes';
const bls = curve.longSignatures;
const keys = Array.from({ length: 6 }, () => bls.keygen());
const msg = bls.hash(new Uint8Array(32).fill(7));
const sigs = keys.slice(0, 5).map((k) => bls.sign(msg, k.secretKey));
const agg = bls.aggregateSignatures(sigs);
const aggPk = () => bls.aggregatePublicKeys(keys.slice(0, 5).map((k) => k.publicKey));
const signers = Array.from({ length: 5 }, (_, i) => new Secp256k1Signer(keccak256(utf8.encode(`v${i}`))));
const h = keccak256(utf8.encode('m'));
const ss = signers.map((s) => s.sign(h));
for (let round = 0; round < 3; round++) {
  let t0 = performance.now();
  for (let i = 0; i < 5; i++) if (!bls.verify(agg, msg, aggPk())) throw new Error('bad');
  const blsMs = (performance.now() - t0) / 5;
  t0 = performance.now();
  for (let i = 0; i < 40; i++) for (let j = 0; j < 5; j++) secp256k1Verifier.verify(h, ss[j], signers[j].address);
  const secpMs = (performance.now() - t0) / 40;
  console.log(`certificate of 5: BLS (noble) aggregate verify ${blsMs.toFixed(2)} ms; 5 × secp256k1 verify (the node's verifier) ${secpMs.toFixed(2)} ms`);
}
