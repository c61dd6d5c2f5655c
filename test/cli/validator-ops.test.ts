/**
 * `npm run node -- validator register|unbond|unjail`: the transactions it signs with a
 * key file are the ones execution admits (shape, signature over the key's chain id, the
 * candidate as signer), and against a real node it prints the node's refusal and exits 1
 * (a fresh key has no operator's approval to register — 403 at the node's door before
 * its funds are looked at, decision 159 — and is no validator to unjail).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { decodeTx, TxKind } from '../../src/codec/tx';
import type { RegisterValidatorBody, UnbondBody } from '../../src/codec/txs/validators';
import { registerTx, leaveOrReturnTx, tokensToWei } from '../../src/cli/validator-ops';
import { generateNodeKeys } from '../../src/node/keyfile';
import { registerValidatorOp } from '../../src/state/ops/validator-registration';
import { unbondOp } from '../../src/state/ops/validator-unbond';
import { unjailOp } from '../../src/state/ops/validator-unjail';
import { genesisHashHex } from '../../src/genesis/load';
import { devnetGenesis, useDevnetNode } from '../helpers/devnet';
import { runCli, tempDir } from './run-cli';

const { genesis } = devnetGenesis(1);
const binding = { network: genesis.network, chainId: genesis.chainId, genesisHash: genesisHashHex(genesis) };

describe('validator transactions signed from a key file', () => {
  it('RegisterValidator passes the shape checks and recovers to the candidate over the key file chain id', async () => {
    const keys = await generateNodeKeys(binding);
    const tx = decodeTx(registerTx(keys, { bondWei: tokensToWei('1000000'), name: 'seventh', endpoint: '127.0.0.1:9060', nonce: 5n }), 1 << 20);
    expect(tx.kind).toBe(TxKind.RegisterValidator);
    const body = tx.body as RegisterValidatorBody;
    registerValidatorOp.shape!(body, genesis);
    expect(registerValidatorOp.verify(tx as never, genesis.chainId)).toBe(keys.address);
    // Another chain's node recovers another address: refused as a bad signature.
    expect(() => registerValidatorOp.verify(tx as never, genesis.chainId + 1)).toThrow(/signature/);
    expect(body.bond).toBe(10n ** 24n);
  });

  it('Unbond and Unjail are signed by the validator', async () => {
    const keys = await generateNodeKeys(binding);
    for (const [kind, op] of [
      [TxKind.Unbond, unbondOp],
      [TxKind.Unjail, unjailOp],
    ] as const) {
      const tx = decodeTx(leaveOrReturnTx(keys, kind, 9n), 1 << 20);
      expect(tx.kind).toBe(kind);
      expect((tx.body as UnbondBody).validator).toBe(keys.address);
      expect(op.verify(tx as never, genesis.chainId)).toBe(keys.address);
    }
  });

  it('refuses a bond that is not a whole number of tokens', () => {
    expect(() => tokensToWei('1.5')).toThrow(/whole number/);
    expect(() => tokensToWei('-1')).toThrow(/whole number/);
  });
});

describe('the validator command against a real node', () => {
  const devnet = useDevnetNode();
  const home = tempDir('exchain-valops-');
  afterAll(() => home.remove());

  it("prints the node's refusal and exits 1", async () => {
    const made = await runCli(['init', '--home', home.path]);
    expect(made.code, made.stderr).toBe(0);
    const reg = await runCli(['validator', 'register', '--home', home.path, '--api', devnet.url, '--bond', '1000000', '--name', 'seventh', '--endpoint', '127.0.0.1:9060']);
    expect(reg.code).toBe(1);
    expect(reg.stderr).toMatch(/403 NOT_AUTHORIZED: candidate: 0x[0-9a-f]{40} has no approval by the network's operator/);
    const unjail = await runCli(['validator', 'unjail', '--home', home.path, '--api', devnet.url]);
    expect(unjail.code).toBe(1);
    expect(unjail.stderr).toMatch(/403 NOT_VALIDATOR: validator: 0x[0-9a-f]{40} is not a validator/);
    const bad = await runCli(['validator', 'register', '--home', home.path, '--api', devnet.url, '--bond', '10', '--name', 'x y', '--endpoint', 'h:1']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/400 INVALID_VALIDATOR: name/);
  }, 60_000);
});
