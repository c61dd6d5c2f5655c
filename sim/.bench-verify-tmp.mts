/**
 * Cost of one ConsensusCore input, outside the simulator: validator 0 of 6 decides
 * `heights` heights from pre-signed messages of the other five (signing is not timed;
 * verification, vote counting, the machine and our own signing are).
 *   node --import tsx sim/bench-core.ts [heights] [real|fast]
 */
import { performance } from 'node:perf_hooks';
import { Step } from '../machines/consensus-round';
import { ConsensusCore, type ConsensusApp, type ConsensusInput } from '../src/consensus/core';
import { proposalSigningHash, voteSigningHash, type Vote } from '../src/consensus/messages';
import { DEVNET_TIMEOUTS, timeoutConfig } from '../src/consensus/params';
import { LocalPrivValidator } from '../src/consensus/privval';
import { Secp256k1Signer, secp256k1Verifier, type Signer, type SignatureVerifier } from '../src/consensus/signer';
import { ValidatorSet } from '../src/consensus/validator-set';
import { keccak256 } from '../src/crypto/keccak';
import { utf8 } from '../src/util/bytes';
import { FastSigner, FastVerifier } from './fast-signer';

const heights = Number(process.argv[2] ?? 2000);
const crypto = process.argv[3] === 'fast' ? 'fast' : 'real';
const CHAIN = 713799;
const secrets = Array.from({ length: 6 }, (_, i) => keccak256(utf8.encode(`bench-${i}`)));
const signers: Signer[] = crypto === 'real' ? secrets.map((s) => new Secp256k1Signer(s)) : secrets.map((s) => new FastSigner(s));
const inner: SignatureVerifier = crypto === 'real' ? secp256k1Verifier : new FastVerifier(signers as FastSigner[]);
let verifyMs = 0; let verifies = 0;
const verifier: SignatureVerifier = { verify: (h, s, a) => { const t = performance.now(); const ok = inner.verify(h, s, a); verifyMs += performance.now() - t; verifies++; return ok; } };
const set = new ValidatorSet(signers.map((s) => ({ address: s.address, power: 10n })));
const me = signers[0];
const block = (h: number) => utf8.encode(`block ${h}`);
let committed = 0;
const app: ConsensusApp = {
  proposeBlock: (h) => ({ hash: keccak256(block(h)), bytes: block(h) }),
  validateBlock: (bytes) => keccak256(bytes),
};
const core = new ConsensusCore({
  chainId: CHAIN,
  validators: set,
  privValidator: new LocalPrivValidator(me, async () => {}, null),
  verifier,
  app,
  timeouts: timeoutConfig(DEVNET_TIMEOUTS),
  height: 1,
});

// Pre-sign every input.
const plan: ConsensusInput[][] = [];
for (let h = 1; h <= heights; h++) {
  const hash = keccak256(block(h));
  const inputs: ConsensusInput[] = [{ type: 'timeout', height: h, round: 0, step: Step.NewHeight }];
  const proposer = set.proposer(h, 0, new Uint8Array(32)).address;
  const pk = signers.find((s) => s.address === proposer) as Signer;
  if (pk !== me) {
    const unsigned = { height: h, round: 0, polRound: -1, blockHash: hash, block: block(h), proposer };
    inputs.push({ type: 'proposal', proposal: { ...unsigned, signature: pk.sign(proposalSigningHash(CHAIN, unsigned)) } });
  }
  for (const type of ['prevote', 'precommit'] as const) {
    for (const s of signers.slice(1)) {
      const v = { type, height: h, round: 0, blockHash: hash, validator: s.address };
      inputs.push({ type: 'vote', vote: { ...v, signature: s.sign(voteSigningHash(CHAIN, v)) } as Vote });
    }
  }
  inputs.push({ type: 'commitDone', height: h });
  plan.push(inputs);
}

await core.start();
let n = 0;
const t0 = performance.now();
for (const inputs of plan) {
  for (const input of inputs) {
    const out = await core.handle(input);
    n++;
    for (const o of out) if (o.type === 'decide') committed++;
  }
}
const ms = performance.now() - t0;
console.log(`verify: ${verifies} calls, ${(verifyMs / heights).toFixed(2)} ms per height (${(verifyMs * 1000 / verifies).toFixed(0)} µs each), ${((100 * verifyMs) / ms).toFixed(0)} % of the core`);
if (committed !== heights) throw new Error(`decided ${committed} of ${heights}`);
console.log(
  `${crypto} crypto: ${heights} heights, ${n} inputs in ${ms.toFixed(0)} ms: ${((ms * 1000) / n).toFixed(1)} µs per input, ` +
    `${(ms / heights).toFixed(2)} ms per height for one validator of 6 (node ${process.version})`,
);
